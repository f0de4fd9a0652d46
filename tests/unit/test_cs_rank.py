"""Tests for roles/job/files/cs_rank.py, the rank wrapper every launcher starts."""

import json
import os
import subprocess
import sys

import pytest

WRAPPER = os.path.join(os.path.dirname(__file__), "..", "..", "roles", "job", "files", "cs_rank.py")


def run(tmp_path, body, env, *args):
    script = tmp_path / "script.py"
    script.write_text(body)
    full_env = dict(os.environ, CS_LOG_DIR=str(tmp_path / "logs"), CS_HOST="node9", **env)
    for name in ("RANK", "RANK_ID", "MS_NODE_ID", "MS_ROLE", "OMPI_COMM_WORLD_RANK", "CS_RANK_LOG"):
        if name not in env:
            full_env.pop(name, None)
    return subprocess.run([sys.executable, WRAPPER, str(script), *args], env=full_env,
                          capture_output=True, text=True, timeout=60, check=False)


def status(tmp_path, name):
    return json.loads((tmp_path / "logs" / "status" / name).read_text())


@pytest.mark.parametrize("variable", ["RANK", "RANK_ID", "MS_NODE_ID", "OMPI_COMM_WORLD_RANK"])
def test_success_records_exit_0_and_passes_arguments(tmp_path, variable):
    result = run(tmp_path, "import sys; print('args', sys.argv[1:])\n", {variable: "2"}, "--steps", "3")
    assert result.returncode == 0
    assert "args ['--steps', '3']" in result.stdout
    record = status(tmp_path, "rank_2.json")
    assert record["exit"] == 0 and record["rank"] == 2 and record["host"] == "node9" and record["error"] is None


def test_exception_records_its_last_line_and_exits_1(tmp_path):
    result = run(tmp_path, "raise RuntimeError('rank 3 fails on purpose')\n", {"RANK": "3"})
    assert result.returncode == 1
    assert "Traceback" in result.stderr
    assert status(tmp_path, "rank_3.json")["error"] == "RuntimeError: rank 3 fails on purpose"


def test_sys_exit_code_and_scheduler_role(tmp_path):
    assert run(tmp_path, "import sys; sys.exit(7)\n", {"RANK": "0"}).returncode == 7
    assert status(tmp_path, "rank_0.json")["exit"] == 7
    assert run(tmp_path, "pass\n", {"MS_ROLE": "MS_SCHED", "MS_NODE_ID": "sched"}).returncode == 0
    assert status(tmp_path, "scheduler.json")["role"] == "scheduler"


def test_rank_log_redirect(tmp_path):
    result = run(tmp_path, "print('hello from rank 1')\n", {"RANK": "1", "CS_RANK_LOG": "1"})
    assert result.returncode == 0 and result.stdout == ""
    assert (tmp_path / "logs" / "worker_1.log").read_text() == "hello from rank 1\n"


def test_flight_recorder_keeps_where_a_killed_rank_was(tmp_path):
    body = ("import os, signal, time\n"
            "def slow_step():\n"
            "    time.sleep(0.6)\n"
            "    os.kill(os.getpid(), signal.SIGKILL)\n"
            "slow_step()\n")
    result = run(tmp_path, body, {"RANK": "3", "CS_FLIGHT_INTERVAL": "0.1"})
    assert result.returncode == -9
    assert not (tmp_path / "logs" / "status" / "rank_3.json").exists()
    record = json.loads((tmp_path / "logs" / "flight" / "rank_3.json").read_text())
    assert record["rank"] == 3 and record["host"] == "node9"
    innermost = record["frames"][0]
    assert innermost["name"] == "slow_step" and innermost["line"] == 3
    assert innermost["short_filename"] == "script.py"


def test_flight_recorder_stops_when_the_script_returns_and_can_be_turned_off(tmp_path):
    run(tmp_path, "import time; time.sleep(0.3)\n", {"RANK": "1", "CS_FLIGHT_INTERVAL": "0.05"})
    flight = tmp_path / "logs" / "flight" / "rank_1.json"
    written = flight.stat().st_mtime
    assert json.loads(flight.read_text())["frames"][0]["name"] == "<module>"
    assert status(tmp_path, "rank_1.json")["time"] >= written
    run(tmp_path, "import time; time.sleep(0.3)\n", {"RANK": "2", "CS_FLIGHT_INTERVAL": "0"})
    assert not (tmp_path / "logs" / "flight" / "rank_2.json").exists()


def test_start_record_names_the_process(tmp_path):
    run(tmp_path, "pass\n", {"RANK": "4"})
    started = status(tmp_path, os.path.join("started", "rank_4.json"))
    assert started["exit"] is None and started["rank"] == 4 and started["pid"] > 1


def test_reaper_records_every_descendants_exit_even_after_the_launcher_returned(tmp_path):
    # The "launcher" starts two detached workers in their own sessions and returns at once, as
    # msrun --join=False does: one exits 0, one is killed by SIGSEGV.
    launcher = tmp_path / "launcher.py"
    launcher.write_text(
        "import os, subprocess, sys\n"
        # Each worker ends only once the launcher is gone (it was reparented): a worker that ended
        # first would be reaped by the launcher's own Popen at its exit, as msrun's would be.
        "orphan = 'import os, sys, time\\nwhile os.getppid() == int(sys.argv[1]): time.sleep(0.01)\\n'\n"
        "me = str(os.getpid())\n"
        "ok = subprocess.Popen([sys.executable, '-c', orphan, me], start_new_session=True)\n"
        "bad = subprocess.Popen([sys.executable, '-c', orphan + 'os.kill(os.getpid(), 11)', me],"
        " start_new_session=True)\n"
        "open(sys.argv[1], 'w').write('%d %d' % (ok.pid, bad.pid))\n")
    pids = tmp_path / "pids"
    env = dict(os.environ, CS_LOG_DIR=str(tmp_path / "logs"), CS_HOST="node9")
    result = subprocess.run([sys.executable, WRAPPER, "--reap", sys.executable, str(launcher), str(pids)],
                            env=env, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    ok, bad = map(int, pids.read_text().split())
    reaped = {item["pid"]: item["exit"] for item in status(tmp_path, "reaped.json")["processes"]}
    assert reaped[ok] == 0 and reaped[bad] == -11
