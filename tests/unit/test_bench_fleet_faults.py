"""bench/scenarios/fleet_faults.py's pure parts: the faulty nodes, the fail limit, what a run printed
and changed, the ledger's view, the step tables and the result's aim."""
import pytest

import harness
import report
from scenarios import fleet_faults


def result_event(event, host, task, changed=False, duration=1.0):
    return {"event": event, "event_data": {"host": host, "task": task, "duration": duration,
                                           "res": {"changed": changed}}}


def test_roles_keep_the_master_and_each_fault_apart():
    assert fleet_faults.roles(16) == {"dead": "node16", "slow": "node15", "replaced": "node2", "added": "node17",
                                      "upgrade_gate": "node8"}
    assert len(set(fleet_faults.roles(4).values()) | {"node1"}) == 5
    with pytest.raises(ValueError, match="at least 4 nodes"):
        fleet_faults.roles(3)


def test_upgrade_batches_a_quarter_each_so_that_two_batches_are_left_after_the_second():
    assert fleet_faults.upgrade_batch_size(16) == 4
    batches = fleet_faults.upgrade_batches(16)
    assert len(batches) == 4 and batches[1] == ["node5", "node6", "node7", "node8"]
    assert fleet_faults.roles(16)["upgrade_gate"] in batches[1]
    assert fleet_faults.upgrade_batches(4) == [["node1"], ["node2"], ["node3"], ["node4"]]
    assert fleet_faults.upgrade_batches(9)[-1] == ["node9"]


def test_pins_vars_give_role_python_env_its_own_venv_with_six_alone():
    assert fleet_faults.pins_vars("1.17.0", "/tmp/w") == {
        "cluster_python_provided": "", "python_env_mindspore_version": "", "python_env_torch_version": "",
        "python_env_extra_requirements": ["six==1.17.0"], "python_env_wheelhouse": "/tmp/w"}


def test_max_fail_settings_let_one_node_go_and_keep_the_default_when_it_does():
    assert fleet_faults.max_fail_settings(16) == {}
    assert fleet_faults.max_fail_settings(10) == {}
    # Ansible stops when lost / nodes > percent / 100: 1 of 4 needs 25, 1 of 6 needs 17.
    assert fleet_faults.max_fail_settings(4) == {"cluster_max_fail_percentage": 25}
    assert fleet_faults.max_fail_settings(6) == {"cluster_max_fail_percentage": 17}


def test_run_output_joins_what_was_printed():
    events = [{"stdout": "PLAY [x]"}, {"stdout": ""}, {"event": "verbose"}, {"stdout": "node4: unreachable in play"}]
    assert fleet_faults.run_output(events) == "PLAY [x]\nnode4: unreachable in play"


def test_per_host_and_changed_tasks():
    stats = {"failures": {"node4": 1}, "dark": {}}
    assert fleet_faults.per_host(stats, "failures", ["node1", "node4"]) == {"node1": 0, "node4": 1}
    assert fleet_faults.per_host(stats, "ok", ["node1"]) == {"node1": 0}
    events = [result_event("runner_on_ok", "node1", "Write /etc/hosts", changed=True),
              result_event("runner_on_ok", "node1", "Read facts"),
              result_event("runner_on_ok", "node5", "Install OpenMPI", changed=True),
              result_event("runner_on_failed", "node2", "Write known_hosts", changed=True)]
    assert fleet_faults.changed_tasks(events, ["node1", "node2", "node3"]) == {
        "node1": ["Write /etc/hosts"], "node2": ["Write known_hosts"], "node3": []}


def test_node_state_and_verdict_read_the_ledger():
    ledger = {"nodes": {"node4": {"state": "quarantined", "source": "unreachable", "verdicts": {
        "doctor": {"result": "fail"}}}, "node1": {"state": "in_service", "verdicts": {"doctor": {"result": "pass"}}}}}
    assert fleet_faults.node_state(ledger, "node4")[:2] == ("quarantined", "unreachable")
    assert fleet_faults.node_state(ledger, "node2") == ("in_service", None, {})
    assert fleet_faults.verdict(ledger, "node1", "doctor") == "pass"
    assert fleet_faults.verdict(ledger, "node1", "acceptance") is None
    assert fleet_faults.verdict(ledger, "node9", "doctor") is None


def test_known_hosts_names_reads_every_name_of_every_line():
    text = ("# managed\nnode1,node1.lan,10.0.0.2 ssh-ed25519 AAAA\n[node2]:2222 ssh-rsa BBBB\n"
            "@revoked node3 ssh-ed25519 CCCC\n\n")
    assert fleet_faults.known_hosts_names(text) == {"node1", "node1.lan", "10.0.0.2", "node2", "node3"}
    assert "node4" not in fleet_faults.known_hosts_names(text)


STEPS = [
    {"step": "dead_site", "size": 4, "wall_seconds": 30.0, "controller_cpu_seconds": 12.0, "cpu_per_node": 3.0,
     "checked": ["site.yml exits non-zero"], "loadavg_before": [2.5, 2.0, 1.0]},
    {"step": "provision", "size": 4, "wall_seconds": 60.0, "controller_cpu_seconds": 20.0, "cpu_per_node": 5.0,
     "checked": ["site.yml exits 0"], "loadavg_before": [4.0, 2.0, 1.0]},
    {"step": "provision", "size": 16, "wall_seconds": 200.0, "controller_cpu_seconds": 64.0, "cpu_per_node": 4.0,
     "checked": ["site.yml exits 0"], "loadavg_before": [8.0, 2.0, 1.0]},
]


def test_step_summary_orders_the_steps_as_they_run():
    summary = fleet_faults.step_summary(STEPS, "wall_seconds")
    assert list(summary) == ["provision", "dead_site"]
    assert summary["provision"]["16"]["median"] == 200.0
    assert fleet_faults.step_summary(STEPS, "cpu_per_node")["dead_site"]["4"]["median"] == 3.0


def test_assemble_counts_the_steps_done_at_the_largest_size_and_renders_every_table():
    result, chart = fleet_faults.assemble(STEPS, [4, 16], 1)
    assert result["aims"][0]["value"] == 1 and result["aims"][0]["met"] is False
    assert chart["bars"] is True
    assert "load average before the steps 2.5 to 8.0" in " ".join(result["notes"])
    all_done = [dict(STEPS[2], step=name) for name in fleet_faults.STEPS]
    result, _ = fleet_faults.assemble(all_done, [16], 1)
    assert result["aims"][0]["met"] is True
    text = report.scenario_markdown(dict(result, scenario="fleet_faults", measured="now", machine={"cpus": 2},
                                         versions={"commit": "abc1234"}), "bench/results/")
    assert "| %s | 200 s |" % fleet_faults.LABELS["add"] in text
    assert "| %s | 64 s |" % fleet_faults.LABELS["add"] in text
    assert "| %s | 4 s |" % fleet_faults.LABELS["add"] in text
    assert text.index("CPU seconds per step") < text.index("CPU seconds per node")
    # The steps in the order they run, not the JSON's sorted order.
    assert text.index(fleet_faults.LABELS["provision"]) < text.index(fleet_faults.LABELS["add"])
    assert harness.median_of(result["summary"], "launch", 16) == 200.0
