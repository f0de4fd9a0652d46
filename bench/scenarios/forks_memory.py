"""Scenario 9: the controller's memory at forks 128, measured with 128 workers.

Ansible starts min(forks, hosts) workers, so 128 workers need 128 hosts. One sandbox of 128 plain
CPU nodes (sshd only, with the ML volume as in scenario scale) and one run of
`site.yml --check --tags firewall` under ansible-large-fleet.cfg (forks 128), its fact cache in the
inventory's directory: site.yml's validation, the node ledger, the fact gathering of every node,
role firewall and each play's count of lost nodes (the tasks tagged always), each task against all
128 nodes at once, changing nothing. All of site.yml in check mode is some 130 tasks per node,
about 17,000 task results: hours on 2 cores shared by 128 nodes and 128 workers. Every task that
runs on every node runs min(forks, hosts) workers, so the shorter run meets as many workers as the
whole one. The run must succeed.

Measured with scenario scale's `measured_run` (its sampler, every 0.5 s): the controller's peak PSS
summed over ansible-playbook, its workers, the ssh clients and masters; apart, the peak PSS and
number of ansible-playbook's own processes; the peak RSS; the controller's and the nodes' CPU
seconds, SSH connections and sessions, module runs. Per worker: each memory figure divided by the
workers, min(forks, hosts).
"""

import os
import shutil
import tempfile

import harness
from scenarios import scale

TITLE = "The controller's memory at forks 128: site.yml --check --tags firewall on 128 nodes, 128 workers"
DEFAULT_SIZES = [128]
DEFAULT_REPEAT = 1
FORKS = 128
CMDLINE = "--check --tags firewall"
SERIES = "site_check"
LABELS = {SERIES: "site.yml %s, fresh nodes, ansible-large-fleet.cfg (forks 128)" % CMDLINE}
# (figure, caption, per worker)
TABLES = (
    ("controller_peak_pss_mib", "The controller's peak memory per worker, MiB (PSS summed over every process, "
                                "divided by the workers):", True),
    ("controller_peak_ansible_pss_mib", "ansible-playbook and its workers alone, peak PSS, MiB:", False),
    ("controller_peak_ansible_pss_mib", "ansible-playbook and its workers alone, peak PSS per worker, MiB:", True),
    ("controller_peak_ansible_processes", "ansible-playbook's processes at the peak (it and its workers):", False),
    ("controller_peak_rss_mib", "The controller's peak memory, MiB: RSS summed (shared pages counted in each):",
     False),
    ("controller_peak_processes", "The controller's processes at the peak (with the ssh clients and masters):",
     False),
    ("controller_cpu_seconds", "The controller's CPU seconds:", False),
    ("nodes_cpu_seconds", "The nodes' CPU seconds:", False),
    ("ssh_connections", "SSH connections:", False),
    ("module_runs", "Module runs (task results not skipped):", False),
)


def workers(nodes):
    """Workers Ansible starts for a play over `nodes` hosts at forks FORKS."""
    return min(FORKS, nodes)


def measure(nodes, scratch):
    """One site.yml CMDLINE run on a fresh sandbox of `nodes` nodes: its record."""
    state_home = os.path.join(scratch, "state-%d" % nodes)
    sandbox = harness.Sandbox("bench-forks-%d" % nodes, nodes, npu_devices=0, ml=True)
    sandbox.env["XDG_STATE_HOME"] = state_home
    with sandbox:
        idle = scale.idle_memory_mib(sandbox)
        harness.log("forks_memory %d nodes: idle nodes %.0f MiB" % (nodes, idle))
        cache = os.path.join(os.path.dirname(sandbox.inventory), ".fact_cache")
        run, figures = scale.measured_run(sandbox, "site.yml", state_home, cmdline=CMDLINE, config=scale.PROFILE,
                                          fact_cache=cache)
    harness.require_ok(run, "site.yml %s on %d nodes" % (CMDLINE, nodes))
    described = run.describe()
    totals = harness.recap(run.events)["totals"]
    record = dict(figures, play=SERIES, nodes=nodes, workers=workers(nodes), wall_seconds=described["wall_seconds"],
                  loadavg_before=described["loadavg_before"], idle_nodes_memory_mib=idle,
                  changed=totals.get("changed", 0), failed=totals.get("failures", 0))
    harness.log("forks_memory %d nodes: peak PSS %.0f MiB (ansible-playbook %.0f MiB in %d processes), controller "
                "CPU %.1f s" % (nodes, figures["controller_peak_pss_mib"], figures["controller_peak_ansible_pss_mib"],
                                figures["controller_peak_ansible_processes"], figures["controller_cpu_seconds"]))
    return record


def run(sizes, repeat, args):
    del args, repeat  # one run per size: the figures are peaks and counts
    scratch = tempfile.mkdtemp(prefix="bench-forks-")
    try:
        records = [measure(nodes, scratch) for nodes in sizes]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return assemble(records)


def assemble(records):
    headline = harness.Samples()
    tables = [harness.Samples() for _ in TABLES]
    for entry in records:
        headline.add(SERIES, entry["nodes"], entry["controller_peak_pss_mib"])
        for (key, _, divided), samples in zip(TABLES, tables):
            samples.add(SERIES, entry["nodes"], entry[key] / entry["workers"] if divided else entry[key])
    result = {
        "title": TITLE,
        "metric": "The controller's peak memory, MiB: PSS summed over ansible-playbook, its workers, the ssh clients "
                  "and masters, one run per size",
        "size_label": "nodes",
        "repeat": 1,
        "unit": "number",
        "labels": LABELS,
        "series_order": [SERIES],
        "summary": headline.summary(),
        "tables": [{"caption": caption, "summary": samples.summary(), "unit": "number"}
                   for (_, caption, _), samples in zip(TABLES, tables)],
        "notes": ["%d nodes: %d workers (forks %d); the run succeeded, %d task results would have changed "
                  "(check mode changes nothing); the nodes idle %.0f MiB in all." % (
                      entry["nodes"], entry["workers"], FORKS, entry["changed"], entry["idle_nodes_memory_mib"])
                  for entry in records] + [
            "The nodes share the controller's %d cores: the wall time (kept in the runs) is not a figure." % (
                os.cpu_count())],
        "runs": records,
    }
    chart = {"title": "The controller's peak memory (PSS) at forks %d" % FORKS, "summary": result["summary"],
             "xlabel": "nodes", "labels": LABELS, "ylabel": "peak PSS, MiB"}
    return result, chart
