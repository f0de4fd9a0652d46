"""Tests for plugins/plugin_utils/jobs/failures.py and the catalogue roles/job/files/failure_catalogue.yml:
the known causes of a failed job, the ranks a launcher reports dead, the first failure on one
clock and hangs."""

import json
import os
import pathlib

import pytest
import yaml

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs import failures as job_failures
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs import log_summary as job_logs

ROOT = pathlib.Path(__file__).resolve().parents[2]
CATALOGUE = job_failures.load_catalogue(
    yaml.safe_load((ROOT / "roles/job/files/failure_catalogue.yml").read_text()))

# Published failure output, one file or more per catalogue entry: <id>.txt or <id>.<variant>.txt
# (tests/data/failures, each file's source in its README.md).
FAILURES = ROOT / "tests" / "data" / "failures"
SAMPLES = {path.name: path.read_text() for path in sorted(FAILURES.glob("*.txt"))}


def sample(name):
    return SAMPLES[name + ".txt"]


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_each_sample_names_its_cause(name):
    expected = name.split(".")[0]
    hits = job_failures.explain(CATALOGUE, "some noise\n" + SAMPLES[name])
    assert hits and hits[0]["id"] == expected
    assert hits[0]["cause"] and hits[0]["fix"] and hits[0]["source"]


def test_every_entry_has_a_sample_and_names_a_source():
    # A published sample here, or a real run of the corpus (tests/data/corpus) that it explains.
    corpus = yaml.safe_load((ROOT / "tests" / "data" / "corpus" / "expected.yml").read_text())["runs"]
    named = {name.split(".")[0] for name in SAMPLES} | {run.get("cause") for run in corpus.values()} \
        | {(run.get("warning") or {}).get("cause") for run in corpus.values()}
    assert {entry["id"] for entry in CATALOGUE} <= named
    for entry in CATALOGUE:
        assert "seed" not in entry["source"].lower()


@pytest.mark.parametrize("name, line", [
    # OpenMPI wraps its help text at the help file's line breaks: the signature is the first line.
    ("mpirun_no_oob_interface", "None of the TCP networks specified to be included for out-of-band communications"),
    ("mpirun_host_key", "Host key verification failed."),
    ("mpirun_orted_not_found", "bash: line 1: orted: command not found"),
    ("mpirun_daemon_start", "ORTE was unable to reliably start one or more daemons."),
    ("hccl_connect_timeout", "EI0006: Getting socket times out. Reason: 1. The remote does not initiate a connect "
                             "request. some NPUs in the cluster are abnormal.    2. The remote does not initiate a "
                             "connect request because the collective communication operator is started too late or is "
                             "not started by some NPU in the cluster.    3. The communication link is disconnected. "
                             "(For example, the IP addresses are not on the same network segment or the TLS "
                             "configurations are inconsistent.)"),
    ("nccl_system_error", "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:825, "
                          "unhandled system error, NCCL version 2.7.8"),
    ("nccl_system_error.nccl-2.18", "torch.distributed.DistBackendError: NCCL error in: "
                                    "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333, unhandled system error "
                                    "(run with NCCL_DEBUG=INFO for details), NCCL version 2.18.6"),
    ("mindspore_port_in_use", "Failed to call bind, url: 127.0.0.1:2229 Address already in use"),
    ("out_of_memory", "MemoryError"),
])
def test_the_line_named_is_the_published_one(name, line):
    assert job_failures.explain(CATALOGUE, sample(name))[0]["line"] == line


def test_hccl_samples_name_their_error_codes():
    exec_timeout = job_failures.explain(CATALOGUE, sample("hccl_exec_timeout"))[0]["line"]
    assert "Ascend Error Message:EI0002: The wait execution of the Notify register times out." in exec_timeout
    plog = job_failures.explain(CATALOGUE, sample("hccl_connect_timeout.plog"))[0]["line"]
    assert plog.endswith("[Wait][LinkEstablish]wait socket establish timeout, role[1] rank[1] timeout[120 s]")
    assert job_failures.explain(CATALOGUE, sample("hccl_error_cqe"))[0]["line"].startswith(
        "[PID: 3448331] 2025-12-04-21:59:08.232.310 Execution Error ROCE CQE(EI0013): ")
    assert job_failures.explain(CATALOGUE, sample("hccl_error_cqe.plog"))[0]["line"].endswith(
        "hns_roce_lite_handle_error_cqe(630) : error cqe status: 0x15")


