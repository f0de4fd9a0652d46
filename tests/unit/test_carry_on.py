"""Carrying site.yml on past failed nodes (plugins/plugin_utils/fleet/carry_on.py): the finding kept for
a failed node, the nodes a play lost, the run's fail limit and the closing message; the first
contact (action carry_reach)."""
import pytest

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.fleet import carry_on
from ansible_collections.cluster_suite.hpc.plugins.filter.carry_on import FilterModule

from module_runner import run_playbook


@pytest.mark.parametrize("message, line", [
    ("one\ntwo", "one"),
    (["", "  The NPU device plan has 1 problem(s):  ", "node2: bad"], "The NPU device plan has 1 problem(s):"),
    (None, ""),
    ("\n\n  late  \n", "late"),
])
def test_first_line(message, line):
    assert carry_on.first_line(message) == line


def test_a_long_first_line_is_cut():
    assert len(carry_on.first_line("x" * 1000)) == carry_on.MAX_REASON


def test_a_failed_task_names_play_task_and_message():
    assert carry_on.failure("OpenMPI", "Build OpenMPI", {"msg": "make failed\nrest", "failed": True}) == {
        "source": "provisioning", "result": "fail",
        "reason": "play 'OpenMPI', task 'Build OpenMPI': make failed"}


def test_stderr_stands_in_for_a_missing_message():
    assert carry_on.failure("p", "t", {"stderr": "boom\n"})["reason"] == "play 'p', task 't': boom"
    assert carry_on.failure("p", "t", None)["reason"] == "play 'p', task 't': failed (no message)"


def test_a_command_names_its_first_line_of_stderr():
    assert carry_on.failure("p", "t", {"msg": "non-zero return code", "stderr": "boom\nmore", "rc": 3})["reason"] \
        == "play 'p', task 't': non-zero return code: boom"


def test_an_unreachable_result_is_an_unreachable_finding():
    found = carry_on.failure("Firewall", "Gather", {"unreachable": True, "msg": "ssh: connect to host 10.0.0.3 port 22"})
    assert found == {"source": "unreachable", "result": "fail",
                     "reason": "unreachable in play 'Firewall': ssh: connect to host 10.0.0.3 port 22"}


def test_lost_keeps_the_failure_of_a_node_and_calls_the_others_unreachable():
    kept = {"source": "provisioning", "result": "fail", "reason": "play 'p', task 't': x"}
    found = carry_on.lost(["node1", "node2", "node3"], ["node1"], {"node2": kept, "node3": None}, "OpenMPI")
    assert found == {"node2": kept, "node3": {"source": "unreachable", "result": "fail",
                                              "reason": "unreachable during play 'OpenMPI' (or failed outside its tasks)"}}


def test_lost_leaves_out_the_nodes_already_known():
    assert carry_on.lost(["node1", "node2"], [], {}, "p", {"node1": {"reason": "earlier"}}) == {
        "node2": {"source": "unreachable", "result": "fail",
                  "reason": "unreachable during play 'p' (or failed outside its tasks)"}}


@pytest.mark.parametrize("lost, total, percent, stop", [
    (0, 3, 10, False),
    (1, 3, 10, False),     # one node of two or more is always tolerated
    (2, 3, 10, True),
    (1, 10, 10, False),
    (2, 10, 10, True),
    (1, 9, 10, False),
    (1, 2, 10, False),
    (2, 2, 10, True),      # every node lost: a broken inventory or network, nobody quarantined
    (1, 1, 10, True),
    (1, 3, 34, False),
    (2, 3, 34, True),
    (0, 0, 10, False),
    (3, 3, 100, False),
    (1, 3, 0, True),       # 0 tolerates none
])
def test_over_limit(lost, total, percent, stop):
    assert carry_on.over_limit(lost, total, percent) is stop


@pytest.mark.parametrize("total, percent, count", [(1, 10, 0), (2, 10, 1), (4, 10, 1), (9, 10, 1), (10, 10, 1),
                                                   (16, 10, 1), (19, 10, 1), (20, 10, 2), (256, 10, 25), (3, 34, 1), (4, 0, 0),
                                                   (0, 10, 0)])
def test_tolerated_agrees_with_over_limit(total, percent, count):
    assert carry_on.tolerated(total, percent) == count
    assert not carry_on.over_limit(count, total, percent)
    assert total == 0 or carry_on.over_limit(count + 1, total, percent)


@pytest.mark.parametrize("total", [1, 2, 3, 4, 7, 9, 10, 16, 33, 256, 1024])
@pytest.mark.parametrize("percent", [0, 10, 34, 50, 100])
def test_play_percentage_makes_ansibles_rule_tolerate_the_same(total, percent):
    # Ansible stops a play when failed / hosts * 100 > max_fail_percentage (its own arithmetic).
    play = carry_on.play_percentage(total, percent)
    stops = [lost for lost in range(total + 1) if (float(lost) / float(total)) * 100.0 > play]
    assert (min(stops) if stops else total + 1) == carry_on.tolerated(total, percent) + 1


