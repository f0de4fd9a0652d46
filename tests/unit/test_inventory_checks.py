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