def test_the_oob_message_is_openmpi_4_1s_help_text():
    # orte/mca/oob/tcp/help-oob-tcp.txt [no-included-found] at v4.1.8, as a user's run printed it.
    template = sample("mpirun_no_oob_interface.help-oob-tcp")
    assert sample("mpirun_no_oob_interface") == template.replace("%s", "ib0,ipoptl")
    assert template.splitlines()[:2] == [
        "None of the TCP networks specified to be included for out-of-band communications", "could be found:"]


def test_exit_by_signal_without_a_log_line():
    assert job_failures.explain(CATALOGUE, "", 137)[0]["id"] == "killed_sigkill"
    assert job_failures.explain(CATALOGUE, "", -11)[0]["id"] == "killed_sigsegv"
    assert job_failures.explain(CATALOGUE, "all fine", 1) == []


@pytest.mark.parametrize("data, problem", [
    ({}, "no list 'failures'"),
    ({"failures": [{"id": "x", "cause": "c", "fix": "f", "source": "s"}]}, "needs a signature or exit"),
    ({"failures": [{"id": "x", "cause": "c", "fix": "f", "source": "s", "signature": "("}]}, "not a regular"),
    ({"failures": [{"id": "x", "cause": "", "fix": "f", "source": "s", "exit": [1]}]}, "cause is missing"),
    ({"failures": [{"id": "x", "cause": "c", "fix": "f", "source": "s", "exit": ["9"]}]}, "list of exit"),
    ({"failures": [{"id": "x", "cause": "c", "fix": "f", "source": "s", "exit": [1]}] * 2}, "used twice"),
])
def test_a_malformed_catalogue_is_refused(data, problem):
    with pytest.raises(job_failures.CatalogueError, match=problem):
        job_failures.load_catalogue(data)


def test_launcher_reports_of_dead_ranks():
    mpirun = sample("killed_sigkill")  # help-orterun.txt [orterun:proc-aborted-strsignal]
    mpiexec = (FAILURES / "launchers" / "mpiexec_non_zero_exit.txt").read_text()  # [orterun:non-zero-exit]
    torchrun = (FAILURES / "launchers" / "torchrun_root_cause.txt").read_text()
    found = job_failures.launcher_rank_exits(mpirun)
    assert found == {0: {"exit": 137, "host": "host01", "line": "noticed that process rank 0 with PID 21183 "
                                                                 "on node host01 exited on signal 9"}}
    assert job_failures.launcher_rank_exits(mpiexec) == {
        0: {"exit": 1, "host": None, "line": "Process name: [[35427,1],0] Exit code: 1"}}
    assert job_failures.launcher_rank_exits(mpirun + mpiexec)[0]["exit"] == 137  # the signal is kept
    found = job_failures.launcher_rank_exits(torchrun)
    assert found[0]["exit"] == 137
    assert found[0]["host"] == "mlxlab115rp2n7682d40d9-20250521025625-6dyyd3-8nir8b-worker"
    assert job_failures.explain(CATALOGUE, torchrun)[0]["id"] == "killed_sigkill"


def test_describe_exit():
    assert job_failures.describe_exit(137) == "exit 137 (killed by SIGKILL)"
    assert job_failures.describe_exit(-11) == "exit -11 (killed by SIGSEGV)"
    assert job_failures.describe_exit(1) == "exit 1"


def test_controller_time():
    clock = {"offset": 60.0, "uncertainty": 0.5}
    assert job_failures.on_controller_clock(200.0, "node2", {"node2": clock}) == 140.0
    assert job_failures.on_controller_clock(200.0, "node1", {"node2": clock}) == 200.0


def write(path, text, mtime=None):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if mtime is not None:
        os.utime(path, (mtime, mtime))


def status(root, host, rank, code, when, error=None):
    write(root / host / "status" / f"rank_{rank}.json",
          json.dumps({"rank": rank, "host": host, "exit": code, "error": error, "time": when}))


def summarise(root, clocks=None, expected=None, launcher="torchrun"):
    summary = job_logs.summarize(str(root), "demo", launcher, expected or {0: "node1", 1: "node2"})
    job_failures.diagnose(summary, job_logs.diagnosis_logs(str(root)), CATALOGUE, clocks)
    summary["text"] = job_logs.render(summary)
    return summary


