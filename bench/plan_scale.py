#!/usr/bin/env python3
"""Time device plan and rank table work for a 128-server x 8-device cluster.

Generates and validates an atlas800 plan (1024 addresses), builds and validates the
rank table for it, repeats that --repeat times and prints median/min/max seconds per
step as JSON on stdout. No thresholds: compare runs yourself.

    python3 bench/plan_scale.py --repeat 50
"""

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "module_utils"))

import device_plan  # noqa: E402  (found through the sys.path entry above)
import rank_table  # noqa: E402

MODEL = "atlas800"
# 128 servers x step 10 need host numbers up to 1371: a /21 per device position.
SETTINGS = {"base": "10.0.0.0", "netmask": "255.255.248.0", "host_start": 100}


def time_steps(servers, devices):
    """Run every step once; return ({step: seconds}, plan problems, rank table problems)."""
    hosts = [f"node{number}" for number in range(servers)]
    server_ids = [f"10.200.{number // 250}.{number % 250 + 1}" for number in range(servers)]
    seconds = {}

    start = time.perf_counter()
    plan = device_plan.generate_plan(hosts, MODEL, SETTINGS, devices)
    seconds["generate_plan"] = time.perf_counter() - start

    start = time.perf_counter()
    plan_problems = device_plan.validate_plan(plan, MODEL, devices)
    seconds["validate_plan"] = time.perf_counter() - start

    start = time.perf_counter()
    table = rank_table.build_rank_table(list(zip(server_ids, plan.values())))
    seconds["build_rank_table"] = time.perf_counter() - start

    start = time.perf_counter()
    table_problems = rank_table.validate_rank_table(table, plan)
    seconds["validate_rank_table"] = time.perf_counter() - start

    seconds["total"] = sum(seconds.values())
    return seconds, plan_problems, table_problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=128)
    parser.add_argument("--devices", type=int, default=8, choices=device_plan.SUPPORTED_DEVICE_COUNTS)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()

    samples = {}
    problems = []
    for _run in range(args.repeat):
        seconds, plan_problems, table_problems = time_steps(args.servers, args.devices)
        problems = plan_problems + table_problems
        for step, value in seconds.items():
            samples.setdefault(step, []).append(value)
    report = {
        "servers": args.servers,
        "devices_per_server": args.devices,
        "repeat": args.repeat,
        # A benchmark of an invalid plan measures the wrong thing: show it.
        "problems": len(problems),
        "seconds": {
            step: {"median": statistics.median(values), "min": min(values), "max": max(values)}
            for step, values in samples.items()
        },
    }
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
