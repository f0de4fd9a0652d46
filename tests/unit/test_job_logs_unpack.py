"""plugins/plugin_utils/job_log_unpack.unpack_logs: a node's log archive is data. Crafted archives (links,
absolute names, '..', devices, fifos, setuid modes) never write outside logs/<job>/<host>/ and
regular files come out byte for byte."""

import io
import os
import stat
import subprocess
import tarfile

import pytest

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs import log_summary as job_log_summary
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs import log_unpack as job_log_unpack


def add(tar, name, kind=tarfile.REGTYPE, data=b"", link="", mode=0o644):
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.mode, info.mtime = kind, link, mode, 1700000000
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    tar.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)


def archive(path, members):
    with tarfile.open(path, "w:gz", format=tarfile.GNU_FORMAT) as tar:
        for member in members:
            add(tar, *member[:2], **member[2] if len(member) > 2 else {})
    return str(path)


def tree(root):
    """{relative path: 'dir' | 'link' | bytes} of everything under root, links not followed."""
    found = {}
    for dirpath, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            found[rel] = "link" if os.path.islink(path) else "dir" if os.path.isdir(path) else open(path, "rb").read()
    return found


@pytest.fixture(name="place")
def fixture_place(tmp_path):
    """(logs/<job> root, a folder outside it holding a victim file)."""
    outside = tmp_path / "home" / ".ssh"
    outside.mkdir(parents=True)
    (outside / "authorized_keys").write_bytes(b"controller key\n")
    return tmp_path / "project" / "logs" / "job", outside


def test_regular_files_and_directories_come_out_byte_for_byte(tmp_path, place):
    root, _outside = place
    big = os.urandom(3 * 1024 * 1024 + 17)  # more than one copy chunk
    path = archive(tmp_path / "a.tgz", [
        (".", tarfile.DIRTYPE, {"mode": 0o755}),
        ("./status", tarfile.DIRTYPE, {"mode": 0o777}),
        ("./status/rank_0.json", tarfile.REGTYPE, {"data": b'{"rank": 0, "exit": 0}'}),
        ("./worker_0.log", tarfile.REGTYPE, {"data": big}),
        ("./empty.log", tarfile.REGTYPE),
        ("mpirun/1/rank.1/stdout", tarfile.REGTYPE, {"data": b"\x00\xff binary\n"}),
    ])
    result = job_log_unpack.unpack_logs(path, str(root), "node1")
    assert result == {"files": 4, "bytes": len(big) + 22 + 10, "not_copied": []}
    assert tree(root / "node1") == {
        "status": "dir", "status/rank_0.json": b'{"rank": 0, "exit": 0}', "worker_0.log": big,
        "empty.log": b"", "mpirun": "dir", "mpirun/1": "dir", "mpirun/1/rank.1": "dir",
        "mpirun/1/rank.1/stdout": b"\x00\xff binary\n"}
    assert stat.S_IMODE(os.stat(root / "node1" / "status").st_mode) == 0o755
    assert os.stat(root / "node1" / "worker_0.log").st_mtime == 1700000000


def test_symlink_then_write_through_it_stays_inside(tmp_path, place):
    root, outside = place
    path = archive(tmp_path / "a.tgz", [
        ("./x", tarfile.SYMTYPE, {"link": str(outside)}),
        ("./x/authorized_keys", tarfile.REGTYPE, {"data": b"attacker key\n"}),
        ("./rel", tarfile.SYMTYPE, {"link": "../../../../home/.ssh"}),
        ("./rel/authorized_keys", tarfile.REGTYPE, {"data": b"attacker key\n"}),
    ])
    result = job_log_unpack.unpack_logs(path, str(root), "node1")
    assert (outside / "authorized_keys").read_bytes() == b"controller key\n"
    assert os.listdir(outside) == ["authorized_keys"]
    assert result["not_copied"] == [
        {"member": "./x", "reason": f"symbolic link to {outside}"},
        {"member": "./rel", "reason": "symbolic link to ../../../../home/.ssh"}]
    # What was meant to go through the link is an ordinary file inside the node's folder.
    assert tree(root / "node1") == {"x": "dir", "x/authorized_keys": b"attacker key\n",
                                    "rel": "dir", "rel/authorized_keys": b"attacker key\n"}


def test_absolute_dotdot_hardlink_fifo_device_are_left_out(tmp_path, place):
    root, outside = place
    victim = outside / "authorized_keys"
    path = archive(tmp_path / "a.tgz", [
        (str(outside / "abs"), tarfile.REGTYPE, {"data": b"x"}),
        ("../escape", tarfile.REGTYPE, {"data": b"x"}),
        ("./a/../../../escape2", tarfile.REGTYPE, {"data": b"x"}),
        ("./passwd", tarfile.LNKTYPE, {"link": "/etc/passwd"}),
        ("./keys", tarfile.LNKTYPE, {"link": str(victim)}),
        ("./keys", tarfile.REGTYPE, {"data": b"attacker key\n"}),  # would write through the hard link
        ("./fifo", tarfile.FIFOTYPE),
        ("./null", tarfile.CHRTYPE),
        ("./disk", tarfile.BLKTYPE),
        ("./suid", tarfile.REGTYPE, {"data": b"#!/bin/sh\n", "mode": 0o6777}),
        ("./ok.log", tarfile.REGTYPE, {"data": b"fine\n"}),
    ])
    result = job_log_unpack.unpack_logs(path, str(root), "node1")
    reasons = {item["member"]: item["reason"] for item in result["not_copied"]}
    assert reasons == {
        str(outside / "abs"): "absolute path", "../escape": "'..' in the path",
        "./a/../../../escape2": "'..' in the path", "./passwd": "hard link to /etc/passwd",
        "./keys": f"hard link to {victim}", "./fifo": "fifo", "./null": "device", "./disk": "device"}
    assert victim.read_bytes() == b"controller key\n" and sorted(os.listdir(outside)) == ["authorized_keys"]
    assert not (tmp_path / "project" / "logs" / "escape").exists() and not (tmp_path / "escape2").exists()
    assert tree(root / "node1") == {"keys": b"attacker key\n", "suid": b"#!/bin/sh\n", "ok.log": b"fine\n"}
    assert stat.S_IMODE(os.stat(root / "node1" / "suid").st_mode) == 0o755
    assert stat.S_IMODE(os.stat(root / "node1" / "keys").st_mode) == 0o644
    with open("/etc/passwd", "rb") as handle:
        assert handle.read(1)  # untouched and still readable