def test_first_failure_is_first_on_the_controller_clock(tmp_path):
    # rank 0 (node1) reports a reset at 1000 on node1's clock; rank 1 (node2) ran out of memory
    # at 1030 on node2's clock, which is 60 s ahead: 970 on the controller's clock, so first.
    write(tmp_path / "node1" / "worker_0.log", sample("gloo_connection_lost"))
    status(tmp_path, "node1", 0, 1, 1000.0, "RuntimeError: Connection reset by peer")
    write(tmp_path / "node2" / "worker_1.log", sample("out_of_memory"))
    status(tmp_path, "node2", 1, 1, 1030.0, "MemoryError")
    summary = summarise(tmp_path, {"node2": {"offset": 60.0, "uncertainty": 0.2}})
    assert summary["first_failure"]["rank"] == 1 and summary["first_failed_host"] == "node2"
    assert summary["first_failure"]["diagnosis"]["id"] == "out_of_memory"
    assert "  first failure: rank 1 on node2, exit 1: MemoryError" in summary["text"]
    assert "    cause (out_of_memory): " in summary["text"]
    assert ("  clocks, node minus controller (failures are put in order on the controller's clock): "
            "node2 +60.000 s (±0.200 s)") in summary["text"]
    # Without the offset, node2's clock puts rank 0 first, and no clocks line is printed.
    assert summarise(tmp_path)["first_failure"]["rank"] == 0
    assert "clocks" not in summarise(tmp_path)["text"]


def test_rank_killed_without_status_gets_the_launchers_exit(tmp_path):
    write(tmp_path / "node1" / "mpirun" / "1" / "rank.0" / "stdout", "rank 0 waiting\n", mtime=1010.0)
    status(tmp_path, "node1", 0, 143, 1010.0)
    write(tmp_path / "node1" / "mpirun" / "1" / "rank.1" / "stdout", "rank 1 killing myself\n", mtime=1000.0)
    # Not published text: OpenMPI's line (help-orterun.txt [orterun:proc-aborted-strsignal], published
    # in killed_sigkill.txt) written for this scenario's rank and node.
    write(tmp_path / "node1" / "launcher.log",
          "mpirun noticed that process rank 1 with PID 9 on node node2 exited on signal 9 (Killed).\n")
    write(tmp_path / "node1" / "status" / "launcher.json", '{"host": "node1", "exit": 137}')
    summary = summarise(tmp_path, launcher="mpirun")
    first = summary["first_failure"]
    assert (first["rank"], first["host"], first["exit_text"]) == (1, "node2", "exit 137 (killed by SIGKILL)")
    assert first["diagnosis"]["id"] == "killed_sigkill"
    assert summary["ranks"][1]["time_from"] == "last log write"
    assert "  launcher on node1: exit 137" in summary["text"]


def test_launcher_failure_without_any_rank(tmp_path):
    write(tmp_path / "node1" / "launcher.log", sample("mpirun_host_key"))
    write(tmp_path / "node1" / "status" / "launcher.json", '{"host": "node1", "exit": 1}')
    summary = summarise(tmp_path, launcher="mpirun")
    assert summary["result"] == "failed"
    first = summary["first_failure"]
    assert (first["kind"], first["host"]) == ("launcher", "node1")
    assert first["diagnosis"]["id"] == "mpirun_host_key"
    assert "  first failure: launcher mpirun on node1, exit 1: " in summary["text"]
    assert "    error: Host key verification failed." in summary["text"]


def test_a_succeeded_job_has_no_diagnosis(tmp_path):
    write(tmp_path / "node1" / "worker_0.log", "Connection reset by peer (retried)\nloss: 1.0\n")
    status(tmp_path, "node1", 0, 0, 1000.0)
    write(tmp_path / "node1" / "launcher.log", "warning: Connection reset by peer\n")
    summary = summarise(tmp_path, expected={0: "node1"})
    assert summary["result"] == "succeeded"
    assert summary["first_failure"] is None and summary["launcher_diagnosis"] == []
    assert "cause" not in summary["text"]


def test_hang_report_names_last_and_longest_silent():
    activity = {"node1": {"now": 1100.0, "files": {"0": 1060.0, "1": 1059.5}},
                "node2": {"now": 1130.0, "files": {"2": 1070.0}}}  # node2's clock is 30 s ahead
    report = job_failures.hang_report(activity, 30, 1000.0, 1100.0, [0, 1, 2, 3])
    assert report["hung"]
    assert report["last_logged"] == [0, 1]  # 40 s and 40.5 s
    assert report["silent_longest"] == [3]  # no log at all: silent since the start, 100 s
    assert report["ranks"][2] == 60.0
    assert not job_failures.hang_report(activity, 45, 1000.0, 1100.0, [0, 1, 2, 3])["hung"]
    lines = job_failures.hang_lines(dict(report, timeout=30, stopped=True))
    assert lines[0].startswith("  hung: no rank wrote to its log for 40.0 s (job_hang_timeout 30 s)")
    assert "silent longest: rank 3 (100.0 s)" in lines[0]
    assert "stopped (job_stop_on_hang)" in lines[-1]
    assert job_failures.hang_lines({"hung": False}) == []


