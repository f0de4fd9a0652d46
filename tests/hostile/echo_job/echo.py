#!/usr/bin/env python3
"""Echo job of the hostile-input corpus: records exactly what this rank was given.

    python echo.py ARGS...      (started by the suite's launchers through cs_rank.py)

Writes {"rank", "host", "argv": sys.argv[1:], "env": {name: value}} as JSON (ASCII, every other
character escaped, so the bytes survive any log gathering) to $CS_LOG_DIR/echo/rank_<rank>.json
and prints it as one line. The variables are those named in HOSTILE_ENV_NAMES (comma-separated),
every variable when it is unset. A variable that is not set shows as null.
tests/hostile/sample_job.py writes a job for it and the expected argv and env to compare with.
"""
import json
import os
import sys


def main():
    names = os.environ.get("HOSTILE_ENV_NAMES")
    chosen = names.split(",") if names else sorted(os.environ)
    rank = os.environ.get("CS_RANK") or os.environ.get("RANK") or os.environ.get("OMPI_COMM_WORLD_RANK") or "x"
    record = {"rank": rank, "host": os.environ.get("CS_HOST"), "argv": sys.argv[1:],
              "env": {name: os.environ.get(name) for name in chosen}}
    text = json.dumps(record, ensure_ascii=True, sort_keys=True)
    out_dir = os.path.join(os.environ.get("CS_LOG_DIR", "."), "echo")
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "rank_%s.json" % rank), "w", encoding="ascii") as handle:
        handle.write(text + "\n")
    print(text, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
