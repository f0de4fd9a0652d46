"""Tests for plugins/plugin_utils/jobs/stacks.py and jobs/flight.py (on real py-spy dumps, tests/data/stacks/README.md)
and plugins/module_utils/job_stack_dump.py (on real processes of this machine)."""
import json
import os
import subprocess
import sys
import time

import pytest

import job_stack_dump as node_stacks
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs import flight as job_flight
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs import stacks as job_stacks

DATA = os.path.join(os.path.dirname(__file__), "..", "data", "stacks", "torchrun_gloo")
JOB_DIR = "/x"
AGENT_CMD = "/opt/ml/bin/python -m torch.distributed.run --nnodes=1 --nproc_per_node=4 /x/cs_rank.py /x/hang_torch.py"
RANK_CMD = "/opt/ml/bin/python -u /x/cs_rank.py /x/hang_torch.py --sleep-rank 3"


def load(name):
    with open(os.path.join(DATA, name), encoding="utf-8") as handle:
        return json.load(handle)


def process(pid, role, rank, threads, native=True, error=None, cmd=RANK_CMD):
    return {"pid": pid, "ppid": 37, "role": role, "rank": rank, "cmd": cmd, "python": True,
            "threads": threads, "native": native, "error": error, "native_error": None}


def nodes(native=True, split=True, drop=()):
    """The real dumps as job_stacks results of two nodes: ranks 0-1 on node1, 2-3 on node2."""
    suffix = "_native" if native else ""
    ranks = {rank: process(42 + rank, "rank", rank, load(f"rank{rank}_pid{42 + rank}_native.json"))
             for rank in range(4)}
    if not native:
        ranks[0] = process(42, "rank", 0, load("rank0_pid42.json"), native=False)
        ranks[3] = process(45, "rank", 3, load("rank3_pid45.json"), native=False)
    agent = process(37, "launcher", None, load(f"agent_pid37{suffix or '_native'}.json"), cmd=AGENT_CMD)
    hosts = {"node1": [agent, ranks[0], ranks[1]], "node2": [ranks[2], ranks[3]]} if split \
        else {"node1": [agent] + list(ranks.values())}
    return {host: {"job_dir": JOB_DIR, "processes": [item for item in items if item.get("rank") not in drop],
                   "ptrace_scope": None, "error": None}
            for host, items in hosts.items()}


EXPECTED = {0: "node1", 1: "node1", 2: "node2", 3: "node2"}


def test_frames_tell_python_from_native_and_keep_py_spys_order():
    frames = job_stacks.frames_of(load("rank0_pid42_native.json")[0])
    assert [frame["name"] for frame in frames][1:4] == ["pthread_cond_wait", "std::condition_variable::wait",
                                                       "c10d::Work::wait"]
    python = [job_stacks.frame_text(frame) for frame in frames if not frame["native"]]
    assert python[:3] == ["all_reduce (torch/distributed/distributed_c10d.py:3252)",
                          "_exception_logger.<locals>.wrapper (torch/distributed/c10d_logger.py:83)",
                          "step (hang_torch.py:21)"]
    assert job_stacks.frame_text(frames[1]) == "pthread_cond_wait (libc.so.6)"


def test_where_names_the_innermost_function_and_the_jobs_own_line():
    waiting = job_stacks.frames_of(load("rank0_pid42_native.json")[0])
    sleeping = job_stacks.frames_of(load("rank3_pid45_native.json")[0])
    assert job_stacks.where(waiting, JOB_DIR) == "`all_reduce` at hang_torch.py:21"
    assert job_stacks.where(sleeping, JOB_DIR) == "`step` at hang_torch.py:20"
    # Without the job directory no frame counts as the job's: the innermost Python frame's place.
    assert job_stacks.where(waiting, None) == "`all_reduce` at torch/distributed/distributed_c10d.py:3252"
    assert job_stacks.waits_in_collective(waiting) and not job_stacks.waits_in_collective(sleeping)


