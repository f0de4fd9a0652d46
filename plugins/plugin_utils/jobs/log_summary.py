"""Summary of a training job from the logs gathered on the controller (unpacked there by
job_log_unpack.unpack_logs).

Layout read (``<root>`` is ``logs/<job>/``, one folder per node, each a copy of the node's job
log directory):

- ``<host>/status/rank_<N>.json``: written by the rank wrapper when rank N exits:
  ``{"rank": N, "host": "node1", "exit": 0, "role": "worker", "error": "..."}``;
  ``<host>/status/scheduler.json`` the same for the dynamic cluster's scheduler;
  ``<host>/status/launcher.json``: the node's launcher (msrun, torchrun, mpirun, launch script).
- rank logs: ``worker_<N>.log`` (msrun, dynamic, torchrun) or ``mpirun/1/rank.<N>/stdout``
  (mpirun --output-filename, on the master), ``scheduler.log``.

Per rank the summary gives the exit status, the last ``loss`` line (and the first and last loss
values), and for failed ranks their first error lines. The job's outcome rests on the ranks' own
records: it succeeded when every rank's script returned 0, whatever a launcher or the scheduler
did after that (a crash in the framework's teardown is then a warning, not a failure). Plain
Python, stdlib only.
"""
import json
import os
import re

from ansible_collections.cluster_suite.hpc.plugins.module_utils.job_log_names import MPI_LOG, RANK_LOG
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.ansible_values import is_int
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs.failures import (
    describe_exit, explanation_lines, is_failure_line)

LOSS_VALUE = re.compile(r"\bloss(?:\s+is|\s*[:=])\s*\[?\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)",
                        re.IGNORECASE)
EXCEPTION_LINE = re.compile(r"^\s*([A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit))(?::\s|$)")
ERROR_LINE = re.compile(r"Traceback \(most recent call last\)|\bError\b|\bERROR\b|\bException\b|"
                        r"\bfatal\b|Killed|Segmentation fault|ORTE|MPI_ABORT|exited on signal")
MAX_ERRORS = 5


def _read(path, limit=4 * 1024 * 1024):
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - limit))
            return handle.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _load_json(path):
    try:
        with open(path, encoding="utf-8") as handle:
            value = json.load(handle)
        return value if isinstance(value, dict) else None
    except (OSError, ValueError):
        return None


def loss_values(text):
    """Every loss value printed in ``text``, in order."""
    return [float(m.group(1)) for m in LOSS_VALUE.finditer(text)]


def last_loss_line(text):
    lines = [line.strip() for line in text.splitlines() if LOSS_VALUE.search(line)]
    return lines[-1] if lines else None


def error_lines(text, limit=MAX_ERRORS):
    """The exception lines of tracebacks first, then other error lines, ``limit`` at most."""
    lines = [line for line in text.splitlines() if is_failure_line(line)]
    exceptions = [line.strip() for line in lines if EXCEPTION_LINE.match(line)]
    others = [line.strip() for line in lines
              if ERROR_LINE.search(line) and line.strip() not in exceptions
              and not (exceptions and line.lstrip().startswith("Traceback"))]
    picked = list(dict.fromkeys(exceptions + others))
    return picked[:limit]


# The folder of the ranks' stacks beside the node folders (job_stacks.write_stacks).
STACKS_FOLDER = "stacks"


def host_folders(root, hosts=None):
    """The node folders under ``root`` to read: directories, never links (a copy gathered
    before links were refused may still hold some), and only those of ``hosts`` when given
    (the nodes of this run: a folder of another node is left from an earlier run); without
    ``hosts``, the stacks folder is not a node's."""
    if not os.path.isdir(root):
        return []
    return [host for host in sorted(os.listdir(root))
            if os.path.isdir(os.path.join(root, host)) and not os.path.islink(os.path.join(root, host))
            and (host in hosts if hosts is not None else host != STACKS_FOLDER)]


def earlier_hosts(root, hosts):
    """Node folders under ``root`` that are not of this run's ``hosts`` (left from an earlier run)."""
    return [] if hosts is None else [host for host in host_folders(root) if host not in hosts]


