"""The hccn_device_ip and hccn_netdetect modules against the sandbox's hccn_tool stand-in with a
fake network (SANDBOX_STANDIN_FAKE_IP=1): no root, no network, a temporary directory as the
node's root.

Each module runs in a subprocess as Ansible runs it on a node (arguments from a JSON file,
result as JSON on stdout); the project's module_utils are made importable under
their collection names, as Ansible's module packaging does (tests/unit/module_runner.py). Molecule (molecule/npu) runs them
through Ansible over SSH.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from module_runner import run_module

PROJECT = Path(__file__).resolve().parents[2]
HCCN_TOOL = PROJECT / "sandbox" / "stand-ins" / "Ascend" / "driver" / "tools" / "hccn_tool"


def ai_server0(devices=range(8)):
    """AI Server0 of Ascend's PyTorch multi-node training guide.

    192.168.10{0..3}.101 on devices 0-3, .100 on 4-7.
    """
    return [
        {"device": i, "address": f"192.168.10{i % 4}.{101 if i < 4 else 100}", "netmask": "255.255.255.0"}
        for i in devices
    ]


def pair():
    """Devices 0 and 4 (one subnet): enough for most cases, and quicker than 8 devices."""
    return ai_server0((0, 4))


class Node:
    def __init__(self, root):
        self.root = root
        (root / "etc" / "sandbox").mkdir(parents=True)
        (root / "etc" / "sandbox" / "npu_count").write_text("8\n")
        (root / "etc" / "sandbox" / "npu_iface").write_text("eth1\n")
        (root / "etc" / "sandbox" / "npu_health_delay").write_text("0.2\n")
        self.env = {
            "PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
            "SANDBOX_STANDIN_ROOT": str(root),
            "SANDBOX_STANDIN_FAKE_IP": "1",
        }
        self.runs = 0

    @property
    def conf(self):
        return self.root / "etc" / "hccn.conf"

    def module(self, name, args, check=False):
        """Run the module once; return its result."""
        self.runs += 1
        return run_module(name, args, self.root / f"args{self.runs}.json", check=check, env=self.env, cwd=self.root)

    def device_ip(self, devices, **extra):
        args = {"devices": devices, "hccn_tool": str(HCCN_TOOL), "hccn_conf": str(self.conf)}
        args.update(extra)
        return self.module("hccn_device_ip", args)

    def tool(self, *args):
        proc = subprocess.run([str(HCCN_TOOL), *args], env=self.env, capture_output=True, text=True, check=False)
        return proc.stdout

    def reachable(self, *addresses):
        path = self.root / "run" / "sandbox-npu" / "fake_net.json"
        state = json.loads(path.read_text()) if path.exists() else {}
        state["reachable"] = list(addresses)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(state))


@pytest.fixture
def node(tmp_path):
    return Node(tmp_path)


def test_device_ip_applies_the_plan_once_then_changes_nothing(node):
    first = node.device_ip(ai_server0())
    assert first["changed"] and not first.get("failed")
    assert len(first["commands"]) == 8
    assert first["commands"][0].endswith("-i 0 -ip -s address 192.168.100.101 netmask 255.255.255.0")
    assert node.tool("-i", "7", "-ip", "-g") == "ipaddr:192.168.103.100\nnetmask:255.255.255.0\n"
    conf = node.conf.read_text().splitlines()
    assert "address_3=192.168.103.101" in conf and len(conf) == 16
    assert not first["conf_changed"]  # hccn_tool wrote it itself

    second = node.device_ip(ai_server0())
    assert not second["changed"] and second["commands"] == []
    assert all(device["changed_settings"] == [] for device in second["devices"])


def test_device_ip_check_mode_sets_nothing(node):
    node.device_ip(pair())
    before = node.conf.read_text()
    plan = pair()
    plan[1]["address"] = "192.168.100.99"
    result = node.module(
        "hccn_device_ip",
        {"devices": plan, "hccn_tool": str(HCCN_TOOL), "hccn_conf": str(node.conf)},
        check=True,
    )
    assert result["changed"] and result["commands"][0].endswith(
        "-i 4 -ip -s address 192.168.100.99 netmask 255.255.255.0"
    )
    assert node.tool("-i", "4", "-ip", "-g").startswith("ipaddr:192.168.100.100\n")
    assert node.conf.read_text() == before


def test_device_ip_moves_an_address_held_by_a_device_that_changes_too(node):
    node.device_ip(pair())
    plan = pair()
    # Device 0 takes device 4's address while device 4 moves on: device 0's set waits for 4's.
    plan[0]["address"], plan[1]["address"] = "192.168.100.100", "192.168.100.99"
    result = node.device_ip(plan)
    assert not result.get("failed"), result.get("msg")
    assert [d["device"] for d in result["devices"] if d["changed_settings"]] == [0, 4]
    assert node.tool("-i", "0", "-ip", "-g").startswith("ipaddr:192.168.100.100\n")
    assert node.tool("-i", "4", "-ip", "-g").startswith("ipaddr:192.168.100.99\n")
    assert not node.device_ip(plan)["changed"]


def test_device_ip_swapped_addresses_are_refused_naming_the_devices(node):
    node.device_ip(pair())
    plan = pair()
    plan[0]["address"], plan[1]["address"] = plan[1]["address"], plan[0]["address"]
    result = node.device_ip(plan)
    assert result["failed"]
    assert "devices 0 and 4 would swap addresses" in result["msg"]
    assert node.tool("-i", "0", "-ip", "-g").startswith("ipaddr:192.168.100.101\n")


def test_device_ip_fixes_hccn_conf_drift_keeping_other_lines(node):
    node.device_ip(pair())
    conf = node.conf.read_text().replace("netmask_4=255.255.255.0", "netmask_4=255.255.0.0")
    node.conf.write_text("# site comment\n" + conf + "netdetect_0=192.168.100.111\n")
    result = node.device_ip(pair())
    assert result["changed"] and result["commands"] == []
    assert result["conf_changed"] and result["conf_keys"] == ["netmask_4"]
    text = node.conf.read_text()
    assert text.startswith("# site comment\n") and "netmask_4=255.255.255.0\n" in text
    assert text.endswith("netdetect_0=192.168.100.111\n")
    assert not node.device_ip(pair())["changed"]


def test_device_ip_diff_shows_devices_and_conf(node):
    result = node.module(
        "hccn_device_ip",
        {"devices": ai_server0()[:1], "hccn_tool": str(HCCN_TOOL), "hccn_conf": str(node.conf), "_ansible_diff": True},
    )
    devices, conf = result["diff"]
    assert (devices["before"], devices["after"]) == ("device 0: -/-\n", "device 0: 192.168.100.101/255.255.255.0\n")
    assert conf["before"] == "" and conf["after"] == "address_0=192.168.100.101\nnetmask_0=255.255.255.0\n"


def test_device_ip_gateway_and_detect(node):
    plan = [
        {
            "device": i,
            "address": f"10.20.0.{11 + i}",
            "netmask": "255.255.255.0",
            "gateway": "10.20.0.1",
            "detect": "10.20.0.1",
        }
        for i in range(2)
    ]
    first = node.device_ip(plan)
    assert first["changed"] and sorted(first["devices"][0]["changed_settings"]) == ["detect", "gateway", "ip"]
    assert node.tool("-i", "1", "-gateway", "-g") == "default gateway:10.20.0.1, Iface:eth1\n"
    assert node.tool("-i", "1", "-netdetect", "-g") == "netdetect address: 10.20.0.1\n"
    assert not node.device_ip(plan)["changed"]


def test_device_ip_missing_tool(node):
    result = node.module(
        "hccn_device_ip",
        {"devices": ai_server0(), "hccn_tool": "/nonexistent/hccn_tool", "hccn_conf": str(node.conf)},
    )
    assert result["failed"]
    assert result["msg"].startswith("hccn_tool not found or not executable at /nonexistent/hccn_tool")


def test_netdetect_reports_each_device_and_target(node):
    node.device_ip(ai_server0()[:2])
    node.reachable("192.168.100.111")
    args = {
        "hccn_tool": str(HCCN_TOOL),
        "delay": 0.3,
        "interval": 0.2,
        "targets": [
            {"device": 0, "targets": ["192.168.100.111", "192.168.100.121"]},
            {"device": 1, "targets": ["192.168.101.111"]},
        ],
        "target_labels": {"192.168.100.111": "node2 device 0"},
    }
    result = node.module("hccn_netdetect", args)
    assert result["changed"] and not result.get("failed")
    summary = [(r["device"], r["target"], r["status"], r["code"], r["link"]) for r in result["results"]]
    assert summary == [
        (0, "192.168.100.111", "Success", 0, "UP"),
        (1, "192.168.101.111", "Receive timeout", 2, "UP"),
        (0, "192.168.100.121", "Receive timeout", 2, "UP"),
    ]
    assert (result["total"], result["succeeded"], result["unsuccessful"]) == (3, 1, 2)
    assert result["results"][0]["target_label"] == "node2 device 0"
    assert node.tool("-i", "0", "-netdetect", "-g") == "netdetect address: 192.168.100.121\n"

    failing = node.module("hccn_netdetect", dict(args, fail_on_error=True))
    assert failing["failed"] and "1 of 3 tests succeeded; failed: device 1 (192.168.101.101)" in failing["msg"]


def test_netdetect_check_mode_sets_nothing(node):
    node.device_ip(ai_server0()[:1])
    args = {"hccn_tool": str(HCCN_TOOL), "targets": [{"device": 0, "targets": ["192.168.100.111"]}]}
    result = node.module("hccn_netdetect", args, check=True)
    assert not result["changed"]
    [entry] = result["results"]
    assert (entry["tested"], entry["success"], entry["detect_address"], entry["status"]) == (False, False, None, "Init")
    assert "check mode" in result["msg"]
    assert node.tool("-i", "0", "-netdetect", "-g") == "netdetect address: 0.0.0.0\n"
