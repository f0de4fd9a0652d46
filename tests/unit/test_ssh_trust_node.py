"""What role ssh_trust reads on a node and writes in ~/.ssh (plugins/module_utils/ssh_trust_node.py,
modules ssh_trust_node_read and ssh_trust_key_files), on real files in a temporary directory."""
import grp
import os
import pwd
import subprocess

import pytest

from ansible_collections.cluster_suite.hpc.plugins.module_utils import ssh_trust_node
from module_runner import run_module

ED25519 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBu6nVVP2qlqy9wnMHRk0rbmTTQbVm7hZ0o3HTyFJ4Ti"
OLD = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFJ0b3RhdGVkIGF3YXkgYnkgdGhlIHJvbGUgbG9uZyBhZ28x"
COMMENT = "cluster-suite:prod"
PARAMS = dict(host="node1", address="10.0.0.1", user="trainer", login="trainer", npu_group="",
              acl_package="acl", server_package="openssh-server", sshd_service="ssh")


def me(home):
    return {"name": "trainer", "uid": os.getuid(), "gid": os.getgid(), "home": str(home)}


def test_host_keys_are_type_and_blob_sorted_by_file_and_other_files_are_skipped(tmp_path):
    (tmp_path / "ssh_host_rsa_key.pub").write_text("ssh-rsa AAAAB3Nza root@node1\n")
    (tmp_path / "ssh_host_ed25519_key.pub").write_text(ED25519 + " root@node1\n")
    (tmp_path / "ssh_host_dsa_key.pub").write_text("not a key\n")
    (tmp_path / "ssh_host_x_key.pub").mkdir()
    assert ssh_trust_node.host_keys(str(tmp_path / "ssh_host_*_key.pub")) == [ED25519, "ssh-rsa AAAAB3Nza"]


def test_node_names_put_names_with_a_domain_first_and_leave_out_loopback_and_addresses():
    assert ssh_trust_node.node_names("node1.cluster.example", "node1", "node1") == ["node1.cluster.example", "node1"]
    assert ssh_trust_node.node_names("localhost.localdomain", "10.0.0.1", "node1") == ["node1"]
    assert ssh_trust_node.node_names("", "fe80::1", "") == []
    assert ssh_trust_node.node_names("localhost", "gpu7.lab", "gpu7") == ["gpu7.lab", "gpu7"]


def test_read_errors_name_the_host_and_what_to_do(monkeypatch):
    monkeypatch.setattr(ssh_trust_node, "group_exists", lambda name: name == "HwHiAiUser")
    assert ssh_trust_node.read_errors(PARAMS, [ED25519], ["10.0.0.1"], "") == []
    errors = ssh_trust_node.read_errors(dict(PARAMS, address="10.0.0.9", login="admin", npu_group="npu"),
                                        [], ["10.0.0.1", "fe80::1"], "")
    assert errors == [
        "node1: ansible_host: 10.0.0.9 is not one of this node's addresses (10.0.0.1, fe80::1); ssh_trust "
        "writes it into /etc/hosts and known_hosts as the node's cluster address, so set it to the node's host IP",
        "node1: no SSH host key found in /etc/ssh/ssh_host_*_key.pub (is openssh-server installed and has its "
        "ssh service generated its keys?)",
        "node1: ssh_trust_user: Ansible logs in as admin and becomes trainer, which needs setfacl on the node: "
        "install the package acl",
        "node1: ssh_trust_npu_group: group npu does not exist on this NPU node. The NPU driver's installer "
        "creates it (its --install-username); install the driver, or set ssh_trust_npu_group to the group "
        "that owns /dev/davinci0"]
    assert ssh_trust_node.read_errors(dict(PARAMS, login="admin", npu_group="HwHiAiUser"), [ED25519],
                                      ["10.0.0.1"], "/usr/bin/setfacl") == []


# `ip -o addr show` on a node of molecule scenario systemd (podman network, Debian 12).
IP_ADDR_SANDBOX = (
    "1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever\n"
    "1: lo    inet6 ::1/128 scope host \\       valid_lft forever preferred_lft forever\n"
    "2: eth0    inet 10.89.0.2/24 brd 10.89.0.255 scope global eth0\\       valid_lft forever preferred_lft forever\n"
    "2: eth0    inet6 fe80::858:aff:fe59:2/64 scope link \\       valid_lft forever preferred_lft forever\n")


def test_own_addresses_are_the_non_loopback_ones_ipv4_first():
    assert ssh_trust_node.own_addresses(IP_ADDR_SANDBOX) == ["10.89.0.2", "fe80::858:aff:fe59:2"]
    assert ssh_trust_node.own_addresses(IP_ADDR_SANDBOX.splitlines()[3] + "\n" + IP_ADDR_SANDBOX) == [
        "10.89.0.2", "fe80::858:aff:fe59:2"]
    assert ssh_trust_node.own_addresses("") == []


