"""Scenario 2: re-running site.yml on an already provisioned cluster, our ansible.cfg against ansible's defaults.

For each size a sandbox is provisioned once with site.yml (timed, not the metric), then site.yml
runs again `repeat` times under each configuration, the series interleaved and their order
rotated every round, so that each ratio compares runs that shared the machine's mood:

- ours: the project's ansible.cfg (pipelining, forks = 128, gathering = smart, ControlPersist);
- defaults: bench/ansible-defaults.cfg, only what the project needs to run (forks 5, no
  pipelining, gathering implicit, ansible's own ssh_args);
- mitogen (extra, only when mitogen is importable): ours plus mitogen's mitogen_linear strategy.
  Never required: point BENCH_MITOGEN_PATH at a directory holding ansible_mitogen (for instance
  one made with `pip install --target DIR mitogen`) or install it into the venv.

Every run starts without an SSH master left by an earlier run (its own ControlPath directory,
closed afterwards): a re-run comes minutes or days after the last one. Host keys are checked in
every run (ANSIBLE_HOST_KEY_CHECKING=True; ansible-runner turns it off unless told).
A re-run must change nothing: the changed counts of every re-run are recorded and are an aim.
"""

import importlib.util
import os
import shutil
import subprocess
import tempfile

import harness

TITLE = "Re-running site.yml on a provisioned cluster: our ansible.cfg against ansible's defaults"
DEFAULT_SIZES = [2, 8]
DEFAULT_REPEAT = 3
PLAYBOOK = "site.yml"
DEFAULTS_CFG = os.path.join(harness.ROOT, "bench", "ansible-defaults.cfg")
GATHER_TASK = "Gathering Facts"
AIM_RATIO = 0.5
# The series of every round in their first round's order; the order rotates each round.
SERIES = ("ours", "defaults", "mitogen")
LABELS = {"ours": "ours (ansible.cfg)", "defaults": "ansible's defaults (bench/ansible-defaults.cfg)",
          "mitogen": "ours + mitogen_linear strategy"}
# Every run, whatever its configuration: host keys checked (ansible-runner would otherwise set
# ANSIBLE_HOST_KEY_CHECKING=False: ansible then passes ssh an option that turns the check off,
# ahead of the inventory's StrictHostKeyChecking=yes, and ssh keeps the first value it reads).
COMMON_ENV = {"ANSIBLE_HOST_KEY_CHECKING": "True"}


# ---------------------------------------------------------------- pure functions

def gathers(events):
    """(fact gathering task runs, their seconds): each play's gathering counts for its slowest host.

    With gathering = smart a play whose hosts all have facts runs no gathering task at all.
    """
    longest = {}
    for event in events:
        data = event.get("event_data") or {}
        if event.get("event") not in harness.TASK_END_EVENTS or data.get("task") != GATHER_TASK:
            continue
        key = data.get("task_uuid") or data.get("play_uuid") or data.get("play")
        duration = data.get("duration")
        if isinstance(duration, (int, float)):
            longest[key] = max(longest.get(key, 0.0), duration)
    return len(longest), round(sum(longest.values()), 3)


def round_order(series, round_index):
    """The series of a round, rotated by the round's index so that none always runs first."""
    series = list(series)
    if not series:
        return []
    shift = round_index % len(series)
    return series[shift:] + series[:shift]


def mitogen_envvars(site_dir, pythonpath=""):
    """What a run needs to use mitogen_linear from `site_dir` (the directory holding ansible_mitogen)."""
    return {"PYTHONPATH": os.pathsep.join(path for path in (site_dir, pythonpath) if path),
            "ANSIBLE_STRATEGY_PLUGINS": os.path.join(site_dir, "ansible_mitogen", "plugins", "strategy"),
            "ANSIBLE_STRATEGY": "mitogen_linear"}


