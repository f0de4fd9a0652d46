"""Tests of the sandbox's NPU stand-ins: hccn_tool, npu-smi and the CANN directory layout.

The tools run as subprocesses with SANDBOX_STANDIN_ROOT pointing at a temporary directory and
SANDBOX_STANDIN_FAKE_IP=1, so `ip` and `ping` are simulated (no root, no network). One test,
root only, runs hccn_tool for real inside a network namespace with 192.168.x addresses.
"""

import json
import os
import re
import shutil
import subprocess
import time
import uuid
from pathlib import Path

import pytest

STAND_INS = Path(__file__).resolve().parents[2] / "sandbox" / "stand-ins"
HCCN_TOOL = STAND_INS / "Ascend" / "driver" / "tools" / "hccn_tool"
NPU_SMI = STAND_INS / "npu-smi"
TOOLKIT = STAND_INS / "Ascend" / "ascend-toolkit"


class Node:
    """A fake node root: /etc/sandbox settings, /etc/hccn.conf, the fake network state."""

    def __init__(self, root, fake_ip=True):
        self.root = root
        self.env = dict(os.environ, SANDBOX_STANDIN_ROOT=str(root))
        self.env.pop("SANDBOX_STANDIN_FAKE_IP", None)
        if fake_ip:
            self.env["SANDBOX_STANDIN_FAKE_IP"] = "1"
        self.run_dir = root / "run" / "sandbox-npu"

    def setting(self, name, value):
        path = self.root / "etc" / "sandbox" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{value}\n")

    def run(self, tool, *args, prefix=()):
        return subprocess.run([*prefix, str(tool), *args], env=self.env, capture_output=True,
                              text=True, timeout=60, check=False)

    def hccn(self, *args, **kwargs):
        return self.run(HCCN_TOOL, *args, **kwargs)

    def ok(self, *args, **kwargs):
        """Run hccn_tool, expect success, return stdout."""
        proc = self.hccn(*args, **kwargs)
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr == ""
        return proc.stdout

    @property
    def conf_path(self):
        return self.root / "etc" / "hccn.conf"

    def conf(self):
        return self.conf_path.read_text().splitlines() if self.conf_path.exists() else []

    def net_log(self):
        path = self.run_dir / "fake_net.log"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []

    def changes(self):
        """Fake `ip` and `ping` command lines, without the read-only `ip ... show`."""
        return [argv for argv in self.net_log() if argv[:4] != ["ip", "-j", "addr", "show"]]

    def pings(self):
        return [argv for argv in self.net_log() if argv[0] == "ping"]

    def fault(self, device, name, value=""):
        """Switch a fault of one device on, as a Molecule case does on a sandbox node."""
        path = self.root / "etc" / "sandbox" / "npu_faults" / str(device) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{value}\n")

    def fake_state(self, **state):
        self.run_dir.mkdir(parents=True, exist_ok=True)
        path = self.run_dir / "fake_net.json"
        current = json.loads(path.read_text()) if path.exists() else {}
        current.update(state)
        path.write_text(json.dumps(current))


def eight_device_node(root):
    """A fake node with 8 devices on eth1, no health delay, and the driver's version.info."""
    n = Node(root)
    n.setting("npu_count", 8)
    n.setting("npu_iface", "eth1")
    n.setting("npu_health_delay", 0)
    version = root / "usr" / "local" / "Ascend" / "driver" / "version.info"
    version.parent.mkdir(parents=True)
    shutil.copy(STAND_INS / "Ascend" / "driver" / "version.info", version)
    return n


@pytest.fixture
def node(tmp_path):
    return eight_device_node(tmp_path)


def set_ip(node, dev, address, netmask="255.255.255.0"):
    assert node.ok("-i", str(dev), "-ip", "-s", "address", address, "netmask", netmask) == ""


# ------------------------------------------------------------------------- hccn_tool: -ip


def test_ip_set_adds_labelled_address_and_persists(node):
    set_ip(node, 0, "192.168.100.101")
    assert node.changes() == [
        ["ip", "addr", "add", "192.168.100.101/24", "dev", "eth1", "label", "eth1:0"]]
    assert node.conf() == ["address_0=192.168.100.101", "netmask_0=255.255.255.0"]
    assert node.ok("-i", "0", "-ip", "-g") == "ipaddr:192.168.100.101\nnetmask:255.255.255.0\n"