def scan(root, hosts=None):
    """Read everything under ``root``: statuses, launchers and rank logs, per host."""
    ranks, launchers, schedulers = {}, [], []
    logs = {}
    for host in host_folders(root, hosts):
        host_dir = os.path.join(root, host)
        for dirpath, _dirs, files in os.walk(host_dir):
            for name in sorted(files):
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                if os.path.islink(path):
                    continue
                if os.path.basename(dirpath) == "status" and name.endswith(".json"):
                    status = _load_json(path) or {}
                    status.setdefault("host", host)
                    if name.startswith("rank_") and is_int(status.get("rank")):
                        ranks[status["rank"]] = status
                    elif name.startswith("scheduler"):
                        schedulers.append(status)
                    elif name.startswith("launcher"):
                        launchers.append(status)
                    continue
                match = RANK_LOG.search(rel) or MPI_LOG.search(rel)
                if match:
                    logs.setdefault(int(match.group(1)), []).append((host, rel, path))
                elif name == "scheduler.log":
                    logs.setdefault("scheduler", []).append((host, rel, path))
    return ranks, launchers, schedulers, logs


def reaped_exits(root, hosts=None):
    """{"ranks": {rank: {host, pid, exit, time}}, "schedulers": [...]}: the exit status of each
    rank or scheduler process as its launcher's reaper saw it (``status/reaped.json``, cs_rank.py
    --reap), matched by the process id of its start record (``status/started/``)."""
    found = {"ranks": {}, "schedulers": []}
    for host in host_folders(root, hosts):
        status_dir = os.path.join(root, host, "status")
        reaped = _load_json(os.path.join(status_dir, "reaped.json")) or {}
        if os.path.islink(status_dir) or not isinstance(reaped.get("processes"), list):
            continue
        exits = {item.get("pid"): item for item in reaped["processes"] if isinstance(item, dict)}
        started_dir = os.path.join(status_dir, "started")
        names = sorted(os.listdir(started_dir)) if os.path.isdir(started_dir) and not os.path.islink(started_dir) else []
        for name in names:
            record = _load_json(os.path.join(started_dir, name)) if name.endswith(".json") else None
            item = exits.get((record or {}).get("pid"))
            if not item or not is_int(item.get("exit")):
                continue
            entry = {"host": host, "pid": record["pid"], "exit": item["exit"], "time": item.get("time")}
            if record.get("role") == "scheduler":
                found["schedulers"].append(dict(entry, role="scheduler", rank=None))
            elif is_int(record.get("rank")):
                found["ranks"][record["rank"]] = entry
    return found


def summarize(root, job=None, launcher=None, expected=None, running_hosts=(), not_copied=None, hosts=None):
    """Summary dict of the job whose logs are under ``root``.

    ``expected``: {rank: host} from the plan (ranks without a status are then reported as
    missing); ``running_hosts``: nodes where the job still has processes; ``not_copied``: {host:
    [{"member", "reason"}]}, what ``unpack_logs`` left out of each node's logs; ``hosts``: the
    nodes of this run (the folders of other nodes, from an earlier run, are not read).
    """
    statuses, launchers, schedulers, logs = scan(root, hosts)
    reaped = reaped_exits(root, hosts)
    recorded = {item.get("host") for item in schedulers}
    schedulers += [item for item in reaped["schedulers"] if item["host"] not in recorded]
    expected = {int(rank): host for rank, host in (expected or {}).items()}
    all_ranks = sorted(set(expected) | set(statuses) | {r for r in logs if is_int(r)})
    running_hosts = list(running_hosts)
    rows = []
    for rank in all_ranks:
        status = statuses.get(rank)
        files = logs.get(rank, [])
        text = "\n".join(_read(path) for _host, _rel, path in files)
        host = (status or {}).get("host") or expected.get(rank) or (files[0][0] if files else None)
        exit_code = (status or {}).get("exit")
        process = reaped["ranks"].get(rank)
        if status is None and process is not None:
            # No record of its own: killed before its script returned. The reaper saw how.
            status = {"host": process["host"], "exit": process["exit"], "time": process["time"], "reaped": True}
            exit_code = process["exit"]
        if status is None:
            state = "running" if host in running_hosts else "no exit status"
        elif exit_code == 0:
            state = "ok"
        else:
            state = "failed"
        losses = loss_values(text)
        row = {
            "rank": rank,
            "host": host,
            "exit": exit_code,
            "time": (status or {}).get("time"),
            "state": state,
            "last_loss_line": last_loss_line(text),
            "first_loss": losses[0] if losses else None,
            "last_loss": losses[-1] if losses else None,
            "losses": len(losses),
            "logs": [rel for _host, rel, _path in files],
            "errors": [],
            "process_exit": process["exit"] if process else None,
        }
        if state not in ("ok", "running"):
            row["errors"] = error_lines(text) or ([status["error"]] if status and status.get("error") else [])
        rows.append(row)
    failed = [row for row in rows if row["state"] not in ("ok", "running")]
    if running_hosts and not failed:
        result = "running"
    elif failed or not rows:
        result = "failed"
    else:
        # Every rank's script returned 0: launchers and schedulers that failed after that are
        # reported as a warning (after_success), never as the job's failure.
        result = "succeeded"
    # The root cause is usually the rank that failed first (the others die of its absence).
    timed = [row for row in failed if isinstance((statuses.get(row["rank"]) or {}).get("time"), (int, float))]
    first = min(timed, key=lambda row: statuses[row["rank"]]["time"]) if timed else (failed[0] if failed else None)
    summary = {
        "job": job,
        "first_failed_rank": first["rank"] if first else None,
        "first_failed_host": first["host"] if first else None,
        "first_error": (first["errors"] or [None])[0] if first else None,
        "launcher": launcher,
        "result": result,
        "ranks": rows,
        "failed_ranks": [row["rank"] for row in failed],
        "launchers": sorted(launchers, key=lambda item: str(item.get("host"))),
        "schedulers": schedulers,
        "running_hosts": running_hosts,
        "not_copied": {host: list(items) for host, items in sorted((not_copied or {}).items()) if items},
        "earlier_hosts": earlier_hosts(root, hosts),
        "after_success": after_success(launchers, schedulers, launcher, rows) if result == "succeeded" else [],
    }
    if not rows:
        summary["launcher_errors"] = _launcher_errors(root, hosts)
    summary["text"] = render(summary)
    return summary


