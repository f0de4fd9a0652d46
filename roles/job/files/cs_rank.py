#!/usr/bin/env python3
"""Runs one rank (or the scheduler) of a cluster-suite job and records how it ended.

    python cs_rank.py SCRIPT [ARGS...]
    python cs_rank.py --reap COMMAND [ARGS...]

Runs SCRIPT as __main__ (as `python SCRIPT ARGS` would) and writes
$CS_LOG_DIR/status/rank_<N>.json (scheduler.json for MS_ROLE=MS_SCHED) with the exit status and,
on an exception, its last line. The rank comes from RANK (torchrun), RANK_ID (msrun),
MS_NODE_ID (dynamic cluster) or OMPI_COMM_WORLD_RANK. With CS_RANK_LOG=1 the output goes to
$CS_LOG_DIR/worker_<N>.log. SIGTERM (stop.yml) ends the rank with status 143.

At the start it writes $CS_LOG_DIR/status/started/<same name> with its process id, so that the
exit status of a rank that died without its record can be found among what the launcher's
reaper saw. The record is written when SCRIPT returns, before the interpreter's exit handlers run: a crash in
a framework's teardown after it (MindSpore's exit handler) does not change what the script did.

--reap runs COMMAND (a launcher that returns once its processes are started, msrun --join=False)
as the child subreaper of everything it starts: it waits (blocking, never polling) for every
descendant, appends each one's pid and exit status (negative: the signal that killed it) to
$CS_LOG_DIR/status/reaped.json, and exits with COMMAND's status once none is left.

Flight recorder: while SCRIPT runs, a daemon thread writes the main thread's Python stack every
CS_FLIGHT_INTERVAL seconds (2; 0 turns it off) to $CS_LOG_DIR/flight/rank_<N>.json, in py-spy's
JSON frame format, innermost first. When a launcher or a collective's timeout kills the rank,
its last record still says where it was. It stops before the record of the exit is written.
"""
import json
import os
import runpy
import signal
import socket
import sys
import threading
import time
import traceback

FLIGHT_INTERVAL = 2.0


def rank_and_role():
    if os.environ.get("MS_ROLE") == "MS_SCHED":
        return None, "scheduler"
    for name in ("RANK", "RANK_ID", "MS_NODE_ID", "OMPI_COMM_WORLD_RANK"):
        value = os.environ.get(name, "")
        if value.isdigit():
            return int(value), "worker"
    return None, "worker"


def write_status(log_dir, rank, role, code, error, folder="status"):
    name = "scheduler.json" if role == "scheduler" else "rank_%s.json" % (rank if rank is not None else os.getpid())
    _atomic_json(os.path.join(log_dir, folder), name,
                 {"rank": rank, "role": role, "exit": code, "error": error,
                  "host": os.environ.get("CS_HOST") or socket.gethostname(), "pid": os.getpid(),
                  "time": time.time()})


def _atomic_json(directory, name, record):
    os.makedirs(directory, exist_ok=True)
    tmp = os.path.join(directory, ".%s.%d" % (name, os.getpid()))
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(record, handle)
        handle.write("\n")
    os.replace(tmp, os.path.join(directory, name))


def stack_frames(frame, code_dir):
    """A Python stack as py-spy's JSON frames, innermost first."""
    frames = []
    while frame is not None:
        path = frame.f_code.co_filename
        short = os.path.relpath(path, code_dir) if path.startswith(code_dir + os.sep) else os.path.basename(path)
        frames.append({"name": frame.f_code.co_name, "filename": path, "short_filename": short,
                       "line": frame.f_lineno})
        frame = frame.f_back
    return frames


