"""Scenario 8: what each playbook costs per node, on sandboxes of 8, 16 and 32 nodes.

Per size one sandbox (plain CPU nodes with the shared ML volume) and, one after another:
site.yml on the fresh nodes (OpenMPI from the controller cache), its re-run, the doctor,
acceptance (every node's egress shaped first, not measured, as in scenario acceptance) and
launch.yml with the mpirun fan-out job of scenario launch_fanout (2 ranks per node that record
their start and exit) until every rank has started. Each run must succeed.

All nodes share this machine's 2 cores, so wall time is not the figure. Per run:

- controller CPU seconds: user + system of this process's finished children (ansible-playbook,
  its forks, the ssh clients; resource.getrusage) plus the ssh masters that ControlPersist
  detached (they are no children): every 0.5 s a sampler reads the CPU time of each process whose
  command line names the run's own ControlPath directory, and the last value of each counts;
- controller peak memory: the same sampler sums the RSS and the PSS (/proc/PID/smaps_rollup:
  shared pages split among the processes sharing them, so the forks' copy-on-write pages are
  counted once) of every descendant of this process plus those masters; the peak of each sum;
  and apart, the peak PSS and number of ansible-playbook's own processes (it and its workers);
- the nodes' CPU seconds: the sum over the containers of their cgroup's cpuacct.usage, after
  minus before; their memory: the peak of the summed memory.usage_in_bytes (sampled), and each
  container's own peak (memory.max_usage_in_bytes, reset before the run);
- SSH connections: new ssh masters, i.e. distinct sockets that appeared in the run's ControlPath
  directory (a master lives ControlPersist = 120 s after its last use, far longer than the
  sampling interval); SSH sessions: invocations of ssh (ANSIBLE_SSH_EXECUTABLE is a wrapper that
  counts them; with pipelining, one per module run on a node) and of sftp (file transfers);
  node-to-node SSH (the doctor's mesh, mpirun's orted) is not the controller's and not counted;
- module runs: task results per host from the runner's events, skipped ones left out;
- rounds: the doctor's and acceptance's pair rounds from their reports (the peer plan), the
  tasks the play ran (each a barrier of the linear strategy), and the seconds of each
  acceptance round and of the doctor's SSH mesh per peer.

And per node: each of them divided by N. bench/cost_model.py fits a cost model to these figures.
"""

import json
import os
import shlex
import shutil
import tempfile
import threading
import time

import harness
from scenarios import acceptance, doctor, launch_fanout

TITLE = "Cost per node at scale: controller CPU and memory, the nodes' CPU, SSH and module runs, rounds"
DEFAULT_SIZES = [8, 16, 32]
DEFAULT_REPEAT = 1
PLAYS = ("site", "site_rerun", "doctor", "acceptance", "launch", "profile_fill", "profile_cached")
LABELS = {"site": "site.yml, fresh nodes", "site_rerun": "site.yml re-run", "doctor": "doctor.yml",
          "acceptance": "acceptance.yml", "launch": "launch.yml, mpirun job to every rank started",
          "profile_fill": "site.yml re-run, ansible-large-fleet.cfg, its fact cache empty",
          "profile_cached": "site.yml re-run, ansible-large-fleet.cfg, its fact cache filled"}
PROFILE = os.path.join(harness.ROOT, "ansible-large-fleet.cfg")
# The profile's re-runs (output lines, what the fact cache saves) only up to this size: their
# figures per node are those of site_rerun's apart from what the profile changes.
PROFILE_MAX_NODES = 8
DOCTOR_SETTINGS = dict(doctor.BUSY_SETTINGS, doctor_listener_seconds=600)
# Every node imports the frameworks at once in the doctor's user probe, each in its own process:
# 440-446 MiB at the peak of one node at 8, 16 and 32 nodes (node_peak_memory_mib_max). Where that
# on every node would not fit in 80 % of this machine's memory, the doctor imports none (the
# training Python, OpenMPI and the rest are still read) and its SSH mesh may take longer: on 64
# nodes, with torch alone imported, 64 nodes' imports and logins on 2 cores ran past the 30 s
# session timeout everywhere. The controller's work per node stays the same (the same tasks and
# module runs); each run records its frameworks.
DOCTOR_IMPORT_MIB = 446
DOCTOR_MEMORY_SHARE = 0.8
DOCTOR_CROWDED_SETTINGS = {"doctor_frameworks": [], "doctor_ssh_timeout": 90}
ACCEPTANCE_SETTINGS = {"acceptance_timeout": acceptance.TIMEOUT,
                       "acceptance_intra_slow_ratio": acceptance.INTRA_SLOW_RATIO}
