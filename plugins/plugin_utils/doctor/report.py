"""The preflight doctor's verdicts: per-node results in, one report out.

Plain stdlib functions (see docs/architecture.md), used by plugins/filter/doctor.py and unit
tested in tests/unit/test_doctor_report.py. Role doctor gathers, on every node at once, what the
node sees (modules doctor_probe, ssh_mesh_check, tcp_port_check, hccn_netdetect) and hands all of
it to ``build_report``, which runs the check families (doctor_checks_ssh, _network, _versions,
_npu, _npu_health) to compare the nodes with each other and with the inventory. The report holds exactly one
entry per check per node the check applies to:

    {"check": "version_openmpi", "node": "node2", "status": "fail",
     "message": "Open MPI 4.1.5 here, but the inventory expects 4.1.4 (openmpi_version) ..."}

status is ok, warn or fail. A failure is reported once, on the node that has to be fixed:
when node2 does not accept SSH, node2's ``ssh_login`` fails and the other nodes' ``ssh_mesh``
only warn that they cannot reach it; a device without its address fails ``npu_device_ips`` on
its node, and the netdetect tests it spoils only warn. Checks that could not run on a node
(unreachable, probe failed) warn "not checked".
"""

import re
from collections import Counter

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.doctor.checks import (
    CHECKS, NPU_CHECKS, STATUSES, Results, join_items, not_checked_reason, shorten)
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.doctor.network import (
    check_etc_hosts, check_firewall, check_host_ip, check_hostnames, check_interfaces, check_master_port)
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.doctor.npu import check_npu
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.doctor.npu_health import check_npu_health
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.doctor.ssh import check_ssh
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.doctor.versions import check_versions
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.fleet.clock import verdict as clock_verdict

REPORT_VERSION = 1


# --- from Ansible's registered results -----------------------------------------------------------

# Role doctor's registered results: each part of the report, the variable and the part of it
# (actions doctor_node_system and doctor_node_peers return several modules' results; npu_network's
# netdetect_collect registers the link tests).
REGISTERED = {"system": ("_doctor_node_system", "system"), "clock": ("_doctor_node_system", "clock"),
              "mesh": ("_doctor_node_peers", "mesh"), "port_connect": ("_doctor_node_peers", "port_connect"),
              "user": ("_doctor_node_peers", "user"), "netdetect": ("npu_network_netdetect_result", None)}
# The clock limits when the settings leave them out (role doctor's defaults).
CLOCK_WARN_MS = 500
CLOCK_FAIL_MS = 5000


def _registered(value):
    """A registered module result, or None when the task was skipped, failed or never ran."""
    if not isinstance(value, dict) or value.get("skipped") or value.get("failed") or value.get("unreachable"):
        return None
    return value


def unreachable_reason(message):
    """The telling part of Ansible's unreachable message: ssh's own last words when present."""
    text = " ".join(str(message or "unreachable").split())
    for pattern in (r"ssh: connect to host \S+ port \d+: [A-Za-z ]+", r"ssh: Could not resolve hostname [^;:]+: [A-Za-z ]+",
                    r"Host key verification failed", r"Permission denied \([^)]*\)"):
        found = re.findall(pattern, text)
        if found:
            return found[-1].strip()
    return shorten(text.replace("Task failed: ", ""), 200)


def node_from_vars(host_vars):
    """One node's input of build_report from its variables after role doctor's node checks
    (_doctor_expect, _doctor_ping, the registered probes, _doctor_listener, _doctor_error)."""
    ping = host_vars.get("_doctor_ping")  # the node checks' first task (async start of the user probe)
    node = {"expect": dict(host_vars.get("_doctor_expect") or {})}
    if not isinstance(ping, dict):
        node.update(reached=False, unreachable="the node play did not run on it (see the output above)")
        return node
    if ping.get("unreachable"):
        node.update(reached=False, unreachable=unreachable_reason(ping.get("msg")))
        return node
    node["reached"] = True
    for key, (name, part) in REGISTERED.items():
        value = _registered(host_vars.get(name))
        node[key] = value.get(part) if value is not None and part else value
    node["port_bind"] = (node["system"] or {}).get("port_bind")  # the master port, on the master
    node["listener"] = host_vars.get("_doctor_listener")
    node["error"] = host_vars.get("_doctor_error")
    return node


# --- the report ---------------------------------------------------------------------------------


def applies(check, host, node, master):
    if check in NPU_CHECKS:
        return node.get("expect", {}).get("kind") == "npu"
    if check == "master_port_free":
        return host == master
    return True


def check_clock(nodes, hosts, warn_ms, fail_ms, results):
    """Each node's clock against the controller's (action node_clock) and its time service."""
    for host in hosts:
        node = nodes[host]
        clock = node.get("clock")
        if not clock:
            results.set("clock", host, "warn", not_checked_reason(host, node) or "not checked: no clock reading")
            continue
        results.set("clock", host, *clock_verdict(clock, warn_ms, fail_ms))


