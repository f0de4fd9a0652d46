"""plugins/plugin_utils/doctor/report.py and its check families: one entry per check per node, failures on the
node to fix."""
import copy
import json

import pytest

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.doctor import network as doctor_checks_network
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.doctor import versions as doctor_checks_versions
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.doctor import report as dr
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import doctor as doctor_settings

HOSTS = ["node1", "node2", "node3"]
ADDR = {"node1": "10.0.0.1", "node2": "10.0.0.2", "node3": "10.0.0.3"}
PLAN_NET = "192.168.10%d.%d"


def plan(host):
    server = HOSTS.index(host)
    return [{"device": d, "address": PLAN_NET % (d % 4, 100 + 10 * server + (1 if d < 4 else 0)),
             "netmask": "255.255.255.0"} for d in range(8)]


def healthy_node(host):
    names = [host, ADDR[host]]
    mesh = [{"peer": peer, "address": name, "status": "ok", "message": ""}
            for peer in HOSTS for name in (peer, ADDR[peer])]
    return {
        "expect": {"ansible_host": ADDR[host], "kind": "npu", "firewall_mode": "disabled",
                   "openmpi_version": "4.1.4", "cluster_network_cidr": None, "manage_hosts_file": True,
                   "npu_device_count": 8, "npu_model": "atlas800", "user": "trainer", "plan": plan(host), "interfaces": [], "python": "python3"},
        "reached": True,
        "system": {
            "hostname": host, "fqdn": host,
            "interfaces": {"lo": {"up": True, "ipv4": ["127.0.0.1/8"]},
                           "eth0": {"up": True, "ipv4": [ADDR[host] + "/24"]},
                           "eth1": {"up": True, "ipv4": [e["address"] + "/24" for e in plan(host)]}},
            "hosts_file": [[ADDR[h], [h]] for h in HOSTS] + [["127.0.0.1", ["localhost"]],
                                                             ["127.0.1.1", [host]]],
            "firewall": {"ufw": {"installed": True, "active": False, "rules": []},
                         "firewalld": {"installed": False, "running": False, "ports": []}},
            "nccl": {"absent": True},
            "cann": {"layout": "ascend-toolkit", "path": "/x/version.cfg", "version": "7.0.0"},
            "npu": {"count": 8, "error": None,
                    "devices": {str(e["device"]): {"address": e["address"], "netmask": e["netmask"]}
                                for e in plan(host)},
                    "table": {"devices": {d: {"name": "910A", "health": "OK"} for d in range(8)}, "processes": []},
                    "table_error": None,
                    "state": {str(d): {"link": "UP", "tls": 0, "health": ["OK"], "software_version": "23.0.0",
                                       "firmware_version": "7.1.0.3.220", "ecc_double": 0, "errors": []}
                              for d in range(8)}},
        },
        "user": {"openmpi": {"version": "4.1.4", "path": "/usr/local/bin/ompi_info", "marker_version": "4.1.4"},
                 "python": {"path": "python3", "version": "3.11.2"},
                 "frameworks": {"mindspore": {"version": "2.7.1"}, "torch": {"version": "2.13.0+cpu"},
                                "torch_npu": {"absent": True}},
                 "device_files": {path: None for path in ["/dev/davinci%d" % d for d in range(8)]
                                  + ["/dev/davinci_manager", "/dev/devmm_svm", "/dev/hisi_hdc"]}},
        "mesh": {"results": mesh, "ok": True},
        "port_bind": {"free": True} if host == "node1" else None,
        "listener": {"temporary": True, "error": None} if host == "node1" else None,
        "port_connect": {"reachable": True, "latency_ms": 0.3, "error": None},
        "netdetect": {"total": 16, "results": [
            {"device": e["device"], "target": other["address"], "status": "Success", "success": True}
            for e in plan(host) for peer in HOSTS if peer != host
            for other in plan(peer) if other["device"] == e["device"]]},
        "clock": {"offset": 0.002, "uncertainty": 0.004, "round_trip": 0.008, "reads": 5, "sync_service": "chrony"},
        "error": None,
    }