def test_the_read_module_fails_on_a_foreign_address_without_names(tmp_path):
    user = pwd.getpwuid(os.getuid()).pw_name
    ip_output = subprocess.run(["ip", "-o", "addr", "show"], capture_output=True, text=True, check=True).stdout
    mine = ssh_trust_node.own_addresses(ip_output)
    foreign = next(address for address in ("203.0.113.77", "198.51.100.77", "10.254.254.77") if address not in mine)
    result = run_module("ssh_trust_node_read", dict(PARAMS, address=foreign, user=user, login=user),
                        tmp_path / "args.json")
    assert result["failed"]
    assert result["addresses"] == mine
    assert result["msg"].startswith(
        f"node1: ansible_host: {foreign} is not one of this node's addresses ({', '.join(mine)})")
    assert "names" not in result
    assert result["user"]["uid"] == os.getuid()
    assert grp.getgrgid(os.getgid()).gr_name in result["user"]["groups"]


def test_authorized_keys_adds_the_key_once_removes_old_cluster_keys_and_keeps_the_rest():
    text = f"# mine\n{OLD} {COMMENT}\nssh-rsa AAAAB3Nza me@laptop\n\n{OLD} someone-else\n"
    new, removed = ssh_trust_node.authorized_keys(text, ED25519, COMMENT)
    assert new == f"# mine\nssh-rsa AAAAB3Nza me@laptop\n\n{OLD} someone-else\n{ED25519} {COMMENT}\n"
    assert removed == [f"{OLD} {COMMENT}"]
    assert ssh_trust_node.key_label(removed[0]) == "..." + OLD.split()[1][-16:]
    assert ssh_trust_node.authorized_keys(new, ED25519, COMMENT) == (new, [])
    with_options = f'from="10.0.0.0/8" {ED25519} {COMMENT}\n'
    assert ssh_trust_node.authorized_keys(with_options, ED25519, COMMENT) == (with_options, [])


def test_ssh_dir_creates_writes_and_then_changes_nothing(tmp_path):
    ssh_dir = ssh_trust_node.SshDir(me(tmp_path), check_mode=False)
    ssh_dir.ensure("id_ed25519", "PRIVATE\n", 0o600, show_diff=False)
    ssh_dir.ensure("id_ed25519.pub", ED25519 + "\n", 0o644)
    ssh_dir.close()
    assert ssh_dir.planned == [f"{tmp_path}/.ssh", f"{tmp_path}/.ssh/id_ed25519", f"{tmp_path}/.ssh/id_ed25519.pub"]
    assert [diff["after_header"] for diff in ssh_dir.diffs] == [f"{tmp_path}/.ssh/id_ed25519.pub"]
    assert oct((tmp_path / ".ssh").stat().st_mode & 0o777) == "0o700"
    assert oct((tmp_path / ".ssh" / "id_ed25519").stat().st_mode & 0o777) == "0o600"
    assert (tmp_path / ".ssh" / "id_ed25519").read_text() == "PRIVATE\n"
    assert sorted(os.listdir(tmp_path / ".ssh")) == ["id_ed25519", "id_ed25519.pub"]
    again = ssh_trust_node.SshDir(me(tmp_path), check_mode=False)
    again.ensure("id_ed25519", "PRIVATE\n", 0o600, show_diff=False)
    again.ensure("id_ed25519.pub", ED25519 + "\n", 0o644)
    again.close()
    assert again.planned == []


def test_ssh_dir_in_check_mode_plans_and_writes_nothing(tmp_path):
    ssh_dir = ssh_trust_node.SshDir(me(tmp_path), check_mode=True)
    ssh_dir.ensure("authorized_keys", "x\n", 0o600)
    assert ssh_dir.read("authorized_keys") is None
    ssh_dir.close()
    assert ssh_dir.planned == [f"{tmp_path}/.ssh", f"{tmp_path}/.ssh/authorized_keys"]
    assert not (tmp_path / ".ssh").exists()


def test_ssh_dir_corrects_a_mode_and_refuses_a_key_file_that_is_a_link(tmp_path):
    (tmp_path / ".ssh").mkdir(mode=0o755)
    target = tmp_path / "elsewhere"
    target.write_text("keep me\n")
    (tmp_path / ".ssh" / "authorized_keys").symlink_to(target)
    ssh_dir = ssh_trust_node.SshDir(me(tmp_path), check_mode=False)
    with pytest.raises(ssh_trust_node.UnsafeHome, match="without following a link"):
        ssh_dir.read("authorized_keys")
    os.unlink(tmp_path / ".ssh" / "authorized_keys")
    (tmp_path / ".ssh" / "id_ed25519.pub").symlink_to(target)
    with pytest.raises(ssh_trust_node.UnsafeHome):
        ssh_dir.ensure("id_ed25519.pub", ED25519 + "\n", 0o644)
    ssh_dir.close()
    assert target.read_text() == "keep me\n"
    assert oct((tmp_path / ".ssh").stat().st_mode & 0o777) == "0o700"


def test_an_ssh_dir_that_is_a_link_is_refused(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / ".ssh").symlink_to(tmp_path / "real")
    with pytest.raises(ssh_trust_node.UnsafeHome, match="is not a directory"):
        ssh_trust_node.SshDir(me(tmp_path), check_mode=False)
