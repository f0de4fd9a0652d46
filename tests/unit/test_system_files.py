"""Module system_files (plugins/modules/system_files.py), run as Ansible runs it, on real files."""
import grp
import os
import pwd

from ansible_collections.cluster_suite.hpc.plugins.modules.system_files import with_block
from module_runner import run_module

MARKER = "# {mark} cluster-suite ssh_trust: cluster nodes (managed by Ansible, do not edit)"
BEGIN, END = MARKER.format(mark="BEGIN"), MARKER.format(mark="END")
# /etc/hosts of node1 of a 3-node sandbox after site.yml (role ssh_trust's block, the sandbox's lines).
HOSTS = (f"{BEGIN}\n10.89.0.2  node1\n10.89.0.3  node2\n10.89.0.4  node3\n{END}\n"
         "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n127.0.1.1\tnode1\n")


def me():
    return dict(owner=pwd.getpwuid(os.getuid()).pw_name, group=grp.getgrgid(os.getgid()).gr_name)


def test_a_block_is_replaced_where_it_is_and_put_at_the_top_where_it_is_not():
    assert with_block(HOSTS, "10.89.0.2  node1\n10.89.0.3  node2\n10.89.0.4  node3", MARKER) == HOSTS
    assert with_block(HOSTS, "10.89.0.2  node1", MARKER) == (
        f"{BEGIN}\n10.89.0.2  node1\n{END}\n" + HOSTS.split(END + "\n")[1])
    users = "127.0.0.1\tlocalhost\n127.0.1.1\tnode1"
    assert with_block(users, "10.0.0.1  node1", MARKER) == f"{BEGIN}\n10.0.0.1  node1\n{END}\n{users}\n"
    assert with_block("", "10.0.0.1  node1", MARKER) == f"{BEGIN}\n10.0.0.1  node1\n{END}\n"
    moved = f"127.0.0.1\tlocalhost\n{BEGIN}\nold\n{END}\n"
    assert with_block(moved, "new", MARKER) == f"127.0.0.1\tlocalhost\n{BEGIN}\nnew\n{END}\n"


def test_files_are_written_once_with_their_mode_and_a_backup_then_left_alone(tmp_path):
    (tmp_path / "hosts").write_text("127.0.0.1\tlocalhost\n")
    (tmp_path / "known_hosts").write_text("old\n")
    (tmp_path / "known_hosts").chmod(0o600)
    args = dict(me(), files=[
        dict(path=str(tmp_path / "hosts"), content="10.0.0.1  node1", marker=MARKER),
        dict(path=str(tmp_path / "known_hosts"), content="node1 ssh-ed25519 AAAA\n", backup=True),
        dict(path=str(tmp_path / "openmpi.sh"), content="export MPI_HOME=/opt\n", mode="0644")])
    planned = run_module("system_files", args, tmp_path / "args.json", check=True)
    assert planned["changed"] and len(planned["written"]) == 3
    assert (tmp_path / "known_hosts").read_text() == "old\n" and not (tmp_path / "openmpi.sh").exists()
    result = run_module("system_files", args, tmp_path / "args.json")
    assert result["written"] == [str(tmp_path / name) for name in ("hosts", "known_hosts", "openmpi.sh")]
    assert (tmp_path / "hosts").read_text() == f"{BEGIN}\n10.0.0.1  node1\n{END}\n127.0.0.1\tlocalhost\n"
    assert (tmp_path / "known_hosts").read_text() == "node1 ssh-ed25519 AAAA\n"
    assert [oct((tmp_path / name).stat().st_mode & 0o777) for name in ("hosts", "known_hosts", "openmpi.sh")] == [
        "0o644"] * 3
    backup = result["backups"][0].split(" -> ")[1]
    assert result["backups"][0].startswith(str(tmp_path / "known_hosts") + " -> ")
    assert open(backup, encoding="utf-8").read() == "old\n"
    assert sorted(os.listdir(tmp_path)) == sorted(["args.json", "hosts", "known_hosts", "openmpi.sh",
                                                   os.path.basename(backup)])
    again = run_module("system_files", args, tmp_path / "args.json")
    assert not again["changed"] and again["written"] == [] and again["backups"] == []


def test_a_mode_alone_is_corrected(tmp_path):
    (tmp_path / "openmpi.conf").write_text("/opt/lib\n")
    (tmp_path / "openmpi.conf").chmod(0o600)
    args = dict(me(), files=[dict(path=str(tmp_path / "openmpi.conf"), content="/opt/lib\n")])
    result = run_module("system_files", args, tmp_path / "args.json")
    assert result["changed"] and result["written"] == [str(tmp_path / "openmpi.conf")]
    assert oct((tmp_path / "openmpi.conf").stat().st_mode & 0o777) == "0o644"


def test_a_link_or_a_missing_directory_is_refused_before_anything_is_written(tmp_path):
    (tmp_path / "target").write_text("keep me\n")
    (tmp_path / "hosts").symlink_to(tmp_path / "target")
    args = dict(me(), files=[dict(path=str(tmp_path / "first"), content="x\n"),
                             dict(path=str(tmp_path / "hosts"), content="y\n")])
    result = run_module("system_files", args, tmp_path / "args.json")
    assert result["failed"] and result["msg"] == f"{tmp_path}/hosts: not a regular file (nothing was written)"
    assert not (tmp_path / "first").exists() and (tmp_path / "target").read_text() == "keep me\n"
    missing = run_module("system_files", dict(me(), files=[dict(path=str(tmp_path / "no" / "file"), content="")]),
                         tmp_path / "args.json")
    assert missing["msg"] == f"{tmp_path}/no/file: not an absolute path in an existing directory (nothing was written)"
