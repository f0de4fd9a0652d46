"""What every benchmark scenario shares: sandboxes, timed playbook runs, statistics, results, charts.

A scenario (bench/scenarios/<name>.py) brings up sandboxes with `Sandbox`, runs playbooks with
`run_playbook` (ansible-runner; the timing comes from its events, never from parsing text),
collects samples per series and size with `Samples`, and hands a result to `write_result`,
which adds the machine and the versions and writes bench/results/<scenario>.json and .png.

The pure functions (event timing, statistics, aims) are covered by tests/unit/test_bench_harness.py.
"""

import datetime
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS_DIR = os.path.join(ROOT, "bench", "results")
PROJECT_CFG = os.path.join(ROOT, "ansible.cfg")
TASK_END_EVENTS = ("runner_on_ok", "runner_on_failed", "runner_on_skipped", "runner_on_unreachable")
# ansible-runner starts `ansible-playbook` from PATH: the one beside this Python (the venv's),
# also when bench/run.py is started as .venv/bin/python without activating the venv.
os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")


def log(message):
    print("bench: %s" % message, file=sys.stderr, flush=True)


def now_iso():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


# ---------------------------------------------------------------- events (pure functions)

def event_time(event):
    """An ansible-runner event's creation time in epoch seconds (its 'created' field)."""
    created = event.get("created")
    if not created:
        return None
    return datetime.datetime.fromisoformat(created.replace("Z", "+00:00")).replace(
        tzinfo=datetime.timezone.utc).timestamp()


def play_durations(events):
    """[(play name, seconds)] in order: from each play's start event to the next play's (or the end)."""
    marks = [(event["event_data"].get("play", ""), event_time(event))
             for event in events if event.get("event") == "playbook_on_play_start"]
    ends = [event_time(event) for event in events if event.get("event") == "playbook_on_stats"]
    end = ends[-1] if ends else (event_time(events[-1]) if events else None)
    durations = []
    for index, (name, started) in enumerate(marks):
        finished = marks[index + 1][1] if index + 1 < len(marks) else end
        if started is not None and finished is not None:
            durations.append((name, round(finished - started, 3)))
    return durations


def task_host_durations(events):
    """[{task, host, seconds, changed, status}] for every finished task result of every host."""
    results = []
    for event in events:
        if event.get("event") not in TASK_END_EVENTS:
            continue
        data = event.get("event_data") or {}
        duration = data.get("duration")
        if data.get("task") is None or not isinstance(duration, (int, float)):
            continue
        results.append({"task": data["task"], "host": data.get("host"), "seconds": round(duration, 3),
                        "changed": bool((data.get("res") or {}).get("changed")),
                        "status": event["event"][len("runner_on_"):]})
    return results


def slowest_tasks(events, count=8):
    """{task: its longest per-host duration}, the slowest `count` first."""
    longest = {}
    for result in task_host_durations(events):
        longest[result["task"]] = max(longest.get(result["task"], 0.0), result["seconds"])
    ranked = sorted(longest.items(), key=lambda item: -item[1])[:count]
    return dict(ranked)


def changed_hosts(events, task):
    """Hosts on which the task named `task` reported changed (a build happened there, say)."""
    return sorted({result["host"] for result in task_host_durations(events)
                   if result["task"] == task and result["changed"]})


def recap(events):
    """The play recap from the playbook_on_stats event: {counter: {host: n}} plus per-counter totals."""
    stats = {}
    for event in events:
        if event.get("event") == "playbook_on_stats":
            data = event.get("event_data") or {}
            stats = {name: dict(data.get(name) or {}) for name in
                     ("ok", "changed", "failures", "dark", "skipped", "rescued", "ignored")}
    stats["totals"] = {name: sum(per_host.values()) for name, per_host in stats.items()}
    return stats


# ---------------------------------------------------------------- statistics (pure functions)

def summarize(values):
    """median, min, max (rounded) and the raw values of a list of samples."""
    if not values:
        raise ValueError("no samples to summarize")
    return {"median": round(statistics.median(values), 3), "min": round(min(values), 3),
            "max": round(max(values), 3), "samples": [round(value, 3) for value in values]}


def ratio(numerator, denominator):
    """numerator / denominator, rounded; None when either side was not measured."""
    if numerator is None or denominator in (None, 0):
        return None
    return round(numerator / denominator, 3)


def aim(description, value, limit, comparison="<="):
    """An aim of the issue: met when value compares to limit; unmeasured (value None) is not met."""
    checks = {"<=": lambda v: v <= limit, "==": lambda v: v == limit}
    met = None if value is None else bool(checks[comparison](value))
    return {"aim": description, "value": value, "limit": limit, "comparison": comparison, "met": met}


class Samples:
    """Samples of one metric per series (ours, baseline...) and size (number of nodes, hosts)."""

    def __init__(self):
        self.values = {}

    def add(self, series, size, value):
        self.values.setdefault(series, {}).setdefault(str(size), []).append(value)

    def summary(self):
        return {series: {size: summarize(values) for size, values in sorted(sizes.items(), key=lambda i: int(i[0]))}
                for series, sizes in self.values.items()}


