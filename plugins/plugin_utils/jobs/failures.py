# -*- coding: utf-8 -*-
"""Why a job failed: the catalogue of known failures (roles/job/files/failure_catalogue.yml)
matched against log lines and exit statuses, the ranks a launcher reports dead, the order of
failures on one clock and hangs. Plain Python, stdlib only (job_summary runs it).
"""

import re

SIGNALS = {1: "SIGHUP", 2: "SIGINT", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL",
           11: "SIGSEGV", 13: "SIGPIPE", 15: "SIGTERM"}
ENTRY_FIELDS = ("id", "cause", "fix", "source")
MAX_LINES = 5

# Lines that are not evidence of a failure: a severity below error (MindSpore's and glog's
# "[WARNING]", "[INFO]"; c10's "[W socket.cpp:...]" and "[W1128 ...]"; Python's logging and
# warnings) or a message that says it will try again.
NOT_FAILURE = re.compile(
    r"^\s*(?:\[(?:WARNING|WARN|INFO|DEBUG|NOTICE)\]|\[[WID](?:\d{4}\b|\s)|(?:WARNING|INFO|DEBUG):|[WID]\d{4}\s)"
    r"|\b\w*Warning: "
    r"|retry\(\d+/\d+\)|\b(?:try|trying|will try) to reconnect|\bretrying\b|\bwill retry\b",
    re.IGNORECASE)
# mpirun (help-orterun.txt [orterun:proc-aborted-strsignal], [orterun:non-zero-exit]).
MPIRUN_SIGNAL = re.compile(r"noticed that process rank (\d+) with PID \d+ on node (\S+) exited on signal (\d+)")
MPIRUN_EXIT = re.compile(r"Process name:\s*\[\[\d+,\d+\],(\d+)\]\s*\n\s*Exit code:\s*(-?\d+)")
# torchrun's error summary: "rank      : 3 (local_rank: 1)" then "exitcode  : -9 (pid: 123)".
TORCHRUN_EXIT = re.compile(r"^\s*host\s*:\s*(\S+)\s*\n\s*rank\s*:\s*(\d+)\s*\(local_rank:[^)]*\)\s*\n"
                           r"\s*exitcode\s*:\s*(-?\d+)", re.MULTILINE)


class CatalogueError(Exception):
    """The catalogue is malformed (the message names the entry and the field)."""


def load_catalogue(data):
    """The entries of ``data`` ({"failures": [...]}) with compiled signatures.

    Raises CatalogueError naming every malformed entry.
    """
    entries = (data or {}).get("failures") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise CatalogueError("the catalogue has no list 'failures'")
    problems, loaded, seen = [], [], set()
    for index, entry in enumerate(entries):
        name = entry.get("id") if isinstance(entry, dict) else None
        where = f"failures[{index}] ({name or 'no id'})"
        if not isinstance(entry, dict):
            problems.append(f"{where}: not a mapping")
            continue
        problems += [f"{where}: {field} is missing or empty" for field in ENTRY_FIELDS
                     if not isinstance(entry.get(field), str) or not entry[field].strip()]
        if name in seen:
            problems.append(f"{where}: id {name} is used twice")
        seen.add(name)
        exits = entry.get("exit", [])
        if not _exit_list(exits):
            problems.append(f"{where}: exit must be a list of exit statuses")
            exits = []
        after_return = entry.get("after_return_exit", [])
        if not _exit_list(after_return):
            problems.append(f"{where}: after_return_exit must be a list of exit statuses")
            after_return = []
        if not isinstance(entry.get("waited", False), bool):
            problems.append(f"{where}: waited must be true or false")
        signature = entry.get("signature")
        if isinstance(signature, list):
            signature = "|".join("(?:%s)" % item for item in signature) if signature else None
        pattern = None
        if signature is not None:
            try:
                pattern = re.compile(signature)
            except (re.error, TypeError) as exc:
                problems.append(f"{where}: signature is not a regular expression: {exc}")
        if signature is None and not exits:
            problems.append(f"{where}: needs a signature or exit statuses")
        loaded.append(dict(entry, exit=list(exits), after_return_exit=list(after_return), pattern=pattern))
    if problems:
        raise CatalogueError("; ".join(problems))
    return loaded


def _exit_list(value):
    return isinstance(value, list) and all(isinstance(code, int) and not isinstance(code, bool) for code in value)


