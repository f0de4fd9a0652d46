"""Tests for plugins/module_utils/job_ifaces.py: one interface per node for every library of a launch,
from the node's route toward the master, and the interfaces a job names, checked before its launch."""

import pytest

import job_ifaces

IP_OUTPUT = """1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever
2: eth0@if7    inet 10.89.0.2/24 brd 10.89.0.255 scope global eth0\\       valid_lft forever
3: eth1@if8    inet 10.90.0.2/24 brd 10.90.0.255 scope global eth1\\       valid_lft forever
"""
IPV4 = job_ifaces.parse_ipv4_interfaces(IP_OUTPUT)
DEVICES = ["eth0", "eth1", "ib0", "lo"]


def check(if_include="", settings=()):
    return job_ifaces.problems(DEVICES, IPV4, "10.89.0.2", if_include, list(settings))


def test_parse():
    assert [(name, str(item)) for name, item in IPV4] == [
        ("lo", "127.0.0.1/8"), ("eth0", "10.89.0.2/24"), ("eth1", "10.90.0.2/24")]


@pytest.mark.parametrize("value", ["", "eth0", "10.89.0.0/24", "eth0,10.89.0.0/16", "10.89.0.2/32"])
def test_usable_include_lists(value):
    assert check(value) == []


@pytest.mark.parametrize("value, problem", [
    ("eth9", "job_mpirun_if_include: interface eth9 does not exist here (interfaces: eth0, eth1, ib0, lo)"),
    ("eth1", "job_mpirun_if_include: interface eth1 has no address on the cluster network 10.89.0.0/24"),
    ("ib0", "job_mpirun_if_include: interface ib0 has no address on the cluster network 10.89.0.0/24"),
    ("10.90.0.0/24", "job_mpirun_if_include: no interface here has an address in 10.90.0.0/24 on the cluster network"),
])
def test_unusable_include_lists(value, problem):
    assert check(value)[0].startswith(problem)


@pytest.mark.parametrize("variable, value", [
    ("NCCL_SOCKET_IFNAME", "=eth0"), ("HCCL_SOCKET_IFNAME", "^eth1,lo"), ("NCCL_SOCKET_IFNAME", "eth0"),
    ("GLOO_SOCKET_IFNAME", "eth0"), ("HCCL_SOCKET_IFNAME", "=eth0,eth0"), ("HCCL_IF_IP", "10.89.0.2"),
])
def test_usable_ifnames(variable, value):
    assert check(settings=[(variable, value, "job_env")]) == []


@pytest.mark.parametrize("variable, value, problem", [
    ("NCCL_SOCKET_IFNAME", "en5", "NCCL_SOCKET_IFNAME (job_env): interface name or prefix en5 matches no interface"),
    ("NCCL_SOCKET_IFNAME", "=eth", "NCCL_SOCKET_IFNAME (job_env): interface eth matches no interface"),
    ("HCCL_SOCKET_IFNAME", "^eth", "HCCL_SOCKET_IFNAME (job_env): ^eth excludes eth0"),
    ("GLOO_SOCKET_IFNAME", "eth", "GLOO_SOCKET_IFNAME (job_env): interface eth matches no interface"),
    ("GLOO_SOCKET_IFNAME", "eth1", "GLOO_SOCKET_IFNAME (job_env): eth1 (eth1) has no address on the cluster network"),
    # A prefix that also selects another interface: NCCL and HCCL would use both.
    ("NCCL_SOCKET_IFNAME", "eth", "NCCL_SOCKET_IFNAME (job_env): eth selects 2 interfaces here (eth0, eth1); name exactly one"),
    ("HCCL_SOCKET_IFNAME", "^ib", "HCCL_SOCKET_IFNAME (job_env): ^ib selects the loopback interface lo"),
    ("GLOO_SOCKET_IFNAME", "eth0,lo", "GLOO_SOCKET_IFNAME (job_env): lo (lo) has no address on the cluster network"),
    ("HCCL_IF_IP", "10.90.0.2", "HCCL_IF_IP (job_env): 10.90.0.2 is not on the cluster network 10.89.0.0/24"),
    ("HCCL_IF_IP", "10.1.1.1", "HCCL_IF_IP (job_env): 10.1.1.1 is not an address of this node"),
])
def test_unusable_ifnames(variable, value, problem):
    assert check(settings=[(variable, value, "job_env")])[0].startswith(problem)


def test_include_list_selecting_two_interfaces_is_refused():
    assert check("eth0,10.89.0.0/24,lo") == [
        "job_mpirun_if_include: interface lo has no address on the cluster network 10.89.0.0/24"]
    ipv4 = job_ifaces.parse_ipv4_interfaces(IP_OUTPUT + "4: eth2    inet 10.89.0.9/24 scope global eth2\\\n")
    assert job_ifaces.problems(DEVICES + ["eth2"], ipv4, "10.89.0.2", "10.89.0.0/24", [])[0].startswith(
        "job_mpirun_if_include: 10.89.0.0/24 selects 2 interfaces here (eth0, eth2)")