def median_of(summary, series, size):
    """The median of a series at a size in a Samples.summary(), None when not measured."""
    return (summary.get(series) or {}).get(str(size), {}).get("median")


# ---------------------------------------------------------------- the machine and the versions

def _command_output(argv):
    try:
        return subprocess.run(argv, capture_output=True, text=True, check=False, timeout=60).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def machine():
    memory_kb = 0
    with open("/proc/meminfo", encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("MemTotal:"):
                memory_kb = int(line.split()[1])
    cpu_model = ""
    with open("/proc/cpuinfo", encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("model name"):
                cpu_model = line.split(":", 1)[1].strip()
                break
    return {"cpus": os.cpu_count(), "cpu_model": cpu_model, "memory_gb": round(memory_kb / 1024 / 1024, 1),
            "kernel": platform.release(), "loadavg": [round(value, 2) for value in os.getloadavg()]}


def versions():
    import ansible  # noqa: PLC0415  (only where the venv is complete)
    import ansible_runner  # noqa: PLC0415
    from ansible.release import __version__ as core_version  # noqa: PLC0415

    return {"python": platform.python_version(), "ansible_core": core_version,
            "ansible": getattr(ansible, "__version__", core_version),
            "ansible_runner": getattr(ansible_runner, "__version__", ""),
            "podman": _command_output(["podman", "version", "--format", "{{.Client.Version}}"]),
            "commit": _command_output(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"])}


# ---------------------------------------------------------------- sandboxes and playbooks

class Sandbox:
    """A sandbox of `nodes` nodes under its own prefix (sandbox/sandbox up/down)."""

    def __init__(self, prefix, nodes, npu_devices=8, ml=False):
        self.prefix, self.nodes = prefix, nodes
        self.env = dict(os.environ, SANDBOX_PREFIX=prefix, NODES=str(nodes), NPU_DEVICES=str(npu_devices),
                        SANDBOX_ML="1" if ml else "0")
        self.inventory = os.path.join(ROOT, "sandbox", "state", prefix, "hosts.yml")

    def _run(self, action):
        subprocess.run([os.path.join(ROOT, "sandbox", "sandbox"), action], env=self.env, check=True,
                       stdout=subprocess.DEVNULL)

    def __enter__(self):
        log("sandbox %s: %d nodes up" % (self.prefix, self.nodes))
        self._run("up")
        return self

    def __exit__(self, *_exc):
        if os.environ.get("BENCH_KEEP_SANDBOX") != "1":
            self._run("down")

    def grow(self, nodes):
        """Bring the sandbox to `nodes` nodes: the new ones made, the inventory and known_hosts rewritten."""
        log("sandbox %s: %d -> %d nodes" % (self.prefix, self.nodes, nodes))
        self.nodes = nodes
        self.env["NODES"] = str(nodes)
        self._run("up")


class PlaybookRun:
    """One playbook run: status, rc, wall seconds (start to end, as the user waits), the controller's
    CPU seconds (ansible-playbook, its workers and the ssh clients they waited for) and its events."""

    def __init__(self, status, rc, wall, started, events, loadavg, controller_cpu=None):
        self.status, self.rc, self.wall, self.started, self.events = status, rc, wall, started, events
        self.loadavg, self.controller_cpu = loadavg, controller_cpu

    @property
    def ok(self):
        return self.rc == 0

    def describe(self):
        return {"wall_seconds": round(self.wall, 3), "rc": self.rc, "status": self.status,
                "plays": play_durations(self.events), "slowest_tasks": slowest_tasks(self.events),
                "changed": recap(self.events)["totals"].get("changed", 0), "loadavg_before": self.loadavg,
                "controller_cpu_seconds": None if self.controller_cpu is None else round(self.controller_cpu, 3)}


def run_playbook(playbook, inventory, extravars=None, config=PROJECT_CFG, envvars=None, cmdline=None,
                 fact_cache=None):
    """Run a playbook of the project with ansible-runner under the given ansible.cfg.

    The wall time is measured around the run (what the user waits for); per play and per task
    timings come from the events. Failures are returned, not raised: the scenario decides.
    ansible-runner points the jsonfile fact cache at each run's own artifacts (its environment
    overrides the configuration's); `fact_cache`, an absolute directory, keeps it across runs.
    """
    # ansible-runner sets ANSIBLE_HOST_KEY_CHECKING=False unless told otherwise, and ssh keeps the
    # first value it is given: without this the inventory's strict host key checking is overridden.
    env = {"ANSIBLE_CONFIG": config, "ANSIBLE_HOST_KEY_CHECKING": "True"}
    env.update(envvars or {})
    loadavg = [round(value, 2) for value in os.getloadavg()]
    with tempfile.TemporaryDirectory(prefix="bench-runner-") as private:
        started = time.time()
        clock, cpu = time.monotonic(), controller_cpu_seconds()
        runner = _runner().run(
            private_data_dir=private, project_dir=ROOT, playbook=os.path.join(ROOT, playbook),
            inventory=os.path.abspath(inventory), extravars=extravars or {}, quiet=True,
            envvars=env, cmdline=cmdline, **({"fact_cache": fact_cache} if fact_cache else {}))
        wall, cpu = time.monotonic() - clock, controller_cpu_seconds() - cpu
        events = list(runner.events)
    return PlaybookRun(runner.status, runner.rc, wall, started, events, loadavg, cpu)


def controller_cpu_seconds():
    """User + system seconds of this process's finished children (ansible-playbook, its workers, ssh).

    SSH masters that ControlPersist detached are not children: close them (close_masters) to end
    a run's connections; their own CPU is not counted.
    """
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def close_masters(directory):
    """Ask every SSH master whose socket is in `directory` to exit (they would linger for ControlPersist)."""
    for name in os.listdir(directory):
        subprocess.run(["ssh", "-o", "ControlPath=" + os.path.join(directory, name), "-O", "exit", "bench-master"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, timeout=30)


def _runner():
    import ansible_runner  # noqa: PLC0415  (the pure functions above work without the venv)

    return ansible_runner


def require_ok(run, what):
    if not run.ok:
        failed = [(event["event_data"].get("host"), event["event_data"].get("task"),
                   (event["event_data"].get("res") or {}).get("msg"))
                  for event in run.events if event.get("event") in ("runner_on_failed", "runner_on_unreachable")]
        raise SystemExit("bench: %s failed (rc %s, %s): %s" % (what, run.rc, run.status, failed[:3] or "no task failed"))
    return run


# ---------------------------------------------------------------- results and charts

def write_result(name, result, chart=None):
    """Write bench/results/<name>.json (with the machine and versions) and, given a chart spec, <name>.png."""
    result = dict(result, scenario=name, measured=result.get("measured") or now_iso(),
                  machine=machine(), versions=versions())
    os.makedirs(RESULTS_DIR, exist_ok=True)
    path = os.path.join(RESULTS_DIR, name + ".json")
    with open(path + ".tmp", "w", encoding="utf-8") as handle:
        json.dump(result, handle, indent=2, sort_keys=True)
        handle.write("\n")
    os.replace(path + ".tmp", path)
    log("wrote %s" % os.path.relpath(path, ROOT))
    if chart:
        png = os.path.join(RESULTS_DIR, name + ".png")
        (draw_bars if chart.get("bars") else draw_chart)(png, **{key: value for key, value in chart.items()
                                                                 if key != "bars"})
        log("wrote %s" % os.path.relpath(png, ROOT))
    return result


def draw_chart(path, title, summary, xlabel, ylabel="seconds (median; bars: min to max)", logx=False, labels=None):
    """Medians against size per series, min-max as error bars; one line per series."""
    import matplotlib  # noqa: PLC0415

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    figure, axes = plt.subplots(figsize=(7, 4.2), dpi=110)
    for series, sizes in summary.items():
        xs = sorted(int(size) for size in sizes)
        medians = [sizes[str(x)]["median"] for x in xs]
        below = [sizes[str(x)]["median"] - sizes[str(x)]["min"] for x in xs]
        above = [sizes[str(x)]["max"] - sizes[str(x)]["median"] for x in xs]
        axes.errorbar(xs, medians, yerr=[below, above], marker="o", capsize=3,
                      label=(labels or {}).get(series, series))
        for x, median in zip(xs, medians):
            axes.annotate("%.3g" % median, (x, median), textcoords="offset points", xytext=(4, 4), fontsize=8)
    if logx:
        axes.set_xscale("log", base=2)
    all_sizes = sorted({int(size) for sizes in summary.values() for size in sizes})
    axes.set_xticks(all_sizes)
    axes.set_xticklabels([str(size) for size in all_sizes])
    axes.set_ylim(bottom=0)
    axes.set_title(title, fontsize=10)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def draw_bars(path, title, summary, xlabel, labels=None):
    """One horizontal bar per series and size (its median), the series top to bottom in their order."""
    import matplotlib  # noqa: PLC0415

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    sizes = sorted({int(size) for sizes in summary.values() for size in sizes})
    series = list(summary)
    height = 0.8 / max(len(sizes), 1)
    figure, axes = plt.subplots(figsize=(8, 1.2 + 0.45 * len(series) * max(len(sizes), 1) ** 0.5), dpi=110)
    for offset, size in enumerate(sizes):
        positions = [index + offset * height for index in range(len(series))]
        medians = [summary[name].get(str(size), {}).get("median", 0) for name in series]
        bars = axes.barh(positions, medians, height=height, label="%d %s" % (size, xlabel))
        for bar, median in zip(bars, medians):
            axes.annotate("%.3g s" % median, (bar.get_width(), bar.get_y() + bar.get_height() / 2),
                          textcoords="offset points", xytext=(3, -3), fontsize=7)
    axes.set_yticks([index + height * (len(sizes) - 1) / 2 for index in range(len(series))])
    axes.set_yticklabels([(labels or {}).get(name, name) for name in series], fontsize=7)
    axes.invert_yaxis()
    axes.set_xlabel("seconds (wall)")
    axes.set_title(title, fontsize=10)
    axes.grid(axis="x", alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
