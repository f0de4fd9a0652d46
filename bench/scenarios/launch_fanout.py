"""Scenario 3: launch fan-out, from the start of launch.yml to every rank started, on 2 and 8 nodes.

Per size a sandbox with the ML volume is provisioned with site.yml (timed, not the metric), then
each repeat launches the benchmark job once per launcher (the order alternates between repeats):
torchrun on every node, and one mpirun on the master that starts the ranks over SSH (ORTE). The
job (bench/jobs/fanout/started.py) does nothing but record, as its very first statements, when
its rank started; launch.yml gathers the records to logs/<job>/<host>/started/.

The fan-out is the last rank's start time minus the time launch.yml was started (the containers
share the host's clock). From the events it is split into Ansible's part (until the last start
task returned: checks, rendering, the start itself) and the launcher's part (from there to the
last rank: torchrun's agents importing torch and meeting at the rendezvous; ORTE starting orted
on the nodes). A run whose records are not exactly the expected ranks fails the scenario.
"""

import glob
import json
import os
import shlex
import shutil

import harness

TITLE = "Launch fan-out: from the start of launch.yml to every rank started (no training)"
DEFAULT_SIZES = [2, 8]
DEFAULT_REPEAT = 3
PLAYBOOK = "playbooks/launch.yml"
SITE = "site.yml"
JOBS = {"torchrun": "bench/jobs/fanout_torchrun.yml", "mpirun": "bench/jobs/fanout_mpirun.yml"}
MAIN = "torchrun"
# The tasks of roles/job/tasks/start.yml that start a launcher (the master's, the others').
START_TASKS = ("Start the master's launcher and, once its port answers from them, the other nodes'",)
LOGS_ROOT = os.path.join(harness.ROOT, "logs")
AIM_LIMIT = 1.5


# ---------------------------------------------------------------- pure functions

def load_job(path):
    """The job_* variables of a job file (YAML)."""
    import yaml  # noqa: PLC0415  (PyYAML comes with ansible-core in the venv)

    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def expected_ranks(job, nodes):
    """How many ranks the job starts on `nodes` nodes (job_workers_per_node, a number here)."""
    workers = job.get("job_workers_per_node", 1)
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise ValueError("job_workers_per_node must be a positive number in a benchmark job, got %r" % (workers,))
    return nodes * workers


def read_started(job_logs):
    """The rank start records gathered by launch.yml: logs/<job>/<host>/started/*.json."""
    records = []
    for path in sorted(glob.glob(os.path.join(job_logs, "*", "started", "*.json"))):
        with open(path, encoding="utf-8") as handle:
            records.append(dict(json.load(handle), node_dir=os.path.basename(os.path.dirname(os.path.dirname(path)))))
    return records


def ranks_problem(records, expected):
    """None when the records are exactly ranks 0..expected-1, once each; else what is wrong."""
    ranks = [record.get("rank") for record in records]
    if len(records) != expected:
        return "%d rank start record(s), expected %d (ranks seen: %s)" % (len(records), expected, sorted(map(str, ranks)))
    if sorted(rank for rank in ranks if isinstance(rank, int)) != list(range(expected)):
        return "ranks %s, expected 0..%d once each" % (sorted(map(str, ranks)), expected - 1)
    return None


def task_start_time(events, tasks):
    """Epoch time at which the first of `tasks` started (its playbook_on_task_start event)."""
    times = [harness.event_time(event) for event in events
             if event.get("event") == "playbook_on_task_start" and (event.get("event_data") or {}).get("task") in tasks]
    times = [value for value in times if value is not None]
    return min(times) if times else None


def task_ok_times(events, tasks):
    """{host: epoch time its result arrived} for every host on which one of `tasks` ran (ok, not skipped)."""
    times = {}
    for event in events:
        data = event.get("event_data") or {}
        if event.get("event") != "runner_on_ok" or data.get("task") not in tasks:
            continue
        created = harness.event_time(event)
        if created is not None:
            times[data.get("host")] = max(created, times.get(data.get("host"), created))
    return times