SAMPLE_SECONDS = 0.5
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")
CGROUP_ROOT = "/sys/fs/cgroup"
MESH_TASK = "Log in from this node to its peers by every name, as the training user"


# ---------------------------------------------------------------- pure functions

def descendants(parents, root):
    """Every pid under `root` in a {pid: parent pid} map (root itself left out)."""
    children = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    found, todo = set(), list(children.get(root, []))
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo.extend(children.get(pid, []))
    return found


def stat_fields(text):
    """(parent pid, user + system clock ticks) from a /proc/PID/stat line (the name may hold spaces)."""
    fields = text[text.rindex(")") + 2:].split()
    return int(fields[1]), int(fields[11]) + int(fields[12])


def module_runs(events):
    """{host: task results that ran (not skipped)} from the runner's events."""
    counts = {}
    for result in harness.task_host_durations(events):
        if result["status"] != "skipped":
            counts[result["host"]] = counts.get(result["host"], 0) + 1
    return counts


def task_count(events):
    """Tasks the run started (each a barrier across the hosts under the linear strategy)."""
    return sum(1 for event in events if event.get("event") == "playbook_on_task_start")


def longest_idle_gap(events):
    """The longest pause of any host between the end of one of its tasks and the start of its next
    (what ControlPersist must outlast for a master to serve the whole run)."""
    spans = {}
    for event in events:
        data = event.get("event_data") or {}
        if event.get("event") in harness.TASK_END_EVENTS and data.get("host") and data.get("start") and data.get("end"):
            start = harness.event_time({"created": data["start"]})
            end = harness.event_time({"created": data["end"]})
            if start is not None and end is not None:
                spans.setdefault(data["host"], []).append((start, end))
    gaps = [later[0] - earlier[1] for runs in spans.values() for earlier, later in zip(sorted(runs), sorted(runs)[1:])]
    return round(max(gaps), 1) if gaps else None


def output_lines(events):
    """Lines the run printed (what an operator scrolls through)."""
    return sum(len(event["stdout"].splitlines()) for event in events if event.get("stdout"))


def mesh_seconds_per_peer(events, peers):
    """The doctor's SSH mesh: the median over nodes of the task's seconds divided by the node's peers
    (itself included: the module logs in to the node itself too)."""
    import statistics  # noqa: PLC0415

    values = [result["seconds"] / (len(peers.get(result["host"], [])) + 1)
              for result in harness.task_host_durations(events)
              if result["task"] == MESH_TASK and result["status"] == "ok" and result["host"] in peers]
    return round(statistics.median(values), 3) if values else None


def per_node(figures, nodes):
    """Each number of `figures` divided by the nodes (None stays None)."""
    return {key: None if value is None else round(value / nodes, 4) for key, value in figures.items()}


# ---------------------------------------------------------------- measuring one run