def test_origin_is_named_and_every_problem_is_listed():
    found = check("eth9", [("NCCL_SOCKET_IFNAME", "ib", "/home/t/.cluster-suite/env_gpu.sh"),
                           ("GLOO_SOCKET_IFNAME", "ib7", "job_env")])
    assert len(found) == 3
    assert found[1].startswith("NCCL_SOCKET_IFNAME (/home/t/.cluster-suite/env_gpu.sh): ib (ib0) has no address")


def test_unknown_node_address():
    assert job_ifaces.problems(DEVICES, IPV4, "10.1.1.1", "eth0", [])[0].startswith(
        "ansible_host: 10.1.1.1 is not an address of this node")


# A node whose interface first in name order (ens1) is not the one toward the master (eth0).
TWO_IFACES = """1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever
2: eth0@if7    inet 10.89.0.3/24 brd 10.89.0.255 scope global eth0\\       valid_lft forever
3: ens1@if9    inet 10.90.0.3/24 brd 10.90.0.255 scope global ens1\\       valid_lft forever
"""
TWO_IPV4 = job_ifaces.parse_ipv4_interfaces(TWO_IFACES)
TWO_DEVICES = ["ens1", "eth0", "lo"]
ROUTE = "10.89.0.2 dev eth0 src 10.89.0.3 uid 1000 \\    cache "


def plan(route=ROUTE, job_env=None, npu=False, address="10.89.0.3", master="10.89.0.2"):
    return job_ifaces.plan(TWO_DEVICES, TWO_IPV4, address, master, route, "", job_env or {}, npu)


def test_parse_route():
    assert job_ifaces.parse_route(ROUTE) == {"dev": "eth0", "src": "10.89.0.3", "local": False}
    assert job_ifaces.parse_route("local 10.89.0.3 dev lo table local src 10.89.0.3 uid 0 \\    cache <local> ")[
        "local"]


def test_every_library_gets_the_interface_toward_the_master_by_exact_name():
    found = plan(npu=True)
    assert found["problems"] == []
    assert found["choice"] == {"iface": "eth0", "address": "10.89.0.3", "network": "10.89.0.0/24",
                               "master": "10.89.0.2", "route": "dev eth0 src 10.89.0.3"}
    assert found["env"] == {"NCCL_SOCKET_IFNAME": "=eth0", "HCCL_SOCKET_IFNAME": "=eth0",
                            "GLOO_SOCKET_IFNAME": "eth0", "HCCL_IF_IP": "10.89.0.3"}
    assert "HCCL_IF_IP" not in plan()["env"]


def test_on_the_master_the_interface_holding_its_address_not_loopback():
    found = plan(route="local 10.89.0.3 dev lo table local src 10.89.0.3 uid 0 \\    cache <local> ",
                 master="10.89.0.3")
    assert found["problems"] == [] and found["choice"]["iface"] == "eth0" and found["choice"]["route"] == "local"


def test_master_only_on_loopback_is_refused():
    found = plan(route="local 127.0.0.1 dev lo table local src 127.0.0.1", master="127.0.0.1")
    assert found["choice"] is None and found["env"] == {}
    assert found["problems"] == ["job_master_addr: 127.0.0.1 is held here only by loopback, which no other node reaches"]


def test_route_leaving_by_an_interface_off_the_cluster_network_is_refused():
    found = plan(route="10.89.0.2 via 10.90.0.1 dev ens1 src 10.90.0.3 uid 0")
    assert found["problems"][0].startswith("the route toward the master 10.89.0.2 (dev ens1 src 10.90.0.3) leaves "
                                           "by ens1, which holds no address on the cluster network 10.89.0.0/24")


def test_the_job_setting_wins_and_is_checked():
    found = plan(job_env={"GLOO_SOCKET_IFNAME": "eth0", "NCCL_SOCKET_IFNAME": "e", "OTHER": "x"})
    assert found["set_by_job"] == {"GLOO_SOCKET_IFNAME": "eth0", "NCCL_SOCKET_IFNAME": "e"}
    assert found["env"] == {"HCCL_SOCKET_IFNAME": "=eth0"}
    assert found["problems"] == ["NCCL_SOCKET_IFNAME (job_env): e selects 2 interfaces here (ens1, eth0); name "
                                 "exactly one (the one on the cluster network 10.89.0.0/24)"]
    assert plan(job_env={"GLOO_SOCKET_IFNAME": "ens1"})["problems"][0].startswith(
        "GLOO_SOCKET_IFNAME (job_env): ens1 (ens1) has no address on the cluster network")


def test_plan_lines_show_each_nodes_choice():
    master = plan(route="local 10.89.0.3 dev lo table local src 10.89.0.3", master="10.89.0.3")
    lines = job_ifaces.plan_lines([master, plan(job_env={"GLOO_SOCKET_IFNAME": "eth0"})], ["node1", "node2"])
    assert lines[0] == ("node1: interface eth0 (10.89.0.3 on 10.89.0.0/24) toward the master 10.89.0.3 (the master "
                        "itself); sets GLOO_SOCKET_IFNAME=eth0 HCCL_SOCKET_IFNAME==eth0 NCCL_SOCKET_IFNAME==eth0")
    assert lines[1].endswith("(route dev eth0 src 10.89.0.3); sets HCCL_SOCKET_IFNAME==eth0 NCCL_SOCKET_IFNAME==eth0; "
                             "job_env sets GLOO_SOCKET_IFNAME=eth0")