def fanout_times(started, events, records):
    """The fan-out of one launch in seconds from `started` (when launch.yml was started, epoch).

    fanout: to the last rank's start; first_rank: to the first's; prepare: to the start of the
    first start task (checks and rendering); ansible: to the last start task's result on any host;
    launcher: from there to the last rank; start_returned: per host, its start task's result.
    """
    rank_times = [record["time"] for record in records]
    start_task = task_start_time(events, START_TASKS)
    returned = task_ok_times(events, START_TASKS)
    fanout = max(rank_times) - started if rank_times else None
    ansible = max(returned.values()) - started if returned else None
    times = {
        "fanout": fanout,
        "first_rank": min(rank_times) - started if rank_times else None,
        "prepare": start_task - started if start_task is not None else None,
        "ansible": ansible,
        "launcher": fanout - ansible if fanout is not None and ansible is not None else None,
        "start_returned": {host: round(value - started, 3) for host, value in sorted(returned.items())},
    }
    return {name: round(value, 3) if isinstance(value, float) else value for name, value in times.items()}


def parts_note(parts_summary, launchers, smallest, largest):
    """A note with the medians of the launch's parts per launcher, smallest to largest size."""
    def median(part, launcher, size):
        value = harness.median_of(parts_summary.get(part, {}), launcher, size)
        return "-" if value is None else "%.1f s" % value

    return "Medians, %d -> %d nodes: %s. Prepare is Ansible until the first start task (checks, rendering); " \
        "launcher is from the last start task's result to the last rank's start." % (smallest, largest, "; ".join(
            "%s prepare %s -> %s, launcher %s -> %s, whole launch.yml %s -> %s" % (
                launcher, median("prepare", launcher, smallest), median("prepare", launcher, largest),
                median("launcher", launcher, smallest), median("launcher", launcher, largest),
                median("wall", launcher, smallest), median("wall", launcher, largest))
            for launcher in launchers))


def load_note(runs):
    """The range of the 1-minute load average before the launches (others share the machine)."""
    loads = [run["loadavg_before"][0] for run in runs if run.get("loadavg_before")]
    if not loads:
        return "Load average before the launches: not recorded."
    return "1-minute load average before the launches: %.1f to %.1f on this machine." % (min(loads), max(loads))


def notes(parts_summary, runs, jobs, smallest, largest, cpus):
    """The notes of the result: the parts' medians, what the sandbox distorts, how it was measured."""
    return [
        parts_note(parts_summary, list(JOBS), smallest, largest),
        "The sandbox's nodes share this machine's %s cores. torchrun's agent imports torch on every node "
        "before the rendezvous: at %d nodes, %d imports contend for the same cores, which real servers do "
        "each on their own CPUs; that is the launcher part of torchrun's figure. The Ansible part (checks, "
        "rendering, the start tasks) is reported on its own for that reason; it too runs every node's "
        "modules on the same cores (%d nodes: %gx the work of %d on the same CPUs), which real servers "
        "spread over their own." % (cpus, largest, largest, largest, largest / smallest, smallest),
        "mpirun starts from the master alone (Ansible's part ends when the master's start task returned); "
        "ORTE then starts orted on the other nodes over SSH and they start the ranks.",
        "Every node is provisioned with site.yml first (not measured: OpenMPI comes from the controller "
        "cache). Each launch runs the whole launch.yml (checks, render, start, wait, gather, summary); the "
        "job itself only records when each rank started. Each run checks that exactly the expected ranks "
        "(nodes x %s workers per node) started." % " or ".join(
            sorted({str(job["job_workers_per_node"]) for job in jobs.values()})),
        "Others may use the machine at the same time: the samples are noisy; compare the ratios, measured "
        "in the same run. " + load_note(runs),
    ]


# ---------------------------------------------------------------- the runs

def launch(sandbox, launcher, job, nodes):
    """launch.yml once with the benchmark job of `launcher`: (fan-out times, run description)."""
    job_logs = os.path.join(LOGS_ROOT, job["job_name"])
    shutil.rmtree(job_logs, ignore_errors=True)
    cmdline = "-e %s" % shlex.quote("@" + os.path.join(harness.ROOT, JOBS[launcher]))
    run = harness.require_ok(harness.run_playbook(PLAYBOOK, sandbox.inventory, cmdline=cmdline),
                             "launch.yml (%s) on %d nodes" % (launcher, nodes))
    records = read_started(job_logs)
    problem = ranks_problem(records, expected_ranks(job, nodes))
    if problem:
        raise SystemExit("bench: launch_fanout %s on %d nodes: %s (%s)" % (launcher, nodes, problem, job_logs))
    times = fanout_times(run.started, run.events, records)
    harness.log("launch %s on %d nodes: every rank started after %.1f s (Ansible %.1f s, launcher %.1f s), "
                "launch.yml %.1f s" % (launcher, nodes, times["fanout"], times["ansible"], times["launcher"], run.wall))
    return times, dict(run.describe(), ranks=len(records),
                       rank_hosts=sorted({record["host"] for record in records}), **times)


