"""The deletion contract on a node (plugins/module_utils/job_workspace.py): the suite clears only its own
directories inside a job directory it made, and follows no symlink out of it."""

import os
import tarfile

import pytest

import job_workspace

CLEAR = ["logs", "run", "bin", "tls", "code"]
MAKE = ["run", "bin", "logs", "logs/status"]


@pytest.fixture
def home(tmp_path):
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "authorized_keys").write_text("key\n")
    (home / "notes.txt").write_text("mine\n")
    return home


def test_first_launch_makes_a_marked_private_directory(home):
    job_dir = str(home / "jobs" / "t")
    result = job_workspace.prepare(str(home), job_dir, "t", CLEAR, MAKE)
    assert result["created"] and result["changed"]
    assert os.path.isfile(os.path.join(job_dir, job_workspace.MARKER))
    assert oct(os.stat(job_dir).st_mode & 0o777) == "0o700"
    assert all(os.path.isdir(os.path.join(job_dir, path)) for path in MAKE)


def test_second_launch_clears_only_the_suites_own_directories(home):
    job_dir = home / "jobs" / "t"
    job_workspace.prepare(str(home), str(job_dir), "t", CLEAR, MAKE)
    (job_dir / "logs" / "old.log").write_text("old\n")
    (job_dir / "checkpoints").mkdir()
    (job_dir / "checkpoints" / "step1.ckpt").write_text("weights\n")
    result = job_workspace.prepare(str(home), str(job_dir), "t", CLEAR, MAKE)
    assert not result["created"]
    assert not (job_dir / "logs" / "old.log").exists()
    assert (job_dir / "checkpoints" / "step1.ckpt").read_text() == "weights\n"


def test_check_mode_changes_nothing(home):
    job_dir = home / "jobs" / "t"
    result = job_workspace.prepare(str(home), str(job_dir), "t", CLEAR, MAKE, check_mode=True)
    assert result["changed"] and not job_dir.exists()


def test_a_directory_the_suite_did_not_make_is_refused(home):
    job_dir = home / "jobs" / "t"
    job_dir.mkdir(parents=True)
    (job_dir / "logs").mkdir()
    (job_dir / "logs" / "precious.txt").write_text("keep\n")
    with pytest.raises(ValueError) as info:
        job_workspace.prepare(str(home), str(job_dir), "t", CLEAR, MAKE)
    assert "job_base_dir: job directory" in info.value.args[0][0] and "not made by the suite" in info.value.args[0][0]
    assert (job_dir / "logs" / "precious.txt").read_text() == "keep\n"


@pytest.mark.parametrize("relative", ["logs", "run", "code"])
def test_a_planted_symlink_is_neither_followed_nor_deleted(home, relative):
    job_dir = home / "jobs" / "t"
    job_workspace.prepare(str(home), str(job_dir), "t", CLEAR, MAKE)
    target = job_dir / relative
    if target.exists():
        os.rename(target, job_dir / "moved")
    os.symlink(home / ".ssh", target)
    problems = job_workspace.problems(str(home), str(job_dir), [(relative, "job_log_dir")])
    assert problems and problems[0].startswith("job_log_dir: ") and "is a symlink" in problems[0]
    with pytest.raises(ValueError):
        job_workspace.prepare(str(home), str(job_dir), "t", CLEAR, MAKE)
    assert (home / ".ssh" / "authorized_keys").read_text() == "key\n"
    assert os.path.islink(target)


def test_a_symlink_deeper_down_is_refused_too(home):
    job_dir = home / "jobs" / "t"
    job_workspace.prepare(str(home), str(job_dir), "t", CLEAR, MAKE)
    os.rmdir(job_dir / "logs" / "status")
    os.symlink(home, job_dir / "logs" / "status")
    with pytest.raises(ValueError):
        job_workspace.prepare(str(home), str(job_dir), "t", CLEAR, MAKE)
    assert (home / "notes.txt").exists()


def test_a_job_directory_that_is_a_symlink_is_refused(home):
    (home / "jobs").mkdir()
    os.symlink(home, home / "jobs" / "t")
    with pytest.raises(ValueError) as info:
        job_workspace.prepare(str(home), str(home / "jobs" / "t"), "t", CLEAR, MAKE)
    assert "is a symlink" in info.value.args[0][0]
    assert (home / "notes.txt").exists() and (home / ".ssh").is_dir()


def test_the_home_and_dot_directories_are_refused(home):
    assert "the home or root directory itself" in job_workspace.problems(str(home), str(home), [])[0]
    os.symlink(home / ".ssh", home / "jobs-link")
    found = job_workspace.problems(str(home), str(home / "jobs-link" / "t"), [])
    assert found and "inside the dot-directory .ssh" in found[0]


@pytest.mark.parametrize("relative", ["../x", "/abs", ".hidden", "a/./b", ""])
def test_relative_paths_stay_below(home, relative):
    found = job_workspace.problems(str(home), str(home / "jobs" / "t"), [(relative, "job_log_dir")])
    assert found and found[0].startswith("job_log_dir: ")


def launched(home):
    job_dir = home / "jobs" / "t"
    job_workspace.prepare(str(home), str(job_dir), "t", CLEAR, MAKE)
    (job_dir / "logs" / "worker_0.log").write_text("step: 0, loss: 1.0\n")
    return job_dir


def test_pack_stores_links_as_links_and_follows_none(home):
    job_dir = launched(home)
    os.symlink(home / ".ssh", job_dir / "logs" / "keys")
    result = job_workspace.pack(str(home), str(job_dir), "logs", "run/logs.tar.gz")
    with tarfile.open(result["archive"]) as tar:
        members = {member.name: member for member in tar.getmembers()}
    assert members["./worker_0.log"].isfile()
    assert members["./keys"].issym()
    assert not any("authorized_keys" in name for name in members)


@pytest.mark.parametrize("planted", ["run/logs.tar.gz", "logs", "run"])
def test_pack_refuses_planted_links(home, planted):
    job_dir = launched(home)
    victim = home / "victim"
    victim.write_text("victim\n")
    target = job_dir / planted
    if target.is_dir():
        os.rename(target, job_dir / "moved")
    os.symlink(victim if planted.endswith(".gz") else home / ".ssh", target)
    with pytest.raises(ValueError) as info:
        job_workspace.pack(str(home), str(job_dir), "logs", "run/logs.tar.gz")
    assert "is a symlink" in " ".join(info.value.args[0])
    assert victim.read_text() == "victim\n"
    assert (home / ".ssh" / "authorized_keys").read_text() == "key\n"