def _public(entry, line):
    found = {field: entry[field] for field in ENTRY_FIELDS}
    found["line"] = line
    found["waited"] = entry.get("waited") is True
    return found


def is_failure_line(line):
    """Whether a log line can be evidence of a failure: not a warning, an informational line or
    a message that says it will retry (those are never a cause)."""
    return not NOT_FAILURE.search(line)


def explain(catalogue, text, exit_code=None):
    """Every catalogue entry that matches ``text`` (a log) or ``exit_code``, in catalogue order.

    Only lines that can be evidence of a failure are matched (is_failure_line). Each is {id,
    cause, fix, source, line}: line is the first matching log line (or "exit N" when only the
    exit status matched).
    """
    lines = [line.strip() for line in (text or "").splitlines() if is_failure_line(line)]
    found = []
    for entry in catalogue:
        line = None
        if entry["pattern"] is not None:
            line = next((item for item in lines if entry["pattern"].search(item)), None)
        if line is None and exit_code is not None and exit_code in entry["exit"]:
            line = f"exit {exit_code}"
        if line is not None:
            found.append(_public(entry, line))
    return found


def signal_exit(signal_number):
    """The shell's exit status of a process killed by ``signal_number``."""
    return 128 + signal_number


def describe_exit(code):
    """'exit 1', 'exit 137 (killed by SIGKILL)' or 'exit -11 (killed by SIGSEGV)'."""
    if code is None:
        return "no exit status"
    number = -code if code < 0 else code - 128 if code > 128 else None
    if number in SIGNALS:
        return f"exit {code} (killed by {SIGNALS[number]})"
    return f"exit {code}"


def launcher_rank_exits(text):
    """{rank: {"exit": status, "host": node or None, "line": the launcher's line}}: ranks that a
    launcher's log (mpirun, torchrun) reports dead, for ranks that could not record it themselves.
    """
    found = {}
    for match in MPIRUN_SIGNAL.finditer(text or ""):
        found.setdefault(int(match.group(1)), {"exit": signal_exit(int(match.group(3))),
                                               "host": match.group(2), "line": match.group(0)})
    for match in MPIRUN_EXIT.finditer(text or ""):
        found.setdefault(int(match.group(1)), {"exit": int(match.group(2)), "host": None,
                                               "line": " ".join(match.group(0).split())})
    for match in TORCHRUN_EXIT.finditer(text or ""):
        code = int(match.group(3))
        found.setdefault(int(match.group(2)), {"exit": signal_exit(-code) if code < 0 else code,
                                               "host": match.group(1),
                                               "line": " ".join(match.group(0).split())})
    return found


def on_controller_clock(when, host, clocks):
    """``when`` (epoch seconds on ``host``'s clock) on the controller's clock.

    ``clocks``: {host: {"offset": node clock minus controller clock, "uncertainty": s}}; a node
    without a measured offset is taken as in step.
    """
    if not isinstance(when, (int, float)) or isinstance(when, bool):
        return None
    offset = (clocks or {}).get(host, {}).get("offset") or 0.0
    return when - offset


def hang_report(activity, timeout, started, now, ranks=()):
    """Whether a job hangs: every rank silent for ``timeout`` seconds.

    ``activity``: {host: {"now": node clock, "files": {rank: mtime}, "at": controller clock}}
    (each rank's newest log write on the node holding its log, on that node's clock, read when
    the node's clock said ``now`` and the controller's ``at``: an earlier round's reading of a
    node whose part has ended ages by ``now - at``); ``started`` and ``now``: controller epoch
    seconds; ``ranks``: every rank of the job (one without a log yet counts as silent since the
    start).
    Returns {"hung", "silent_for", "last_logged": [ranks], "silent_longest": [ranks],
    "ranks": {rank: seconds silent}}.
    """
    since_start = max(now - started, 0.0)
    silence = {int(rank): since_start for rank in ranks}
    for _host, item in sorted((activity or {}).items()):
        node_now = item.get("now")
        since_read = max(now - item["at"], 0.0) if item.get("at") is not None else 0.0
        for rank, mtime in (item.get("files") or {}).items():
            rank = int(rank)
            age = (min(max(node_now - mtime, 0.0) + since_read, since_start) if node_now is not None
                   else since_start)
            silence[rank] = min(silence.get(rank, since_start), age)
    if not silence:
        return {"hung": False, "silent_for": since_start, "last_logged": [], "silent_longest": [],
                "ranks": {}}
    quietest = min(silence.values())
    loudest = max(silence.values())
    return {
        "hung": timeout is not None and quietest >= timeout,
        "silent_for": round(quietest, 1),
        "last_logged": sorted(rank for rank, age in silence.items() if age - quietest < 1.0),
        "silent_longest": sorted(rank for rank, age in silence.items() if loudest - age < 1.0),
        "ranks": {rank: round(age, 1) for rank, age in sorted(silence.items())},
    }


