import pytest

from inventory_checks import inventory_errors


def good_inventory():
    groups = {"all": ["n1", "n2"], "cluster": ["n1", "n2"], "npu_nodes": ["n1", "n2"],
              "cluster_master": ["n1"]}
    hostvars = {h: {"ansible_host": f"10.0.0.{i}", "npu_device_count": 8, "npu_model": "atlas800",
                    "cluster_user": "trainer"} for i, h in enumerate(["n1", "n2"], 1)}
    return groups, hostvars


def test_good_inventory_has_no_errors():
    assert inventory_errors(*good_inventory()) == []


@pytest.mark.parametrize("change, expected", [
    (lambda g, h: g.update(cluster=[], npu_nodes=[]), "group 'cluster' is empty"),
    (lambda g, h: g.update(cluster_master=[]), "'cluster_master' must hold exactly one host"),
    (lambda g, h: g.update(cluster_master=["n1", "n2"]), "it holds 2: n1, n2"),
    (lambda g, h: g.update(cluster_master=["x9"]), "x9: group 'cluster_master': the master is not"),
    (lambda g, h: g.update(gpu_nodes=["n2"]), "n2: in both groups 'npu_nodes' and 'gpu_nodes'"),
    (lambda g, h: h["n2"].update(ansible_host="10.0.0.300"), "n2: ansible_host: 10.0.0.300 is not a valid"),
    (lambda g, h: h["n2"].update(ansible_host="10.0.0.1"), "n2: ansible_host: 10.0.0.1 is already the address of n1"),
    (lambda g, h: h["n2"].update(npu_device_count="8"), "n2: npu_device_count: must be an integer, got str '8'"),
    (lambda g, h: h["n2"].update(npu_device_count=True), "n2: npu_device_count: must be an integer, got bool"),
    (lambda g, h: h["n2"].update(npu_device_count=6), "n2: npu_device_count: 6 is not a device count"),
    (lambda g, h: h["n2"].pop("npu_device_count"), "n2: npu_device_count: missing"),
    (lambda g, h: h["n1"].update(npu_model="atlas300"), "n1: npu_model: unknown hardware model 'atlas300'"),
    (lambda g, h: h["n1"].update(cluster_user="Bad User"), "n1: cluster_user: 'Bad User' is not a valid"),
    (lambda g, h: [h[x].update(cluster_user="root") for x in h], "n1: cluster_user: root is refused"),
    (lambda g, h: h["n2"].update(cluster_user="other"), "the training user must be the same on every node"),
    (lambda g, h: h["n1"].update(cluster_allow_root="yes"), "n1: cluster_allow_root: must be true or false, got str"),
])
def test_each_problem_is_named(change, expected):
    groups, hostvars = good_inventory()
    change(groups, hostvars)
    errors = inventory_errors(groups, hostvars)
    assert any(expected in e for e in errors), errors


def test_root_allowed_when_asked():
    groups, hostvars = good_inventory()
    for h in hostvars.values():
        h.update(cluster_user="root", cluster_allow_root=True)
    assert inventory_errors(groups, hostvars) == []


def test_duplicate_short_names():
    groups, hostvars = good_inventory()
    groups.update(cluster=["n1.a", "n1.b"], npu_nodes=[], cluster_master=["n1.a"])
    hostvars = {"n1.a": {"ansible_host": "10.0.0.1", "cluster_user": "t"},
                "n1.b": {"ansible_host": "10.0.0.2", "cluster_user": "t"}}
    assert any("short name 'n1'" in e for e in inventory_errors(groups, hostvars))


def test_all_problems_reported_at_once():
    groups, hostvars = good_inventory()
    hostvars["n1"]["ansible_host"] = "1.2.3.999"
    hostvars["n2"]["npu_device_count"] = 3
    errors = inventory_errors(groups, hostvars)
    assert len(errors) == 2, errors


# --- ansible_port, cluster_network_cidr, role settings against their argument specs ----------

from inventory_checks import check_settings, type_name  # noqa: E402


SPECS = {
    "firewall_mode": {"type": "str", "choices": ["disabled", "open_ports"]},
    "firewall_master_ports": {"type": "list", "elements": "int"},
    "firewall_extra_ports": {"type": "list", "elements": "raw"},
    "openmpi_verify": {"type": "bool"},
    "openmpi_build_timeout": {"type": "int"},
    "npu_env_extra": {"type": "dict"},
    "npu_network_base": {"type": "raw"},
}