def test_ip_set_replaces_only_this_devices_address(node):
    set_ip(node, 0, "192.168.100.101")
    set_ip(node, 4, "192.168.100.100")
    set_ip(node, 0, "192.168.100.102", "255.255.0.0")
    assert node.changes()[2:] == [
        ["ip", "addr", "del", "192.168.100.101/24", "dev", "eth1"],
        ["ip", "addr", "add", "192.168.100.102/16", "dev", "eth1", "label", "eth1:0"]]
    assert node.ok("-i", "0", "-ip", "-g") == "ipaddr:192.168.100.102\nnetmask:255.255.0.0\n"
    assert node.ok("-i", "4", "-ip", "-g") == "ipaddr:192.168.100.100\nnetmask:255.255.255.0\n"


def test_ip_set_same_address_again_changes_nothing(node):
    set_ip(node, 0, "192.168.100.101")
    set_ip(node, 0, "192.168.100.101")
    assert len(node.changes()) == 1


def test_hccn_conf_keeps_other_lines_in_place(node):
    node.conf_path.parent.mkdir(parents=True, exist_ok=True)
    node.conf_path.write_text("# site comment\naddress_1=192.168.101.101\nnetmask_1=255.255.255.0\n"
                              "tls_1=0\n")
    set_ip(node, 0, "192.168.100.101")
    set_ip(node, 1, "192.168.101.111")
    assert node.conf() == [
        "# site comment", "address_1=192.168.101.111", "netmask_1=255.255.255.0", "tls_1=0",
        "address_0=192.168.100.101", "netmask_0=255.255.255.0"]


def test_ip_get_unset_is_an_error(node):
    proc = node.hccn("-i", "3", "-ip", "-g")
    assert proc.returncode != 0
    assert proc.stdout == ""
    assert "device 3 has no ip address" in proc.stderr


@pytest.mark.parametrize("address, netmask", [
    ("192.168.100.300", "255.255.255.0"),
    ("192.168.100", "255.255.255.0"),
    ("192.168.100.01", "255.255.255.0"),
    ("node1", "255.255.255.0"),
    ("192.168.100.0", "255.255.255.0"),    # network address
    ("192.168.100.255", "255.255.255.0"),  # broadcast address
    ("127.0.0.5", "255.0.0.0"),
    ("224.0.0.1", "255.255.255.0"),
    ("192.168.100.101", "255.0.255.0"),
    ("192.168.100.101", "255.255.255.256"),
    ("192.168.100.101", "0.0.0.0"),
    ("192.168.100.101", "24"),
])
def test_ip_set_rejects_invalid_values(node, address, netmask):
    proc = node.hccn("-i", "0", "-ip", "-s", "address", address, "netmask", netmask)
    assert proc.returncode != 0
    assert proc.stdout == ""
    assert re.match(r"Invalid (ip address|netmask): ", proc.stderr)
    assert node.changes() == [] and node.conf() == []


def test_ip_set_rejects_an_address_of_another_device(node):
    set_ip(node, 0, "192.168.100.101")
    proc = node.hccn("-i", "4", "-ip", "-s", "address", "192.168.100.101",
                     "netmask", "255.255.255.0")
    assert proc.returncode != 0
    assert "already used by device 0" in proc.stderr
    assert node.conf() == ["address_0=192.168.100.101", "netmask_0=255.255.255.0"]


def test_ip_set_refuses_labels_longer_than_15_chars(node):
    node.setting("npu_iface", "npunetwork0123")
    proc = node.hccn("-i", "5", "-ip", "-s", "address", "192.168.100.5", "netmask", "255.255.255.0")
    assert proc.returncode != 0
    assert "longer than 15" in proc.stderr
    assert node.changes() == []


# -------------------------------------------------------------- hccn_tool: device ids, usage


