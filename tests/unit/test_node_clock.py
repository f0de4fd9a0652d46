"""plugins/plugin_utils/fleet/clock.py and the action node_clock: a node's clock against the
controller's from reads between two controller timestamps, and the node's time service."""
import pytest

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.fleet import clock as node_clock

from module_runner import run_playbook


def test_read_is_taken_at_the_midpoint_with_half_the_round_trip():
    assert node_clock.read_offset(100.0, "160.5\n", 101.0) == {"offset": 60.0, "uncertainty": 0.5, "round_trip": 1.0}
    assert node_clock.read_offset(100.0, "99.9", 100.2)["offset"] == -0.2


def test_a_reading_that_is_not_a_time_is_refused():
    with pytest.raises(node_clock.ClockError, match="'Thu Jan 1' is not epoch seconds"):
        node_clock.read_offset(1.0, "Thu Jan 1", 2.0)


def test_the_read_with_the_shortest_round_trip_counts():
    reads = [node_clock.read_offset(100.0, "100.9", 101.6), node_clock.read_offset(200.0, "200.06", 200.1),
             node_clock.read_offset(300.0, "300.2", 300.4)]
    assert node_clock.best_read(reads) == {"offset": 0.01, "uncertainty": 0.05, "round_trip": 0.1, "reads": 3}
    with pytest.raises(node_clock.ClockError):
        node_clock.best_read([])


@pytest.mark.parametrize("names, service", [
    (["systemd", "sshd", "chronyd"], "chrony"),
    (["systemd-timesyn", "bash"], "systemd-timesyncd"),
    (["ntpd"], "ntpd"),
    (["sshd", "sandbox-init", "python3"], "none"),
    ([], "none"),
])
def test_sync_service_from_process_names(names, service):
    assert node_clock.sync_service(names) == service


def test_verdict_limits_are_exclusive():
    clock = {"offset": 0.3, "uncertainty": 0.2, "reads": 5, "sync_service": "none"}
    assert node_clock.verdict(clock, 500, 5000)[0] == "ok"
    assert node_clock.verdict(clock, 499, 5000)[0] == "warn"
    assert node_clock.verdict(clock, 0, 499)[0] == "fail"


def test_action_reads_a_real_clock(tmp_path):
    """The action over a real connection (local: the node's clock is the controller's), so the
    offset lies within the uncertainty the reads themselves measured."""
    playbook = tmp_path / "clock.yml"
    playbook.write_text("- hosts: localhost\n  connection: local\n  gather_facts: false\n  tasks:\n"
                        "    - cluster_suite.hpc.node_clock: {reads: 3}\n")
    returncode, report = run_playbook(playbook, "localhost,", tmp_path)
    assert returncode == 0, report
    result = report["plays"][0]["tasks"][0]["hosts"]["localhost"]
    assert result["reads"] == 3 and result["uncertainty"] >= 0 and not result["changed"]
    assert abs(result["offset"]) <= result["uncertainty"] + 0.002, result
    assert result["sync_service"] in {service for _comm, service in node_clock.SYNC_SERVICES} | {"none"}