def cluster():
    return {host: healthy_node(host) for host in HOSTS}


SETTINGS = {"hosts": HOSTS, "master": "node1", "master_port": 8118}


def failing(report):
    return sorted((e["check"], e["node"]) for e in report["entries"] if e["status"] == "fail")


def entry(report, check, node):
    return next(e for e in report["entries"] if e["check"] == check and e["node"] == node)


def test_healthy_cluster_is_all_ok():
    report = dr.build_report(cluster(), SETTINGS)
    assert report["status"] == "ok", [e for e in report["entries"] if e["status"] != "ok"]
    assert report["summary"]["fail"] == 0 and report["summary"]["warn"] == 0
    # One entry per check per node it applies to: master_port_free only on the master.
    assert len(report["entries"]) == len(dr.CHECKS) * 3 - 2
    keys = [(e["check"], e["node"]) for e in report["entries"]]
    assert len(keys) == len(set(keys))
    assert all(set(e) == {"check", "node", "status", "message"} for e in report["entries"])
    json.dumps(report)  # plain data only


def test_entries_follow_check_then_node_order():
    report = dr.build_report(cluster(), SETTINGS)
    order = [(dr.CHECKS.index(e["check"]), HOSTS.index(e["node"])) for e in report["entries"]]
    assert order == sorted(order)


def test_framework_absent_everywhere_is_skipped_not_failed():
    report = dr.build_report(cluster(), SETTINGS)
    assert entry(report, "version_torch_npu", "node2")["status"] == "ok"
    assert "not installed on any node" in entry(report, "version_torch_npu", "node2")["message"]


# --- one break at a time: exactly one (check, node) fails ---------------------------------------


def break_known_hosts(nodes):
    for item in nodes["node1"]["mesh"]["results"]:
        if item["peer"] == "node2":
            item.update(status="host_key_unknown", message="No ED25519 host key is known for node2")


def break_sshd(nodes):
    nodes["node2"] = {"expect": nodes["node2"]["expect"], "reached": False,
                      "unreachable": "ssh: connect to host 10.0.0.2 port 22: Connection refused"}
    for host in ("node1", "node3"):
        for item in nodes[host]["mesh"]["results"]:
            if item["peer"] == "node2":
                item.update(status="unreachable", message="ssh: connect to host node2 port 22: Connection refused")


def break_openmpi(nodes):
    nodes["node3"]["user"]["openmpi"]["version"] = "4.1.5"


def break_port(nodes):
    nodes["node1"]["port_bind"] = {"free": False, "error": "in_use", "error_text": "Address already in use",
                                   "holder_pid": 4121, "holder_name": "python3", "holder_state": "LISTEN"}
    nodes["node1"]["listener"] = {"temporary": False, "error": None}


def break_device_ip(nodes):
    nodes["node2"]["system"]["npu"]["devices"]["7"] = {"error": "device 7 has no ip address configured"}
    dropped = plan("node2")[7]["address"]
    for host in ("node1", "node3"):
        for item in nodes[host]["netdetect"]["results"]:
            if item["target"] == dropped:
                item.update(status="Receive timeout", success=False)
    for item in nodes["node2"]["netdetect"]["results"]:
        if item["device"] == 7:
            item.update(status="Fault", success=False)


def break_interface(nodes):
    nodes["node2"]["expect"]["interfaces"] = [["npu_env_hccl_socket_ifname", "eth9"]]


def break_hosts_file(nodes):
    nodes["node3"]["system"]["hosts_file"].insert(0, ["127.0.1.1", ["node3"]])


def break_firewall(nodes):
    nodes["node2"]["system"]["firewall"]["ufw"]["active"] = True


def break_hostname(nodes):
    nodes["node3"]["system"]["hostname"] = "node2"