@pytest.mark.parametrize("count, dev", [(8, "8"), (2, "5"), (0, "0")])
def test_device_id_out_of_range(node, count, dev):
    node.setting("npu_count", count)
    proc = node.hccn("-i", dev, "-netdetect", "-g")
    assert proc.returncode != 0
    assert proc.stdout == ""
    assert proc.stderr.startswith(f"Invalid device id: {dev}")


def test_missing_device_count_file(node):
    (node.root / "etc" / "sandbox" / "npu_count").unlink()
    proc = node.hccn("-i", "0", "-ip", "-g")
    assert proc.returncode != 0
    assert proc.stderr.startswith("Invalid device id: 0")


@pytest.mark.parametrize("args", [
    [],
    ["-i", "0"],
    ["-i", "0", "-ip"],
    ["-i", "x", "-ip", "-g"],
    ["-i", "-1", "-ip", "-g"],
    ["-d", "0", "-ip", "-g"],
    ["-i", "0", "-ip", "\u2013g"],  # the en-dash typo of Ascend's PyTorch multi-node training guide
    ["-i", "0", "-net_health", "\u2013g"],
    ["-i", "0", "-ip", "-x"],
    ["-i", "0", "-optical", "-g"],
    ["-i", "0", "ip", "-g"],
    ["-i", "0", "-net_health", "-s"],
    ["-i", "0", "-ip", "-g", "extra"],
    ["-i", "0", "-ip", "-g", "address", "192.168.100.101"],
    ["-i", "0", "-ip", "-s", "address", "192.168.100.101"],
    ["-i", "0", "-ip", "-s", "address", "192.168.100.101", "netmask"],
    ["-i", "0", "-ip", "-s", "address", "192.168.100.101", "netmask", "255.255.255.0",
     "address", "192.168.100.102"],
    ["-i", "0", "-ping", "-g"],
    ["-i", "0", "-tls", "-s", "enable", "2"],
    ["-i", "0", "-tls", "-g", "enable", "1"],
])
def test_malformed_command_lines_are_usage_errors(node, args):
    proc = node.hccn(*args)
    assert proc.returncode != 0
    assert proc.stdout == ""
    assert "Usage: hccn_tool -i <device_id>" in proc.stderr
    assert node.changes() == [] and node.conf() == []


def test_help(node):
    proc = node.hccn("-h")
    assert proc.returncode == 0 and proc.stdout.startswith("Usage: hccn_tool")


# ----------------------------------------------------------- hccn_tool: netdetect and health


def test_netdetect_unset_set_and_persisted(node):
    assert node.ok("-i", "2", "-netdetect", "-g") == "netdetect address: 0.0.0.0\n"
    assert node.ok("-i", "2", "-netdetect", "-s", "address", "192.168.102.111") == ""
    assert node.ok("-i", "2", "-netdetect", "-g") == "netdetect address: 192.168.102.111\n"
    assert node.conf() == ["netdetect_2=192.168.102.111"]


def test_netdetect_rejects_invalid_address(node):
    proc = node.hccn("-i", "0", "-netdetect", "-s", "address", "192.168.1.256")
    assert proc.returncode != 0 and proc.stderr.startswith("Invalid ip address")
    assert node.conf() == []


def health(node, dev=0):
    return node.ok("-i", str(dev), "-net_health", "-g")


def test_health_without_device_address_is_fault(node):
    node.ok("-i", "0", "-netdetect", "-s", "address", "192.168.100.111")
    assert health(node) == "net health status: Fault\n"


def test_health_without_detect_address_is_init(node):
    set_ip(node, 0, "192.168.100.101")
    assert health(node) == "net health status: Init\n"
    assert node.pings() == []


def test_health_success_and_receive_timeout(node):
    set_ip(node, 0, "192.168.100.101")
    node.fake_state(reachable=["192.168.100.111"])
    node.ok("-i", "0", "-netdetect", "-s", "address", "192.168.100.111")
    assert health(node) == "net health status: Success\n"
    node.ok("-i", "0", "-netdetect", "-s", "address", "192.168.100.112")
    assert health(node) == "net health status: Receive timeout\n"
    assert node.pings() == [
        ["ping", "-c", "1", "-W", "1", "-I", "192.168.100.101", "192.168.100.111"],
        ["ping", "-c", "1", "-W", "1", "-I", "192.168.100.101", "192.168.100.112"]]