def _first_line(diagnosis, errors):
    """The line to show for a failure: the one its known cause matched, else its first error."""
    if diagnosis and not diagnosis["line"].startswith("exit "):
        return diagnosis["line"]
    return (errors or [None])[0]


def _log_time(files, clocks):
    """Controller-clock time of the newest write among ``files`` [{host, mtime}], or None."""
    best = None
    for item in files:
        when = on_controller_clock(item.get("mtime"), item.get("host"), clocks)
        if when is not None and (best is None or when > best):
            best = when
    return best


def diagnose(summary, logs, catalogue, clocks=None):
    """Add to ``summary`` (job_logs.summarize) why it failed, in place.

    ``logs``: {"ranks": {rank: [{"host", "text", "mtime"}]}, "launchers": {host: {"text",
    "errors"}}, "schedulers": {host: {"text", "errors"}}} (mtime on the clock of the node that
    wrote the file); ``catalogue``: load_catalogue's entries; ``clocks``: {host: {"offset",
    "uncertainty"}}. Ranks that died without a status get the exit the launcher reports; every
    failed rank, scheduler and launcher gets its known cause ("diagnosis"); the first failure is
    the one that ended first on the controller's clock.
    """
    clocks = clocks or {}
    launchers = logs.get("launchers", {})
    deaths = {}
    for host in sorted(launchers):
        for rank, death in launcher_rank_exits(launchers[host]["text"]).items():
            deaths.setdefault(rank, dict(death, reported_on=host))
    for row in summary["ranks"]:
        files = logs.get("ranks", {}).get(row["rank"], [])
        death = deaths.get(row["rank"])
        if row["exit"] is None and death:
            row.update(exit=death["exit"], state="failed", reported_by=f"launcher on {death['reported_on']}")
            row["errors"] = [death["line"]] + row["errors"]
            if death.get("host") and not row.get("host"):
                row["host"] = death["host"]
        if row["state"] != "failed":
            continue
        row["plogs"] = logs.get("plogs", {}).get(row["rank"], [])
        text = "\n".join(item["text"] for item in files)
        hits = explain(catalogue, text, row["exit"])
        row["diagnosis"] = hits[0] if hits else None
        row["exit_text"] = describe_exit(row["exit"])
        if row.get("time") is not None:
            row["controller_time"] = on_controller_clock(row["time"], row["host"], clocks)
            row["time_from"] = "exit status"
        else:
            row["controller_time"] = _log_time(files, clocks)
            row["time_from"] = "last log write"
    candidates = [dict(kind="rank", name=f"rank {row['rank']}", host=row["host"], when=row.get("controller_time"),
                       error=_first_line(row.get("diagnosis"), row["errors"]), diagnosis=row.get("diagnosis"),
                       exit_text=row.get("exit_text"), rank=row["rank"])
                  for row in summary["ranks"] if row["state"] == "failed"]
    # A job whose every rank returned 0 has no failure: what failed after is after_success.
    for item in [] if summary["result"] == "succeeded" else summary.get("schedulers", []):
        if item.get("exit") in (0, None):
            continue
        log = logs.get("schedulers", {}).get(item.get("host"), {"text": "", "errors": []})
        hits = explain(catalogue, log["text"], item.get("exit"))
        item["diagnosis"] = hits[0] if hits else None
        item["errors"] = log["errors"] or ([item["error"]] if item.get("error") else [])
        candidates.append(dict(kind="scheduler", name="scheduler", host=item.get("host"),
                               when=on_controller_clock(item.get("time"), item.get("host"), clocks),
                               error=_first_line(item["diagnosis"], item["errors"]), diagnosis=item["diagnosis"],
                               exit_text=describe_exit(item.get("exit")), rank=None))
    explained = []
    if summary["result"] != "succeeded":
        for host in sorted(launchers):
            status = next((item for item in summary.get("launchers", []) if item.get("host") == host), {})
            # A launcher that exited 0 is never a failure; one without a status (killed, or the
            # start failed) only with a known cause among its error lines.
            hits = [] if status.get("exit") == 0 else explain(catalogue, launchers[host]["text"])
            if status.get("exit") in (0, None) and not hits:
                continue
            errors = list(dict.fromkeys([hit["line"] for hit in hits] + launchers[host]["errors"]))
            explained.append({"host": host, "exit": status.get("exit"), "errors": errors[:MAX_LINES],
                              "diagnosis": hits[0] if hits else None})
    summary["launcher_diagnosis"] = explained
    _explain_after_success(summary.get("after_success") or [], logs, catalogue)
    if (summary.get("hang") or {}).get("hung") or summary.get("timed_out"):
        # Ranks the suite stopped (SIGTERM) after a hang or at job_timeout did not fail by themselves.
        candidates = [item for item in candidates if "SIGTERM" not in (item["exit_text"] or "")]
    # The root cause is usually what failed first (the others die of its absence); without a
    # time, a failure with a known cause comes before one without.
    timed = sorted((item for item in candidates if item["when"] is not None),
                   key=lambda item: (item["when"], str(item["rank"])))
    first = timed[0] if timed else next((item for item in candidates if item["diagnosis"]),
                                        candidates[0] if candidates else None)
    if first is None and explained:
        # A launcher that failed comes before one that exited 0 with a known warning in its log.
        launcher = min(explained, key=lambda item: (item["exit"] in (0, None), item["diagnosis"] is None))
        first = dict(kind="launcher", name=f"launcher {summary.get('launcher') or ''}".strip(),
                     host=launcher["host"], when=None, error=_first_line(launcher["diagnosis"], launcher["errors"]),
                     diagnosis=launcher["diagnosis"],
                     exit_text=describe_exit(launcher["exit"]) if launcher["exit"] is not None else None,
                     rank=None)
    summary["first_failure"] = first
    if first is not None:
        summary["first_failed_rank"] = first["rank"]
        summary["first_failed_host"] = first["host"]
        summary["first_error"] = first["error"]
    summary["clocks"] = clocks
    return summary