def series_ratios(summary, numerator, denominator, sizes):
    """{size: median of numerator / median of denominator} (None where one was not measured)."""
    return {str(size): harness.ratio(harness.median_of(summary, numerator, size),
                                     harness.median_of(summary, denominator, size)) for size in sizes}


def paired_ratios(runs, numerator, denominator, sizes):
    """{size: [numerator / denominator in each round]}: the two runs of a round ran back to back."""
    walls = {(entry["series"], entry["nodes"], entry.get("round")): entry["wall_seconds"] for entry in runs}
    paired = {}
    for size in sizes:
        rounds = sorted(index for series, nodes, index in walls
                        if series == numerator and nodes == size and index is not None)
        paired[str(size)] = [harness.ratio(walls[(numerator, size, index)], walls[(denominator, size, index)])
                             for index in rounds if (denominator, size, index) in walls]
    return paired


def max_changed(runs, series):
    """The largest changed total among the re-runs of the given series; None when there were none."""
    changed = [entry["changed"] for entry in runs if entry["series"] in series]
    return max(changed) if changed else None


def median_gather(runs, series, size):
    """The median seconds of fact gathering in the re-runs of a series at a size; None when none."""
    values = [entry["gather_seconds"] for entry in runs if entry["series"] == series and entry["nodes"] == size]
    return harness.summarize(values)["median"] if values else None


def cgroup_cpu_seconds(v1_usage=None, v2_stat=None):
    """CPU seconds from a cgroup v1 cpuacct.usage (nanoseconds) or a v2 cpu.stat text; None when neither."""
    if v1_usage is not None and v1_usage.strip().isdigit():
        return int(v1_usage) / 1e9
    for line in (v2_stat or "").splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[0] == "usage_usec" and fields[1].isdigit():
            return int(fields[1]) / 1e6
    return None


def cpu_summary(runs):
    """Samples.summary() of the CPU seconds (controller + nodes) of every re-run that has both."""
    samples = harness.Samples()
    for entry in runs:
        cpu = entry.get("cpu_seconds") or {}
        if entry["series"] != "provision" and cpu.get("total") is not None:
            samples.add(entry["series"], entry["nodes"], cpu["total"])
    return samples.summary()


def cpu_medians(runs, series, size):
    """{"controller": median, "nodes": median} CPU seconds of a series' re-runs at a size (None: unmeasured)."""
    cpus = [entry.get("cpu_seconds") or {} for entry in runs if entry["series"] == series and entry["nodes"] == size]
    medians = {}
    for part in ("controller", "nodes"):
        values = [cpu[part] for cpu in cpus if cpu.get(part) is not None]
        medians[part] = harness.summarize(values)["median"] if values else None
    return medians


