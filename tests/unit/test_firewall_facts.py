"""Module firewall_facts (plugins/modules/firewall_facts.py), run as Ansible runs it, with a ufw
stand-in that prints what `ufw status` prints (ufw's own output lines)."""
from module_runner import run_module


def fake_ufw(tmp_path, status):
    ufw = tmp_path / "ufw"
    ufw.write_text(f"#!/bin/sh\n[ \"$1\" = status ] || exit 2\necho 'Status: {status}'\n")
    ufw.chmod(0o755)
    return str(ufw)


def test_ufw_found_and_its_state_read_and_a_missing_firewalld_not_found(tmp_path):
    args = dict(host="node1", mode="disabled", ufw_binary=fake_ufw(tmp_path, "active"),
                firewalld_binary=str(tmp_path / "firewall-cmd"), firewalld_service="cluster-suite-no-such-unit")
    result = run_module("firewall_facts", args, tmp_path / "args.json")
    assert (result["found"], result["active"], result["changed"]) == (["ufw"], ["ufw"], False)
    args["ufw_binary"] = fake_ufw(tmp_path, "inactive")
    assert run_module("firewall_facts", args, tmp_path / "args.json")["active"] == []


def test_firewalld_counts_by_its_binary_and_nothing_found_is_an_empty_list(tmp_path):
    cmd = tmp_path / "firewall-cmd"
    cmd.write_text("#!/bin/sh\n")
    args = dict(host="node1", mode="open_ports", ufw_binary=str(tmp_path / "no-ufw"), firewalld_binary=str(cmd),
                firewalld_service="cluster-suite-no-such-unit")
    assert run_module("firewall_facts", args, tmp_path / "args.json")["found"] == ["firewalld"]
    cmd.unlink()
    assert run_module("firewall_facts", args, tmp_path / "args.json")["found"] == []


def test_a_failing_ufw_status_fails_naming_the_host(tmp_path):
    ufw = tmp_path / "ufw"
    ufw.write_text("#!/bin/sh\necho 'ERROR: You need to be root to run this script' >&2\nexit 1\n")
    ufw.chmod(0o755)
    result = run_module("firewall_facts", dict(host="node1", mode="disabled", ufw_binary=str(ufw),
                                               firewalld_binary=str(tmp_path / "x")), tmp_path / "args.json")
    assert result["failed"]
    assert result["msg"] == "node1: `ufw status` failed (rc 1): ERROR: You need to be root to run this script"