def test_previous_copy_is_replaced_without_following_links(tmp_path, place):
    root, outside = place
    (root / "node1" / "old").mkdir(parents=True)
    (root / "node1" / "old" / "stale.log").write_text("stale")
    os.symlink(outside, root / "node1" / "linked")  # left by an older gather
    os.symlink(outside, root / "node2")             # the node's folder itself is a link
    path = archive(tmp_path / "a.tgz", [("./new.log", tarfile.REGTYPE, {"data": b"new\n"})])
    job_log_unpack.unpack_logs(path, str(root), "node1")
    job_log_unpack.unpack_logs(path, str(root), "node2")
    assert tree(root) == {"node1": "dir", "node1/new.log": b"new\n", "node2": "dir", "node2/new.log": b"new\n"}
    assert tree(outside) == {"authorized_keys": b"controller key\n"}


def test_a_linked_job_folder_is_refused(tmp_path, place):
    root, outside = place
    root.parent.mkdir(parents=True)
    os.symlink(outside, root)
    (outside / "node1").mkdir()
    (outside / "node1" / "keep").write_text("keep")
    path = archive(tmp_path / "a.tgz", [("./new.log", tarfile.REGTYPE, {"data": b"new\n"})])
    with pytest.raises(job_log_unpack.UnpackError, match=f"{root} is a symbolic link or not a directory"):
        job_log_unpack.unpack_logs(path, str(root), "node1")
    assert tree(outside) == {"authorized_keys": b"controller key\n", "node1": "dir", "node1/keep": b"keep"}


def test_real_tar_of_a_log_dir_with_links(tmp_path, place):
    root, outside = place
    logs = tmp_path / "node" / "logs"
    (logs / "status").mkdir(parents=True)
    (logs / "worker_0.log").write_text("step: 0, loss: 1.0\n")
    (logs / "status" / "rank_0.json").write_text('{"rank": 0, "exit": 0}')
    os.symlink(outside, logs / "ssh")
    os.symlink(outside / "authorized_keys", logs / "worker_1.log")
    os.link(logs / "worker_0.log", logs / "copy.log")
    os.mkfifo(logs / "pipe")
    path = str(tmp_path / "logs.tar.gz")
    subprocess.run(["tar", "-C", str(logs), "-czf", path, "."], check=True)
    result = job_log_unpack.unpack_logs(path, str(root), "node1")
    assert sorted(item["member"] for item in result["not_copied"]) == ["./pipe", "./ssh", "./worker_1.log"]
    # Two names of one log (tar stores the second as a hard link): both are plain copies.
    copied = tree(root / "node1")
    assert copied["worker_0.log"] == copied["copy.log"] == b"step: 0, loss: 1.0\n"
    assert os.stat(root / "node1" / "worker_0.log").st_ino != os.stat(root / "node1" / "copy.log").st_ino
    assert set(copied) == {"status", "status/rank_0.json", "worker_0.log", "copy.log"}
    summary = job_log_summary.summarize(str(root), "j", "msrun", {0: "node1", 1: "node1"},
                                 not_copied={"node1": result["not_copied"]})
    assert summary["not_copied"]["node1"] == result["not_copied"]
    assert "  node1: " in summary["text"] and "./ssh (symbolic link to " in summary["text"]


def test_summary_never_reads_through_links(tmp_path, place):
    root, outside = place
    (outside / "secret").write_text("Traceback (most recent call last)\nRuntimeError: secret\n")
    (root / "node1" / "status").mkdir(parents=True)
    os.symlink(outside / "secret", root / "node1" / "worker_0.log")
    os.symlink(outside, root / "node2")
    summary = job_log_summary.summarize(str(root), "j", "msrun", {0: "node1"})
    assert "secret" not in str(summary)


def test_check_mode_writes_nothing_and_bad_archives_fail(tmp_path, place):
    root, _outside = place
    path = archive(tmp_path / "a.tgz", [("./a.log", tarfile.REGTYPE, {"data": b"abc"}),
                                        ("./b.log", tarfile.LNKTYPE, {"link": "./a.log"}),
                                        ("./l", tarfile.SYMTYPE, {"link": "/"})])
    assert job_log_unpack.unpack_logs(path, str(root), "node1", check=True) == {
        "files": 2, "bytes": 6, "not_copied": [{"member": "./l", "reason": "symbolic link to /"}]}
    assert not root.exists()
    (tmp_path / "bad.tgz").write_bytes(b"not a tar at all")
    with pytest.raises(job_log_unpack.UnpackError, match="cannot read the archive"):
        job_log_unpack.unpack_logs(str(tmp_path / "bad.tgz"), str(root), "node1")
    with pytest.raises(job_log_unpack.UnpackError, match="is not a usable folder name"):
        job_log_unpack.unpack_logs(path, str(root), "..")
