#!/usr/bin/env python3
"""Runs one rank (or the scheduler) of a cluster-suite job and records how it ended.

    python cs_rank.py SCRIPT [ARGS...]

Runs SCRIPT as __main__ (as `python SCRIPT ARGS` would) and writes
$CS_LOG_DIR/status/rank_<N>.json (scheduler.json for MS_ROLE=MS_SCHED) with the exit status and,
on an exception, its last line. The rank comes from RANK (torchrun), RANK_ID (msrun),
MS_NODE_ID (dynamic cluster) or OMPI_COMM_WORLD_RANK. With CS_RANK_LOG=1 the output goes to
$CS_LOG_DIR/worker_<N>.log. SIGTERM (stop.yml) ends the rank with status 143.
"""
import json
import os
import runpy
import signal
import socket
import sys
import time
import traceback


def rank_and_role():
    if os.environ.get("MS_ROLE") == "MS_SCHED":
        return None, "scheduler"
    for name in ("RANK", "RANK_ID", "MS_NODE_ID", "OMPI_COMM_WORLD_RANK"):
        value = os.environ.get(name, "")
        if value.isdigit():
            return int(value), "worker"
    return None, "worker"


def write_status(log_dir, rank, role, code, error):
    status_dir = os.path.join(log_dir, "status")
    os.makedirs(status_dir, exist_ok=True)
    name = "scheduler.json" if role == "scheduler" else "rank_%s.json" % (rank if rank is not None else os.getpid())
    record = {"rank": rank, "role": role, "exit": code, "error": error,
              "host": os.environ.get("CS_HOST") or socket.gethostname(), "pid": os.getpid(),
              "time": time.time()}
    tmp = os.path.join(status_dir, ".%s.%d" % (name, os.getpid()))
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(record, handle)
        handle.write("\n")
    os.replace(tmp, os.path.join(status_dir, name))


def on_sigterm(_signum, _frame):
    raise SystemExit(143)


def main():
    if len(sys.argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    script = sys.argv[1]
    log_dir = os.environ.get("CS_LOG_DIR", ".")
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
    sys.argv = sys.argv[1:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    code, error = 0, None
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
    sys.stdout.flush()
    sys.stderr.flush()
    write_status(log_dir, rank, role, code, error)
    return code


if __name__ == "__main__":
    sys.exit(main())
