"""Tests for plugins/module_utils/job_procs.py on real processes of this machine."""

import json
import os
import subprocess
import sys
import time

import job_procs


def spawn(env_dir, *extra_env, seconds=60):
    env = dict(os.environ)
    if env_dir:
        env[job_procs.TAG] = env_dir
    env.update(dict(extra_env))
    return subprocess.Popen([sys.executable, "-c", f"import time; time.sleep({seconds})"], env=env)


def test_parse_helpers():
    assert job_procs.parse_environ(b"A=1\0B=x=y\0broken\0") == {"A": "1", "B": "x=y"}
    assert job_procs.parse_stat("12 (a b) c) S 1 12 12 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 4242 0 0")[:3] == ("S", 1, 12)


def test_finds_only_the_jobs_own_processes_and_stops_them(tmp_path):
    mine, other = str(tmp_path / "jobs" / "a"), str(tmp_path / "jobs" / "b")
    a1, a2 = spawn(mine, ("CS_RANK", "0")), spawn(mine, ("CS_RANK", "1"))
    b = spawn(other)
    untagged = spawn(None)
    try:
        time.sleep(0.2)
        found = job_procs.job_processes(mine)
        assert sorted(p["pid"] for p in found) == sorted([a1.pid, a2.pid])
        assert sorted(p["rank"] for p in found) == ["0", "1"]
        signalled, left = job_procs.stop(mine, grace=5, sleep=lambda s: (a1.poll(), a2.poll(), time.sleep(s)))
        assert len(signalled) == 2 and left == []
        assert job_procs.job_processes(mine) == []
        assert b.poll() is None and untagged.poll() is None
    finally:
        for proc in (a1, a2, b, untagged):
            proc.kill()
            proc.wait()


def test_recorded_daemon_counts_unless_its_pid_was_reused(tmp_path):
    job = tmp_path / "job"
    (job / "run").mkdir(parents=True)
    daemon = spawn(None)
    try:
        time.sleep(0.1)
        (job / "run" / "orted.pids").write_text(f"{daemon.pid}\n")
        assert [p["pid"] for p in job_procs.job_processes(str(job))] == [daemon.pid]
        # A record older than the process: the pid belongs to someone else now.
        os.utime(job / "run" / "orted.pids", (time.time() - 3600, time.time() - 3600))
        assert job_procs.job_processes(str(job)) == []
    finally:
        daemon.kill()
        daemon.wait()


def test_wait_returns_on_failure_or_when_done(tmp_path):
    job = str(tmp_path / "job")
    proc = spawn(job, seconds=0.5)
    try:
        alive, failed = job_procs.wait(job, 10, lambda: [], interval=0.1, sleep=lambda s: (proc.poll(), time.sleep(s)))
        assert alive == [] and failed == []
    finally:
        proc.wait()
    proc = spawn(job)
    try:
        alive, failed = job_procs.wait(job, 10, lambda: [3], interval=0.1)
        assert failed == [3] and len(alive) == 1
    finally:
        proc.kill()
        proc.wait()


def test_wait_for_ranks_not_started_yet_holds_until_they_exit_or_the_timeout(tmp_path):
    job = str(tmp_path / "job")
    exited = []  # the ranks with a status file: none yet, as on a node mpirun has not reached
    clock = time.monotonic()
    alive, _ = job_procs.wait(job, 0.5, lambda: [], interval=0.05, pending=lambda: not exited)
    assert alive == [] and time.monotonic() - clock >= 0.5  # no process, yet it waited
    proc = spawn(job, seconds=0.3)
    try:
        def later(seconds):
            if proc.poll() is not None:
                exited.append(0)
            time.sleep(seconds)
        clock = time.monotonic()
        alive, _ = job_procs.wait(job, 10, lambda: [], interval=0.05, sleep=later, pending=lambda: not exited)
        assert alive == [] and exited and time.monotonic() - clock < 5
    finally:
        proc.wait()


def test_running_jobs_names_every_tagged_job_and_nothing_else(tmp_path):
    first, second = str(tmp_path / "jobs" / "a"), str(tmp_path / "jobs" / "b")
    a, b, untagged = spawn(first), spawn(second + "/"), spawn(None)
    try:
        time.sleep(0.2)
        found = job_procs.running_jobs()
        assert found[first] == [a.pid] and found[second] == [b.pid]
        assert untagged.pid not in [pid for pids in found.values() for pid in pids]
        a.kill()
        a.wait()
        assert first not in job_procs.running_jobs()
    finally:
        for proc in (a, b, untagged):
            proc.kill()


def test_the_reaper_outlives_the_ranks_it_records_when_they_must_be_killed(tmp_path):
    # A rank that ignores SIGTERM (stuck in native code, as in MindSpore's init) is SIGKILLed at the
    # end of the grace; the launcher's reaper must live to record that, then end by itself.
    wrapper = os.path.join(os.path.dirname(__file__), "..", "..", "roles", "job", "files", "cs_rank.py")
    job_dir = str(tmp_path / "job")
    stubborn = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)"
    env = dict(os.environ, **{job_procs.TAG: job_dir, "CS_LOG_DIR": str(tmp_path / "logs"), "CS_HOST": "node9"})
    reaper = subprocess.Popen([sys.executable, wrapper, "--reap", sys.executable, "-c", stubborn], env=env)
    try:
        time.sleep(1.0)
        signalled, left = job_procs.stop(job_dir, grace=1, sleep=lambda s: (reaper.poll(), time.sleep(s)))
        assert len(signalled) == 2 and left == []
        assert reaper.wait(5) == 128 + 9
        reaped = json.loads((tmp_path / "logs" / "status" / "reaped.json").read_text())
        assert [item["exit"] for item in reaped["processes"]] == [-9]
    finally:
        reaper.kill()
        reaper.wait()