def test_a_relative_file_name_is_the_jobs_code_and_long_names_are_cut():
    waiting = job_stacks.frames_of(load("rank0_pid42_native.json")[0])
    for frame in waiting:
        if frame["file"] == "/x/hang_torch.py":
            frame["file"] = "hang_torch.py"  # as a launch runs it: relative to the code directory
    assert job_stacks.where(waiting, "/home/trainer/jobs/j") == "`all_reduce` at hang_torch.py:21"
    shown = job_stacks.shown_frames(waiting)
    assert shown[4].startswith("pybind11::cpp_function::initialize<") and shown[4].endswith("... (libtorch_python.so)")
    assert len(shown[4]) < 160


def test_native_and_plain_dumps_of_the_same_rank_group_together():
    native = job_stacks.frames_of(load("rank0_pid42_native.json")[0])
    plain = job_stacks.frames_of(load("rank0_pid42.json")[0])
    assert job_stacks.signature(native) == job_stacks.signature(plain)
    assert job_stacks.signature(native) != job_stacks.signature(job_stacks.frames_of(load("rank3_pid45.json")[0]))


@pytest.mark.parametrize("native", [True, False])
def test_the_sleeping_rank_is_named_with_its_node_and_both_stacks_shown(native):
    analysis = job_stacks.analyse(nodes(native=native), EXPECTED)
    assert [(group["ranks"], group["where"]) for group in analysis["groups"]] == [
        ([0, 1, 2], "`all_reduce` at hang_torch.py:21"), ([3], "`step` at hang_torch.py:20")]
    assert analysis["likely_cause"] == [{"rank": 3, "host": "node2", "where": "`step` at hang_torch.py:20",
                                         "reason": "while 3 rank(s) wait in a collective"}]
    assert analysis["gone"] == []
    lines = job_stacks.render(analysis, "logs/j/stacks")
    text = "\n".join(lines)
    assert "    3 ranks in `all_reduce` at hang_torch.py:21: rank 0, 1 on node1; rank 2 on node2" in lines
    assert "    rank 3 in `step` at hang_torch.py:20 on node2" in lines
    assert ("    likely cause: rank 3 on node2, `step` at hang_torch.py:20, while 3 rank(s) wait in a collective"
            in lines)
    assert "      step (hang_torch.py:21)" in lines and "      step (hang_torch.py:20)" in lines
    assert "      all_reduce (torch/distributed/distributed_c10d.py:3252)" in lines
    assert ("      clock_nanosleep (libc.so.6)" in lines) == native
    # The suite's wrapper frames are left out of the text.
    assert "cs_rank.py" not in text.split("launcher on")[0].split("stacks (py-spy)")[1]
    assert "    launcher on node1 (pid 37): in `SimpleElasticAgent._invoke_run` at " \
           "torch/distributed/elastic/agent/server/api.py:923" in lines


def test_a_rank_that_left_its_script_is_not_named_while_the_others_wait():
    """Rank 1 is dumped after its script raised (a launcher stopping it, a collective that gave up):
    only the wrapper's frames are left on its stack, the real dump's outermost ones. It is ending,
    not where the others wait: rank 3 alone is named."""
    dumps = nodes()
    rank1 = next(item for item in dumps["node1"]["processes"] if item.get("rank") == 1)
    thread = dict(rank1["threads"][0])
    frames = thread["frames"]
    thread["frames"] = frames[next(index for index, frame in enumerate(frames)
                                   if frame.get("filename") == "/x/cs_rank.py"):]
    rank1["threads"] = [thread]
    analysis = job_stacks.analyse(dumps, EXPECTED)
    assert [(group["ranks"], group["in_code"]) for group in analysis["groups"]] == [
        ([0, 2], True), ([1], False), ([3], True)]
    assert [item["rank"] for item in analysis["likely_cause"]] == [3]