def after_success(launchers, schedulers, launcher=None, rows=()):
    """What failed in a job whose every rank's script returned 0: rank processes that died after
    their record (the reaper saw them), schedulers and launchers that exited non-zero:
    [{kind, host, exit, exit_text}] (job_failures.diagnose adds the line and the known cause)."""
    found = [{"kind": f"rank {row['rank']}'s process", "host": row["host"], "exit": row["process_exit"]}
             for row in rows if row.get("process_exit") not in (0, None)]
    found += [{"kind": "scheduler", "host": item.get("host"), "exit": item.get("exit")}
              for item in schedulers if item.get("exit") not in (0, None)]
    found += [{"kind": item.get("launcher") or launcher or "launcher", "host": item.get("host"), "exit": item.get("exit")}
              for item in launchers if item.get("exit") not in (0, None)]
    return [dict(item, exit_text=describe_exit(item["exit"]), line=None, diagnosis=None) for item in found]


def after_success_line(items):
    """The one warning line of a succeeded job whose launcher or scheduler failed afterwards."""
    if not items:
        return None
    first = items[0]
    line = (f"  warning: every rank's script returned 0 (the training completed); afterwards "
            f"{first['kind']} on {first['host']} failed, {first['exit_text']}")
    if first.get("line"):
        line += f": {first['line']}"
    if first.get("diagnosis"):
        line += f" (known cause {first['diagnosis']['id']}, in the failure catalogue)"
    if len(items) > 1:
        line += "; also " + ", ".join(f"{item['kind']} on {item['host']} ({item['exit_text']})" for item in items[1:])
    return line


def _launcher_errors(root, hosts=None):
    """Error lines of the launcher logs, when no rank left anything behind."""
    found = []
    for host in host_folders(root, hosts):
        path = os.path.join(root, host, "launcher.log")
        if os.path.isfile(path) and not os.path.islink(path):
            found += [f"{host}: {line}" for line in error_lines(_read(path))]
    return found[:MAX_ERRORS * 2]


