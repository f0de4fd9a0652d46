"""The doctor's temporary listener (roles/doctor/files/doctor_listener.py) stops only itself: its
pidfile lives in a private directory, and `stop` signals a PID only when /proc shows it is the
listener of the same port and run. Run as role doctor runs it: python3 -c "<file>" ARGS."""
import os
import pathlib
import socket
import subprocess
import sys
import time

import pytest

CODE = (pathlib.Path(__file__).parents[2] / "roles" / "doctor" / "files" / "doctor_listener.py").read_text()


@pytest.fixture
def home(tmp_path):
    return tmp_path


def run(home, *args, **kw):
    env = dict(os.environ, HOME=str(home))
    return subprocess.run([sys.executable, "-c", CODE, *map(str, args)], env=env, capture_output=True,
                          text=True, timeout=30, **kw)


def start(home, port, run_id, seconds=60):
    env = dict(os.environ, HOME=str(home))
    proc = subprocess.Popen([sys.executable, "-c", CODE, "listen", str(port), run_id, str(seconds)],
                            env=env, stderr=subprocess.PIPE, text=True)
    pidfile = home / ".cache" / "cluster-suite" / "doctor" / f"listener-{port}-{run_id}.pid"
    for _ in range(100):
        if pidfile.exists() or proc.poll() is not None:
            break
        time.sleep(0.05)
    return proc, pidfile


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_listens_then_stop_kills_it_and_cleans_up(home):
    port = free_port()
    proc, pidfile = start(home, port, "run1")
    try:
        assert pidfile.read_text() == str(proc.pid)
        assert oct(pidfile.parent.stat().st_mode & 0o777) == "0o700"
        socket.create_connection(("127.0.0.1", port), timeout=3).close()
        assert run(home, "stop", port, "run1").stdout.strip() == "killed"
        assert proc.wait(timeout=10) != 0
        assert not pidfile.exists() and not pidfile.parent.exists()
    finally:
        proc.kill()


def test_stop_without_a_listener_of_this_run_kills_nothing(home):
    assert run(home, "stop", 8118, "run2").stdout.strip() == "not-started"
    assert not (home / ".cache" / "cluster-suite" / "doctor").exists()


@pytest.mark.parametrize("run_id", ["run3", "other"])
def test_stop_never_kills_an_unrelated_process_named_in_the_pidfile(home, run_id):
    sleeper = subprocess.Popen(["sleep", "600"])
    try:
        directory = home / ".cache" / "cluster-suite" / "doctor"
        directory.mkdir(parents=True, mode=0o700)
        (directory / "listener-8118-run3.pid").write_text(str(sleeper.pid))
        out = run(home, "stop", 8118, run_id).stdout.strip()
        if run_id == "run3":
            assert out == f"refused: PID {sleeper.pid} is not the listener of this run (port 8118, run run3)"
        else:
            assert out == "not-started"
        time.sleep(0.2)
        assert sleeper.poll() is None
    finally:
        sleeper.kill()
        sleeper.wait()


def test_stop_never_kills_the_listener_of_another_run_or_port(home):
    port = free_port()
    proc, pidfile = start(home, port, "mine")
    try:
        # a pidfile of another run naming this listener's PID
        (pidfile.parent / f"listener-{port}-theirs.pid").write_text(str(proc.pid))
        assert run(home, "stop", port, "theirs").stdout.strip().startswith(f"refused: PID {proc.pid} is not")
        assert proc.poll() is None
        assert run(home, "stop", port, "mine").stdout.strip() == "killed"
        proc.wait(timeout=10)
    finally:
        proc.kill()


@pytest.mark.parametrize("plant", ["symlink", "mode", "file"])
def test_a_pidfile_directory_someone_else_could_use_is_refused(home, tmp_path_factory, plant):
    parent = home / ".cache" / "cluster-suite"
    parent.mkdir(parents=True)
    target = tmp_path_factory.mktemp("elsewhere")
    if plant == "symlink":
        (parent / "doctor").symlink_to(target)
    elif plant == "mode":
        (parent / "doctor").mkdir(mode=0o755)
        os.chmod(parent / "doctor", 0o777)
    else:
        (parent / "doctor").write_text("")
    result = run(home, "listen", free_port(), "run4", 5)
    assert result.returncode != 0
    assert "doctor_listener.py: " in result.stderr and str(parent / "doctor") in result.stderr
    assert list(target.iterdir()) == []
    assert run(home, "stop", 8118, "run4").returncode != 0


def test_a_run_id_cannot_name_another_path(home):
    result = run(home, "stop", 8118, "../../x")
    assert result.returncode != 0 and "RUN_ID must be letters and digits" in result.stderr