class Meter:
    """Around one playbook run: the nodes' cgroup CPU before and after, and a sampler thread for the
    controller's process tree, its detached ssh masters, the ControlPath sockets and the nodes' memory."""

    def __init__(self, containers, control_dir):
        self.containers, self.control_dir = containers, control_dir
        self.cgroups = {name: _cgroup(name) for name in containers}
        self.stop_flag = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.masters_cpu, self.main_cpu, self.sockets = {}, {}, set()
        self.peak = {"controller_rss": 0, "controller_pss": 0, "nodes_memory": 0, "controller_processes": 0,
                     "ansible_pss": 0, "ansible_processes": 0}

    def __enter__(self):
        self.cpu_before = self._nodes_cpu()
        for path in self.cgroups.values():
            _write(os.path.join(CGROUP_ROOT, "memory", path.lstrip("/"), "memory.max_usage_in_bytes"), "0")
        self.thread.start()
        return self

    def __exit__(self, *_exc):
        self.stop_flag.set()
        self.thread.join()
        self._sample()
        self.nodes_cpu = self._nodes_cpu() - self.cpu_before
        self.node_peaks = {name: _read_int(os.path.join(CGROUP_ROOT, "memory", path.lstrip("/"),
                                                        "memory.max_usage_in_bytes"))
                           for name, path in self.cgroups.items()}

    def _loop(self):
        while not self.stop_flag.wait(SAMPLE_SECONDS):
            self._sample()

    def _nodes_cpu(self):
        return sum(_read_int(os.path.join(CGROUP_ROOT, "cpuacct", path.lstrip("/"), "cpuacct.usage"))
                   for path in self.cgroups.values()) / 1e9

    def _sample(self):
        parents, ticks, masters, mains, ansible = {}, {}, set(), set(), set()
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % name, encoding="utf-8", errors="replace") as handle:
                    parents[int(name)], ticks[int(name)] = stat_fields(handle.read())
                with open("/proc/%s/cmdline" % name, "rb") as handle:
                    command = handle.read()
                if self.control_dir.encode() in command:
                    masters.add(int(name))
                elif b"ansible-playbook" in command:
                    # A fork keeps its parent's command line: ansible-playbook and its workers.
                    ansible.add(int(name))
                    if parents[int(name)] == os.getpid():
                        mains.add(int(name))
            except (OSError, ValueError):
                continue
        tree = descendants(parents, os.getpid())
        masters -= tree
        for pid in masters:
            self.masters_cpu[pid] = ticks[pid] / CLOCK_TICKS
        for pid in mains:
            self.main_cpu[pid] = ticks[pid] / CLOCK_TICKS
        rss = pss = ansible_pss = 0
        ansible &= tree
        for pid in tree | masters:
            memory = _memory(pid)
            rss, pss = rss + memory[0], pss + memory[1]
            if pid in ansible:
                ansible_pss += memory[1]
        self.peak["controller_rss"] = max(self.peak["controller_rss"], rss)
        self.peak["controller_pss"] = max(self.peak["controller_pss"], pss)
        self.peak["controller_processes"] = max(self.peak["controller_processes"], len(tree | masters))
        self.peak["ansible_pss"] = max(self.peak["ansible_pss"], ansible_pss)
        self.peak["ansible_processes"] = max(self.peak["ansible_processes"], len(ansible))
        try:
            self.sockets.update(os.listdir(self.control_dir))
        except OSError:
            pass
        nodes = sum(_read_int(os.path.join(CGROUP_ROOT, "memory", path.lstrip("/"), "memory.usage_in_bytes"))
                    for path in self.cgroups.values())
        self.peak["nodes_memory"] = max(self.peak["nodes_memory"], nodes)


def _cgroup(container):
    return harness._command_output(["podman", "inspect", "--format", "{{.State.CgroupPath}}", container])