def test_a_rank_whose_process_is_gone_is_named_and_blamed_while_the_others_wait():
    analysis = job_stacks.analyse(nodes(drop=(3,)), EXPECTED, exits={3: 1})
    assert analysis["gone"] == [{"rank": 3, "host": "node2", "exit": 1}]
    assert analysis["likely_cause"] == [{"rank": 3, "host": "node2", "where": "its process is gone (exit 1)",
                                         "reason": "while 3 rank(s) wait in a collective"}]
    assert "    rank 3 on node2: its process is gone (exit 1)" in job_stacks.render(analysis, "s")


def test_a_rank_without_process_log_or_status_has_not_started():
    data = nodes(drop=(2, 3))
    analysis = job_stacks.analyse(data, EXPECTED, exits={3: 1}, started=[0, 1])
    assert analysis["gone"] == [{"rank": 3, "host": "node2", "exit": 1}]
    assert analysis["not_started"] == [{"rank": 2, "host": "node2"}]
    assert "    rank 2 on node2: not started (no process, no log yet)" in job_stacks.render(analysis, "s")


def test_a_rank_that_finished_is_not_gone():
    analysis = job_stacks.analyse(nodes(drop=(3,)), EXPECTED, exits={3: 0})
    assert analysis["gone"] == [] and analysis["likely_cause"] == []


def test_without_a_collective_the_minority_stands_out_and_a_tie_names_nobody():
    data = nodes(native=False)
    # Every rank in the sleeping stack except rank 0: the one largest group is the reference.
    sleeping = load("rank3_pid45.json")
    waiting = load("rank0_pid42.json")
    for host in data:
        for item in data[host]["processes"]:
            if item["role"] == "rank":
                item["threads"] = waiting if item["rank"] == 0 else sleeping
    analysis = job_stacks.analyse(data, EXPECTED)
    # Rank 0 waits in all_reduce: a collective, so the three sleeping ranks are the likely cause.
    assert [item["rank"] for item in analysis["likely_cause"]] == [1, 2, 3]
    for host in data:
        for item in data[host]["processes"]:
            if item["role"] == "rank":
                item["threads"] = sleeping if item["rank"] in (0, 1) else load("agent_pid37_native.json")
    analysis = job_stacks.analyse(data, EXPECTED)
    assert len(analysis["groups"]) == 2 and analysis["likely_cause"] == []


def test_dump_errors_are_shown_and_grouped_apart():
    data = nodes()
    data["node2"]["processes"][1].update(threads=None, native=False, error="Permission denied (os error 13)")
    data["node2"]["error"] = None
    analysis = job_stacks.analyse(data, EXPECTED)
    assert analysis["groups"][-1]["where"] == "no stack (Permission denied (os error 13))"
    assert [item["rank"] for item in analysis["likely_cause"]] == []
    assert "    rank 3 on node2 (pid 45) not dumped: Permission denied (os error 13)" in \
        job_stacks.render(analysis, "s")


def test_written_files_hold_py_spys_json_and_refuse_a_link(tmp_path):
    data = nodes()
    analysis = job_stacks.analyse(data, EXPECTED)
    text = "\n".join(job_stacks.render(analysis, "s"))
    root = tmp_path / "logs" / "job"
    root.mkdir(parents=True)
    (root / "stacks").mkdir()
    (root / "stacks" / "old.txt").write_text("earlier run")
    # A stacks folder the suite did not make (no marker) is refused and kept.
    with pytest.raises(ValueError, match="not made by the suite"):
        job_stacks.write_stacks(str(root), data, analysis, text)
    assert (root / "stacks" / "old.txt").read_text() == "earlier run"
    (root / "stacks" / job_stacks.STACKS_MARKER).write_text("an earlier dump")
    folder = job_stacks.write_stacks(str(root), data, analysis, text)
    assert sorted(os.listdir(folder)) == [job_stacks.STACKS_MARKER, "node1", "node2", "summary.json", "summary.txt"]
    assert sorted(os.listdir(os.path.join(folder, "node2"))) == ["rank_2.json", "rank_2.txt", "rank_3.json", "rank_3.txt"]
    record = json.loads((root / "stacks" / "node2" / "rank_3.json").read_text())
    assert record["threads"] == load("rank3_pid45_native.json") and record["rank"] == 3
    assert "    step (hang_torch.py:20)" in (root / "stacks" / "node2" / "rank_3.txt").read_text()
    assert "launcher_37.json" in os.listdir(os.path.join(folder, "node1"))
    link_root = tmp_path / "other"
    link_root.mkdir()
    (link_root / "stacks").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(ValueError, match="symbolic link"):
        job_stacks.write_stacks(str(link_root), data, analysis, text)