def make_result(summary, runs, sizes, repeat, provisions, mitogen_note, cpus):
    """The result dict and the chart spec from the samples and the run descriptions."""
    largest = max(sizes)
    measured = [series for series in SERIES if series in summary]
    ratios = {"ours_vs_defaults": series_ratios(summary, "ours", "defaults", sizes),
              "ours_vs_defaults_per_round": paired_ratios(runs, "ours", "defaults", sizes)}
    if "mitogen" in summary:
        ratios["mitogen_vs_defaults"] = series_ratios(summary, "mitogen", "defaults", sizes)
        ratios["mitogen_vs_ours"] = series_ratios(summary, "mitogen", "ours", sizes)
    cpu = cpu_summary(runs)
    ratios["ours_vs_defaults_cpu"] = series_ratios(cpu, "ours", "defaults", sizes)
    if "mitogen" in cpu:
        ratios["mitogen_vs_defaults_cpu"] = series_ratios(cpu, "mitogen", "defaults", sizes)
    split = {series: cpu_medians(runs, series, largest) for series in SERIES}
    ours_gather = median_gather(runs, "ours", largest)
    ours_wall = harness.median_of(summary, "ours", largest)
    gather_share = harness.ratio(ours_gather, ours_wall)
    notes = [
        "Every re-run starts without an SSH master left by an earlier run (a ControlPath directory "
        "of its own, closed afterwards) and checks host keys. The series alternate, their order "
        "rotating every round; the %s cores are shared with the sandbox's nodes and with whatever "
        "else runs on the machine, so single runs are noisy: compare the ratios." % cpus,
        "Ours against the defaults: pipelining (one SSH round trip per task instead of several), "
        "forks 128 instead of 5 (matters from 6 nodes on), gathering = smart (site.yml's second "
        "gathering play reuses the first's facts: %s gathering per run against %s). Both keep "
        "ControlPersist: ansible's default ssh_args have it (60 s) too." % (
            _gather_count(runs, "ours"), _gather_count(runs, "defaults")),
        "A persistent fact cache (jsonfile) would also skip the one gathering left: at most %s s of "
        "ours' %s s on %d nodes (%s). It is not the default because every sandbox names its hosts "
        "node1..N (and clusters reuse names), so another cluster's stale facts would be trusted. Not "
        "measured as a series: ansible-runner sets ANSIBLE_CACHE_PLUGIN and "
        "ANSIBLE_CACHE_PLUGIN_CONNECTION itself (a jsonfile cache in each run's own artifacts), "
        "overriding both the environment and ansible.cfg." % (
            _or_dash(ours_gather), _or_dash(ours_wall), largest,
            "-" if gather_share is None else "%.0f%%" % (gather_share * 100)),
        "CPU seconds (the controller's ansible processes plus the nodes' containers) per re-run, "
        "which other load on the machine disturbs much less than wall time: medians on %d nodes %s; "
        "ours/defaults %s (all in cpu_summary and ratios)." % (
            largest, ", ".join("%s %s s" % (series, _or_dash(harness.median_of(cpu, series, largest)))
                               for series in measured if series in cpu) or "-",
            _or_dash(ratios["ours_vs_defaults_cpu"][str(largest)])),
        "Where the time goes: the re-run is %s here (ours on %d nodes: %s CPU-s in %s s on %s cores), "
        "and most of that work is the same under both configurations: a fresh Python for every task on "
        "every node (the nodes' CPU: ours %s s, defaults %s s) and ansible's per-task work on the "
        "controller (ours %s s, defaults %s s). Pipelining, the forks and one gathering fewer save the "
        "rest.%s" % (
            "CPU-bound" if _busy(harness.median_of(cpu, "ours", largest), ours_wall, cpus) else "not CPU-bound",
            largest, _or_dash(harness.median_of(cpu, "ours", largest)), _or_dash(ours_wall), cpus,
            _or_dash(split["ours"]["nodes"]), _or_dash(split["defaults"]["nodes"]),
            _or_dash(split["ours"]["controller"]), _or_dash(split["defaults"]["controller"]),
            "" if "mitogen" not in summary else
            " mitogen keeps one Python per node for the whole run (the nodes' CPU: %s s) but not less "
            "controller work (%s s), which then bounds its wall time when the machine is otherwise idle." % (
                _or_dash(split["mitogen"]["nodes"]), _or_dash(split["mitogen"]["controller"]))),
        "Provisioning (site.yml on fresh nodes with our ansible.cfg, OpenMPI from the controller "
        "cache when present), not the metric: %s." % ", ".join(
            "%s s on %s nodes" % (_or_dash(seconds), size) for size, seconds in sorted(
                provisions.items(), key=lambda item: int(item[0]))),
        "The profile_tasks callback against the timer callback: no difference within the noise (controller "
        "CPU of 40 local tasks, 5 runs each). internal_poll_interval and inject_facts_as_vars, which this "
        "measure did not tell apart from the noise, are set for what they save ansible-playbook's own "
        "process, measured apart (docs/large-fleet.md).",
        mitogen_note + _mitogen_figures(ratios, largest),
    ]
    result = {
        "title": TITLE,
        "metric": "Wall time of a site.yml re-run on an already provisioned cluster (nothing to change)",
        "size_label": "nodes",
        "repeat": repeat,
        "labels": {series: LABELS[series] for series in measured},
        "summary": summary,
        "cpu_summary": cpu,
        "ratios": ratios,
        "provision_seconds": provisions,
        "aims": [
            harness.aim("changed = 0 in every re-run (ours and defaults)", max_changed(runs, ("ours", "defaults")),
                        0, "=="),
            harness.aim("ours within %sx of ansible's defaults on %d nodes" % (AIM_RATIO, largest),
                        ratios["ours_vs_defaults"][str(largest)], AIM_RATIO),
        ],
        "notes": [note for note in notes if note],
        "runs": runs,
    }
    chart = {"title": "site.yml re-run on a provisioned cluster (changed=0)", "summary": summary,
             "xlabel": "nodes", "labels": result["labels"]}
    return result, chart