def _explain_after_success(items, logs, catalogue):
    """Give each launcher or scheduler that failed after every rank returned 0 its line and known
    cause, in place; those with a known cause first."""
    for item in items:
        if item["kind"].startswith("rank "):
            # A rank's process that died after its record: known by its exit status alone.
            hits = [_public(entry, describe_exit(item["exit"])) for entry in catalogue
                    if item["exit"] in entry["after_return_exit"]] or explain(catalogue, "", item["exit"])
            item["diagnosis"] = hits[0] if hits else None
            item["line"] = None
            continue
        kind = "schedulers" if item["kind"] == "scheduler" else "launchers"
        log = logs.get(kind, {}).get(item.get("host"), {"text": "", "errors": []})
        hits = explain(catalogue, log["text"])
        item["diagnosis"] = hits[0] if hits else None
        item["line"] = _first_line(item["diagnosis"], log["errors"])
    items.sort(key=lambda item: item["diagnosis"] is None)


def explanation_lines(diagnosis, indent):
    """The cause, fix and source of a catalogue match as summary lines."""
    if not diagnosis:
        return []
    return [f"{indent}cause ({diagnosis['id']}): {diagnosis['cause']}",
            f"{indent}fix: {diagnosis['fix']}",
            f"{indent}source: {diagnosis['source']}"]


def hang_lines(hang):
    """The summary lines of a hang (hang_report plus "timeout" and "stopped"), or []."""
    if not hang or not hang.get("hung"):
        return []
    ranks = hang.get("ranks") or {}
    longest = ", ".join(f"{rank} ({ranks.get(rank, ranks.get(str(rank)))} s)"
                        for rank in hang.get("silent_longest", []))
    return [f"  hung: no rank wrote to its log for {hang.get('silent_for')} s (job_hang_timeout "
            f"{hang.get('timeout')} s); last to log: rank {', '.join(map(str, hang.get('last_logged', [])))}; "
            f"silent longest: rank {longest}",
            "    cause (hang): every rank waits: usually in a collective for a rank that stopped "
            "(silent longest), or a deadlock in the job's code",
            "    fix: look at what the silent-longest ranks did last (their logs, py-spy dump --pid); "
            + ("the job was stopped (job_stop_on_hang)" if hang.get("stopped")
               else "the job was left running for inspection: stop it with "
                    "ansible-playbook -i inventory/<cluster>/ playbooks/stop.yml -e job_name=<job>")]
