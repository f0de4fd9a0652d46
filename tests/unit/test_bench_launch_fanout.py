"""Tests for the pure functions of bench/scenarios/launch_fanout.py and its job bench/jobs/fanout/started.py."""

import datetime
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "bench"))

from scenarios import launch_fanout  # noqa: E402  (bench/ is found through the path entry above)

STARTED_SCRIPT = os.path.join(ROOT, "bench", "jobs", "fanout", "started.py")
T0 = 1_700_000_000.0


def created(offset):
    """An ansible-runner 'created' field (naive UTC ISO) `offset` seconds after T0."""
    moment = datetime.datetime.fromtimestamp(T0 + offset, datetime.timezone.utc).replace(tzinfo=None)
    return moment.isoformat()


def event(kind, offset, task=None, host=None):
    return {"event": kind, "created": created(offset), "event_data": {"task": task, "host": host}}


(START,) = launch_fanout.START_TASKS


def torchrun_events():
    return [
        event("playbook_on_task_start", 10.0, "Gather the network facts"),
        event("playbook_on_task_start", 20.0, START),
        event("runner_on_ok", 21.0, START, "node1"),
        event("runner_on_ok", 26.0, START, "node2"),
        event("runner_on_ok", 40.0, "Wait for the job on every node (round 1)", "node1"),
    ]


def records(times, hosts=("node1", "node1", "node2", "node2")):
    return [{"time": T0 + offset, "host": host, "rank": rank} for rank, (offset, host) in enumerate(zip(times, hosts))]


def test_fanout_times_split_ansible_and_launcher():
    times = launch_fanout.fanout_times(T0, torchrun_events(), records([30.0, 30.5, 31.0, 32.5]))
    assert times["fanout"] == pytest.approx(32.5)
    assert times["first_rank"] == pytest.approx(30.0)
    assert times["prepare"] == pytest.approx(20.0)
    assert times["ansible"] == pytest.approx(26.0)
    assert times["launcher"] == pytest.approx(6.5)
    assert times["start_returned"] == {"node1": pytest.approx(21.0), "node2": pytest.approx(26.0)}


def test_fanout_times_mpirun_only_the_master_starts():
    events = [item for item in torchrun_events() if item["event_data"]["host"] != "node2"]
    times = launch_fanout.fanout_times(T0, events, records([23.0, 23.1, 24.0, 24.2]))
    assert times["ansible"] == pytest.approx(21.0)
    assert times["launcher"] == pytest.approx(3.2)
    assert times["start_returned"] == {"node1": pytest.approx(21.0)}


def test_fanout_times_without_records_or_start_events():
    times = launch_fanout.fanout_times(T0, [], [])
    assert times == {"fanout": None, "first_rank": None, "prepare": None, "ansible": None, "launcher": None,
                     "start_returned": {}}


def test_task_ok_times_keeps_the_latest_result_per_host():
    events = [event("runner_on_ok", 5.0, START, "node1"), event("runner_on_ok", 7.0, START, "node1")]
    assert launch_fanout.task_ok_times(events, launch_fanout.START_TASKS) == {"node1": pytest.approx(T0 + 7.0)}


def test_ranks_problem_accepts_exactly_the_expected_ranks():
    assert launch_fanout.ranks_problem(records([1, 2, 3, 4]), 4) is None


@pytest.mark.parametrize("ranks, expected, message", [
    ([0, 1, 2], 4, "3 rank start record(s), expected 4"),
    ([0, 1, 1, 3], 4, "ranks ['0', '1', '1', '3'], expected 0..3 once each"),
    ([0, 1, 2, None], 4, "ranks ['0', '1', '2', 'None'], expected 0..3 once each"),
])
def test_ranks_problem_names_what_is_wrong(ranks, expected, message):
    found = [{"time": T0, "host": "node1", "rank": rank} for rank in ranks]
    assert message in launch_fanout.ranks_problem(found, expected)


def test_expected_ranks():
    assert launch_fanout.expected_ranks({"job_workers_per_node": 2}, 8) == 16
    assert launch_fanout.expected_ranks({}, 2) == 2
    with pytest.raises(ValueError, match="job_workers_per_node"):
        launch_fanout.expected_ranks({"job_workers_per_node": {"node1": 2}}, 2)


def test_the_benchmark_jobs_start_the_expected_ranks():
    for launcher, path in launch_fanout.JOBS.items():
        job = launch_fanout.load_job(os.path.join(ROOT, path))
        assert job["job_launcher"] == launcher
        assert job["job_script"] == "started.py"
        assert launch_fanout.expected_ranks(job, 8) == 16


def test_started_script_writes_its_record_and_read_started_finds_it(tmp_path):
    logs = tmp_path / "logs" / "bench-job"
    for host, rank in (("node1", "0"), ("node2", "1")):
        env = {name: value for name, value in os.environ.items()
               if name not in ("RANK", "OMPI_COMM_WORLD_RANK")}
        env.update(CS_LOG_DIR=str(logs / host), CS_HOST=host, CS_RANK=rank)
        before = datetime.datetime.now().timestamp()
        result = subprocess.run([sys.executable, STARTED_SCRIPT], env=env, capture_output=True, text=True,
                                timeout=60, check=False)
        assert result.returncode == 0, result.stderr
        record = json.loads((logs / host / "started" / ("%s-%s.json" % (host, rank))).read_text())
        assert record["host"] == host and record["rank"] == int(rank)
        assert before - 1 <= record["time"] <= datetime.datetime.now().timestamp()
    found = launch_fanout.read_started(str(logs))
    assert [(record["node_dir"], record["rank"]) for record in found] == [("node1", 0), ("node2", 1)]
    assert launch_fanout.ranks_problem(found, 2) is None


def test_parts_note_lists_each_launcher_from_the_smallest_to_the_largest_size():
    parts = {"prepare": {"torchrun": {"2": {"median": 40.6}, "8": {"median": 81.2}}},
             "launcher": {"torchrun": {"2": {"median": 3.9}, "8": {"median": 15.7}}},
             "wall": {"torchrun": {"2": {"median": 54.9}}}}
    note = launch_fanout.parts_note(parts, ["torchrun", "mpirun"], 2, 8)
    assert note.startswith("Medians, 2 -> 8 nodes: torchrun prepare 40.6 s -> 81.2 s, launcher 3.9 s -> 15.7 s, "
                           "whole launch.yml 54.9 s -> -; mpirun prepare - -> -")


def test_load_note():
    assert launch_fanout.load_note([{"loadavg_before": [5.4, 7.6, 6.2]}, {"loadavg_before": [18.1, 1, 1]}]) == \
        "1-minute load average before the launches: 5.4 to 18.1 on this machine."
    assert "not recorded" in launch_fanout.load_note([])
