"""Benchmark job of bench/scenarios/launch_fanout.py: record when this rank started, then exit 0.

Its first statements (stdlib only, nothing heavy before them) write
$CS_LOG_DIR/started/<host>-<rank>.json: {"time": epoch seconds, "host", "rank", "pid"}. The rank
comes from CS_RANK (cs_rank.py and rank.sh set it), RANK (torchrun) or OMPI_COMM_WORLD_RANK
(mpirun). launch.yml gathers each node's log directory to logs/<job>/<host>/, where the scenario
reads the records. The sandbox's nodes share the host's clock, so the times compare directly.
"""
import time

STARTED = time.time()

import json  # noqa: E402  (the clock is read first)
import os  # noqa: E402
import socket  # noqa: E402


def main():
    rank = next((os.environ[name] for name in ("CS_RANK", "RANK", "OMPI_COMM_WORLD_RANK")
                 if os.environ.get(name, "").isdigit()), None)
    host = os.environ.get("CS_HOST") or socket.gethostname()
    folder = os.path.join(os.environ.get("CS_LOG_DIR", "."), "started")
    os.makedirs(folder, exist_ok=True)
    name = "%s-%s.json" % (host, rank if rank is not None else "pid%d" % os.getpid())
    record = {"time": STARTED, "host": host, "rank": None if rank is None else int(rank), "pid": os.getpid()}
    temporary = os.path.join(folder, ".%s.%d" % (name, os.getpid()))
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(record, handle)
        handle.write("\n")
    os.replace(temporary, os.path.join(folder, name))
    print("started: %s rank %s at %.3f" % (host, rank, STARTED), flush=True)


main()