def test_health_is_init_during_the_delay_after_setting(node):
    set_ip(node, 0, "192.168.100.101")
    node.fake_state(reachable=["192.168.100.111"])
    node.setting("npu_health_delay", 1.5)
    node.ok("-i", "0", "-netdetect", "-s", "address", "192.168.100.111")
    assert health(node) == "net health status: Init\n"
    assert node.pings() == []
    time.sleep(1.6)
    assert health(node) == "net health status: Success\n"


def test_health_delay_defaults_to_two_seconds(node):
    (node.root / "etc" / "sandbox" / "npu_health_delay").unlink()
    set_ip(node, 0, "192.168.100.101")
    node.fake_state(reachable=["192.168.100.111"])
    node.ok("-i", "0", "-netdetect", "-s", "address", "192.168.100.111")
    assert health(node) == "net health status: Init\n"


@pytest.mark.parametrize("target", [
    "192.168.101.111",  # the neighbouring device subnet (devices 1 and 5)
    "192.168.100.200",  # in 192.168.100.0/24, but outside the device's /25
])
def test_health_outside_own_subnet_is_unreachable_without_ping(node, target):
    set_ip(node, 0, "192.168.100.101", "255.255.255.128")
    set_ip(node, 1, "192.168.101.111")  # the kernel itself would answer this one
    node.fake_state(reachable=["192.168.100.200"])
    node.ok("-i", "0", "-netdetect", "-s", "address", target)
    assert health(node) == "net health status: Unreachable\n"
    assert node.pings() == []


def test_health_of_a_device_uses_its_own_address(node):
    set_ip(node, 0, "192.168.100.101")
    set_ip(node, 4, "192.168.100.100")
    node.ok("-i", "4", "-netdetect", "-s", "address", "192.168.100.101")
    assert health(node, 4) == "net health status: Success\n"
    assert node.pings()[0][-3:] == ["-I", "192.168.100.100", "192.168.100.101"]


# ------------------------------------------------------------- hccn_tool: link, gateway, tls


def test_link_status(node):
    assert node.ok("-i", "0", "-link", "-g") == "link status: UP\n"  # physical: no address needed
    set_ip(node, 0, "192.168.100.101")
    assert node.ok("-i", "0", "-link", "-g") == "link status: UP\n"
    state = json.loads((node.run_dir / "fake_net.json").read_text())
    state["links"]["eth1"]["up"] = False
    node.fake_state(**state)
    assert node.ok("-i", "0", "-link", "-g") == "link status: DOWN\n"


def test_gateway_unset_set_and_persisted(node):
    assert node.ok("-i", "3", "-gateway", "-g") == "default gateway:0.0.0.0, Iface:eth3\n"
    set_ip(node, 3, "192.168.103.101")
    assert node.ok("-i", "3", "-gateway", "-s", "gateway", "192.168.103.1") == ""
    assert node.ok("-i", "3", "-gateway", "-g") == "default gateway:192.168.103.1, Iface:eth3\n"
    assert node.conf()[-1] == "gateway_3=192.168.103.1"


@pytest.mark.parametrize("gateway", ["192.168.104.1", "192.168.103.101", "192.168.103.1000"])
def test_gateway_must_be_another_address_of_the_device_subnet(node, gateway):
    set_ip(node, 3, "192.168.103.101")
    proc = node.hccn("-i", "3", "-gateway", "-s", "gateway", gateway)
    assert proc.returncode != 0 and proc.stderr.startswith("Invalid gateway")
    assert "gateway_3" not in "\n".join(node.conf())


def test_tls_switch(node):
    """-tls -g's first line as CANN's HCCL troubleshooting guide prints it; the switch persists."""
    assert node.ok("-i", "0", "-tls", "-g") == \
        "dev_id:0, tls switch[0](0:disable, 1:enable), tls alarm time threshold[60]days\n"
    assert node.ok("-i", "3", "-tls", "-s", "enable", "1") == "Cmd executed successfully!\n"
    assert "tls switch[1]" in node.ok("-i", "3", "-tls", "-g")
    assert "tls switch[0]" in node.ok("-i", "2", "-tls", "-g")