@pytest.mark.parametrize("change, expected", [
    (lambda g, h: h["n1"].update(ansible_port=70000), "n1: ansible_port: int 70000 is not a TCP port"),
    (lambda g, h: h["n1"].update(ansible_port="22"), "n1: ansible_port: str '22' is not a TCP port"),
    (lambda g, h: h["n2"].update(cluster_network_cidr="10.0.0.0/33"),
     "n2: cluster_network_cidr: '10.0.0.0/33' is not an IPv4 network"),
    (lambda g, h: h["n2"].update(cluster_network_cidr="10.0.0.5/24"), "(did you mean 10.0.0.0/24?)"),
    (lambda g, h: h["n2"].update(cluster_network_cidr="10.0.0.0"), "n2: cluster_network_cidr: '10.0.0.0' is not"),
    (lambda g, h: h["n2"].update(cluster_network_cidr="10.9.0.0/16"),
     "n2: ansible_host: 10.0.0.2 is not in cluster_network_cidr 10.9.0.0/16"),
])
def test_connection_and_network(change, expected):
    groups, hostvars = good_inventory()
    change(groups, hostvars)
    errors = inventory_errors(groups, hostvars)
    assert any(expected in e for e in errors), errors


def test_network_that_holds_every_node_is_fine():
    groups, hostvars = good_inventory()
    for h in hostvars.values():
        h.update(cluster_network_cidr="10.0.0.0/24", ansible_port=22)
    assert inventory_errors(groups, hostvars) == []


@pytest.mark.parametrize("variable, value, expected", [
    ("firewall_mode", "off", "n1, n2: firewall_mode: 'off' is not one of disabled, open_ports"),
    ("firewall_mode", 0, "firewall_mode: must be a string (quote it in YAML), got int 0"),
    ("firewall_master_ports", "8118", "firewall_master_ports: must be a list, got str '8118'"),
    ("firewall_master_ports", ["8118"], "firewall_master_ports: every item must be an integer, got str '8118'"),
    ("openmpi_verify", "yes", "openmpi_verify: must be true or false, got str 'yes'"),
    ("openmpi_build_timeout", "7200", "openmpi_build_timeout: must be an integer, got str '7200'"),
    ("openmpi_build_timeout", True, "openmpi_build_timeout: must be an integer, got bool True"),
    ("npu_env_extra", ["A=1"], "npu_env_extra: must be a mapping, got list"),
    ("firewall_mod", "disabled", "firewall_mod: unknown variable (not a setting of role firewall; did you mean "
                                 "firewall_mode?)"),
    ("openmpi_verison", "4.1.4", "not a setting of role openmpi"),
])
def test_role_settings_against_their_specs(variable, value, expected):
    groups, hostvars = good_inventory()
    for h in hostvars.values():
        h[variable] = value
    errors = inventory_errors(groups, hostvars, SPECS)
    assert len(errors) == 1 and expected in errors[0], errors
    assert errors[0].startswith("n1, n2: ")


def test_good_role_settings_and_nulls_pass():
    groups, hostvars = good_inventory()
    hostvars["n1"].update(firewall_mode="open_ports", firewall_master_ports=[8118], firewall_extra_ports=["1:2", 3],
                          openmpi_verify=False, npu_env_extra={"A": 1}, npu_network_base=["10.0.0.0"],
                          openmpi_build_timeout=None, cluster_name="x", other_var="y")
    assert inventory_errors(groups, hostvars, SPECS) == []


def test_setting_wrong_on_one_host_names_that_host():
    groups, hostvars = good_inventory()
    hostvars["n2"]["openmpi_verify"] = "no"
    assert check_settings(hostvars, ["n1", "n2"], SPECS) == [
        "n2: openmpi_verify: must be true or false, got str 'no'"]


def test_many_hosts_are_listed_briefly():
    hostvars = {f"n{i}": {"openmpi_verify": "no"} for i in range(9)}
    (error,) = check_settings(hostvars, list(hostvars), SPECS)
    assert error.startswith("n0, n1, n2, n3, n4 (and 4 more): openmpi_verify")


def test_type_name_hides_subclasses():
    class TaggedStr(str):
        pass
    assert type_name(TaggedStr("8")) == "str"
    assert type_name(True) == "bool" and type_name(None) == "null"
    groups, hostvars = good_inventory()
    hostvars["n2"]["npu_device_count"] = TaggedStr("8")
    assert "n2: npu_device_count: must be an integer, got str '8'" in inventory_errors(groups, hostvars)