def _busy(cpu_seconds, wall, cpus):
    """Whether a run kept at least three quarters of the machine's cores busy."""
    return None not in (cpu_seconds, wall, cpus) and wall > 0 and cpu_seconds / wall >= 0.75 * cpus


def _mitogen_figures(ratios, largest):
    if "mitogen_vs_defaults" not in ratios:
        return ""
    return " On %d nodes mitogen/defaults %s (wall), %s (CPU); mitogen/ours %s (wall)." % (
        largest, _or_dash(ratios["mitogen_vs_defaults"][str(largest)]),
        _or_dash(ratios.get("mitogen_vs_defaults_cpu", {}).get(str(largest))),
        _or_dash(ratios["mitogen_vs_ours"][str(largest)]))


def _gather_count(runs, series):
    counts = sorted({entry["gathers"] for entry in runs if entry["series"] == series})
    return "/".join(map(str, counts)) or "-"


def _or_dash(value):
    return "-" if value is None else "%.3g" % value if value < 10 else "%.0f" % value


# ---------------------------------------------------------------- mitogen and SSH masters

def find_mitogen():
    """(directory holding ansible_mitogen or None, why not): BENCH_MITOGEN_PATH first, then the venv."""
    configured = os.environ.get("BENCH_MITOGEN_PATH")
    if configured:
        if os.path.isdir(os.path.join(configured, "ansible_mitogen", "plugins", "strategy")):
            return os.path.abspath(configured), ""
        return None, "BENCH_MITOGEN_PATH=%s holds no ansible_mitogen/plugins/strategy" % configured
    spec = importlib.util.find_spec("ansible_mitogen")
    if spec is None or not spec.submodule_search_locations:
        return None, ("mitogen is not importable (set BENCH_MITOGEN_PATH to a directory made with "
                      "`pip install --target DIR mitogen` to measure it)")
    return os.path.dirname(list(spec.submodule_search_locations)[0]), ""


def mitogen_version(site_dir):
    for name in sorted(os.listdir(site_dir)):
        if name.startswith("mitogen-") and name.endswith(".dist-info"):
            return name[len("mitogen-"):-len(".dist-info")]
    return "?"


def nodes_cpu_seconds(containers):
    """CPU seconds the containers have used so far (their cgroups); None when one cannot be read."""
    total = 0.0
    for name in containers:
        path = subprocess.run(["podman", "inspect", "-f", "{{.State.CgroupPath}}", name], capture_output=True,
                              text=True, check=False, timeout=60).stdout.strip()
        seconds = cgroup_cpu_seconds(_read("/sys/fs/cgroup/cpuacct%s/cpuacct.usage" % path),
                                     _read("/sys/fs/cgroup%s/cpu.stat" % path)) if path else None
        if seconds is None:
            return None
        total += seconds
    return total


def _read(path):
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError:
        return None