def break_host_ip(nodes):
    nodes["node3"]["expect"]["ansible_host"] = "10.0.0.33"
    for host in HOSTS:
        nodes[host]["system"]["hosts_file"][2] = ["10.0.0.33", ["node3"]]


def break_npu_count(nodes):
    nodes["node2"]["system"]["npu"]["count"] = 7


def break_python(nodes):
    nodes["node2"]["user"]["python"]["version"] = "3.10.12"


def break_unreachable_port(nodes):
    nodes["node3"]["port_connect"] = {"reachable": False, "error": "timeout", "error_text": "timed out"}


def break_netdetect_link(nodes):
    item = nodes["node3"]["netdetect"]["results"][0]
    item.update(status="Receive timeout", success=False)


def break_mindspore(nodes):
    nodes["node2"]["user"]["frameworks"]["mindspore"] = {"absent": True}


def break_cann(nodes):
    nodes["node1"]["system"]["cann"]["version"] = "8.0.RC1"
    nodes["node3"]["system"]["cann"]["version"] = "8.0.RC1"


@pytest.mark.parametrize("breaker, expected", [
    (break_known_hosts, [("ssh_mesh", "node1")]),
    (break_sshd, [("ssh_login", "node2")]),
    (break_openmpi, [("version_openmpi", "node3")]),
    (break_port, [("master_port_free", "node1")]),
    (break_device_ip, [("npu_device_ips", "node2")]),
    (break_interface, [("interfaces", "node2")]),
    (break_hosts_file, [("etc_hosts", "node3")]),
    (break_firewall, [("firewall", "node2")]),
    (break_hostname, [("hostname", "node2"), ("hostname", "node3")]),
    (break_host_ip, [("host_ip", "node3")]),
    (break_npu_count, [("npu_device_count", "node2")]),
    (break_python, [("version_python", "node2")]),  # 3.10 vs 3.11: another release
    (break_unreachable_port, [("master_port_reachable", "node3")]),
    (break_netdetect_link, [("npu_netdetect", "node3")]),
    (break_mindspore, [("version_mindspore", "node2")]),
    (break_cann, [("version_cann", "node2")]),
], ids=lambda value: getattr(value, "__name__", None))
def test_one_break_fails_exactly_its_check_on_its_node(breaker, expected):
    nodes = cluster()
    breaker(nodes)
    report = dr.build_report(nodes, SETTINGS)
    assert failing(report) == expected
    assert report["status"] == "fail"
    for check, node in expected:
        assert entry(report, check, node)["message"]


def test_known_hosts_message_says_what_to_fix():
    nodes = cluster()
    break_known_hosts(nodes)
    message = entry(dr.build_report(nodes, SETTINGS), "ssh_mesh", "node1")["message"]
    assert "node2: host_key_unknown" in message and "site.yml --tags ssh" in message


def test_stopped_sshd_is_reported_on_the_node_and_the_others_only_warn():
    nodes = cluster()
    break_sshd(nodes)
    report = dr.build_report(nodes, SETTINGS)
    login = entry(report, "ssh_login", "node2")["message"]
    assert "Connection refused" in login and "sshd" in login
    assert entry(report, "ssh_mesh", "node1")["status"] == "warn"
    assert entry(report, "version_openmpi", "node2")["message"].startswith("not checked")


def test_sshd_refusing_every_node_while_ansible_gets_in():
    nodes = cluster()
    for host in HOSTS:
        for item in nodes[host]["mesh"]["results"]:
            if item["peer"] == "node3":
                item.update(status="auth_refused", message="Permission denied (publickey).")
    report = dr.build_report(nodes, SETTINGS)
    assert failing(report) == [("ssh_login", "node3")]
    assert "authorized_keys" in entry(report, "ssh_login", "node3")["message"]


def test_one_source_failing_is_that_sources_problem():
    nodes = cluster()
    for item in nodes["node3"]["mesh"]["results"]:
        if item["peer"] == "node1":
            item.update(status="timeout", message="Connection timed out")
    report = dr.build_report(nodes, SETTINGS)
    assert failing(report) == [("ssh_mesh", "node3")]