def render(summary):
    """The summary as the lines launch.yml prints."""
    rows = summary["ranks"]
    ok = sum(1 for row in rows if row["state"] == "ok")
    lines = [f"job {summary['job']} ({summary['launcher']}): {summary['result']}, "
             f"{ok}/{len(rows)} ranks exited 0"]
    first = summary.get("first_failure")
    if first:
        lines.append(f"  first failure: {first['name']} on {first['host']}"
                     f"{', ' + first['exit_text'] if first.get('exit_text') else ''}: "
                     f"{first['error'] or 'no error line'}")
        lines += explanation_lines(first.get("diagnosis"), "    ")
    elif "first_failure" not in summary and summary.get("first_failed_rank") is not None:
        lines.append(f"  first failure: rank {summary['first_failed_rank']} on {summary['first_failed_host']}: "
                     f"{summary['first_error'] or 'no error line'}")
    for item in summary.get("held_up_by") or []:
        lines.append(f"  held up by: rank {item['rank']} on {item['host']}, {item['where']}, {item['reason']}")
    warning = after_success_line(summary.get("after_success"))
    if warning:
        lines.append(warning)
    for row in rows:
        exit_text = "running" if row["state"] == "running" else row.get("exit_text") or (
            f"exit {row['exit']}" if row["exit"] is not None else row["state"])
        line = f"  rank {row['rank']} on {row['host']}: {exit_text}"
        if row["last_loss_line"]:
            line += f"; last loss line: {row['last_loss_line']}"
        lines.append(line)
        lines += [f"    error: {error}" for error in row["errors"]]
        if row.get("diagnosis"):
            lines.append(f"    known cause: {row['diagnosis']['id']}")
        lines += [f"    CANN log: {path}" for path in row.get("plogs", [])]
    succeeded = summary["result"] == "succeeded"
    for item in [] if succeeded else summary.get("schedulers", []):
        if item.get("diagnosis") or item.get("errors"):
            lines.append(f"  scheduler on {item.get('host')}: exit {item.get('exit')}")
            lines += [f"    error: {error}" for error in item.get("errors", [])[:MAX_ERRORS]]
            lines += explanation_lines(item.get("diagnosis"), "    ")
    explained = summary.get("launcher_diagnosis")
    for item in [] if succeeded else summary["launchers"] if explained is None else explained:
        if explained is not None or item.get("exit") not in (0, None):
            lines.append(f"  launcher on {item.get('host')}: exit {item.get('exit')}")
        lines += [f"    error: {error}" for error in item.get("errors", [])]
        lines += explanation_lines(item.get("diagnosis"), "    ")
    for error in summary.get("launcher_errors", []) if explained is None else []:
        lines.append(f"  launcher error: {error}")
    clocks = summary.get("clocks") or {}
    if clocks:
        lines.append("  clocks, node minus controller (failures are put in order on the controller's clock): " + ", ".join(
            f"{host} {item.get('offset', 0.0):+.3f} s (±{item.get('uncertainty', 0.0):.3f} s)"
            for host, item in sorted(clocks.items())))
    if summary["running_hosts"]:
        lines.append(f"  still running on: {', '.join(summary['running_hosts'])}")
    for host, items in summary.get("not_copied", {}).items():
        shown = "; ".join(f"{item.get('member')} ({item.get('reason')})" for item in items[:MAX_ERRORS])
        more = f"; and {len(items) - MAX_ERRORS} more" if len(items) > MAX_ERRORS else ""
        lines.append(f"  {host}: {len(items)} item(s) of its logs not copied (only regular files "
                     f"and directories are): {shown}{more}")
    if summary.get("earlier_hosts"):
        lines.append(f"  not read: the logs of {', '.join(summary['earlier_hosts'])}, "
                     f"left from an earlier run (not a node of this one)")
    return "\n".join(lines)


def diagnosis_logs(root, hosts=None):
    """What job_failures.diagnose reads: every rank's logs (text, node, mtime) and each node's
    launcher and scheduler log (text and error lines), of ``hosts`` when given."""
    found = {"ranks": {}, "launchers": {}, "schedulers": {}, "plogs": {}}
    statuses, _launchers, _schedulers, logs = scan(root, hosts)
    for rank, files in logs.items():
        if is_int(rank):
            found["ranks"][rank] = [{"host": host, "text": _read(path), "mtime": _mtime(path)}
                                    for host, _rel, path in files]
    # CANN's plog of a rank's process (NPU nodes: ASCEND_PROCESS_LOG_PATH in job.env).
    for rank, status in statuses.items():
        for host, rel, path in _plogs(root, status.get("host"), status.get("pid")):
            found["plogs"].setdefault(rank, []).append(rel)
            found["ranks"].setdefault(rank, []).append({"host": host, "text": _read(path), "mtime": None})
    for host in host_folders(root, hosts):
        for name, kind in (("launcher.log", "launchers"), ("scheduler.log", "schedulers")):
            path = os.path.join(root, host, name)
            if os.path.isfile(path) and not os.path.islink(path):
                text = _read(path)
                found[kind][host] = {"text": text, "errors": error_lines(text)}
    return found


def _mtime(path):
    try:
        return os.stat(path, follow_symlinks=False).st_mtime
    except OSError:
        return None


def _plogs(root, host, pid):
    """[(host, rel, path)] of the CANN plogs of process ``pid`` in ``<root>/<host>/ascend/``."""
    base = os.path.join(root, str(host), "ascend")
    if not is_int(pid) or not host or "/" in str(host) or os.path.islink(os.path.join(root, str(host))) \
            or os.path.islink(base) or not os.path.isdir(base):
        return []
    found = []
    for dirpath, dirs, files in os.walk(base):
        dirs[:] = sorted(name for name in dirs if not os.path.islink(os.path.join(dirpath, name)))
        for name in sorted(files):
            path = os.path.join(dirpath, name)
            if name.startswith(f"plog-{pid}_") and not os.path.islink(path):
                found.append((host, os.path.relpath(path, root), path))
    return found
