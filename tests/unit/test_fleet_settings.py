"""Role fleet's rule in plugins/plugin_utils/role_settings.py: playbooks/fleet.yml's bad input."""
import role_settings

GROUPS = {"cluster": ["node1", "node2", "node3"], "cluster_master": ["node1"]}


def problems(**settings):
    base = {"fleet_action": "list", "fleet_nodes": [], "fleet_reason": "", "fleet_force": False}
    return role_settings.problems("fleet", dict(base, **settings), "node1", GROUPS)


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
