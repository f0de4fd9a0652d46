"""Tests for plugins/plugin_utils/jobs/log_summary.py: the job summary from gathered logs."""

import json

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs import log_summary as job_logs

TRACEBACK = """rank 3 on node2: past the first barrier
Traceback (most recent call last):
  File "/home/trainer/jobs/fail/code/fail_on_rank.py", line 22, in <module>
    raise RuntimeError(f"rank {rank} fails on purpose")
RuntimeError: rank 3 fails on purpose
"""


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def status(root, host, rank, code, error=None, when=None):
    write(root / host / "status" / f"rank_{rank}.json",
          json.dumps({"rank": rank, "host": host, "exit": code, "error": error, "time": when}))


def test_success_with_losses(tmp_path):
    for rank, host in enumerate(["node1", "node1", "node2", "node2"]):
        write(tmp_path / host / f"worker_{rank}.log",
              "[WARNING] noise\nstep: 0, loss: 16.5\nstep: 1, loss: 9.25\nstep: 2, loss: 2.5e-1\n")
        status(tmp_path, host, rank, 0)
    write(tmp_path / "node1" / "status" / "launcher.json", '{"host": "node1", "exit": 0}')
    summary = job_logs.summarize(str(tmp_path), "demo", "msrun",
                                 {0: "node1", 1: "node1", 2: "node2", 3: "node2"})
    assert summary["result"] == "succeeded"
    assert [row["host"] for row in summary["ranks"]] == ["node1", "node1", "node2", "node2"]
    row = summary["ranks"][3]
    assert row["first_loss"] == 16.5 and row["last_loss"] == 0.25 and row["losses"] == 3
    assert row["last_loss_line"] == "step: 2, loss: 2.5e-1"
    assert summary["text"].splitlines()[0] == "job demo (msrun): succeeded, 4/4 ranks exited 0"


def test_failed_rank_names_host_and_error(tmp_path):
    status(tmp_path, "node1", 0, 143, when=1001.0)
    status(tmp_path, "node2", 3, 1, "RuntimeError: rank 3 fails on purpose", when=1000.0)
    write(tmp_path / "node2" / "worker_3.log", TRACEBACK)
    summary = job_logs.summarize(str(tmp_path), "fail", "torchrun", {0: "node1", 3: "node2"})
    assert summary["result"] == "failed"
    assert summary["failed_ranks"] == [0, 3]
    rank3 = summary["ranks"][1]
    assert rank3["host"] == "node2" and rank3["exit"] == 1
    assert rank3["errors"][0] == "RuntimeError: rank 3 fails on purpose"
    assert "  rank 3 on node2: exit 1" in summary["text"]
    assert summary["first_failed_rank"] == 3 and summary["first_failed_host"] == "node2"
    assert "  first failure: rank 3 on node2: RuntimeError: rank 3 fails on purpose" in summary["text"]
    assert not any(e.startswith("Traceback") for e in rank3["errors"])
    assert "    error: RuntimeError: rank 3 fails on purpose" in summary["text"]


def test_missing_status_and_running(tmp_path):
    write(tmp_path / "node1" / "worker_0.log", "step: 0, loss: 1.0\n")
    summary = job_logs.summarize(str(tmp_path), "j", "dynamic", {0: "node1", 1: "node2"})
    assert summary["result"] == "failed"
    assert [row["state"] for row in summary["ranks"]] == ["no exit status", "no exit status"]
    summary = job_logs.summarize(str(tmp_path), "j", "dynamic", {0: "node1", 1: "node2"},
                                 running_hosts=["node1", "node2"])
    assert summary["result"] == "running"
    assert "still running on: node1, node2" in summary["text"]


def test_mpirun_output_files_and_a_launcher_failing_after_every_rank_returned(tmp_path):
    write(tmp_path / "node1" / "mpirun" / "1" / "rank.1" / "stdout", "rank 1 of 2 on node2: ring received 0\n")
    status(tmp_path, "node2", 1, 0)
    status(tmp_path, "node1", 0, 0)
    write(tmp_path / "node1" / "status" / "launcher.json", '{"host": "node1", "exit": 1}')
    summary = job_logs.summarize(str(tmp_path), "ring", "mpirun", {0: "node1", 1: "node2"})
    assert summary["ranks"][1]["logs"] == ["node1/mpirun/1/rank.1/stdout"]
    assert summary["ranks"][1]["host"] == "node2"
    # Every rank returned 0: the launcher's failure afterwards is a warning, not the job's outcome.
    assert summary["result"] == "succeeded"
    assert ("  warning: every rank's script returned 0 (the training completed); afterwards mpirun on node1 "
            "failed, exit 1") in summary["text"]
    assert "  launcher on node1" not in summary["text"]


def test_no_rank_at_all_reports_launcher_errors(tmp_path):
    write(tmp_path / "node1" / "launcher.log", "msrun: command not found\nError: no such file\n")
    summary = job_logs.summarize(str(tmp_path), "j", "msrun")
    assert summary["result"] == "failed"
    assert summary["launcher_errors"] == ["node1: Error: no such file"]


def test_loss_formats():
    assert job_logs.loss_values("epoch: 0, step: 0, loss is 2.3499548\nloss: [0.5]\nloss=1e-3") == [2.3499548, 0.5, 0.001]
    assert job_logs.error_lines("[WARNING] Error in noise\nValueError: bad\nfatal: x") == ["ValueError: bad", "fatal: x"]


def test_folders_of_other_nodes_from_an_earlier_run_are_not_read(tmp_path):
    # An earlier run of the job on four nodes left node3 and node4; this run used node1, node2.
    for rank, host in enumerate(["node1", "node1", "node2", "node2"]):
        write(tmp_path / host / f"worker_{rank}.log", "step: 0, loss: 1.0\n")
        status(tmp_path, host, rank, 0)
    for rank, host in ((2, "node3"), (3, "node4")):
        write(tmp_path / host / f"worker_{rank}.log", "RuntimeError: stale\n")
        status(tmp_path, host, rank, 1)
    write(tmp_path / "node4" / "launcher.log", "ERROR: stale launcher\n")
    summary = job_logs.summarize(str(tmp_path), "j", "mpirun", hosts=["node1", "node2"])
    assert summary["result"] == "succeeded"
    assert [row["host"] for row in summary["ranks"]] == ["node1", "node1", "node2", "node2"]
    assert all(len(row["logs"]) == 1 for row in summary["ranks"])
    assert summary["earlier_hosts"] == ["node3", "node4"]
    assert ("  not read: the logs of node3, node4, left from an earlier run (not a node of this one)"
            in summary["text"])
    logs = job_logs.diagnosis_logs(str(tmp_path), ["node1", "node2"])
    assert {entry["host"] for files in logs["ranks"].values() for entry in files} == {"node1", "node2"}
    assert "node4" not in logs["launchers"]
    # Without hosts (the module's default), every folder is read.
    assert job_logs.summarize(str(tmp_path), "j", "mpirun")["result"] == "failed"