def test_openmpi_odd_node_named_by_the_majority_without_expected_version():
    nodes = cluster()
    for host in HOSTS:
        nodes[host]["expect"]["openmpi_version"] = None
    nodes["node2"]["user"]["openmpi"]["version"] = "4.0.3"
    report = dr.build_report(nodes, SETTINGS)
    assert failing(report) == [("version_openmpi", "node2")]
    assert "4.1.4 on node1, node3" in entry(report, "version_openmpi", "node2")["message"]


def build(os_name="Debian 12", **changes):
    found = {"key": "openmpi-414-%s-x86_64-0" % os_name.replace(" ", "").lower(), "os": os_name,
             "architecture": "x86_64", "prefix": "/usr/local/openmpi-4.1.4",
             "configure_flags": ["--disable-mpi-fortran"], "source_sha256": "ab12"}
    found.update(changes)
    return found


def test_openmpi_build_on_another_os_release_warns_naming_the_odd_node():
    nodes = cluster()
    for host in HOSTS:
        nodes[host]["user"]["openmpi"]["build"] = build("Debian 13" if host == "node2" else "Debian 12")
    report = dr.build_report(nodes, SETTINGS)
    assert failing(report) == []
    statuses = {host: entry(report, "version_openmpi", host)["status"] for host in HOSTS}
    assert statuses == {"node1": "ok", "node2": "warn", "node3": "ok"}
    message = entry(report, "version_openmpi", "node2")["message"]
    assert "Open MPI built on Debian 13 here, but Debian 12 on node1, node3" in message


@pytest.mark.parametrize("field, value", [("prefix", "/opt/openmpi"), ("architecture", "aarch64")])
def test_openmpi_build_with_another_prefix_or_architecture_fails(field, value):
    nodes = cluster()
    for host in HOSTS:
        nodes[host]["user"]["openmpi"]["build"] = build(**({field: value} if host == "node3" else {}))
    report = dr.build_report(nodes, SETTINGS)
    assert failing(report) == [("version_openmpi", "node3")]
    assert value in entry(report, "version_openmpi", "node3")["message"]


def test_openmpi_builds_are_not_compared_when_versions_differ():
    nodes = cluster()
    for host in HOSTS:
        nodes[host]["expect"]["openmpi_version"] = None
        nodes[host]["user"]["openmpi"]["build"] = build()
    nodes["node2"]["user"]["openmpi"].update(version="4.0.3", build=build("Debian 13"))
    verdicts = doctor_checks_versions.openmpi_verdicts(
        {host: nodes[host]["user"]["openmpi"] for host in HOSTS}, HOSTS, "node1")
    assert verdicts["node2"][0] == "fail" and "Debian" not in verdicts["node2"][1]
    assert verdicts["node1"] == ("ok", "Open MPI 4.1.4 (same on 2 node(s))")


def test_tie_goes_to_the_master():
    verdicts = doctor_checks_versions.compare_versions("torch", {"a": {"version": "1"}, "b": {"version": "2"}}, ["a", "b"], master="b")
    assert verdicts["a"][0] == "fail" and verdicts["b"][0] == "ok"
    assert "2 on b" in verdicts["a"][1]


def test_python_patch_level_only_warns():
    nodes = cluster()
    nodes["node2"]["user"]["python"]["version"] = "3.11.9"
    report = dr.build_report(nodes, SETTINGS)
    assert failing(report) == []
    assert entry(report, "version_python", "node2")["status"] == "warn"


def test_missing_python_fails_once_and_frameworks_are_not_checked():
    nodes = cluster()
    nodes["node2"]["user"]["python"] = {"path": "/opt/ml/bin/python", "error": "rc 127: not found"}
    nodes["node2"]["user"]["frameworks"] = None
    report = dr.build_report(nodes, SETTINGS)
    assert failing(report) == [("version_python", "node2")]
    assert entry(report, "version_torch", "node2")["status"] == "warn"