def test_link_down_fault(node):
    set_ip(node, 0, "192.168.100.101")
    set_ip(node, 1, "192.168.101.101")
    node.ok("-i", "0", "-netdetect", "-s", "address", "192.168.100.111")
    node.fake_state(reachable=["192.168.100.111"])
    assert node.ok("-i", "0", "-net_health", "-g") == "net health status: Success\n"
    node.fault(0, "link_down")
    assert node.ok("-i", "0", "-link", "-g") == "link status: DOWN\n"
    assert node.ok("-i", "1", "-link", "-g") == "link status: UP\n"
    assert node.ok("-i", "0", "-net_health", "-g") == "net health status: Fault\n"
    assert node.ok("-i", "0", "-ping", "-g", "address", "192.168.100.111").endswith(
        "3 packets transmitted, 0 received, 100.00% packet loss\n")


# ---------------------------------------------------------------------- hccn_tool: -ping


def test_ping_reply_format(node):
    set_ip(node, 0, "192.168.100.101")
    node.fake_state(reachable=["192.168.100.111"])
    out = node.ok("-i", "0", "-ping", "-g", "address", "192.168.100.111")
    assert out == ("device 0 PING 192.168.100.111\n"
                   "recv seq=0,time=0.114000ms\n"
                   "recv seq=1,time=0.114000ms\n"
                   "recv seq=2,time=0.114000ms\n"
                   "3 packets transmitted, 3 received, 0.00% packet loss\n")
    assert len(node.pings()) == 3


def test_ping_without_reply_and_packet_count(node):
    set_ip(node, 0, "192.168.100.101")
    out = node.ok("-i", "0", "-ping", "-g", "address", "192.168.100.50", "pkt", "2")
    assert out == ("device 0 PING 192.168.100.50\n"
                   "2 packets transmitted, 0 received, 100.00% packet loss\n")


def test_ping_outside_own_subnet_sends_nothing(node):
    set_ip(node, 0, "192.168.100.101")
    set_ip(node, 1, "192.168.101.101")
    out = node.ok("-i", "0", "-ping", "-g", "address", "192.168.101.101")
    assert out == ("device 0 PING 192.168.101.101\n"
                   "3 packets transmitted, 0 received, 100.00% packet loss\n")
    assert node.pings() == []


def test_ping_from_device_without_address_fails(node):
    proc = node.hccn("-i", "0", "-ping", "-g", "address", "192.168.100.111")
    assert proc.returncode != 0 and proc.stdout == ""
    assert "device 0 has no ip address" in proc.stderr


@pytest.mark.parametrize("pkt", ["0", "x", "1001"])
def test_ping_rejects_bad_packet_count(node, pkt):
    set_ip(node, 0, "192.168.100.101")
    proc = node.hccn("-i", "0", "-ping", "-g", "address", "192.168.100.111", "pkt", pkt)
    assert proc.returncode != 0 and proc.stderr.startswith("Invalid pkt")


# ------------------------------------------------------------------------------- npu-smi


def test_npu_smi_info_list(node):
    node.setting("npu_count", 2)
    proc = node.run(NPU_SMI, "info", "-l")
    assert proc.returncode == 0
    assert proc.stdout == ("Total Count : 2\n\n"
                           "NPU ID : 0\nProduct Name : Atlas 800 training server\n"
                           "Serial Number : SANDBOX000000000\nChip Count : 1\n\n"
                           "NPU ID : 1\nProduct Name : Atlas 800 training server\n"
                           "Serial Number : SANDBOX000000001\nChip Count : 1\n")


def test_npu_smi_without_devices(node):
    node.setting("npu_count", 0)
    assert node.run(NPU_SMI, "info", "-l").stdout == "Total Count : 0\n"


