"""Tests for plugins/module_utils/job_ifaces.py: the interfaces a job names, checked before its launch."""

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


@pytest.mark.parametrize("value", ["", "eth0", "10.89.0.0/24", "eth0,10.89.0.0/16"])
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
    ("NCCL_SOCKET_IFNAME", "eth"), ("NCCL_SOCKET_IFNAME", "=eth0"), ("HCCL_SOCKET_IFNAME", "^eth1,lo"),
    ("GLOO_SOCKET_IFNAME", "eth0"), ("HCCL_SOCKET_IFNAME", "=eth0,eth0"),
])
def test_usable_ifnames(variable, value):
    assert check(settings=[(variable, value, "job_env")]) == []


@pytest.mark.parametrize("variable, value, problem", [
    ("NCCL_SOCKET_IFNAME", "en5", "NCCL_SOCKET_IFNAME (job_env): interface name or prefix en5 matches no interface"),
    ("NCCL_SOCKET_IFNAME", "=eth", "NCCL_SOCKET_IFNAME (job_env): interface eth matches no interface"),
    ("HCCL_SOCKET_IFNAME", "^eth", "HCCL_SOCKET_IFNAME (job_env): ^eth excludes eth0"),
    ("GLOO_SOCKET_IFNAME", "eth", "GLOO_SOCKET_IFNAME (job_env): interface eth matches no interface"),
    ("GLOO_SOCKET_IFNAME", "eth1", "GLOO_SOCKET_IFNAME (job_env): eth1 (eth1) has no address on the cluster network"),
])
def test_unusable_ifnames(variable, value, problem):
    assert check(settings=[(variable, value, "job_env")])[0].startswith(problem)


def test_origin_is_named_and_every_problem_is_listed():
    found = check("eth9", [("NCCL_SOCKET_IFNAME", "ib", "/home/t/.cluster-suite/env_gpu.sh"),
                           ("GLOO_SOCKET_IFNAME", "ib7", "job_env")])
    assert len(found) == 3
    assert found[1].startswith("NCCL_SOCKET_IFNAME (/home/t/.cluster-suite/env_gpu.sh): ib (ib0) has no address")


def test_unknown_node_address():
    assert job_ifaces.problems(DEVICES, IPV4, "10.1.1.1", "eth0", [])[0].startswith(
        "ansible_host: 10.1.1.1 is not an address of this node")
