"""Scenario 4: the preflight doctor (playbooks/doctor.yml) on provisioned clusters of 2 and 8 nodes.

Every node runs its checks itself, at once, including its part of the SSH mesh (N-1 peers by
every name), so the N^2 pairs cost about N pairs of time per node. Each size gets a sandbox with
the shared ML volume (the framework version checks import real MindSpore and torch), provisioned
with site.yml (not timed), then the doctor runs `repeat` times and must find nothing wrong.
"""

import json
import os
import tempfile

import harness

TITLE = "Preflight doctor on provisioned clusters (SSH mesh of N^2 pairs included)"
DEFAULT_SIZES = [2, 8]
DEFAULT_REPEAT = 3
# 8 sandbox nodes on a few shared cores are slow to import MindSpore and to answer SSH: more time
# than the doctor's defaults (60 s, 5 s) so that a busy controller is not reported as a broken cluster.
BUSY_SETTINGS = {"doctor_import_timeout": 300, "doctor_ssh_timeout": 30}


def doctor_runs(sandbox, repeat, report_dir):
    """Run the doctor `repeat` times on a provisioned sandbox: [(wall seconds, report summary, run)]."""
    runs = []
    for number in range(repeat):
        report = os.path.join(report_dir, "report-%d-%d.json" % (sandbox.nodes, number))
        run = harness.require_ok(harness.run_playbook("playbooks/doctor.yml", sandbox.inventory,
                                                      {"doctor_report_path": report, **BUSY_SETTINGS}),
                                 "doctor on %d nodes" % sandbox.nodes)
        with open(report, encoding="utf-8") as handle:
            summary = json.load(handle)["summary"]
        if summary["fail"]:
            raise SystemExit("bench: the doctor found problems on a fresh sandbox: %s" % summary)
        harness.log("doctor on %d nodes: %.1f s, %d checks ok" % (sandbox.nodes, run.wall, summary["ok"]))
        runs.append((run.wall, summary, run))
    return runs


def run(sizes, repeat, args):
    walls, runs, site_seconds = harness.Samples(), [], {}
    with tempfile.TemporaryDirectory(prefix="bench-doctor-reports-") as report_dir:
        for nodes in sizes:
            with harness.Sandbox("bench-doctor-%d" % nodes, nodes, npu_devices=8, ml=True) as sandbox:
                site = harness.require_ok(harness.run_playbook("site.yml", sandbox.inventory),
                                          "site.yml on %d nodes" % nodes)
                site_seconds[str(nodes)] = round(site.wall, 1)
                for wall, summary, doctor in doctor_runs(sandbox, repeat, report_dir):
                    walls.add("doctor", nodes, wall)
                    runs.append(dict(doctor.describe(), series="doctor", nodes=nodes, report=summary,
                                     ssh_pairs=nodes * nodes))
            # Keep what is measured if a later size fails or the run is cut short.
            harness.write_result("doctor", *assemble(walls, runs, sizes, repeat, site_seconds))
    return assemble(walls, runs, sizes, repeat, site_seconds)


def assemble(walls, runs, sizes, repeat, site_seconds):
    """The result and chart from the runs so far."""
    summary = walls.summary()
    smallest, largest = min(sizes), max(sizes)
    scaling = harness.ratio(harness.median_of(summary, "doctor", largest), harness.median_of(summary, "doctor", smallest))
    result = {
        "title": TITLE,
        "metric": "Wall time of playbooks/doctor.yml, every check on every node, all passing",
        "size_label": "nodes",
        "repeat": repeat,
        "labels": {"doctor": "doctor.yml"},
        "summary": summary,
        "ratios": {"doctor_%d_vs_%d_nodes" % (largest, smallest): scaling},
        "aims": [harness.aim("%d nodes within 2x of %d nodes" % (largest, smallest), scaling, 2.0)],
        "notes": ["site.yml before the doctor (not timed): %s seconds per size." % site_seconds,
                  "The sandbox's nodes share the controller's %d cores, so per-node checks that run at "
                  "once on real servers queue for the same CPUs here." % os.cpu_count()],
        "runs": runs,
    }
    chart = {"title": "Preflight doctor (N^2 SSH pairs included)", "summary": summary, "xlabel": "nodes",
             "labels": result["labels"]}
    return result, chart
