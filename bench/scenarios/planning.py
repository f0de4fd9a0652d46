"""Scenario 5: planning at scale without nodes.

Two parts, neither touches a node:

- the plan: an atlas800 device IP plan for 128 servers x 8 devices (1024 addresses) generated
  and validated, and the rank table built from it and validated (plugins/plugin_utils/npu_plan/plan.py,
  plugins/plugin_utils/npu_plan/rank_table.py), timed step by step in this process, PLAN_REPEAT times; a plan or
  table with any problem stops the benchmark (it would measure the wrong thing);
- the render: playbooks/render.yml for every launcher (msrun, mpirun, dynamic, torchrun, from the
  job files of jobs/) against synthetic inventories of 8, 32 and 128 NPU hosts of 8 devices each,
  written to local files (connection local, no SSH). Every run gets a fresh output directory and
  must leave each host's scripts there. The wall time is what `ansible-playbook` costs the user:
  start-up, the job checks and plan, rendering and writing.

Ansible's start-up and the controller-side plan are a fixed cost, so the time per host shrinks as
hosts are added; the aim is that it never grows (no worse than linear).
"""

import os
import shutil
import sys
import tempfile
import time

import yaml

import harness

# The checkout is the collection through collections/ansible_collections/cluster_suite/hpc.
sys.path.append(os.path.join(harness.ROOT, "collections"))

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.npu_plan import plan as device_plan  # noqa: E402
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.npu_plan import rank_table  # noqa: E402

TITLE = "Planning at scale without nodes: 1024-address device plan, every launcher's scripts for 8 to 128 hosts"
DEFAULT_SIZES = [8, 32, 128]
DEFAULT_REPEAT = 3
# The plan takes milliseconds: many more samples than the playbook runs.
PLAN_REPEAT = 20
PLAN_SERVERS, PLAN_DEVICES = 128, 8
MODEL = "atlas800"
# 128 servers x step 10 need host numbers up to 1371: a /21 per device position.
SETTINGS = {"base": "10.0.0.0", "netmask": "255.255.248.0", "host_start": 100}

PLAYBOOK = "playbooks/render.yml"
# The job of each launcher: the files users start from, one rank on every device of every host
# (they leave job_workers_per_node to its default, npu_device_count).
JOBS = {"msrun": "jobs/sample_msrun.yml", "mpirun": "jobs/examples/mpirun.yml",
        "dynamic": "jobs/examples/dynamic.yml", "torchrun": "jobs/examples/torchrun.yml"}
DEVICES_PER_HOST = 8
NETWORK_CIDR = "10.10.0.0/16"
CLUSTER_USER = "trainer"


# ---------------------------------------------------------------- the plan

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


def measure_plan(repeat, servers=PLAN_SERVERS, devices=PLAN_DEVICES):
    """The plan steps `repeat` times: {servers, devices_per_server, addresses, repeat, problems,
    milliseconds: {step: summary}} (milliseconds: the steps take a few each).

    Raises SystemExit when the plan or the rank table has a problem.
    """
    samples = {}
    for _ in range(repeat):
        seconds, plan_problems, table_problems = time_steps(servers, devices)
        problems = plan_problems + table_problems
        if problems:
            raise SystemExit("bench: planning: the %dx%d plan has %d problem(s), e.g. %s"
                             % (servers, devices, len(problems), problems[0]))
        for step, value in seconds.items():
            samples.setdefault(step, []).append(value * 1000)
    return {"servers": servers, "devices_per_server": devices, "addresses": servers * devices,
            "repeat": repeat, "problems": 0,
            "milliseconds": {step: harness.summarize(values) for step, values in samples.items()}}


# ---------------------------------------------------------------- the render

def host_names(hosts):
    return ["node%d" % number for number in range(1, hosts + 1)]


