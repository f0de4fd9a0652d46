"""Scenario 1: OpenMPI on 1, 2, 4 and 8 fresh nodes, built once (ours) against built on every node.

Each run gets a fresh sandbox (no OpenMPI anywhere) and an empty controller cache, so "ours" pays
for its one build every time: this is first provisioning, not a cache hit. The baseline is the
role's `openmpi_build_strategy: every_node`, what the upstream guides and other tools do. Builds
are counted from the events: the hosts where the compile task reported changed.

The sandbox's nodes share the controller's cores, so N concurrent baseline builds take about N
times one build here; on real servers each builds on its own CPUs and the baseline's wall time
stays near one build, while the N builds (and N toolchains) remain. The aims are about ours.
"""

import json
import os
import tempfile

import yaml

import harness

TITLE = "OpenMPI on fresh nodes: one build per cluster (ours) against a build on every node"
DEFAULT_SIZES = [1, 2, 4, 8]
DEFAULT_REPEAT = 1
# Sizes at which the baseline is measured by default: N concurrent builds on this machine's
# cores take ~N builds of time, so 8 nodes alone would cost about as much as all of ours.
DEFAULT_BASELINE_SIZES = [1, 2, 4]
COMPILE_TASK = "Configure and compile (takes minutes; output in <build dir>/build.log)"
PLAYBOOK = "bench/playbooks/openmpi.yml"
STRATEGIES = {"ours": "once", "baseline": "every_node"}
# The role's flags plus two that leave out MPI-IO (ROMIO) and OpenSHMEM, about a third of the
# compile, so that the scenario fits a small machine. Both strategies build exactly this; a
# shorter build makes ours' 8-vs-1 ratio (one build plus the unpacking) harder to meet, not easier.
TRIM_FLAGS = ["--disable-io-romio", "--disable-oshmem"]


def configure_flags():
    with open(os.path.join(harness.ROOT, "roles", "openmpi", "defaults", "main.yml"), encoding="utf-8") as handle:
        return yaml.safe_load(handle)["openmpi_configure_flags"] + TRIM_FLAGS


def provision(nodes, strategy):
    """Fresh sandbox, empty cache, the openmpi role once: (wall seconds, builds, run description)."""
    with harness.Sandbox("bench-openmpi-%d" % nodes, nodes, npu_devices=0) as sandbox, \
            tempfile.TemporaryDirectory(prefix="bench-openmpi-cache-") as cache:
        run = harness.require_ok(harness.run_playbook(
            PLAYBOOK, sandbox.inventory, {"openmpi_build_strategy": strategy, "openmpi_cache_dir": cache,
                                    "openmpi_configure_flags": configure_flags()}),
            "openmpi (%s) on %d nodes" % (strategy, nodes))
    builds = harness.changed_hosts(run.events, COMPILE_TASK)
    harness.log("openmpi %s on %d nodes: %.0f s, %d build(s)" % (strategy, nodes, run.wall, len(builds)))
    return run.wall, builds, run.describe()


def run(sizes, repeat, args):
    baseline_sizes = getattr(args, "baseline_nodes", None)
    if baseline_sizes is None:
        baseline_sizes = [size for size in DEFAULT_BASELINE_SIZES if size in sizes]
    baseline_sizes = [size for size in baseline_sizes if size > 0]  # --baseline-nodes 0: none
    walls, builds, runs = harness.Samples(), {}, []
    if getattr(args, "resume", False):
        for earlier in previous_runs():
            walls.add(earlier["series"], earlier["nodes"], earlier["wall_seconds"])
            builds.setdefault(earlier["series"], {}).setdefault(str(earlier["nodes"]), []).append(earlier["builds"])
            runs.append(earlier)
        sizes = sorted(set(sizes) | {run["nodes"] for run in runs}, key=sizes_order(sizes))
        baseline_sizes = sorted(set(baseline_sizes) | {run["nodes"] for run in runs if run["series"] == "baseline"})
    for nodes in [size for size in sizes if not any(run["nodes"] == size for run in runs)]:
        for _ in range(repeat):
            # Ours and the baseline back to back at each size: the ratio shares the machine's mood.
            for series, strategy in STRATEGIES.items():
                if series == "baseline" and nodes not in baseline_sizes:
                    continue
                wall, built_on, described = provision(nodes, strategy)
                walls.add(series, nodes, wall)
                builds.setdefault(series, {}).setdefault(str(nodes), []).append(len(built_on))
                runs.append(dict(described, series=series, nodes=nodes, builds=len(built_on), built_on=built_on))
                # Each point costs a build: keep what is measured even if the scenario is cut short.
                harness.write_result("openmpi", *assemble(walls, builds, runs, sizes, baseline_sizes, repeat))
    return assemble(walls, builds, runs, sizes, baseline_sizes, repeat)


def previous_runs():
    """The runs of bench/results/openmpi.json, when it exists (bench/run.py openmpi --resume)."""
    path = os.path.join(harness.RESULTS_DIR, "openmpi.json")
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as handle:
        return json.load(handle).get("runs", [])


def sizes_order(requested):
    """Sort key: the requested sizes first, in their order, then the others."""
    return lambda size: (requested.index(size) if size in requested else len(requested), size)


def assemble(walls, builds, runs, sizes, baseline_sizes, repeat):
    """The result and chart from the runs so far; sizes without a run show as not measured."""
    summary = walls.summary()
    measured = sorted(int(size) for size in summary.get("ours", {}))
    smallest, largest = min(sizes), max(sizes)
    ours_ratio = harness.ratio(harness.median_of(summary, "ours", largest), harness.median_of(summary, "ours", smallest))
    ours_builds_largest = builds.get("ours", {}).get(str(largest))
    result = {
        "title": TITLE,
        "metric": "Wall time of the openmpi role on fresh nodes with an empty cache (the build included)",
        "size_label": "nodes",
        "repeat": repeat,
        "labels": {"ours": "ours (build once, unpack elsewhere)", "baseline": "baseline (build on every node)"},
        "summary": summary,
        "builds": builds,
        "ratios": {
            "ours_%d_vs_%d_nodes" % (largest, smallest): ours_ratio,
            "baseline_vs_ours": {size: harness.ratio(harness.median_of(summary, "baseline", size),
                                                     harness.median_of(summary, "ours", size))
                                 for size in map(str, baseline_sizes)},
        },
        "aims": [
            harness.aim("ours on %d nodes within 1.3x of %d node(s)" % (largest, smallest), ours_ratio, 1.3),
            harness.aim("exactly one build on %d nodes" % largest,
                        max(ours_builds_largest) if ours_builds_largest else None, 1, "=="),
        ],
        "notes": [
            "The sandbox's nodes share %s cores: the baseline's N concurrent builds cost about N builds of "
            "wall time here, while on real servers each builds on its own CPUs (its wall time stays near "
            "one build, the N builds and N toolchains remain)." % harness.machine()["cpus"],
            "Planned: ours at %s node(s), the baseline at %s; measured so far: ours at %s, the baseline at %s." % (
                ", ".join(map(str, sizes)), ", ".join(map(str, baseline_sizes)) or "none",
                ", ".join(map(str, measured)) or "none",
                ", ".join(sorted(summary.get("baseline", {}), key=int)) or "none"),
            "configure flags (both strategies): %s." % " ".join(configure_flags()),
        ],
        "runs": runs,
    }
    chart = {"title": "OpenMPI on fresh nodes (empty cache, build included)", "summary": summary,
             "xlabel": "nodes", "labels": result["labels"]}
    return result, chart