class FlightRecorder(threading.Thread):
    """Writes the main thread's stack to ``<log_dir>/flight/rank_<N>.json`` every ``interval`` s."""

    def __init__(self, log_dir, rank, interval):
        super().__init__(name="cs-flight-recorder", daemon=True)
        self.directory = os.path.join(log_dir, "flight")
        self.name_of_file = "rank_%d.json" % rank
        self.rank = rank
        self.interval = interval
        self.main_id = threading.main_thread().ident
        self.code_dir = os.getcwd()
        self.ended = threading.Event()

    def record(self):
        frame = sys._current_frames().get(self.main_id)  # pylint: disable=protected-access
        if frame is None or self.ended.is_set():
            return
        _atomic_json(self.directory, self.name_of_file,
                     {"rank": self.rank, "host": os.environ.get("CS_HOST") or socket.gethostname(),
                      "pid": os.getpid(), "time": time.time(), "interval": self.interval, "code_dir": self.code_dir,
                      "frames": stack_frames(frame, self.code_dir)})

    def run(self):
        while not self.ended.wait(self.interval):
            try:
                self.record()
            except OSError:
                return


def flight_interval():
    try:
        value = float(os.environ.get("CS_FLIGHT_INTERVAL", FLIGHT_INTERVAL))
    except ValueError:
        return FLIGHT_INTERVAL
    return value if value > 0 else None


PR_SET_CHILD_SUBREAPER = 36


def reap(command, log_dir):
    """Run ``command`` as the subreaper of its descendants; record every exit; return its status."""
    import ctypes  # pylint: disable=import-outside-toplevel

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.stderr.write("cs_rank.py --reap: prctl(PR_SET_CHILD_SUBREAPER): errno %d\n" % ctypes.get_errno())
    # stop.yml's SIGTERM reaches every process of the job: keep reaping until they are gone.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        first = os.spawnvp(os.P_NOWAIT, command[0], command)
    except OSError as exc:
        sys.stderr.write("cs_rank.py --reap: %s: %s\n" % (command[0], exc))
        return 127
    code, reaped = 127, []
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            return code
        except InterruptedError:
            continue
        exit_code = os.waitstatus_to_exitcode(status)
        if pid == first:
            code = exit_code if exit_code >= 0 else 128 - exit_code
        reaped.append({"pid": pid, "exit": exit_code, "time": time.time()})
        try:
            _atomic_json(os.path.join(log_dir, "status"), "reaped.json",
                         {"host": os.environ.get("CS_HOST") or socket.gethostname(), "processes": reaped})
        except OSError:
            pass


def on_sigterm(_signum, _frame):
    raise SystemExit(143)


def main():
    if len(sys.argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    log_dir = os.environ.get("CS_LOG_DIR", ".")
    if sys.argv[1] == "--reap":
        return reap(sys.argv[2:], log_dir) if len(sys.argv) > 2 else 2
    script = sys.argv[1]
    rank, role = rank_and_role()
    if role == "worker" and rank is not None:
        os.environ["CS_RANK"] = str(rank)
    elif role == "scheduler":
        os.environ["CS_RANK"] = "scheduler"
    if os.environ.get("CS_RANK_LOG") == "1" and rank is not None:
        os.makedirs(log_dir, exist_ok=True)
        fd = os.open(os.path.join(log_dir, "worker_%d.log" % rank), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
    signal.signal(signal.SIGTERM, on_sigterm)
    write_status(log_dir, rank, role, None, None, os.path.join("status", "started"))
    sys.argv = sys.argv[1:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    code, error = 0, None
    recorder = None
    interval = flight_interval()
    if role == "worker" and rank is not None and interval:
        recorder = FlightRecorder(log_dir, rank, interval)
        recorder.start()
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        if exc.code is None:
            code = 0
        elif isinstance(exc.code, int):
            code = exc.code
        else:
            code, error = 1, str(exc.code)
    except BaseException as exc:  # noqa: B902  (record any failure, then re-raise it as an exit)
        traceback.print_exc()
        code = 1
        error = "".join(traceback.format_exception_only(type(exc), exc)).strip().splitlines()[-1]
    finally:
        if recorder is not None:
            # No flight record may be written after the record of the exit.
            recorder.ended.set()
            recorder.join(5.0)
    sys.stdout.flush()
    sys.stderr.flush()
    write_status(log_dir, rank, role, code, error)
    return code


if __name__ == "__main__":
    sys.exit(main())