def test_npu_smi_info_table(node):
    proc = node.run(NPU_SMI, "info")
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    assert "npu-smi 23.0.0" in lines[1]
    assert len({len(line) for line in lines}) == 1  # a rectangular table
    assert [line.split()[1] for line in lines if re.match(r"\| \d+ +910A ", line)] == \
        [str(n) for n in range(8)]
    assert [line.split("|")[2].strip() for line in lines if re.match(r"\| \d+ +910A ", line)] == ["OK"] * 8
    assert [line for line in lines if "No running processes found in NPU" in line] == [
        f"| {'No running processes found in NPU %d' % n:<95}|" for n in range(8)]


def test_npu_smi_info_table_faults(node):
    """Health and the process table of Ascend's npu-smi reference ("查询基本信息")."""
    node.setting("npu_chip", "910B3")
    node.fault(2, "health", "Alarm")
    node.fault(5, "process", "4242 python3 3072")
    lines = node.run(NPU_SMI, "info").stdout.splitlines()
    assert len({len(line) for line in lines}) == 1
    rows = [line.split("|") for line in lines if re.match(r"\| \d+ +910B3 ", line)]
    assert [row[2].strip() for row in rows] == ["OK", "OK", "Alarm"] + ["OK"] * 5
    held = [line.split("|") for line in lines if re.match(r"\| 5 +0 +\| 4242", line)]
    assert [[cell.strip() for cell in row[1:-1]] for row in held] == [["5       0", "4242", "python3", "3072"]]
    assert sum("No running processes found" in line for line in lines) == 7


def test_npu_smi_board_health_ecc(node):
    board = node.run(NPU_SMI, "info", "-t", "board", "-i", "3").stdout
    fields = dict(line.split(" : ", 1) for line in board.splitlines())
    fields = {key.strip(): value.strip() for key, value in fields.items()}
    assert fields["NPU ID"] == "3" and fields["Software Version"] == "23.0.0"
    assert fields["Firmware Version"] == "7.1.0.3.220" and fields["Faulty Chip Count"] == "0"
    node.setting("npu_firmware", "7.1.0.5.242")
    assert "Firmware Version               : 7.1.0.5.242" in node.run(NPU_SMI, "info", "-t", "board", "-i", "3").stdout
    assert node.run(NPU_SMI, "info", "-t", "health", "-i", "1").stdout == (
        "NPU ID                         : 1\nChip Count                     : 1\n\n"
        "Chip ID                        : 0\nHealth                         : OK\n")
    node.fault(1, "health", "Critical")
    assert node.run(NPU_SMI, "info", "-t", "health", "-i", "1").stdout.endswith(
        "Health                         : Critical\n")
    assert node.run(NPU_SMI, "info", "-t", "ecc", "-i", "6", "-c", "0").stdout == (
        "Single-bit Error Count                   : 0\nDouble-bit Error Count                   : 0\n")
    node.fault(6, "ecc_double", 3)
    assert node.run(NPU_SMI, "info", "-t", "ecc", "-i", "6", "-c", "0").stdout.endswith(
        "Double-bit Error Count                   : 3\n")


@pytest.mark.parametrize("args", [["info", "-t", "board", "-i", "8"], ["info", "-t", "ecc", "-i", "0", "-c", "1"],
                                  ["info", "-t", "memory", "-i", "0"], ["info", "-t", "board", "-i", "x"]])
def test_npu_smi_bad_device_or_type(node, args):
    proc = node.run(NPU_SMI, *args)
    assert proc.returncode == 1 and proc.stdout == "" and proc.stderr.strip()


def test_npu_smi_bad_fault_file_is_an_error(node):
    node.fault(0, "health", "Broken")
    proc = node.run(NPU_SMI, "info", "-t", "health", "-i", "0")
    assert proc.returncode == 1 and "npu_faults/0/health" in proc.stderr


def test_npu_smi_without_count_file_fails(node):
    (node.root / "etc" / "sandbox" / "npu_count").unlink()
    proc = node.run(NPU_SMI, "info", "-l")
    assert proc.returncode != 0 and proc.stdout == ""
    assert "dcmi module initialize failed" in proc.stderr


@pytest.mark.parametrize("args", [[], ["info", "-x"], ["list"], ["info", "-l", "extra"]])
def test_npu_smi_bad_arguments(node, args):
    proc = node.run(NPU_SMI, *args)
    assert proc.returncode != 0 and proc.stdout == ""
    assert "Usage: npu-smi" in proc.stderr