def build_report(nodes, settings):
    """The report: {"version", "master", "master_port", "nodes", "status", "summary", "entries"}.

    nodes: host -> {"expect": {...}, "reached": bool, "unreachable": msg, "error": msg,
    "system", "user", "mesh", "port_bind", "port_connect", "listener", "netdetect"} (see
    roles/doctor/tasks/report.yml); settings: {"hosts": [cluster hosts in inventory order],
    "master": host, "master_port": int, "clock_warn_ms": int, "clock_fail_ms": int,
    "out_of_service": [the hosts the node ledger holds out of service]}.
    """
    hosts = list(settings["hosts"])
    master = settings.get("master")
    port = settings.get("master_port")
    nodes = {host: dict(nodes.get(host) or {"reached": False, "unreachable": "no data"}) for host in hosts}
    results = Results()
    out_of_service = list(settings.get("out_of_service") or [])
    check_ssh(nodes, hosts, results, out_of_service)
    check_hostnames(nodes, hosts, results)
    check_etc_hosts(nodes, hosts, results, out_of_service)
    check_host_ip(nodes, hosts, results)
    check_interfaces(nodes, hosts, results)
    check_firewall(nodes, hosts, port, results)
    check_clock(nodes, hosts, settings.get("clock_warn_ms", CLOCK_WARN_MS),
                settings.get("clock_fail_ms", CLOCK_FAIL_MS), results)
    check_master_port(nodes, hosts, master, port, results)
    check_versions(nodes, hosts, master, results)
    check_npu(nodes, hosts, results)
    check_npu_health(nodes, hosts, results)
    entries = []
    for check in CHECKS:
        for host in hosts:
            if (check, host) in results.by_key and applies(check, host, nodes[host], master):
                status, message = results.by_key[(check, host)]
                entries.append({"check": check, "node": host, "status": status, "message": message})
    counts = Counter(entry["status"] for entry in entries)
    summary = {status: counts.get(status, 0) for status in STATUSES}
    summary["failed_checks"] = sorted({entry["check"] for entry in entries if entry["status"] == "fail"},
                                      key=CHECKS.index)
    summary["failed_nodes"] = [host for host in hosts
                               if any(e["node"] == host and e["status"] == "fail" for e in entries)]
    return {
        "version": REPORT_VERSION,
        "master": master,
        "master_port": port,
        "nodes": hosts,
        "status": "fail" if summary["fail"] else ("warn" if summary["warn"] else "ok"),
        "summary": summary,
        "entries": entries,
    }


MARKS = {"ok": "ok", "warn": "warn", "fail": "FAIL"}


def format_table(report, max_columns=8, width=150):
    """The report for people: a check x node grid (or per-check counts for many nodes), then
    one line per warning and failure, failures first."""
    hosts = report["nodes"]
    entries = report["entries"]
    by_key = {(entry["check"], entry["node"]): entry for entry in entries}
    checks = [check for check in CHECKS if any(entry["check"] == check for entry in entries)]
    summary = report["summary"]
    lines = ["cluster doctor: %d node(s), %d result(s): %d ok, %d warn, %d fail (master %s, port %s)" % (
        len(hosts), len(entries), summary["ok"], summary["warn"], summary["fail"],
        report.get("master"), report.get("master_port"))]
    first = max([len("check")] + [len(check) for check in checks]) + 2
    if len(hosts) <= max_columns:
        column = max([6] + [len(host) for host in hosts]) + 2
        lines.append(("%-*s" % (first, "check") + "".join("%-*s" % (column, host) for host in hosts)).rstrip())
        for check in checks:
            cells = [MARKS[by_key[(check, host)]["status"]] if (check, host) in by_key else "-" for host in hosts]
            lines.append(("%-*s" % (first, check) + "".join("%-*s" % (column, cell) for cell in cells)).rstrip())
    else:
        lines.append("%-*s%-6s%-6s%-6s%s" % (first, "check", "ok", "warn", "fail", "failing nodes"))
        for check in checks:
            mine = [entry for entry in entries if entry["check"] == check]
            count = Counter(entry["status"] for entry in mine)
            failing = [entry["node"] for entry in mine if entry["status"] == "fail"]
            lines.append(("%-*s%-6d%-6d%-6d%s" % (first, check, count["ok"], count["warn"], count["fail"],
                                                   join_items(failing, 8))).rstrip())
    for status in ("fail", "warn"):
        grouped = {}
        for entry in entries:
            if entry["status"] != status:
                continue
            if status == "warn" and entry["message"].startswith("not checked:"):
                key = (entry["node"], entry["message"])
                if key in grouped:
                    grouped[key].append(entry["check"])
                    continue
                grouped[key] = [entry["check"]]
            lines.append((status, entry["node"], entry["check"], entry["message"]))
        lines[:] = [line if isinstance(line, str) else _table_line(line, grouped, width) for line in lines]
    return lines


def _table_line(item, grouped, width):
    status, node, check, message = item
    checks = grouped.get((node, message))
    if checks and len(checks) > 1:
        check = "%s (and %d more: %s)" % (check, len(checks) - 1, join_items(checks[1:], 4))
    line = "%s %s %s: %s" % (MARKS[status], node, check, message)
    return line if len(line) <= width * 4 else line[:width * 4 - 3] + "..."
