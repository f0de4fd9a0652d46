"""plugins/plugin_utils/fleet/rolling_upgrade.py: playbooks/upgrade.yml's batch size, what needs an
upgrade, the gate's verdict and the message of a stopped upgrade."""
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import role_settings
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.fleet import rolling_upgrade

GROUPS = {"cluster": ["node1", "node2", "node3"], "cluster_master": ["node1"]}


def fleet_problems(**settings):
    base = {"fleet_action": "upgrade", "fleet_nodes": [], "fleet_reason": "", "fleet_force": False,
            "fleet_host_key_fingerprint": "", "fleet_trust_on_first_use": False, "fleet_batch_size": 1,
            "_fleet_playbook": "upgrade"}
    return role_settings.problems("fleet", dict(base, **settings), "node1", GROUPS)


def test_batch_sizes_accepted_and_refused():
    for good in (1, 16, "2", "25%", "100%", "1%"):
        assert rolling_upgrade.batch_size_problems(good, "node1") == [], good
    assert rolling_upgrade.batch_size_problems(0, "node1") == ["node1: fleet_batch_size: 0 nodes per batch: give 1 or more"]
    assert rolling_upgrade.batch_size_problems("0", "node1") == ["node1: fleet_batch_size: 0 nodes per batch: give 1 or more"]
    for bad in ("0%", "101%", "half", -2, True, "", None, "2.5"):
        assert rolling_upgrade.batch_size_problems(bad, "node1"), bad


def test_the_fleet_rule_refuses_a_bad_batch_size_and_a_stranger():
    assert fleet_problems() == []
    assert fleet_problems(fleet_nodes=["node2", "node3"], fleet_batch_size="50%") == []
    assert fleet_problems(fleet_batch_size=0) == ["node1: fleet_batch_size: 0 nodes per batch: give 1 or more"]
    assert fleet_problems(fleet_nodes=["node9"]) == [
        "node1: fleet_nodes: node9: not a node of the inventory (group cluster: node1, node2, node3); "
        "nothing was changed"]


def test_needs_upgrade():
    pins = [{"name": "six", "version": "1.17.0"}]
    assert rolling_upgrade.needs_upgrade(pins, {"six": "1.17.0"}, True, False) is False
    assert rolling_upgrade.needs_upgrade(pins, {"six": "1.16.0"}, True, False) is True
    assert rolling_upgrade.needs_upgrade(pins, {"six": None}, True, False) is True
    assert rolling_upgrade.needs_upgrade(pins, {}, False, False) is True
    assert rolling_upgrade.needs_upgrade(pins, {"six": "1.17.0"}, True, True) is True
    assert rolling_upgrade.needs_upgrade([], {}, False, False) is False


def test_gate_failures_of_the_batch_only():
    doctor = {"entries": [
        {"check": "ssh_mesh", "node": "node2", "status": "fail", "message": "no key of node1"},
        {"check": "ssh_mesh", "node": "node2", "status": "fail", "message": "second"},
        {"check": "firewall", "node": "node9", "status": "fail", "message": "not in the batch"},
        {"check": "hostname", "node": "node3", "status": "ok", "message": ""}]}
    assert rolling_upgrade.gate_failures(["node2", "node3"], doctor, {}, {}) == {
        "node2": "doctor: ssh_mesh: no key of node1"}
    acceptance = {"passed": False, "excluded": {"node3": "slow: 10 % of the median"}}
    assert rolling_upgrade.gate_failures(["node2", "node3"], {}, acceptance, {}) == {
        "node3": "acceptance: slow: 10 % of the median"}
    assert rolling_upgrade.gate_failures(["node2"], {}, {"passed": True}, {"node2": "fan (quarantined since x)"}) == {
        "node2": "node ledger: quarantined: fan (quarantined since x)"}
    assert rolling_upgrade.gate_failures(["node2", "node3"], {}, {"passed": False, "excluded": {}}, {}) == {
        "node2": "acceptance: the batch did not pass as a whole", "node3": "acceptance: the batch did not pass as a whole"}
    assert rolling_upgrade.gate_failures(["node1"], {"entries": []}, {"passed": True}, {"node4": "x"}) == {}


def test_stop_message_names_the_quarantined_upgraded_and_untouched_nodes():
    left = rolling_upgrade.untouched(["node1", "node2", "node3"], ["node1"], ["node2"])
    assert left == ["node3"]
    lines = rolling_upgrade.stop_message(["node2"], {"node2": "doctor: ssh_mesh: no key"},
                                         {"node2": "doctor: ssh_mesh: no key (quarantined since t; evidence r.json)"},
                                         ["node1"], left)
    assert lines[0] == "The upgrade stopped at the batch node2:"
    assert "  node2: doctor: ssh_mesh: no key" in lines
    assert "  node2: doctor: ssh_mesh: no key (quarantined since t; evidence r.json)" in lines
    assert "Upgraded and gated: node1" in lines
    assert "Not upgraded, still on the previous environment: node3" in lines
    none = rolling_upgrade.stop_message(["node1"], {"node1": "busy"}, {}, [], ["node2"])
    assert "  none" in none and "Upgraded and gated: none" in none