def test_node_side_classifies_by_environment():
    assert node_stacks.classify({"RANK": "3"}) == ("rank", 3)
    assert node_stacks.classify({"RANK_ID": "0", "MS_ROLE": "MS_SCHED"}) == ("scheduler", None)
    assert node_stacks.classify({"CS_RANK": "scheduler", "MS_NODE_ID": "sched"}) == ("scheduler", None)
    assert node_stacks.classify({"RANK_ID": "2", "MS_ROLE": "MS_WORKER", "MS_NODE_ID": "2"}) == ("rank", 2)
    assert node_stacks.classify({"CS_JOB_DIR": "/j"}) == ("launcher", None)
    assert "ptrace_scope is 1" in node_stacks.permission_hint(1)


def test_node_side_finds_the_jobs_processes_and_reports_a_missing_py_spy(tmp_path):
    job = str(tmp_path / "job")
    env = dict(os.environ, CS_JOB_DIR=job, RANK="5")
    code = ("import subprocess, sys, time; c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']);"
            " time.sleep(60)")
    rank = subprocess.Popen([sys.executable, "-c", code], env=env)
    other = subprocess.Popen(["sleep", "60"], env=dict(os.environ, CS_JOB_DIR=job))
    wrapper = subprocess.Popen(["sleep", "60"], env=env)  # a shell in front of rank 5, as msrun starts one
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and len(node_stacks.job_members(job)) < 4:
            time.sleep(0.1)
        members = {item["pid"]: item for item in node_stacks.job_members(job)}
        assert members[rank.pid]["role"] == "rank" and members[rank.pid]["rank"] == 5
        child = [item for item in members.values() if item["ppid"] == rank.pid]
        assert [item["role"] for item in child] == ["rank_child"]
        assert members[other.pid]["python"] is False and members[rank.pid]["python"] is True
        assert members[wrapper.pid]["role"] == "rank_wrapper" and members[other.pid]["role"] == "launcher"
        result = node_stacks.dump_job(job, str(tmp_path / "no-py-spy"))
        assert "py-spy is not installed at" in result["error"]
        by_pid = {item["pid"]: item for item in result["processes"]}
        assert by_pid[other.pid]["error"] == "not a Python process"
        assert by_pid[rank.pid]["threads"] is None
    finally:
        for proc in (rank, other, wrapper):
            proc.kill()
            proc.wait()


def test_node_side_falls_back_without_native_frames():
    calls = []

    def run(argv, **_kwargs):
        calls.append(argv)
        if "--native" in argv:
            return subprocess.CompletedProcess(argv, 1, b"", b"Error: native unwinding is not supported\n")
        return subprocess.CompletedProcess(argv, 0, json.dumps(load("rank3_pid45.json")).encode(), b"")

    result = node_stacks.dump("/t/py-spy", 45, native=True, run=run)
    assert result["native"] is False and result["threads"] == load("rank3_pid45.json")
    assert result["native_error"] == "Error: native unwinding is not supported"
    assert calls == [["/t/py-spy", "dump", "--json", "--pid", "45", "--native"],
                     ["/t/py-spy", "dump", "--json", "--pid", "45"]]