def test_summary_names_the_lost_then_the_left_out():
    lost = {"node3": {"source": "unreachable", "reason": "unreachable in play 'F': refused"}}
    assert carry_on.summary(lost, {"node4": "ssh_login: refused (quarantined since 2026-11-26T05:40:00Z)",
                                   "node3": "not repeated"}) == [
        "node3: unreachable in play 'F': refused (unreachable; now quarantined)",
        "node4: ssh_login: refused (quarantined since 2026-11-26T05:40:00Z)"]


def test_the_filters_are_registered():
    assert set(FilterModule().filters()) == {"carry_failure", "carry_lost", "carry_over_limit", "carry_tolerated",
                                            "carry_play_percentage", "carry_summary"}


def test_verdict_limit_counts_only_the_in_service_nodes_judged():
    findings = {"node1": {"source": "doctor", "result": "fail", "reason": "ssh_login: refused"},
                "node2": {"source": "doctor", "result": "pass", "reason": ""},
                "node3": {"source": "unreachable", "result": "fail", "reason": "unreachable: no route"},
                "node4": {"source": "doctor", "result": "pass", "reason": ""}}
    # node3 already quarantined: failing again changes nothing, so 1 of the 3 judged in service
    # failed, which one node of two or more always is allowed to.
    limit = carry_on.verdict_limit(findings, {"node3": "quarantined"}, 10)
    assert limit == {"stopped": False, "failed": {"node1": findings["node1"]}, "judged": 3}
    assert carry_on.verdict_limit(findings, {}, 50) == {
        "stopped": False, "failed": {"node1": findings["node1"], "node3": findings["node3"]}, "judged": 4}
    assert carry_on.verdict_limit(findings, {}, 49)["stopped"]
    assert carry_on.verdict_limit({}, {}, 0) == {"stopped": False, "failed": {}, "judged": 0}


def test_limit_message_says_the_limit_the_share_and_every_failed_node():
    findings = {name: {"source": "unreachable", "result": "fail", "reason": f"unreachable: {name}: no route"}
                for name in ("node1", "node2", "node3")}
    message = carry_on.limit_message(carry_on.verdict_limit(findings, {}, 10), 10)
    assert message.startswith("stopped: 3 of the 3 in-service nodes judged failed (100 %), more than "
                              "cluster_max_fail_percentage 10 % allows;")
    assert "none is quarantined and the node ledger is unchanged" in message
    assert message.endswith("node1: unreachable: node1: no route (unreachable); node2: unreachable: node2: no route "
                            "(unreachable); node3: unreachable: node3: no route (unreachable)")


def test_the_first_contact_marks_an_unreachable_node_as_unreachable():
    found = carry_on.failure("Firewall", "Gather", {"failed": True, "node_unreachable": True, "msg": "node3: unreachable: refused",
                                                   "reach_msg": "ssh: connect to host 10.0.0.3 port 22: refused"})
    assert found == {"source": "unreachable", "result": "fail",
                     "reason": "unreachable in play 'Firewall': ssh: connect to host 10.0.0.3 port 22: refused"}


def test_action_carry_reach_gathers_facts_and_fails_a_node_it_cannot_reach(tmp_path):
    """The action over real connections: localhost (local) is reached and its facts gathered;
    a host whose SSH port refuses (loopback port 9, nothing listening) fails, not unreachable, so
    that a play's rescue catches it."""
    inventory = tmp_path / "hosts.yml"
    inventory.write_text("all:\n  hosts:\n    localhost: {ansible_connection: local, ansible_python_interpreter: '{{ ansible_playbook_python }}'}\n"
                         "    gone: {ansible_host: 127.0.0.1, ansible_port: 9, ansible_connection: ssh}\n")
    playbook = tmp_path / "reach.yml"
    playbook.write_text("- hosts: all\n  gather_facts: false\n  tasks:\n"
                        "    - block:\n        - cluster_suite.hpc.carry_reach: {gather_subset: [min]}\n"
                        "      rescue:\n        - ansible.builtin.debug: {msg: rescued}\n")
    _, report = run_playbook(playbook, inventory, tmp_path)
    reach = report["plays"][0]["tasks"][0]["hosts"]
    assert reach["localhost"]["ansible_facts"]["ansible_system"] == "Linux" and not reach["localhost"].get("failed")
    assert reach["gone"]["failed"] and reach["gone"]["node_unreachable"] and not reach["gone"].get("unreachable")
    assert reach["gone"]["msg"].startswith("gone: unreachable: ") and "port 9" in reach["gone"]["reach_msg"]
    assert report["stats"]["gone"]["rescued"] == 1 and report["stats"]["gone"]["unreachable"] == 0
