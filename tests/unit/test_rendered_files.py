"""Tests for plugins/module_utils/rendered_files.py (module rendered_files, used by playbooks/render.yml)."""

import os
import stat

import pytest

import rendered_files


def mode_of(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def test_writes_files_with_their_modes_and_directories(tmp_path):
    files = [{"path": "node1/launch.sh", "content": "#!/bin/sh\necho hi\n", "mode": "0755"},
             {"path": "node1/bin/python", "content": "#!/bin/sh\n", "mode": "0755"},
             {"path": "node2/job.env", "content": "export A=1\n", "mode": "0644"}]
    result = rendered_files.write_files(str(tmp_path), files)
    assert result == {"written": ["node1/launch.sh", "node1/bin/python", "node2/job.env"], "unchanged": 0,
                      "removed": []}
    assert (tmp_path / "node1/launch.sh").read_text() == "#!/bin/sh\necho hi\n"
    assert mode_of(tmp_path / "node1/launch.sh") == 0o755
    assert mode_of(tmp_path / "node2/job.env") == 0o644
    assert not [name for name in os.listdir(tmp_path / "node1") if name.startswith(".rendered-")]


def test_second_run_only_rewrites_what_differs(tmp_path):
    files = [{"path": "a/x", "content": "one\n", "mode": "0644"}, {"path": "a/y", "content": "two\n", "mode": "0644"}]
    rendered_files.write_files(str(tmp_path), files)
    files[1] = {"path": "a/y", "content": "two\n", "mode": "0600"}
    result = rendered_files.write_files(str(tmp_path), files)
    assert result["written"] == ["a/y"] and result["unchanged"] == 1
    assert mode_of(tmp_path / "a/y") == 0o600


def test_removes_listed_files_when_present(tmp_path):
    (tmp_path / "node1").mkdir()
    (tmp_path / "node1/hostfile").write_text("old\n")
    result = rendered_files.write_files(str(tmp_path), [{"path": "node1/job.env", "content": "", "mode": "0644"}],
                                        remove=["node1/hostfile", "node1/rank.sh"])
    assert result["removed"] == ["node1/hostfile"]
    assert not (tmp_path / "node1/hostfile").exists()


def test_check_mode_changes_nothing(tmp_path):
    (tmp_path / "old").write_text("x")
    result = rendered_files.write_files(str(tmp_path), [{"path": "new", "content": "y", "mode": "0644"}],
                                        remove=["old"], check_mode=True)
    assert result == {"written": ["new"], "unchanged": 0, "removed": ["old"]}
    assert sorted(os.listdir(tmp_path)) == ["old"]


@pytest.mark.parametrize("path", ["/etc/passwd", "../x", "a/../../x", "a//b", "./a", "", None])
def test_paths_may_not_leave_the_root(tmp_path, path):
    with pytest.raises(rendered_files.RenderedFilesError) as error:
        rendered_files.write_files(str(tmp_path), [{"path": path, "content": "x", "mode": "0644"}])
    assert "files[0]" in str(error.value)
    assert os.listdir(tmp_path) == []


def test_every_problem_at_once_before_writing(tmp_path):
    files = [{"path": "ok", "content": "x", "mode": "0644"}, {"path": "ok", "content": "x", "mode": "0644"},
             {"path": "m", "content": "x", "mode": "rwx"}, {"path": "c", "content": 3, "mode": "0644"}, "text"]
    with pytest.raises(rendered_files.RenderedFilesError) as error:
        rendered_files.write_files(str(tmp_path), files, remove=["ok", "../up"])
    assert error.value.errors == [
        "files[1]: ok: listed twice",
        "files[2]: m: mode 'rwx' is not an octal mode such as '0755'",
        "files[3]: c: content must be text",
        "files[4]: must be a dict with path, content and mode",
        "remove: ok: also in files",
        "remove: ../up: empty, '.' and '..' parts are not allowed",
    ]
    assert os.listdir(tmp_path) == []


def test_root_must_be_absolute():
    with pytest.raises(rendered_files.RenderedFilesError, match="root: 'relative' must be an absolute path"):
        rendered_files.write_files("relative", [])


@pytest.mark.parametrize("mode, value", [("0755", 0o755), ("644", 0o644), (0o600, 0o600)])
def test_parse_mode(mode, value):
    assert rendered_files.parse_mode(mode) == value


@pytest.mark.parametrize("mode", ["0799", "u+x", "", True, "77777"])
def test_parse_mode_refuses(mode):
    with pytest.raises(ValueError):
        rendered_files.parse_mode(mode)