def test_hang_report_ages_a_reading_from_an_earlier_round():
    # node1's part ended in the first round (read at controller time 1010); node2 is read now.
    activity = {"node1": {"now": 1010.0, "files": {"0": 1005.0}, "at": 1010.0},
                "node2": {"now": 1100.0, "files": {"1": 1090.0}, "at": 1100.0}}
    report = job_failures.hang_report(activity, 30, 1000.0, 1100.0, [0, 1])
    assert report["ranks"] == {0: 95.0, 1: 10.0}  # rank 0 silent since 1005, not frozen at 5 s
    assert not report["hung"] and report["silent_longest"] == [0]
    node2_silent = dict(activity, node2={"now": 1100.0, "files": {"1": 1060.0}, "at": 1100.0})
    assert job_failures.hang_report(node2_silent, 30, 1000.0, 1100.0, [0, 1])["hung"]


def test_a_hung_job_is_not_blamed_on_the_ranks_stopped_after(tmp_path):
    status(tmp_path, "node1", 0, 143, 1000.0)
    status(tmp_path, "node2", 1, 143, 1001.0)
    summary = job_logs.summarize(str(tmp_path), "demo", "torchrun", {0: "node1", 1: "node2"})
    summary["hang"] = {"hung": True}
    job_failures.diagnose(summary, job_logs.diagnosis_logs(str(tmp_path)), CATALOGUE)
    assert summary["first_failure"] is None
    assert "first failure" not in job_logs.render(summary)


def test_plog_of_a_failed_rank_is_read_and_named(tmp_path):
    write(tmp_path / "node1" / "worker_0.log", "RuntimeError: hccl init failed\n")
    write(tmp_path / "node1" / "status" / "rank_0.json",
          json.dumps({"rank": 0, "host": "node1", "exit": 1, "pid": 4242, "time": 1000.0}))
    # The plogs are found by the process id in their name; another process's plog is not read.
    write(tmp_path / "node1" / "ascend" / "debug" / "plog" / "plog-4242_20261124.log",
          sample("hccl_connect_timeout.plog"))
    write(tmp_path / "node1" / "ascend" / "debug" / "plog" / "plog-4243_20261124.log", sample("hccl_error_cqe.plog"))
    summary = summarise(tmp_path, expected={0: "node1"})
    row = summary["ranks"][0]
    assert row["plogs"] == ["node1/ascend/debug/plog/plog-4242_20261124.log"]
    assert row["diagnosis"]["id"] == "hccl_connect_timeout"
    assert "    CANN log: node1/ascend/debug/plog/plog-4242_20261124.log" in summary["text"]


def test_msrun_worker_crash_after_every_rank_returned_is_one_warning_not_a_failure(tmp_path):
    # Every rank finished and recorded exit 0; msrun on node2 then saw its worker die of SIGSEGV
    # at exit. node1's launcher exited 0 with only the scheduler-connection warnings of the start.
    # Not published text: the sandbox's msrun lines (tests/data/failures/README.md).
    warning = ("[WARNING] DISTRIBUTED(1419,7fb24262d2c0,python):2026-11-25-01:15:47.215.992 "
               "[mindspore/ccsrc/cluster/topology/compute_graph_node.cc:171] Register] Failed to connect to "
               "the meta server node url: 10.89.0.2:8118\n")
    for rank, host in enumerate(["node1", "node1", "node2", "node2"]):
        write(tmp_path / host / f"worker_{rank}.log", "step: 19, loss: 0.33\n")
        status(tmp_path, host, rank, 0, 1000.0 + rank)
    write(tmp_path / "node1" / "launcher.log", warning)
    write(tmp_path / "node1" / "status" / "launcher.json", '{"host": "node1", "exit": 0}')
    write(tmp_path / "node2" / "launcher.log", warning + sample("mindspore_worker_sigsegv") +
          "RuntimeError: Distributed job exited with exception. Please check logs in directory: logs.\n")
    write(tmp_path / "node2" / "status" / "launcher.json", '{"host": "node2", "exit": 1}')
    summary = summarise(tmp_path, launcher="msrun",
                        expected={0: "node1", 1: "node1", 2: "node2", 3: "node2"})
    assert summary["result"] == "succeeded" and summary["first_failure"] is None
    warnings = [line for line in summary["text"].splitlines() if "warning:" in line]
    assert warnings == ["  warning: every rank's script returned 0 (the training completed); afterwards msrun on "
                        "node2 failed, exit 1: " + sample("mindspore_worker_sigsegv").strip()
                        + " (known cause mindspore_worker_sigsegv, in the failure catalogue)"]
    assert "error:" not in summary["text"] and "cause (" not in summary["text"]
