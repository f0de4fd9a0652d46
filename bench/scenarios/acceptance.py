"""Scenario 6: cluster acceptance (playbooks/acceptance.yml) on provisioned clusters of 4 and 8 nodes.

Each size gets a sandbox of plain CPU nodes provisioned with site.yml (not timed; OpenMPI from
the controller cache, the frameworks ready-made in the ML volume: the probe needs none), every node's egress shaped alike with tbf (bench/playbooks/
acceptance_shape.yml: the sandbox's own traffic is CPU-bound and noisy otherwise), then
acceptance.yml runs `repeat` times with the suite's MPI allreduce probe and must pass: each
node alone, every pair in N-1 rounds, the healthy nodes together. Measured: the wall time,
the rounds, and the time per round (the slowest pair of the round, as Ansible waits for it).
"""

import json
import os
import tempfile

import harness

TITLE = "Cluster acceptance: collective bandwidth of each node, every pair in rounds, the whole cluster"
DEFAULT_SIZES = [4, 8]
DEFAULT_REPEAT = 1
TIMEOUT = 60
# Each node's own test is shared memory on the machine's few shared cores, whose speed other load
# decides (as in scenario acceptance): judged slow only under this share of the median.
INTRA_SLOW_RATIO = 0.02


def round_seconds(events):
    """Seconds of each round's pair test task (first start to last end over the nodes)."""
    rounds = {}
    for event in events:
        data = event.get("event_data") or {}
        task = data.get("task") or ""
        if event.get("event") in ("runner_on_ok", "runner_on_failed") and task.startswith("Run this round's pair test"):
            start, end = harness.event_time({"created": data.get("start")}), harness.event_time({"created": data.get("end")})
            if start is None or end is None:
                continue
            first, last = rounds.get(task, (start, end))
            rounds[task] = (min(first, start), max(last, end))
    return {task: round(last - first, 2) for task, (first, last) in sorted(rounds.items())}


def run(sizes, repeat, args):
    walls, runs = harness.Samples(), []
    with tempfile.TemporaryDirectory(prefix="bench-acceptance-") as report_dir:
        for nodes in sizes:
            with harness.Sandbox("bench-acceptance-%d" % nodes, nodes, npu_devices=0, ml=True) as sandbox:
                site = harness.require_ok(harness.run_playbook("site.yml", sandbox.inventory),
                                          "site.yml on %d nodes" % nodes)
                harness.require_ok(harness.run_playbook("bench/playbooks/acceptance_shape.yml", sandbox.inventory),
                                   "shaping %d nodes" % nodes)
                for number in range(repeat):
                    directory = os.path.join(report_dir, "%d-%d" % (nodes, number))
                    accepted = harness.require_ok(harness.run_playbook(
                        "playbooks/acceptance.yml", sandbox.inventory,
                        {"acceptance_report_dir": directory, "acceptance_timeout": TIMEOUT,
                         "acceptance_intra_slow_ratio": INTRA_SLOW_RATIO}),
                        "acceptance on %d nodes" % nodes)
                    with open(os.path.join(directory, "report.json"), encoding="utf-8") as handle:
                        report = json.load(handle)
                    if not report["passed"]:
                        raise SystemExit("bench: acceptance failed on a healthy sandbox: %s" % report["summary"])
                    per_round = round_seconds(accepted.events)
                    harness.log("acceptance on %d nodes: %.1f s, %d rounds" % (nodes, accepted.wall, report["rounds"]))
                    walls.add("acceptance", nodes, accepted.wall)
                    runs.append(dict(accepted.describe(), series="acceptance", nodes=nodes, rounds=report["rounds"],
                                     pairs=len(report["pairs"]), round_seconds=per_round,
                                     reference=report["reference"], site_seconds=round(site.wall, 1),
                                     table=report_lines(directory)))
            harness.write_result("acceptance", *assemble(walls, runs, sizes, repeat))
    return assemble(walls, runs, sizes, repeat)


def report_lines(directory):
    with open(os.path.join(directory, "report.txt"), encoding="utf-8") as handle:
        return handle.read().splitlines()


def assemble(walls, runs, sizes, repeat):
    """The result and chart from the runs so far."""
    summary = walls.summary()
    largest = max(sizes)
    rounds = max((run["rounds"] for run in runs if run["nodes"] == largest), default=None)
    bound = (largest - 1 + 2) * TIMEOUT  # every round, each node's own test and the whole cluster at most
    wall = harness.median_of(summary, "acceptance", largest)
    result = {
        "title": TITLE,
        "metric": "Wall time of playbooks/acceptance.yml (own tests, every pair in rounds, the whole cluster), passing",
        "size_label": "nodes",
        "repeat": repeat,
        "labels": {"acceptance": "acceptance.yml"},
        "summary": summary,
        "ratios": {"rounds_%d_nodes" % largest: rounds},
        "aims": [harness.aim("%d nodes: N-1 rounds" % largest, rounds, largest - 1, "=="),
                 harness.aim("%d nodes: within the bound of (N+1) tests x acceptance_timeout %d s" % (largest, TIMEOUT),
                             wall, bound)],
        "notes": ["Every node's egress shaped with tbf to 100mbit; the probe sends 1, 2 and 4 MiB allreduces "
                  "(5 timed iterations and 1 warm-up each) per test.",
                  "The sandbox's nodes share the controller's %d cores: mpirun's start and Ansible's per-task work "
                  "on every node queue for the same CPUs here." % os.cpu_count()],
        "runs": runs,
    }
    chart = {"title": "Cluster acceptance (every pair, N-1 rounds)", "summary": summary, "xlabel": "nodes",
             "labels": result["labels"]}
    return result, chart