def host_address(number):
    """The host address of node<number> (1-based) in NETWORK_CIDR: 10.10.0.1, ... 10.10.1.1 after 250."""
    return "10.10.%d.%d" % ((number - 1) // 250, (number - 1) % 250 + 1)


def inventory(hosts, devices=DEVICES_PER_HOST):
    """The hosts.yml of a cluster of `hosts` NPU nodes (as sandbox/sandbox writes it), node1 the master."""
    names = host_names(hosts)
    return {"all": {"children": {
        "cluster": {"children": {
            "npu_nodes": {"hosts": {name: {"ansible_host": host_address(number), "npu_device_count": devices}
                                    for number, name in enumerate(names, 1)}},
            "gpu_nodes": {"hosts": {}},
            "cpu_nodes": {"hosts": {}}}},
        "cluster_master": {"hosts": {names[0]: None}}}}}


GROUP_VARS = {
    "all/cluster.yml": {"cluster_user": CLUSTER_USER, "cluster_allow_root": False,
                        "cluster_network_cidr": NETWORK_CIDR},
    "all/launch.yml": {"launch_python": "python3"},
    "npu_nodes/npu.yml": {"npu_model": MODEL},
}


def write_inventory(directory, hosts, devices=DEVICES_PER_HOST):
    """Write <directory>/hosts.yml and its group_vars/; return the path of hosts.yml."""
    for relative, variables in GROUP_VARS.items():
        path = os.path.join(directory, "group_vars", relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("---\n" + yaml.safe_dump(variables, sort_keys=False))
    path = os.path.join(directory, "hosts.yml")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("---\n# Synthetic inventory of bench/scenarios/planning.py\n")
        handle.write(yaml.safe_dump(inventory(hosts, devices), sort_keys=False))
    return path


def job_vars(launcher):
    """The job_* variables of a launcher's job file, on every device of every host."""
    with open(os.path.join(harness.ROOT, JOBS[launcher]), encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def expected_files(launcher, is_master):
    """The files render.yml writes for one host of a job (no TLS)."""
    files = ["job.env", "start.sh", "launch.sh", "cs_rank.py", "bin/python"]
    if launcher == "mpirun":
        files.append("rank.sh")
        if is_master:
            files.append("hostfile")
    return files


def missing_files(render_dir, hosts, launcher):
    """<host>/<file> of every expected file that is missing or empty under render_dir (node1 the master)."""
    missing = []
    for number, host in enumerate(host_names(hosts), 1):
        for name in expected_files(launcher, number == 1):
            path = os.path.join(render_dir, host, name)
            if not os.path.isfile(path) or os.path.getsize(path) == 0:
                missing.append("%s/%s" % (host, name))
    return missing


def per_host_ratio(summary, series, smallest, largest):
    """(median at largest / largest) / (median at smallest / smallest): above 1 = worse than linear."""
    large = harness.median_of(summary, series, largest)
    small = harness.median_of(summary, series, smallest)
    if large is None or small is None:
        return None
    return harness.ratio(large / largest, small / smallest)


def seconds_per_added_host(summary, series, smallest, largest):
    """What each host beyond the smallest size added to the median wall time (seconds)."""
    large = harness.median_of(summary, series, largest)
    small = harness.median_of(summary, series, smallest)
    if large is None or small is None or largest == smallest:
        return None
    return round((large - small) / (largest - smallest), 4)


def load_note(runs):
    """The 1-minute load average before the runs, min to max, as a note (None without runs)."""
    loads = [described["loadavg_before"][0] for described in runs if described.get("loadavg_before")]
    if not loads:
        return None
    return "1-minute load average before the render runs: %.1f to %.1f (on %s CPUs)." % (
        min(loads), max(loads), harness.machine()["cpus"])


def render(inventory_path, hosts, launcher, out_dir):
    """One render.yml run into out_dir (fresh); checks every host's files. (wall seconds, description)."""
    run = harness.require_ok(harness.run_playbook(PLAYBOOK, inventory_path, dict(job_vars(launcher), render_dir=out_dir)),
                             "render.yml (%s, %d hosts)" % (launcher, hosts))
    missing = missing_files(out_dir, hosts, launcher)
    if missing:
        raise SystemExit("bench: render.yml (%s, %d hosts) left %d file(s) missing, e.g. %s"
                         % (launcher, hosts, len(missing), ", ".join(missing[:5])))
    harness.log("render %s for %d hosts: %.1f s" % (launcher, hosts, run.wall))
    return run.wall, run.describe()


def run(sizes, repeat, args):
    plan = measure_plan(max(PLAN_REPEAT, repeat))
    plan_median = round(plan["milliseconds"]["total"]["median"] / 1000, 4)
    harness.log("plan %dx%d: median %.4f s" % (PLAN_SERVERS, PLAN_DEVICES, plan_median))

    walls, runs = harness.Samples(), []
    with tempfile.TemporaryDirectory(prefix="bench-planning-") as work:
        for hosts in sizes:
            inventory_path = write_inventory(os.path.join(work, "inventory-%d" % hosts), hosts)
            for attempt in range(repeat):
                # Every launcher back to back at each size: they share the machine's mood.
                for launcher in JOBS:
                    out_dir = os.path.join(work, "rendered-%d-%s-%d" % (hosts, launcher, attempt))
                    wall, described = render(inventory_path, hosts, launcher, out_dir)
                    walls.add(launcher, hosts, wall)
                    runs.append(dict(described, series=launcher, hosts=hosts))
                    shutil.rmtree(out_dir)

    summary = walls.summary()
    smallest, largest = min(sizes), max(sizes)
    per_host = {launcher: per_host_ratio(summary, launcher, smallest, largest) for launcher in JOBS}
    measured = [value for value in per_host.values() if value is not None]
    worst = max(measured) if measured and len(measured) == len(per_host) else None
    plan_steps = ", ".join("%s %.1f ms" % (step, stats["median"])
                           for step, stats in plan["milliseconds"].items() if step != "total")
    result = {
        "title": TITLE,
        "metric": ("Wall time of playbooks/render.yml (job checks, plan, every host's scripts rendered and "
                   "written to local files; connection local, no SSH) per launcher, hosts of %d devices"
                   % DEVICES_PER_HOST),
        "size_label": "hosts",
        "repeat": repeat,
        "labels": {launcher: "%s (%s)" % (launcher, os.path.basename(path)) for launcher, path in JOBS.items()},
        "summary": summary,
        "plan": plan,
        "ratios": {
            "per_host_%d_vs_%d_hosts" % (largest, smallest): per_host,
            "seconds_%d_vs_%d_hosts" % (largest, smallest): {
                launcher: harness.ratio(harness.median_of(summary, launcher, largest),
                                        harness.median_of(summary, launcher, smallest)) for launcher in JOBS},
            "seconds_per_added_host": {launcher: seconds_per_added_host(summary, launcher, smallest, largest)
                                       for launcher in JOBS},
        },
        "aims": [
            harness.aim("%d-address plan and rank table in under a second (median of %d)"
                        % (plan["addresses"], plan["repeat"]), plan_median, 1.0),
            harness.aim("render time per host at %d hosts no worse than at %d hosts (worst launcher's ratio)"
                        % (largest, smallest), worst, 1.0),
        ],
        "notes": [
            "Plan of %d servers x %d devices (%s), median of %d: %s; 0 problems."
            % (PLAN_SERVERS, PLAN_DEVICES, MODEL, plan["repeat"], plan_steps),
            "render.yml renders each host's scripts in the controller process (lookup template, the "
            "templates launch.yml uses) and writes all of them with one module run; Ansible's start-up and "
            "the job checks are a fixed cost, so the time per host shrinks with more hosts.",
            "Shared machine (%s CPUs, others at work): single runs vary; medians of %d." % (
                harness.machine()["cpus"], repeat),
        ] + ([load_note(runs)] if load_note(runs) else []),
        "runs": runs,
    }
    chart = {"title": "render.yml: every host's launch scripts, no SSH", "summary": summary,
             "xlabel": "hosts (%d devices each)" % DEVICES_PER_HOST, "labels": result["labels"]}
    return result, chart
