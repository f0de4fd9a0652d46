"""Role fleet's rule in plugins/plugin_utils/validation/role_settings.py: playbooks/fleet.yml's bad input."""
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import role_settings

GROUPS = {"cluster": ["node1", "node2", "node3"], "cluster_master": ["node1"]}


def problems(**settings):
    """Role fleet's problems, run from the action's own playbook (add.yml for add, ...) unless
    _fleet_playbook is given."""
    base = {"fleet_action": "list", "fleet_nodes": [], "fleet_reason": "", "fleet_force": False,
            "fleet_host_key_fingerprint": "", "fleet_trust_on_first_use": False}
    action = settings.get("fleet_action", "list")
    base["_fleet_playbook"] = None if action in role_settings.FLEET_PLAYBOOK_ACTIONS else action
    return role_settings.problems("fleet", dict(base, **settings), "node1", GROUPS)


def test_an_action_is_refused_from_a_playbook_that_does_not_run_it():
    assert problems(fleet_action="add", fleet_nodes=["node3"], _fleet_playbook=None) == [
        "node1: fleet_action: add is not what playbooks/fleet.yml does (add and replace are playbooks/add.yml "
        "and replace.yml, which also provision the nodes); nothing was changed"]
    assert problems(fleet_action="quarantine", fleet_nodes=["node3"], fleet_reason="x", _fleet_playbook="add") == [
        "node1: fleet_action: quarantine is not what playbooks/add.yml does (it sets fleet_action itself: leave it "
        "out of -e); nothing was changed"]
    assert problems(fleet_action="retire", fleet_nodes=["node3"], fleet_reason="x", _fleet_playbook="retire") == []
    assert problems(fleet_action="retire", fleet_nodes=["node3"], fleet_reason="x", _fleet_playbook=None) == []


def test_list_and_good_changes_pass():
    assert problems() == []
    assert problems(fleet_action="quarantine", fleet_nodes=["node3"], fleet_reason="fan failure") == []
    assert problems(fleet_action="return", fleet_nodes=["node3"]) == []
    assert problems(fleet_action="return", fleet_nodes=["node3"], fleet_force=True, fleet_reason="fan replaced") == []


def test_unknown_nodes_missing_nodes_and_reasons_are_refused():
    assert problems(fleet_action="quarantine", fleet_nodes=["node9", "node2"], fleet_reason="x") == [
        "node1: fleet_nodes: node9: not a node of the inventory (group cluster: node1, node2, node3); "
        "nothing was changed"]
    assert problems(fleet_action="retire", fleet_nodes=[], fleet_reason="x") == [
        "node1: fleet_nodes: retire needs the nodes to act on"]
    assert problems(fleet_action="quarantine", fleet_nodes=["node2"], fleet_reason="  ") == [
        "node1: fleet_reason: quarantine needs a reason (the operator's words are recorded)"]
    assert problems(fleet_action="return", fleet_nodes=["node2"], fleet_force=True) == [
        "node1: fleet_reason: a forced return (fleet_force) needs a reason, which is recorded"]
    assert "must be a list" in problems(fleet_nodes="node2")[0]
    assert "no control characters" in problems(fleet_action="quarantine", fleet_nodes=["node2"],
                                               fleet_reason="a\nb")[0]


def test_text_for_a_bool_and_typos_are_refused():
    assert "fleet_force: must be true or false" in problems(fleet_force="true")[0]
    assert role_settings.typo_problems("node1", ["fleet_node"], ["fleet"]) == [
        "node1: fleet_node: unknown variable (not a setting of role fleet; did you mean fleet_nodes?)"]


FINGERPRINT = "SHA256:wMILQInLg4JwujAp0ccW3z6ctPZkf09m7p5W8C/0bfc"


def test_add_and_retire_need_inventory_nodes():
    assert problems(fleet_action="add", fleet_nodes=["node3"]) == []
    assert problems(fleet_action="add", fleet_nodes=["node3"], fleet_force=True, fleet_reason="repaired") == []
    assert problems(fleet_action="add", fleet_nodes=[]) == ["node1: fleet_nodes: add needs the nodes to act on"]
    assert problems(fleet_action="add", fleet_nodes=["node5"])[0].startswith(
        "node1: fleet_nodes: node5: not a node of the inventory")
    assert problems(fleet_action="add", fleet_nodes=["node3"], fleet_force=True) == [
        "node1: fleet_reason: a forced add (fleet_force) needs a reason, which is recorded"]


def test_replace_needs_one_node_and_a_fingerprint_or_a_recorded_trust_on_first_use():
    assert problems(fleet_action="replace", fleet_nodes=["node3"], fleet_host_key_fingerprint=FINGERPRINT) == []
    assert problems(fleet_action="replace", fleet_nodes=["node3"], fleet_trust_on_first_use=True,
                    fleet_reason="reinstalled, console unreachable") == []
    assert "never accepted silently" in problems(fleet_action="replace", fleet_nodes=["node3"])[0]
    assert "node3's new host key" in problems(fleet_action="replace", fleet_nodes=["node3"])[0]
    assert problems(fleet_action="replace", fleet_nodes=["node3"], fleet_trust_on_first_use=True) == [
        "node1: fleet_reason: trusting a host key on first use (fleet_trust_on_first_use) needs a reason, "
        "which is recorded"]
    assert "not both" in problems(fleet_action="replace", fleet_nodes=["node3"], fleet_reason="x",
                                  fleet_host_key_fingerprint=FINGERPRINT, fleet_trust_on_first_use=True)[0]
    assert "is not an OpenSSH SHA256 fingerprint" in problems(fleet_action="replace", fleet_nodes=["node3"],
                                                              fleet_host_key_fingerprint="SHA256:short")[0]
    assert "one node at a time" in problems(fleet_action="replace", fleet_nodes=["node2", "node3"],
                                            fleet_host_key_fingerprint=FINGERPRINT)[0]
    assert "fleet_trust_on_first_use: must be true or false" in problems(
        fleet_action="replace", fleet_nodes=["node3"], fleet_trust_on_first_use="yes", fleet_reason="x")[0]