def _read_int(path):
    try:
        with open(path, encoding="utf-8") as handle:
            return int(handle.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 0


def _write(path, text):
    try:
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError:
        pass


def _memory(pid):
    """(RSS, PSS) bytes of a process; (0, 0) once it is gone."""
    rss = pss = 0
    try:
        with open("/proc/%d/smaps_rollup" % pid, encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("Rss:"):
                    rss = int(line.split()[1]) * 1024
                elif line.startswith("Pss:"):
                    pss = int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return rss, pss


def _wrapper(directory, program, log):
    path = os.path.join(directory, program)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("#!/bin/sh\necho %s >> %s\nexec %s \"$@\"\n" % (program, shlex.quote(log),
                                                                   shutil.which(program)))
    os.chmod(path, 0o755)
    return path


def measured_run(sandbox, playbook, state_home, extravars=None, cmdline=None, config=harness.PROJECT_CFG,
                 fact_cache=None):
    """One playbook run with its own ControlPath directory and counting ssh/sftp wrappers:
    (the run, its figures)."""
    scratch = tempfile.mkdtemp(prefix="bench-scale-run-")
    control = os.path.join(scratch, "cp")
    os.makedirs(control)
    log = os.path.join(scratch, "ssh.log")
    envvars = {"ANSIBLE_SSH_CONTROL_PATH_DIR": control, "XDG_STATE_HOME": state_home,
               "ANSIBLE_SSH_EXECUTABLE": _wrapper(scratch, "ssh", log),
               "ANSIBLE_SFTP_EXECUTABLE": _wrapper(scratch, "sftp", log)}
    containers = ["%s-node%d" % (sandbox.prefix, index) for index in range(1, sandbox.nodes + 1)]
    try:
        with Meter(containers, control) as meter:
            run = harness.run_playbook(playbook, sandbox.inventory, extravars, config=config, envvars=envvars,
                                       cmdline=cmdline, fact_cache=fact_cache)
            meter._sample()
            harness.close_masters(control)
        invocations = []
        if os.path.exists(log):
            with open(log, encoding="utf-8") as handle:
                invocations = handle.read().split()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    runs = module_runs(run.events)
    masters_cpu = sum(meter.masters_cpu.values())
    figures = {
        "controller_cpu_seconds": round(run.controller_cpu + masters_cpu, 3),
        "controller_masters_cpu_seconds": round(masters_cpu, 3),
        # ansible-playbook's own process (not its forks): the strategy and the results, one core at most
        "controller_main_cpu_seconds": round(sum(meter.main_cpu.values()), 3),
        "controller_peak_rss_mib": round(meter.peak["controller_rss"] / 2 ** 20, 1),
        "controller_peak_pss_mib": round(meter.peak["controller_pss"] / 2 ** 20, 1),
        "controller_peak_processes": meter.peak["controller_processes"],
        # ansible-playbook and its workers alone (the rest: the ssh clients and masters)
        "controller_peak_ansible_pss_mib": round(meter.peak["ansible_pss"] / 2 ** 20, 1),
        "controller_peak_ansible_processes": meter.peak["ansible_processes"],
        "nodes_cpu_seconds": round(meter.nodes_cpu, 3),
        "nodes_peak_memory_mib": round(meter.peak["nodes_memory"] / 2 ** 20, 1),
        "node_peak_memory_mib_max": round(max(meter.node_peaks.values() or [0]) / 2 ** 20, 1),
        "ssh_connections": len(meter.sockets),
        "ssh_sessions": invocations.count("ssh"),
        "sftp_transfers": invocations.count("sftp"),
        "module_runs": sum(runs.values()),
        "tasks": task_count(run.events),
        "output_lines": output_lines(run.events),
        "longest_idle_gap_seconds": longest_idle_gap(run.events),
    }
    return run, figures


# ---------------------------------------------------------------- the scenario

def idle_memory_mib(sandbox):
    """The nodes' summed memory.usage_in_bytes now, MiB."""
    return round(sum(_read_int(os.path.join(CGROUP_ROOT, "memory", _cgroup("%s-node%d" % (sandbox.prefix, index))
                                            .lstrip("/"), "memory.usage_in_bytes"))
                     for index in range(1, sandbox.nodes + 1)) / 2 ** 20, 1)


def measure_size(nodes, scratch, plays=PLAYS):
    """The plays ``plays`` on one fresh sandbox of `nodes` nodes: [run records]. Without "site",
    site.yml provisions the sandbox first, unmeasured."""
    state_home = os.path.join(scratch, "state-%d" % nodes)
    report_dir = os.path.join(scratch, "reports-%d" % nodes)
    os.makedirs(report_dir)
    records = []
    sandbox = harness.Sandbox("bench-scale-%d" % nodes, nodes, npu_devices=0, ml=True)
    sandbox.env["XDG_STATE_HOME"] = state_home
    with sandbox:
        idle = idle_memory_mib(sandbox)
        harness.log("scale %d nodes: idle nodes %.0f MiB" % (nodes, idle))

        def record(play, run, figures, **extra):
            harness.require_ok(run, "%s on %d nodes" % (play, nodes))
            described = run.describe()
            entry = dict(figures, play=play, nodes=nodes, wall_seconds=described["wall_seconds"],
                         loadavg_before=described["loadavg_before"], idle_nodes_memory_mib=idle, **extra)
            entry["per_node"] = per_node({key: value for key, value in figures.items()
                                          if key.startswith(("controller_cpu", "controller_main_cpu", "nodes_cpu", "ssh_", "sftp_",
                                                             "module_runs", "nodes_peak_memory",
                                                             "controller_peak_pss"))}, nodes)
            records.append(entry)
            harness.log("scale %s on %d nodes: wall %.0f s, controller CPU %.1f s, nodes CPU %.1f s, peak PSS "
                        "%.0f MiB, ssh %d/%d, modules %d" % (
                            play, nodes, run.wall, figures["controller_cpu_seconds"], figures["nodes_cpu_seconds"],
                            figures["controller_peak_pss_mib"], figures["ssh_connections"], figures["ssh_sessions"],
                            figures["module_runs"]))

        if "site" not in plays:
            harness.require_ok(harness.run_playbook("site.yml", sandbox.inventory), "site.yml on %d nodes" % nodes)
        for play in ("site", "site_rerun"):
            if play not in plays:
                continue
            run, figures = measured_run(sandbox, "site.yml", state_home)
            record(play, run, figures, changed=harness.recap(run.events)["totals"].get("changed", 0))

        if "doctor" in plays:
            doctor_run(sandbox, state_home, report_dir, record, nodes)
        if "acceptance" in plays:
            acceptance_run(sandbox, state_home, report_dir, record, nodes)
        if "launch" in plays:
            launch_run(sandbox, state_home, record, nodes)
        if nodes <= PROFILE_MAX_NODES and "profile_fill" in plays:
            profile_runs(sandbox, state_home, record)
    return records


def doctor_settings(nodes, memory_mib):
    """The doctor's settings on `nodes` nodes of a machine of `memory_mib`: DOCTOR_SETTINGS where
    every node's imports fit in 80 % of it, else with DOCTOR_CROWDED_SETTINGS over them."""
    if nodes * DOCTOR_IMPORT_MIB <= DOCTOR_MEMORY_SHARE * memory_mib:
        return dict(DOCTOR_SETTINGS)
    return dict(DOCTOR_SETTINGS, **DOCTOR_CROWDED_SETTINGS)


def doctor_run(sandbox, state_home, report_dir, record, nodes):
    report_path = os.path.join(report_dir, "doctor.json")
    settings = dict(doctor_settings(nodes, harness.machine()["memory_gb"] * 1024), doctor_report_path=report_path)
    run, figures = measured_run(sandbox, "playbooks/doctor.yml", state_home, settings)
    harness.require_ok(run, "doctor on %d nodes" % nodes)
    with open(report_path, encoding="utf-8") as handle:
        report = json.load(handle)
    if report["summary"]["fail"]:
        raise SystemExit("bench: the doctor found problems on a fresh sandbox: %s" % report["summary"])
    sample = report.get("sample") or {}
    peers = sample.get("peers") or {}
    # The doctor's rounds: each node logs in to its peers one after another (the SSH mesh).
    record("doctor", run, figures, rounds=max((len(found) for found in peers.values()), default=None),
           sampled=sample.get("sampled"), doctor_frameworks=settings.get("doctor_frameworks", "default"),
           doctor_ssh_timeout=settings["doctor_ssh_timeout"],
           mesh_seconds_per_peer=mesh_seconds_per_peer(run.events, peers))


def acceptance_run(sandbox, state_home, report_dir, record, nodes):
    harness.require_ok(harness.run_playbook("bench/playbooks/acceptance_shape.yml", sandbox.inventory), "shaping %d nodes" % nodes)
    directory = os.path.join(report_dir, "acceptance")
    run, figures = measured_run(sandbox, "playbooks/acceptance.yml", state_home,
                                dict(ACCEPTANCE_SETTINGS, acceptance_report_dir=directory))
    harness.require_ok(run, "acceptance on %d nodes" % nodes)
    with open(os.path.join(directory, "report.json"), encoding="utf-8") as handle:
        report = json.load(handle)
    if not report["passed"]:
        raise SystemExit("bench: acceptance failed on a healthy sandbox: %s" % report["summary"])
    per_round = acceptance.round_seconds(run.events)
    record("acceptance", run, figures, rounds=report["rounds"], pairs=len(report["pairs"]),
           round_seconds=per_round, sampled=(report.get("sample") or {}).get("sampled"))


def launch_run(sandbox, state_home, record, nodes):
    job = launch_fanout.load_job(os.path.join(harness.ROOT, launch_fanout.JOBS["mpirun"]))
    job_logs = os.path.join(launch_fanout.LOGS_ROOT, job["job_name"])
    shutil.rmtree(job_logs, ignore_errors=True)
    run, figures = measured_run(sandbox, launch_fanout.PLAYBOOK, state_home, cmdline="-e %s" % shlex.quote(
        "@" + os.path.join(harness.ROOT, launch_fanout.JOBS["mpirun"])))
    harness.require_ok(run, "launch on %d nodes" % nodes)
    started = launch_fanout.read_started(job_logs)
    problem = launch_fanout.ranks_problem(started, launch_fanout.expected_ranks(job, nodes))
    if problem:
        raise SystemExit("bench: scale launch on %d nodes: %s" % (nodes, problem))
    times = launch_fanout.fanout_times(run.started, run.events, started)
    record("launch", run, figures, ranks=len(started), fanout_seconds=times["fanout"])


def profile_runs(sandbox, state_home, record):
    # The inventory's own cache directory, as ansible-large-fleet.cfg asks for (ansible-runner sets
    # ANSIBLE_CACHE_PLUGIN_CONNECTION itself, to this).
    cache = os.path.join(os.path.dirname(sandbox.inventory), ".fact_cache")
    shutil.rmtree(cache, ignore_errors=True)
    for play in ("profile_fill", "profile_cached"):
        run, figures = measured_run(sandbox, "site.yml", state_home, config=PROFILE, fact_cache=cache)
        record(play, run, figures, changed=harness.recap(run.events)["totals"].get("changed", 0))


def run(sizes, repeat, args):
    """Each size measured anew (only the plays of --plays, when given); the sizes and plays not
    measured now are kept from the last result."""
    del repeat  # one run of each play per size: the figures are counts and CPU seconds
    plays = tuple(getattr(args, "plays", None) or PLAYS)
    unknown = sorted(set(plays) - set(PLAYS))
    if unknown:
        raise SystemExit("bench: scale: unknown play(s) %s; choose from %s" % (", ".join(unknown), ", ".join(PLAYS)))
    if "profile_fill" in plays or "profile_cached" in plays:
        plays = tuple(sorted(set(plays) | {"profile_fill", "profile_cached"}, key=PLAYS.index))
    records = [entry for entry in previous_records() if entry["nodes"] not in sizes or entry["play"] not in plays]
    scratch = tempfile.mkdtemp(prefix="bench-scale-")
    for nodes in sorted(set(sizes)):
        records += measure_size(nodes, scratch, plays)
        # Keep what is measured if a later size fails.
        harness.write_result("scale", *assemble(records))
    shutil.rmtree(scratch, ignore_errors=True)
    return assemble(records)


def previous_records(path=os.path.join(harness.RESULTS_DIR, "scale.json")):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as handle:
        return json.load(handle).get("runs", [])


# (figure, caption, per node): the tables of the result after the first (controller CPU per node).
TABLES = (
    ("controller_cpu_seconds", "The controller's CPU seconds (ansible-playbook, its forks, the ssh clients and masters):",
     False),
    ("controller_main_cpu_seconds", "Of it, ansible-playbook's own process (the strategy and the results, one core):",
     False),
    ("controller_peak_pss_mib", "The controller's peak memory, MiB: PSS summed over its processes:", False),
    ("controller_peak_rss_mib", "The controller's peak memory, MiB: RSS summed over its processes (shared pages "
                                "counted in each):", False),
    ("nodes_cpu_seconds", "The nodes' CPU seconds (cgroup cpuacct of every container):", False),
    ("nodes_cpu_seconds", "The nodes' CPU seconds per node:", True),
    ("nodes_peak_memory_mib", "The nodes' peak memory, MiB, summed (memory.usage_in_bytes, page cache included):",
     False),
    ("ssh_connections", "SSH connections (new masters in the run's ControlPath directory):", False),
    ("ssh_sessions", "SSH sessions (ssh invocations; one per module run on a node with pipelining):", False),
    ("ssh_sessions", "SSH sessions per node:", True),
    ("sftp_transfers", "File transfers (sftp invocations):", False),
    ("module_runs", "Module runs (task results not skipped):", False),
    ("module_runs", "Module runs per node:", True),
    ("rounds", "Rounds (acceptance: pair rounds; doctor: peers each node logs in to, one after another):", False),
    ("tasks", "Tasks run (each a barrier of the linear strategy):", False),
    ("output_lines", "Lines of output:", False),
    ("longest_idle_gap_seconds", "The longest pause of one host between two of its tasks, seconds (the controller's "
                                 "own plays on localhost included):", False),
)


def assemble(records):
    """The result and chart: the figures per size, the model's fit and predictions (bench/cost_model.py)."""
    import cost_model  # noqa: PLC0415  (bench/ is on the path: bench/run.py puts it there)

    records = sorted(records, key=lambda entry: (PLAYS.index(entry["play"]), entry["nodes"]))
    headline = harness.Samples()
    tables = [harness.Samples() for _ in TABLES]
    for entry in records:
        headline.add(entry["play"], entry["nodes"], entry["controller_cpu_seconds"] / entry["nodes"])
        for (key, _, divided), samples in zip(TABLES, tables):
            if entry.get(key) is not None:
                samples.add(entry["play"], entry["nodes"], entry[key] / entry["nodes"] if divided else entry[key])
    model = cost_model.analyse(records)
    idle = {entry["nodes"]: entry["idle_nodes_memory_mib"] for entry in records}
    result = {
        "title": TITLE,
        "metric": "The controller's CPU seconds per node (ansible-playbook, its forks, the ssh clients and masters) "
                  "of each playbook, one run per size",
        "size_label": "nodes",
        "repeat": 1,
        "unit": "number",
        "labels": LABELS,
        "series_order": list(PLAYS),
        "summary": headline.summary(),
        "tables": [{"caption": caption, "summary": samples.summary(), "unit": "number"}
                   for (_, caption, _), samples in zip(TABLES, tables)],
        "model": model,
        "aims": cost_model.aims(model, records),
        "notes": cost_model.notes(model) + [
            "A node's memory: idle %s MiB per node (sshd only; %s); its peak during each run is in the runs "
            "(node_peak_memory_mib_max: the largest of one container)." % (
                ", ".join("%.1f" % (idle[size] / size) for size in sorted(idle)),
                ", ".join("%d nodes %.0f MiB" % (size, idle[size]) for size in sorted(idle))),
            "The sandbox's nodes share the controller's %d cores with other work: wall times are inflated by it "
            "and are kept in the runs only as context; CPU seconds, memory and counts are the figures." % (
                os.cpu_count()),
            "Settings: the project's ansible.cfg (forks 128, so min(128, N) workers; pipelining; ControlPersist "
            "120 s); the doctor %s (where every node's framework imports would not fit in %d %% of this machine's "
            "memory, at %s nodes: %s); acceptance %s; every node's egress shaped to 100mbit before acceptance." % (
                ", ".join("%s %s" % item for item in sorted(DOCTOR_SETTINGS.items())), DOCTOR_MEMORY_SHARE * 100,
                ", ".join(str(record["nodes"]) for record in records
                          if record["play"] == "doctor" and record.get("doctor_frameworks", "default") != "default")
                or "none",
                ", ".join("%s %s" % item for item in sorted(DOCTOR_CROWDED_SETTINGS.items())),
                ", ".join("%s %s" % item for item in sorted(ACCEPTANCE_SETTINGS.items())))],
        "runs": records,
    }
    chart = {"title": "Controller CPU seconds per node", "summary": result["summary"], "xlabel": "nodes",
             "labels": LABELS, "ylabel": "controller CPU seconds per node"}
    return result, chart