def timed_run(sandbox, series, mitogen_dir):
    """One site.yml run of a series, with a ControlPath directory of its own: (run, CPU seconds)."""
    config = DEFAULTS_CFG if series == "defaults" else harness.PROJECT_CFG
    control = tempfile.mkdtemp(prefix="bench-cp-")
    env = dict(COMMON_ENV, ANSIBLE_SSH_CONTROL_PATH_DIR=control)
    if series == "mitogen":
        env.update(mitogen_envvars(mitogen_dir, os.environ.get("PYTHONPATH", "")))
    containers = ["%s-node%d" % (sandbox.prefix, index) for index in range(1, sandbox.nodes + 1)]
    nodes_before, controller_before = nodes_cpu_seconds(containers), harness.controller_cpu_seconds()
    try:
        played = harness.run_playbook(PLAYBOOK, sandbox.inventory, config=config, envvars=env)
        controller = harness.controller_cpu_seconds() - controller_before
        nodes_after = nodes_cpu_seconds(containers)
    finally:
        harness.close_masters(control)
        shutil.rmtree(control, ignore_errors=True)
    nodes = None if None in (nodes_before, nodes_after) else nodes_after - nodes_before
    cpu = {"controller": round(controller, 3), "nodes": None if nodes is None else round(nodes, 3),
           "total": None if nodes is None else round(controller + nodes, 3)}
    return played, cpu


# ---------------------------------------------------------------- the scenario

def run(sizes, repeat, args):
    mitogen_dir, why_not = find_mitogen()
    series = [name for name in SERIES if name != "mitogen" or mitogen_dir]
    if mitogen_dir:
        mitogen_note = ("mitogen %s (%s) runs site.yml under ansible-core %s with its mitogen_linear "
                        "strategy; measured as an extra series, not the default: it is a third-party strategy "
                        "plugin, which ansible-core deprecates, and not in requirements.txt." % (
                            mitogen_version(mitogen_dir),
                            "BENCH_MITOGEN_PATH" if os.environ.get("BENCH_MITOGEN_PATH") else "in the venv",
                            harness.versions()["ansible_core"]))
    else:
        mitogen_note = "mitogen not measured: %s." % why_not
    walls, runs, provisions = harness.Samples(), [], {}
    for nodes in sizes:
        with harness.Sandbox("bench-site-%d" % nodes, nodes, npu_devices=8) as sandbox:
            provision, cpu = timed_run(sandbox, "provision", mitogen_dir)
            harness.require_ok(provision, "site.yml provisioning %d nodes" % nodes)
            provisions[str(nodes)] = round(provision.wall, 3)
            count, seconds = gathers(provision.events)
            runs.append(dict(provision.describe(), series="provision", nodes=nodes, round=None,
                             gathers=count, gather_seconds=seconds, cpu_seconds=cpu))
            harness.log("site.yml provisioned %d nodes in %.0f s" % (nodes, provision.wall))
            for index in range(repeat):
                for name in round_order(series, index):
                    played, cpu = timed_run(sandbox, name, mitogen_dir)
                    if name == "mitogen" and not played.ok:
                        # Optional: a failure drops the series, with the reason, instead of the scenario.
                        failed = [entry for entry in harness.task_host_durations(played.events)
                                  if entry["status"] in ("failed", "unreachable")]
                        mitogen_note = "mitogen dropped: its re-run on %d nodes failed (rc %s): %s" % (
                            nodes, played.rc, failed[:1] or played.status)
                        series.remove("mitogen")
                        continue
                    harness.require_ok(played, "site.yml re-run (%s) on %d nodes" % (name, nodes))
                    count, seconds = gathers(played.events)
                    described = played.describe()
                    walls.add(name, nodes, played.wall)
                    runs.append(dict(described, series=name, nodes=nodes, round=index,
                                     gathers=count, gather_seconds=seconds, cpu_seconds=cpu))
                    harness.log("site.yml re-run %s on %d nodes: %.1f s, changed=%d, CPU %s s" % (
                        name, nodes, played.wall, described["changed"], cpu["total"]))
    return make_result(walls.summary(), runs, sizes, repeat, provisions, mitogen_note, os.cpu_count())