def test_framework_import_error_fails():
    nodes = cluster()
    nodes["node1"]["user"]["frameworks"]["torch_npu"] = {"error": "ImportError: libascendcl.so: cannot open"}
    report = dr.build_report(nodes, SETTINGS)
    assert failing(report) == [("version_torch_npu", "node1")]
    assert "libascendcl" in entry(report, "version_torch_npu", "node1")["message"]


def test_ompi_info_missing_but_marker_present():
    nodes = cluster()
    nodes["node2"]["user"]["openmpi"] = {"absent": True, "error": "ompi_info is not on PATH", "marker_version": "4.1.4"}
    report = dr.build_report(nodes, SETTINGS)
    assert failing(report) == [("version_openmpi", "node2")]
    assert "marker" in entry(report, "version_openmpi", "node2")["message"]


def test_port_held_by_time_wait_skips_reachability():
    nodes = cluster()
    nodes["node1"]["port_bind"] = {"free": False, "error": "in_use", "error_text": "Address already in use",
                                   "holder_state": "TIME_WAIT"}
    nodes["node1"]["listener"] = {"temporary": False, "error": None}
    report = dr.build_report(nodes, SETTINGS)
    assert failing(report) == [("master_port_free", "node1")]
    assert entry(report, "master_port_reachable", "node2")["status"] == "warn"


def test_nobody_reaching_the_master_is_the_masters_problem():
    nodes = cluster()
    for host in HOSTS:
        nodes[host]["port_connect"] = {"reachable": False, "error": "refused", "error_text": "Connection refused"}
    report = dr.build_report(nodes, SETTINGS)
    assert failing(report) == [("master_port_reachable", "node1")]
    assert entry(report, "master_port_reachable", "node2")["status"] == "warn"


def test_listener_that_did_not_start():
    nodes = cluster()
    nodes["node1"]["listener"] = {"temporary": True, "error": "it did not listen within 10 s: OSError"}
    report = dr.build_report(nodes, SETTINGS)
    assert ("master_port_reachable", "node1") in failing(report)


def test_open_ports_mode_needs_the_master_port_allowed():
    nodes = cluster()
    for host in HOSTS:
        nodes[host]["expect"]["firewall_mode"] = "open_ports"
        nodes[host]["system"]["firewall"]["ufw"].update(
            active=True, rules=["22/tcp ALLOW Anywhere", "8118/tcp ALLOW 10.0.0.0/24", "46000:46099/tcp ALLOW Anywhere"])
    nodes["node3"]["system"]["firewall"]["ufw"]["rules"] = ["22/tcp ALLOW Anywhere"]
    report = dr.build_report(nodes, SETTINGS)
    assert failing(report) == [("firewall", "node3")]


def test_port_allowed_ranges():
    assert doctor_checks_network._port_allowed(["46000:46099/tcp ALLOW Anywhere"], 46010)
    assert not doctor_checks_network._port_allowed(["8118/udp ALLOW Anywhere"], 8118)
    assert not doctor_checks_network._port_allowed(["8118/tcp DENY Anywhere"], 8118)
    assert doctor_checks_network._firewalld_allows(["60000-60015/tcp"], 60001)