# ------------------------------------------------------------------------- file layout


def test_tools_are_executable_python_scripts():
    for tool in (HCCN_TOOL, NPU_SMI):
        assert os.access(tool, os.X_OK), tool
        assert tool.read_text().startswith("#!/usr/bin/env python3\n")


def test_stand_ins_hold_no_symlinks_but_the_runtime_libraries():
    """Everything is a file of its own but the toolkit's lib64, which links to the stand-in
    libascendcl and libhccl compiled into the node image (sandbox/image/configure-rootfs.sh)."""
    links = {str(p.relative_to(STAND_INS)): os.readlink(p) for p in STAND_INS.rglob("*") if p.is_symlink()}
    assert links == {"Ascend/ascend-toolkit/latest/lib64": "/opt/sandbox-ascend/lib64"}


def test_cann_layout():
    for path in ("driver/lib64/.keep", "ascend-toolkit/latest/bin/.keep",
                 "ascend-toolkit/latest/python/site-packages/.keep"):
        assert (STAND_INS / "Ascend" / path).is_file(), path
    assert "Version=23.0.0" in (STAND_INS / "Ascend/driver/version.info").read_text().splitlines()
    for name in ("version.cfg", "ascend_toolkit_install.info"):
        assert "version=7.0.0" in (TOOLKIT / "latest" / name).read_text().splitlines()


def test_set_env_is_as_strict_as_canns():
    """CANN's set_env.sh appends `:$LD_LIBRARY_PATH` and `:$PYTHONPATH` without a default: a shell
    under `set -u` without them stops; without -u the unset ones leave an empty last entry."""
    env = {"PATH": "/usr/bin:/bin"}  # a fresh non-interactive SSH session: neither is set
    strict = subprocess.run(["bash", "-uc", f". {TOOLKIT}/latest/set_env.sh && echo sourced"], env=env,
                            capture_output=True, text=True, check=False)
    assert strict.returncode != 0 and "sourced" not in strict.stdout
    assert "LD_LIBRARY_PATH: unbound variable" in strict.stderr
    names = "ASCEND_TOOLKIT_HOME|ASCEND_HOME_PATH|LD_LIBRARY_PATH|PYTHONPATH|PATH"
    out = subprocess.run(["sh", "-ec", f". {TOOLKIT}/latest/set_env.sh && env | grep -E '^({names})='"],
                         env=env, capture_output=True, text=True, check=True).stdout
    home = "/usr/local/Ascend/ascend-toolkit/latest"
    values = dict(line.split("=", 1) for line in out.splitlines())
    assert values["ASCEND_TOOLKIT_HOME"] == values["ASCEND_HOME_PATH"] == home
    assert values["LD_LIBRARY_PATH"].startswith(f"{home}/lib64:") and values["LD_LIBRARY_PATH"].endswith(":")
    assert values["PYTHONPATH"].startswith(f"{home}/python/site-packages:") and values["PYTHONPATH"].endswith(":")
    assert values["PATH"].startswith(f"{home}/bin:") and values["PATH"].endswith(":/usr/bin:/bin")
    top = (TOOLKIT / "set_env.sh").read_text()
    assert ". /usr/local/Ascend/ascend-toolkit/latest/set_env.sh" in top.splitlines()


def test_env_npu_sources_set_env_under_set_u_without_an_empty_entry(tmp_path):
    """Role npu_env's way of sourcing set_env.sh (its template's lines, with the stand-in's path)
    holds under `set -u` and leaves no empty entry (the working directory) in either path."""
    template = (STAND_INS.parents[1] / "roles" / "npu_env" / "templates" / "env_npu.sh.j2").read_text()
    start = template.index("case $- in")
    block = template[start:template.index("{% elif", start)]
    block = block.replace("{{ _npu_env_layout.set_env | quote }}", f"{TOOLKIT}/latest/set_env.sh")
    script = tmp_path / "env.sh"
    script.write_text(block)
    out = subprocess.run(["bash", "-uc", f". {script} && echo \"$LD_LIBRARY_PATH|$PYTHONPATH\" && set -o"],
                         env={"PATH": "/usr/bin:/bin"}, capture_output=True, text=True, check=True).stdout
    paths, options = out.splitlines()[0], out.splitlines()[1:]
    assert "::" not in paths and not any(part.endswith(":") for part in paths.split("|"))
    assert any(line.split() == ["nounset", "on"] for line in options)