def run(sizes, repeat, args):
    del args  # no options of its own
    jobs = {launcher: load_job(os.path.join(harness.ROOT, path)) for launcher, path in JOBS.items()}
    headline, parts, runs, provision = harness.Samples(), {}, [], {}
    for nodes in sizes:
        with harness.Sandbox("bench-launch-%d" % nodes, nodes, npu_devices=8, ml=True) as sandbox:
            site = harness.require_ok(harness.run_playbook(SITE, sandbox.inventory), "site.yml on %d nodes" % nodes)
            harness.log("site.yml on %d nodes: %.0f s (not measured)" % (nodes, site.wall))
            provision[str(nodes)] = site.describe()
            for index in range(repeat):
                # Both launchers in every repeat, the order alternating: they share the machine's mood.
                order = list(JOBS) if index % 2 == 0 else list(reversed(list(JOBS)))
                for launcher in order:
                    times, described = launch(sandbox, launcher, jobs[launcher], nodes)
                    headline.add(launcher, nodes, times["fanout"])
                    headline.add(launcher + "_ansible", nodes, times["ansible"])
                    for part in ("prepare", "launcher", "first_rank"):
                        parts.setdefault(part, harness.Samples()).add(launcher, nodes, times[part])
                    parts.setdefault("wall", harness.Samples()).add(launcher, nodes, described["wall_seconds"])
                    runs.append(dict(described, series=launcher, nodes=nodes, repeat=index))

    summary = headline.summary()
    parts_summary = {part: samples.summary() for part, samples in parts.items()}
    smallest, largest = min(sizes), max(sizes)

    def size_ratio(table, series):
        return harness.ratio(harness.median_of(table, series, largest), harness.median_of(table, series, smallest))

    ratios = {}
    for launcher in JOBS:
        ratios["%s_%d_vs_%d_nodes" % (launcher, largest, smallest)] = size_ratio(summary, launcher)
        ratios["%s_ansible_%d_vs_%d_nodes" % (launcher, largest, smallest)] = size_ratio(summary, launcher + "_ansible")
        ratios["%s_launcher_%d_vs_%d_nodes" % (launcher, largest, smallest)] = size_ratio(
            parts_summary.get("launcher", {}), launcher)
        ratios["%s_wall_%d_vs_%d_nodes" % (launcher, largest, smallest)] = size_ratio(
            parts_summary.get("wall", {}), launcher)
    result = {
        "title": TITLE,
        "metric": "Seconds from the start of launch.yml to the last rank's first statement (the job does nothing "
                  "else), and Ansible's part of it: until the last start task returned",
        "size_label": "nodes",
        "repeat": repeat,
        "labels": {"torchrun": "torchrun: every rank started",
                   "mpirun": "mpirun: every rank started",
                   "torchrun_ansible": "torchrun: Ansible part (last start task returned)",
                   "mpirun_ansible": "mpirun: Ansible part (master's start task returned)"},
        "summary": summary,
        "parts": parts_summary,
        "ratios": ratios,
        "aims": [harness.aim("%s: %d nodes within %sx of %d nodes" % (launcher, largest, AIM_LIMIT, smallest),
                             ratios["%s_%d_vs_%d_nodes" % (launcher, largest, smallest)], AIM_LIMIT)
                 for launcher in [MAIN] + [name for name in JOBS if name != MAIN]],
        "notes": notes(parts_summary, runs, jobs, smallest, largest, harness.machine()["cpus"]),
        "provision": provision,
        "runs": runs,
    }
    chart = {"title": "Launch fan-out: launch.yml start to every rank started", "summary": summary,
             "xlabel": "nodes", "labels": result["labels"]}
    return result, chart