@pytest.mark.parametrize("variable, value, interfaces, problem", [
    ("npu_env_hccl_socket_ifname", "eth", ["eth0"], None),
    ("npu_env_hccl_socket_ifname", "ib", ["eth0"], "no interface here starts with ib"),
    ("npu_env_hccl_socket_ifname", "=eth0", ["eth0"], None),
    ("npu_env_hccl_socket_ifname", "=eth", ["eth0"], "interface eth does not exist"),
    ("npu_env_hccl_socket_ifname", "^docker", ["eth0"], None),
    ("npu_env_nccl_socket_ifname", "en5,eth", ["eth0"], "starts with en5"),
    ("job_mpirun_if_include", "10.0.0.0/24", ["eth0"], None),
    ("job_mpirun_if_include", "10.9.0.0/24", ["eth0"], "no address of this node is in 10.9.0.0/24"),
    ("job_mpirun_if_include", "eth1", ["eth0"], "interface eth1 does not exist"),
    ("doctor_interfaces", "bad name!", ["eth0"], "is not an interface name"),
])
def test_interface_settings(variable, value, interfaces, problem):
    found = doctor_checks_network.interface_problems(variable, value, {name: {"ipv4": ["10.0.0.1/24"]} for name in interfaces})
    if problem is None:
        assert found == []
    else:
        assert len(found) == 1 and problem in found[0] and variable in found[0]


def test_unreachable_node_without_mesh_data_only_fails_ssh_login():
    nodes = cluster()
    nodes["node3"] = None
    report = dr.build_report(nodes, SETTINGS)
    assert failing(report) == [("ssh_login", "node3")]


def test_probe_error_is_not_checked():
    nodes = cluster()
    nodes["node2"]["error"] = "Read the node's interfaces: boom"
    nodes["node2"]["system"] = None
    report = dr.build_report(nodes, SETTINGS)
    assert entry(report, "etc_hosts", "node2")["message"].startswith("not checked: collecting")


def test_name_ansible_host_cannot_be_compared():
    nodes = cluster()
    nodes["node2"]["expect"]["ansible_host"] = "node2.example"
    report = dr.build_report(nodes, SETTINGS)
    assert entry(report, "host_ip", "node2")["status"] == "warn"


def test_cluster_network_cidr():
    nodes = cluster()
    nodes["node2"]["expect"]["cluster_network_cidr"] = "10.1.0.0/16"
    report = dr.build_report(nodes, SETTINGS)
    assert failing(report) == [("host_ip", "node2")]


def test_hosts_file_missing_name_only_matters_when_the_suite_manages_it():
    nodes = cluster()
    del nodes["node1"]["system"]["hosts_file"][1]
    assert failing(dr.build_report(nodes, SETTINGS)) == [("etc_hosts", "node1")]
    nodes["node1"]["expect"]["manage_hosts_file"] = False
    assert failing(dr.build_report(nodes, SETTINGS)) == []


def test_netdetect_switched_off():
    nodes = cluster()
    nodes["node1"]["netdetect"] = None
    nodes["node1"]["expect"]["netdetect"] = False
    report = dr.build_report(nodes, SETTINGS)
    assert entry(report, "npu_netdetect", "node1") == {
        "check": "npu_netdetect", "node": "node1", "status": "ok", "message": "skipped: doctor_netdetect is false"}


def test_cpu_nodes_get_no_npu_checks():
    nodes = cluster()
    for host in HOSTS:
        nodes[host]["expect"]["kind"] = "cpu"
    report = dr.build_report(nodes, SETTINGS)
    assert not [e for e in report["entries"] if e["check"] in dr.NPU_CHECKS]


def test_node_from_vars():
    unreachable = dr.node_from_vars({"_doctor_expect": {"ansible_host": "x"}, "_doctor_ping": {
        "unreachable": True, "msg": "Task failed: Failed to connect to the host via ssh: mux_client: Broken pipe "
                                    "ssh: connect to host 10.0.0.2 port 22: Connection refused"}})
    assert unreachable["reached"] is False
    assert unreachable["unreachable"] == "ssh: connect to host 10.0.0.2 port 22: Connection refused"
    node = dr.node_from_vars({"_doctor_ping": {"started": 1}, "npu_network_netdetect_result": {"skipped": True},
                              "_doctor_node_system": {"system": {"hostname": "n"}}, "_doctor_error": None})
    assert node["reached"] and node["netdetect"] is None and node["system"] == {"hostname": "n"}
    assert node["port_bind"] is None
    master = dr.node_from_vars({"_doctor_ping": {"started": 1},
                               "_doctor_node_system": {"system": {"port_bind": {"free": True}}}})
    assert master["port_bind"] == {"free": True}
    peers_failed = dr.node_from_vars({"_doctor_ping": {"started": 1}, "_doctor_node_peers": {"failed": True, "msg": "x"}})
    assert peers_failed["mesh"] is None and peers_failed["port_connect"] is None and peers_failed["user"] is None
    failed = dr.node_from_vars({"_doctor_ping": {"failed": True, "msg": "sudo: unknown user"}, "_doctor_error": "x"})
    assert failed["reached"] and failed["error"] == "x"
    assert dr.node_from_vars({})["reached"] is False


