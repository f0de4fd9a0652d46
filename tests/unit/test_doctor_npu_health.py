"""The doctor's NPU health gates (plugins/plugin_utils/doctor/npu_health.py) over what module
doctor_probe reads from the sandbox's stand-ins (sandbox/stand-ins: npu-smi and hccn_tool in the
formats of Ascend's references), with faults switched on per device as a Molecule case does."""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.doctor import report as dr
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.doctor.npu_health import chip_family
from hccn_output import parse_npu_fields, parse_npu_table, parse_tls
from module_runner import run_module
from test_doctor_report import HOSTS, SETTINGS, healthy_node
from test_stand_ins import HCCN_TOOL, NPU_SMI, eight_device_node


def probe(node, tmp_path):
    """doctor_probe's `npu` result, the module run as Ansible runs it, against the stand-ins."""
    result = run_module("doctor_probe", {"what": "system", "npu_devices": 8, "hccn_tool": str(HCCN_TOOL),
                                         "npu_smi": str(NPU_SMI)},
                        tmp_path / f"args-{node.root.name}.json", env=node.env)
    assert not result.get("failed"), result
    return result["npu"]


def read_cluster(tmp_path, faults, hosts=HOSTS):
    """Each node's `npu` as the module reads it from stand-ins with ``faults(host, node)`` applied."""
    found = {}
    for host in hosts:
        (tmp_path / host).mkdir()
        node = eight_device_node(tmp_path / host)
        for device in range(8):
            node.ok("-i", str(device), "-ip", "-s", "address", f"192.168.10{device % 4}.{100 + device}",
                    "netmask", "255.255.255.0")
        faults(host, node)
        found[host] = probe(node, tmp_path)
    return found


def report_with(npu_by_host, change=None):
    nodes = {host: healthy_node(host) for host in HOSTS}
    for host, npu in npu_by_host.items():
        nodes[host]["system"]["npu"]["table"] = npu["table"]
        nodes[host]["system"]["npu"]["table_error"] = npu["table_error"]
        nodes[host]["system"]["npu"]["state"] = npu["state"]
    if change:
        change(nodes)
    return dr.build_report(nodes, SETTINGS)


def verdicts(report):
    return {(e["check"], e["node"]): e["message"] for e in report["entries"] if e["status"] != "ok"}


def test_healthy_stand_ins_pass_every_gate(tmp_path):
    npu = read_cluster(tmp_path, lambda host, node: None, ["node1"])
    assert npu["node1"]["state"]["3"] == {"link": "UP", "tls": 0, "health": ["OK"], "software_version": "23.0.0",
                                          "firmware_version": "7.1.0.3.220", "ecc_double": 0, "errors": []}
    assert npu["node1"]["table"]["processes"] == []
    assert verdicts(report_with(npu)) == {}


def faults(host, node):
    """Several faults at once on different nodes and devices, as the doctor scenario switches them."""
    if True:
        if host == "node1":
            node.fault(2, "link_down")
            node.fault(5, "health", "Alarm")
        if host == "node2":
            node.fault(1, "process", "4242 python3 3072")
            node.fault(6, "ecc_double", 2)
            node.ok("-i", "3", "-tls", "-s", "enable", "1")
        if host == "node3":
            node.setting("npu_firmware", "7.1.0.5.242")
            node.setting("npu_chip", "910B3")
        if host == "node2":
            node.fault(7, "health", "Critical")


@pytest.fixture(scope="module")
def faulty(tmp_path_factory):
    return report_with(read_cluster(tmp_path_factory.mktemp("faulty"), faults))


def test_each_fault_is_a_verdict_on_its_node_naming_the_device(faulty):
    found = verdicts(faulty)
    assert sorted(found) == [
        ("npu_ecc", "node2"), ("npu_health", "node1"), ("npu_health", "node2"), ("npu_link", "node1"), ("npu_model", "node3"),
        ("npu_processes", "node2"), ("npu_tls", "node2"), ("npu_versions", "node3")]
    assert found[("npu_link", "node1")].startswith("link DOWN on device(s) 2 (hccn_tool -i N -link -g)")
    assert found[("npu_health", "node1")].startswith("device 5 is Alarm")
    assert found[("npu_processes", "node2")].startswith("pid 4242 (python3) on device 1 hold NPUs")
    assert found[("npu_ecc", "node2")].startswith("uncorrected (double-bit) ECC errors: device 6 has 2")
    assert found[("npu_tls", "node2")].startswith("TLS switch 1 on device(s) 3 but 0 on the cluster's other devices")
    assert found[("npu_versions", "node3")].startswith("firmware 7.1.0.5.242 on device(s) 0, 1, 2, 3, 4, 5, 6, 7, "
                                                       "7.1.0.3.220 on the other nodes")
    assert found[("npu_model", "node3")] == (
        "npu-smi reports Ascend910B3 but npu_model is atlas800 (910A plan); set npu_model: atlas800t_a2 (one subnet "
        "for all 8 devices) with a gateway (npu_network_gateway)")


def test_a_ledger_reason_names_the_check_and_device(faulty):
    from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.fleet import findings as ledger_findings
    report = faulty
    findings = ledger_findings.doctor_findings(report, {h: {"ran": True, "reached": True} for h in HOSTS}, "r.json")
    assert findings["node2"]["result"] == "fail"
    assert findings["node2"]["reason"].startswith("doctor: npu_health: device 7 is Critical")
    assert findings["node1"]["reason"].startswith("doctor: npu_health: device 5 is Alarm")
    assert findings["node3"]["reason"].startswith("doctor: npu_model: npu-smi reports Ascend910B3")