# ------------------------------------------------------- real interface in a network namespace


def has_netns_tools():
    return os.geteuid() == 0 and shutil.which("ip") is not None and shutil.which("ping") is not None


@pytest.fixture
def netns(tmp_path):
    """A network namespace with eth1, one end of a veth pair whose other end (npupeer, no
    address) plays the switch port; lo is up so that local addresses answer pings."""
    name = f"standin-{uuid.uuid4().hex[:8]}"
    subprocess.run(["ip", "netns", "add", name], check=True)
    try:
        for cmd in (["link", "add", "eth1", "type", "veth", "peer", "name", "npupeer"],
                    ["link", "set", "npupeer", "up"], ["link", "set", "eth1", "up"],
                    ["link", "set", "lo", "up"]):
            subprocess.run(["ip", "-n", name, *cmd], check=True)
        n = Node(tmp_path, fake_ip=False)
        n.setting("npu_count", 8)
        n.setting("npu_iface", "eth1")
        n.setting("npu_health_delay", 0)
        n.prefix = ["ip", "netns", "exec", name]
        n.name = name
        yield n
    finally:
        subprocess.run(["ip", "netns", "del", name], check=False)


def ns_addresses(ns):
    out = subprocess.run(["ip", "-n", ns.name, "-j", "addr", "show", "dev", "eth1"],
                         capture_output=True, text=True, check=True).stdout
    return {a["label"]: f"{a['local']}/{a['prefixlen']}"
            for a in json.loads(out)[0]["addr_info"] if a["family"] == "inet"}


@pytest.mark.skipif(not has_netns_tools(), reason="needs root, ip and ping")
def test_real_interface_in_network_namespace(netns):
    def ok(*args):
        return netns.ok(*args, prefix=netns.prefix)

    ok("-i", "0", "-ip", "-s", "address", "192.168.100.101", "netmask", "255.255.255.0")
    ok("-i", "4", "-ip", "-s", "address", "192.168.100.100", "netmask", "255.255.255.0")
    ok("-i", "1", "-ip", "-s", "address", "192.168.101.101", "netmask", "255.255.255.0")
    # Replacing device 0's primary address must not take device 4's secondary with it.
    ok("-i", "0", "-ip", "-s", "address", "192.168.100.102", "netmask", "255.255.255.0")
    assert ns_addresses(netns) == {"eth1:0": "192.168.100.102/24", "eth1:4": "192.168.100.100/24",
                                   "eth1:1": "192.168.101.101/24"}
    assert ok("-i", "4", "-ip", "-g") == "ipaddr:192.168.100.100\nnetmask:255.255.255.0\n"
    assert ok("-i", "0", "-link", "-g") == "link status: UP\n"

    for target, status in [("192.168.100.100", "Success"),          # device 4, same subnet
                           ("192.168.100.50", "Receive timeout"),   # nobody there
                           ("192.168.101.101", "Unreachable")]:     # local, but other subnet
        ok("-i", "0", "-netdetect", "-s", "address", target)
        assert ok("-i", "0", "-net_health", "-g") == f"net health status: {status}\n", target

    out = ok("-i", "0", "-ping", "-g", "address", "192.168.100.100").splitlines()
    assert out[0] == "device 0 PING 192.168.100.100"
    assert all(re.fullmatch(r"recv seq=\d,time=\d+\.\d{6}ms", line) for line in out[1:4])
    assert out[4] == "3 packets transmitted, 3 received, 0.00% packet loss"

    # The switch port goes away: eth1 is still administratively up, but has no carrier.
    subprocess.run(["ip", "-n", netns.name, "link", "set", "npupeer", "down"], check=True)
    assert ok("-i", "0", "-link", "-g") == "link status: DOWN\n"