def test_table_has_a_grid_and_the_failures_first():
    nodes = cluster()
    break_sshd(nodes)
    break_openmpi(nodes)
    lines = dr.format_table(dr.build_report(nodes, SETTINGS))
    assert lines[0].startswith("cluster doctor: 3 node(s)")
    assert lines[1].split() == ["check"] + HOSTS
    fails = [i for i, line in enumerate(lines) if line.startswith("FAIL ")]
    warns = [i for i, line in enumerate(lines) if line.startswith("warn ")]
    assert fails and warns and max(fails) < min(warns)
    # node2's "not checked" warnings are one line
    assert len([line for line in lines if line.startswith("warn node2")]) == 1


def test_table_for_many_nodes_counts_per_check():
    hosts = ["n%d" % i for i in range(12)]
    report = {"nodes": hosts, "master": "n0", "master_port": 8118,
              "summary": {"ok": 11, "warn": 0, "fail": 1},
              "entries": [{"check": "hostname", "node": h, "status": "fail" if h == "n5" else "ok", "message": "m"}
                          for h in hosts]}
    lines = dr.format_table(report, max_columns=8)
    assert lines[2].split() == ["hostname", "11", "0", "1", "n5"]


@pytest.mark.parametrize("change, fragment", [
    ({"doctor_master_port": 80}, "node1: doctor_master_port: int 80 is not an integer from 1024 to 65535"),
    ({"doctor_master_port": "80"}, "doctor_master_port: str '80' is not an integer from 1024 to 65535"),
    ({"doctor_master_port": "8118x"}, "doctor_master_port: str '8118x'"),
    ({"doctor_netdetect": "yes"}, "node1: doctor_netdetect: must be true or false, got str 'yes'"),
    ({"doctor_ssh_timeout": 0}, "doctor_ssh_timeout: int 0 is not an integer from 1 to 300"),
    ({"doctor_import_timeout": 600}, "doctor_import_timeout: int 600 is not an integer from 5 to 540"),
    ({"doctor_report_path": ""}, "doctor_report_path: must be a file path"),
    ({"doctor_frameworks": "torch"}, "doctor_frameworks: must be a list of Python module names"),
    ({"doctor_interfaces": "eth0"}, "doctor_interfaces: must be a list"),
    ({"names": ["doctor_master_prot"]}, "node1: doctor_master_prot: unknown variable"),
    ({"doctor_clock_warn_ms": -1}, "doctor_clock_warn_ms: int -1 is not an integer from 0 to 3600000"),
    ({"doctor_clock_fail_ms": 1.5}, "doctor_clock_fail_ms: float 1.5 is not an integer"),
    ({"doctor_clock_warn_ms": 6000}, "node1: doctor_clock_warn_ms: 6000 is above doctor_clock_fail_ms 5000"),
])
def test_settings_errors(change, fragment):
    settings = {"doctor_master_port": 8118, "doctor_report_path": "logs/doctor/report.json",
                "doctor_frameworks": ["torch"], "doctor_netdetect": True, "doctor_interfaces": [],
                "doctor_clock_warn_ms": 500, "doctor_clock_fail_ms": 5000, "names": ["doctor_master_port"]}
    assert doctor_settings.settings_errors(settings, "node1") == []
    settings.update(change)
    errors = doctor_settings.settings_errors(settings, "node1")
    assert len(errors) == 1 and fragment in errors[0], errors


