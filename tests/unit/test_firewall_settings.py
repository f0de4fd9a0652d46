"""Role firewall's settings check: every problem at once, named by host and variable."""
import pytest

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import role_settings
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation.firewall import settings_errors

GOOD = {"firewall_mode": "open_ports", "firewall_ssh_port": 22, "firewall_master_ports": [8118, 29500],
        "firewall_hccl_port_range": "60000:60015", "firewall_mpi_port_range": "46000:46099",
        "firewall_extra_ports": [29400, "29401:29410", "7"], "firewall_allowed_sources": ["10.0.0.0/24", "10.1.2.3"]}


def test_defaults_and_good_values_pass():
    assert settings_errors(GOOD, "n1") == []
    assert settings_errors(dict(GOOD, firewall_ssh_port="2222", firewall_mode="disabled"), "n1") == []


@pytest.mark.parametrize("name, value, message", [
    ("firewall_hccl_port_range", "60015:60000", "n1: firewall_hccl_port_range: 60015:60000 is not a port range"),
    ("firewall_mpi_port_range", "0:10", "n1: firewall_mpi_port_range: 0:10 is not a port range"),
    ("firewall_mpi_port_range", "1:70000", "n1: firewall_mpi_port_range: 1:70000 is not a port range"),
    ("firewall_mpi_port_range", "1:2\n", "is not a port range"),
    ("firewall_ssh_port", 0, "n1: firewall_ssh_port: 0 is not a port between 1 and 65535"),
    ("firewall_ssh_port", True, "n1: firewall_ssh_port: True is not a port"),
    ("firewall_master_ports", [8118, 70000], "n1: firewall_master_ports: 70000 is not a port between 1 and 65535"),
    ("firewall_extra_ports", ["9:8"], "n1: firewall_extra_ports: 9:8 is neither a port nor a range"),
    ("firewall_extra_ports", ["80\n"], "is neither a port nor a range"),
    ("firewall_allowed_sources", ["10.0.0.0/40"], "n1: firewall_allowed_sources: 10.0.0.0/40 is not an IPv4"),
    ("firewall_allowed_sources", ["10.0.0.300"], "n1: firewall_allowed_sources: 10.0.0.300 is not an IPv4"),
    ("firewall_allowed_sources", ["10.0.0.0/24\n"], "is not an IPv4 address or CIDR"),
])
def test_each_bad_value_is_named(name, value, message):
    errors = settings_errors(dict(GOOD, **{name: value}), "n1")
    assert len(errors) == 1 and message in errors[0], errors


def test_every_problem_at_once():
    bad = dict(GOOD, firewall_mode="x", firewall_master_ports=[0], firewall_allowed_sources=["a"])
    assert [e.split(":")[1].strip() for e in role_settings.problems("firewall", bad, "n2")] == [
        "firewall_mode", "firewall_master_ports", "firewall_allowed_sources"]


@pytest.mark.parametrize("role, name, value, message", [
    ("firewall", "firewall_mode", "off", "n1: firewall_mode: off is not one of disabled, open_ports"),
    ("openmpi", "openmpi_build_strategy", "sometimes", "n1: openmpi_build_strategy: sometimes is not one of once, "
                                                       "every_node"),
    ("npu_env", "npu_env_cann_layout", "cann", "n1: npu_env_cann_layout: cann is not one of auto, ascend-toolkit"),
])
def test_choices_come_from_the_argument_spec(role, name, value, message):
    assert any(problem.startswith(message) for problem in role_settings.choice_problems(role, {name: value}, "n1"))
    assert role_settings.choice_problems(role, {}, "n1") == []
