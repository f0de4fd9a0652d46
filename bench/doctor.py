#!/usr/bin/env python3
"""Time playbooks/doctor.yml on sandbox clusters of given sizes, through ansible-runner events.

For each size N: bring up a sandbox of N Ascend nodes (prefix bench-doctor-N, with the shared ML
volume so the framework imports are real), provision it with site.yml, run the doctor --repeat
times, take it down again. Records the wall time of each doctor run, the slowest tasks (from
ansible-runner's per-host task events) and the report's verdict, with the machine's load
average, since a shared controller makes the times noisy. No thresholds: compare runs yourself.

    bench/doctor.py --nodes 2 8 --repeat 3          # writes bench/results/doctor.json
    bench/doctor.py --inventory sandbox/state/<prefix>/hosts.yml --label 2   # an existing sandbox

Needs the venv (ansible-runner) and the sandbox prerequisites (`make setup image sources`).
"""

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import ansible_runner

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "bench", "results", "doctor.json")
TASK_EVENTS = ("runner_on_ok", "runner_on_failed", "runner_on_skipped", "runner_on_unreachable")


def loadavg():
    return [round(value, 2) for value in os.getloadavg()]


def sandbox(action, prefix, nodes):
    env = dict(os.environ, SANDBOX_PREFIX=prefix, NODES=str(nodes), NPU_DEVICES="8", SANDBOX_ML="1")
    subprocess.run([os.path.join(ROOT, "sandbox", "sandbox"), action], env=env, check=True)


def run_playbook(playbook, inventory, extravars=None):
    """Run a playbook with ansible-runner; return (status, rc, wall seconds, events)."""
    with tempfile.TemporaryDirectory(prefix="bench-doctor-") as private:
        started = time.monotonic()
        runner = ansible_runner.run(
            private_data_dir=private, project_dir=ROOT, playbook=os.path.join(ROOT, playbook),
            inventory=os.path.abspath(inventory), extravars=extravars or {}, quiet=True,
            envvars={"ANSIBLE_CONFIG": os.path.join(ROOT, "ansible.cfg")})
        wall = time.monotonic() - started
        events = list(runner.events)
    return runner.status, runner.rc, wall, events


def slowest_tasks(events, count=8):
    """{task: longest per-host duration in seconds}, the slowest first."""
    longest = {}
    for event in events:
        if event.get("event") not in TASK_EVENTS:
            continue
        data = event.get("event_data") or {}
        task, duration = data.get("task"), data.get("duration")
        if task and isinstance(duration, (int, float)):
            longest[task] = max(longest.get(task, 0.0), duration)
    ranked = sorted(longest.items(), key=lambda item: -item[1])[:count]
    return {task: round(seconds, 2) for task, seconds in ranked}


def time_doctor(inventory, repeat, report_dir):
    runs = []
    for number in range(repeat):
        report = os.path.join(report_dir, "report-%d.json" % number)
        load = loadavg()
        status, rc, wall, events = run_playbook("playbooks/doctor.yml", inventory, {"doctor_report_path": report})
        summary = None
        if os.path.exists(report):
            with open(report, encoding="utf-8") as handle:
                summary = json.load(handle)["summary"]
        runs.append({"wall_seconds": round(wall, 1), "status": status, "rc": rc, "loadavg_before": load,
                     "report": summary, "slowest_tasks": slowest_tasks(events)})
        print("doctor run %d: %.1f s, rc %s, load %s" % (number + 1, wall, rc, load), file=sys.stderr)
    walls = [run["wall_seconds"] for run in runs]
    return {"median_seconds": round(statistics.median(walls), 1), "min_seconds": min(walls),
            "max_seconds": max(walls), "runs": runs}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", type=int, nargs="+", default=[2], help="cluster sizes (default 2)")
    parser.add_argument("--repeat", type=int, default=3, help="doctor runs per size (default 3)")
    parser.add_argument("--inventory", help="time an existing, provisioned sandbox instead (no up/site/down)")
    parser.add_argument("--label", help="with --inventory: the size to record the result under")
    parser.add_argument("--keep", action="store_true", help="leave the sandboxes up")
    parser.add_argument("--output", default=RESULTS)
    args = parser.parse_args()

    results = {}
    if os.path.exists(args.output):
        with open(args.output, encoding="utf-8") as handle:
            results = json.load(handle)
    results.setdefault("sizes", {})
    results["machine"] = {"cpus": os.cpu_count()}
    with tempfile.TemporaryDirectory(prefix="bench-doctor-reports-") as report_dir:
        if args.inventory:
            label = args.label or "existing"
            results["sizes"][label] = dict(time_doctor(args.inventory, args.repeat, report_dir),
                                           measured=datetime.datetime.now(datetime.timezone.utc).isoformat(
                                               timespec="seconds"), provisioning="existing sandbox")
        for nodes in ([] if args.inventory else args.nodes):
            prefix = "bench-doctor-%d" % nodes
            inventory = os.path.join(ROOT, "sandbox", "state", prefix, "hosts.yml")
            try:
                sandbox("up", prefix, nodes)
                status, rc, site_wall, _events = run_playbook("site.yml", inventory)
                if rc != 0:
                    raise SystemExit("site.yml failed on %d nodes (rc %s)" % (nodes, rc))
                entry = time_doctor(inventory, args.repeat, report_dir)
                entry.update(site_seconds=round(site_wall, 1), measured=datetime.datetime.now(
                    datetime.timezone.utc).isoformat(timespec="seconds"))
                results["sizes"][str(nodes)] = entry
            finally:
                if not args.keep:
                    sandbox("down", prefix, nodes)
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output, "w", encoding="utf-8") as handle:
        json.dump(results, handle, indent=2, sort_keys=True)
        handle.write("\n")
    print(json.dumps({size: entry["median_seconds"] for size, entry in results["sizes"].items()}))


if __name__ == "__main__":
    main()