def test_digits_from_the_command_line_count_as_numbers():
    settings = {"doctor_master_port": "29500", "doctor_report_path": "r.json", "doctor_ssh_timeout": "5"}
    assert doctor_settings.settings_errors(settings, "node1") == []


def test_build_report_does_not_change_its_input():
    nodes = cluster()
    before = copy.deepcopy(nodes)
    dr.build_report(nodes, SETTINGS)
    assert nodes == before


@pytest.mark.parametrize("offset, uncertainty, service, status, fragment", [
    (0.002, 0.004, "chrony", "ok", "clock +0.002 s (±0.004 s) against the controller's, best of 5 read(s); time service: chrony"),
    (-0.45, 0.06, "none", "warn", "skew up to 510 ms is above doctor_clock_warn_ms 500; install and enable chrony"),
    (7.5, 0.01, "systemd-timesyncd", "fail", "skew up to 7510 ms is above doctor_clock_fail_ms 5000; start it or check"),
])
def test_clock_skew_counts_with_its_uncertainty(offset, uncertainty, service, status, fragment):
    nodes = cluster()
    nodes["node2"]["clock"].update(offset=offset, uncertainty=uncertainty, sync_service=service)
    found = entry(dr.build_report(nodes, SETTINGS), "clock", "node2")
    assert found["status"] == status and fragment in found["message"], found
    assert entry(dr.build_report(nodes, SETTINGS), "clock", "node1")["status"] == "ok"


def test_clock_limits_below_the_uncertainty_fail_every_real_reading():
    report = dr.build_report(cluster(), dict(SETTINGS, clock_warn_ms=0, clock_fail_ms=0))
    assert {entry(report, "clock", host)["status"] for host in HOSTS} == {"fail"}


def test_clock_not_read_is_not_checked():
    nodes = cluster()
    nodes["node3"]["clock"] = None
    assert entry(dr.build_report(nodes, SETTINGS), "clock", "node3")["status"] == "warn"


def _site_ran_without(nodes, held_out):
    """What the in-service nodes hold after site.yml carried on without `held_out`: no line for it in
    /etc/hosts or known_hosts, so their logins to it fail."""
    for host in HOSTS:
        if host == held_out:
            continue
        system = nodes[host]["system"]
        system["hosts_file"] = [line for line in system["hosts_file"] if held_out not in line[1]]
        for item in nodes[host]["mesh"]["results"]:
            if item["peer"] == held_out:
                item.update(status="host_key_unknown" if item["address"] == ADDR[held_out] else "unresolved",
                            message="no key / no name")


def test_a_node_held_out_of_service_is_not_expected_in_the_others_files():
    nodes = cluster()
    _site_ran_without(nodes, "node3")
    # The ledger holds node3 out: node1 and node2 pass; node3 is judged on its own files.
    report = dr.build_report(nodes, dict(SETTINGS, out_of_service=["node3"]))
    assert failing(report) == []
    assert "not to node3, held out of service by the node ledger" in entry(report, "ssh_mesh", "node1")["message"]
    # Once it is back in service, the files that still lack it are the others' to fix (site.yml --tags ssh).
    report = dr.build_report(nodes, SETTINGS)
    assert failing(report) == [("etc_hosts", "node1"), ("etc_hosts", "node2"), ("ssh_mesh", "node1"),
                               ("ssh_mesh", "node2")]


def test_a_held_out_node_still_needs_its_own_names_and_logins():
    nodes = cluster()
    break_hosts_file_of = nodes["node3"]["system"]
    break_hosts_file_of["hosts_file"] = [line for line in break_hosts_file_of["hosts_file"] if "node1" not in line[1]]
    report = dr.build_report(nodes, dict(SETTINGS, out_of_service=["node3"]))
    assert failing(report) == [("etc_hosts", "node3")]