def test_model_verdicts():
    assert [chip_family(name) for name in ("910A", "910ProB", "Ascend910B3", "910B4", "910_93", "310P3")] == \
        ["910", "910", "910B", "910B", None, None]

    def plan_a2(nodes):
        nodes["node1"]["expect"]["npu_model"] = "atlas800t_a2"

    found = verdicts(report_with({}, plan_a2))
    assert found == {("npu_model", "node1"): (
        "npu-smi reports Ascend910A but npu_model is atlas800t_a2 (910B plan); set npu_model: atlas800 (the "
        "Atlas 800 plan: four subnets, device i and i+4 paired)")}


def test_unreadable_state_fails_rather_than_passes():
    def broken(nodes):
        state = nodes["node2"]["system"]["npu"]["state"]["4"]
        state.update(link=None, ecc_double=None, errors=["-i 4 -link -g: hccn_tool is busy, please try again"])

    found = verdicts(report_with({}, broken))
    assert found[("npu_link", "node2")] == ("cannot read the link of device(s) 4: -i 4 -link -g: hccn_tool is busy, "
                                            "please try again")
    assert found[("npu_ecc", "node2")].startswith("cannot read the ECC counts of device(s) 4")


def test_device_access_names_the_file_and_the_group():
    def denied(nodes):
        nodes["node3"]["user"]["device_files"]["/dev/davinci0"] = {"error": "Permission denied", "group": "HwHiAiUser"}
        nodes["node3"]["user"]["device_files"]["/dev/hisi_hdc"] = {"error": "Permission denied", "group": "HwHiAiUser"}

    found = verdicts(report_with({}, denied))
    assert found == {("npu_device_access", "node3"): (
        "trainer cannot open /dev/davinci0 (Permission denied), /dev/hisi_hdc (Permission denied): add trainer to "
        "group HwHiAiUser, which owns them (ssh_trust_npu_group; site.yml --tags ssh)")}


def test_a_node_without_npu_data_is_not_checked():
    def unread(nodes):
        del nodes["node1"]["system"]["npu"]["state"]

    report = report_with({}, unread)
    entries = [e for e in report["entries"] if e["node"] == "node1" and e["check"] == "npu_tls"]
    assert entries[0]["status"] == "warn"
    assert verdicts(report)[("npu_tls", "node1")] == "not checked: the NPU state was not read"


OPEN_AS_NOBODY = r"""
import json, os, sys
sys.path.insert(0, sys.argv[1])
from ansible_collections.cluster_suite.hpc.plugins.module_utils.npu_probe import open_device_files
if os.getuid() == 0:
    os.setgroups([]); os.setgid(65534); os.setuid(65534)
print(json.dumps(open_device_files(sys.argv[2:])))
"""


def test_open_device_files_as_a_user_outside_the_group():
    """The module's open as another user: a 0660 file of another group is refused, naming its group."""
    with tempfile.TemporaryDirectory() as directory:  # under /tmp: nobody may enter it, unlike pytest's
        os.chmod(directory, 0o755)
        opened_as_nobody(Path(directory))


def opened_as_nobody(tmp_path):
    """Open three files (0660, 0666, missing) in tmp_path as nobody."""
    closed, shared = tmp_path / "davinci0", tmp_path / "davinci1"
    closed.write_text("")
    shared.write_text("")
    os.chmod(closed, 0o660)
    os.chmod(shared, 0o666)
    missing = tmp_path / "hisi_hdc"
    modules = str(Path(__file__).resolve().parents[2] / "plugins" / "modules")
    proc = subprocess.run([sys.executable, "-c", OPEN_AS_NOBODY, modules, str(closed), str(shared), str(missing)],
                          env=dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2] / "collections")),
                          capture_output=True, text=True, timeout=60, check=True)
    found = json.loads(proc.stdout)
    assert found[str(shared)] is None
    assert found[str(closed)]["error"] == "Permission denied" and "group" in found[str(closed)]
    assert found[str(missing)] == {"error": "No such file or directory"}


def test_parsers_reject_what_is_not_the_tools_output():
    with pytest.raises(ValueError):
        parse_tls("tls switch: on")
    with pytest.raises(ValueError):
        parse_npu_table("dcmi module initialize failed")
    with pytest.raises(ValueError):
        parse_npu_fields("")
    assert (parse_tls("dev_id:3, tls switch[1](0:disable, 1:enable), tls alarm time threshold[60]days")) == 1


def test_two_nodes_split_evenly_both_fail_naming_both_values():
    """With two nodes nobody can tell which firmware is the odd one: both are named."""
    def split(nodes):
        del nodes["node3"]
        for state in nodes["node2"]["system"]["npu"]["state"].values():
            state["firmware_version"] = "7.1.0.5.242"

    nodes = {host: healthy_node(host) for host in HOSTS}
    split(nodes)
    report = dr.build_report(nodes, dict(SETTINGS, hosts=["node1", "node2"]))
    found = verdicts(report)
    assert sorted(check for check in found if check[0] == "npu_versions") == [("npu_versions", "node1"),
                                                                               ("npu_versions", "node2")]
    assert "the nodes are split evenly (7.1.0.3.220, 7.1.0.5.242)" in found[("npu_versions", "node1")]