def test_flight_records_of_a_real_run_name_the_rank_that_held_the_others_up():
    # tests/data/corpus/torchrun_sleep: rank 3 (node2) slept in stalled_step while ranks 0-2 waited
    # in all_reduce until gloo gave up; torchrun then stopped rank 3. No process was left to dump.
    root = os.path.join(os.path.dirname(__file__), "..", "data", "corpus", "torchrun_sleep")
    exits = {0: 1, 1: 1, 2: 1, 3: 143}
    flight = job_flight.flight_records(root, ["node1", "node2"], exits, {3: 1795853416.2685773})
    assert sorted(item["rank"] for host in flight for item in flight[host]["processes"]) == [0, 1, 2, 3]
    analysis = job_stacks.analyse(job_flight.with_flight_records({}, flight), EXPECTED, exits)
    assert analysis["recorded"] == 4 and analysis["gone"] == []
    [cause] = analysis["likely_cause"]
    assert (cause["rank"], cause["host"]) == (3, "node2")
    assert cause["where"].startswith("`stalled_step` at corpus_fault.py:")
    assert "its last flight record, 1.8 s before it ended" in cause["where"]
    # A rank that returned 0 has no flight record to read.
    assert [item["rank"] for item in job_flight.flight_records(root, ["node2"], {2: 1, 3: 0})["node2"]["processes"]] == [2]


def test_a_rank_that_ended_while_py_spy_read_it_keeps_its_flight_record():
    # tests/data/corpus/msrun_sleep: rank 3 (node2) slept in stalled_step while ranks 0-2 waited
    # until MindSpore's collective gave up. In the hang scenario py-spy then reached ranks 0 and 1
    # as they ended and failed with the error below (its own words); their flight records count.
    root = os.path.join(os.path.dirname(__file__), "..", "data", "corpus", "msrun_sleep")
    exits = {0: 1, 1: 1, 2: 1, 3: 143}
    flight = job_flight.flight_records(root, ["node1", "node2"], exits)
    error = ("Error: Failed to get process executable name. Check that the process is running. Caused by: "
             "0: No such file or directory (os error 2) 1: No such file or directory (os error 2)")
    dumps = {"node1": {"job_dir": JOB_DIR, "error": None,
                       "processes": [process(90 + rank, "rank", rank, [], native=False, error=error) for rank in (0, 1)]}}
    merged = job_flight.with_flight_records(dumps, flight)
    assert [(item["rank"], item.get("source")) for item in merged["node1"]["processes"]] == [
        (0, "flight recorder"), (1, "flight recorder")]
    analysis = job_stacks.analyse(merged, EXPECTED, exits)
    assert [item["rank"] for item in analysis["likely_cause"]] == [3]
    # Without the flight records of ranks 0 and 1 the two stacks left would tie and name nobody.
    tied = job_stacks.analyse(job_flight.with_flight_records(dumps, {host: found for host, found in flight.items()
                                                                     if host == "node2"}), EXPECTED, exits)
    assert tied["likely_cause"] == []


def test_a_rank_caught_ending_without_python_frames_keeps_its_flight_record():
    # tests/data/corpus/torchrun_sleep, as CI saw it in the hang scenario: py-spy reached rank 3
    # while torchrun's SIGTERM ended it, and dumped one native frame of libc, no Python frame.
    root = os.path.join(os.path.dirname(__file__), "..", "data", "corpus", "torchrun_sleep")
    exits = {0: 1, 1: 1, 2: 1, 3: 143}
    flight = job_flight.flight_records(root, ["node1", "node2"], exits)
    ending = [{"thread_name": "MainThread", "os_thread_id": 1428, "frames": [
        {"name": "0x7f818e66324a", "filename": "", "short_filename": "", "module": "libc.so.6", "line": 0}]}]
    dumps = {"node2": {"job_dir": JOB_DIR, "error": None,
                       "processes": [process(1428, "rank", 3, ending, native=True)]}}
    analysis = job_stacks.analyse(job_flight.with_flight_records(dumps, flight), EXPECTED, exits)
    [cause] = analysis["likely_cause"]
    assert (cause["rank"], cause["host"]) == (3, "node2")
    assert cause["where"].startswith("`stalled_step` at corpus_fault.py:")
