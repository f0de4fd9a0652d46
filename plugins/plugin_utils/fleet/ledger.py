"""The node ledger: what the controller remembers of each node of one inventory.

One JSON file per inventory (``<ledger_dir>/<name>-<hash of the inventory's path>.json``)::

    {"version": 1, "inventory": "/abs/path/hosts.yml",
     "nodes": {"node3": {"address": "10.0.0.3", "state": "quarantined",
                         "reason": "ssh_login: connection refused", "source": "doctor",
                         "since": "2026-11-26T05:40:00Z", "evidence": "logs/doctor/report.json",
                         "verdicts": {"doctor": {"result": "fail", "time": "...", "reason": "...",
                                                 "evidence": "..."}}}}}

A node the ledger does not know is in service. States: ``in_service``, ``quarantined`` (no
playbook touches it and no job gives it a rank until it is returned) and ``retired`` (out for
good; verdicts no longer change it). A failed verdict quarantines a node in service; a passed one
never returns a quarantined node by itself: ``return_to_service`` does, and only when the node
passed both the doctor and acceptance after it was quarantined, unless forced with a reason.
A node in service by force (returned or added again with a reason) keeps ``forced``: true until
its state changes; a node whose environment playbooks/upgrade.yml changed keeps the time as
``upgraded``. Until the doctor and acceptance pass it again (after its return, or after that time)
it is ``ungated`` (view), and playbooks/upgrade.yml gates it even when it holds the new pins (as a
node of a batch stopped by another node's failed gate, upgraded but not judged by acceptance).
A node whose host key the operator replaced (playbooks/replace.yml) keeps it as ``host_key``:
{"fingerprints": [...], "accepted_by": "fingerprint" or "trust_on_first_use", "reason", "time"}.

Writes hold an exclusive lock on ``<ledger>.lock`` from the read to the rename, so two runs at
once cannot lose each other's writes, and the file is replaced atomically (written beside it,
flushed, renamed), so a killed run never leaves half a ledger. Plain Python, no Ansible imports.
"""
import contextlib
import datetime
import fcntl
import hashlib
import json
import os
import re
import tempfile

VERSION = 1
STATES = ("in_service", "quarantined", "retired")
SOURCES = ("doctor", "acceptance", "unreachable", "provisioning", "launch", "operator")
VERDICT_SOURCES = ("doctor", "acceptance")
RESULTS = ("pass", "fail")
TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
HOST_KEY_ACCEPTED_BY = ("fingerprint", "trust_on_first_use")
NODE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,252}")


class LedgerError(Exception):
    """A ledger that cannot be trusted or an operation that is refused; the message says why."""


def now_text(now=None):
    moment = now or datetime.datetime.now(datetime.timezone.utc)
    return moment.strftime(TIME_FORMAT)


def parse_time(text):
    return datetime.datetime.strptime(text, TIME_FORMAT).replace(tzinfo=datetime.timezone.utc)


def ledger_path(ledger_dir, inventory):
    """The ledger file of ``inventory`` (its absolute path) under ``ledger_dir``."""
    inventory = os.path.abspath(inventory)
    digest = hashlib.sha256(inventory.encode("utf-8")).hexdigest()[:12]
    stem = os.path.basename(inventory.rstrip("/")) or "inventory"
    if stem in ("hosts.yml", "hosts.yaml", "hosts", "inventory.yml"):
        stem = os.path.basename(os.path.dirname(inventory.rstrip("/"))) or stem
    stem = re.sub(r"[^A-Za-z0-9_.-]", "_", stem)
    return os.path.join(ledger_dir, f"{stem}-{digest}.json")


def empty(inventory):
    return {"version": VERSION, "inventory": os.path.abspath(inventory), "nodes": {}}


def _time_problem(where, value):
    if not isinstance(value, str):
        return f"{where}: {value!r} is not a time ({TIME_FORMAT})"
    try:
        parse_time(value)
    except ValueError:
        return f"{where}: {value!r} is not a time ({TIME_FORMAT})"
    return None


def problems(ledger, path):
    """Every reason not to trust a ledger read from ``path`` (hand edits included)."""
    if not isinstance(ledger, dict):
        return [f"{path}: not a ledger (a mapping with version, inventory and nodes)"]
    found = []
    if ledger.get("version") != VERSION:
        found.append(f"{path}: version {ledger.get('version')!r}, this suite writes {VERSION}")
    if not isinstance(ledger.get("inventory"), str):
        found.append(f"{path}: inventory is missing")
    nodes = ledger.get("nodes")
    if not isinstance(nodes, dict):
        return found + [f"{path}: nodes is not a mapping of node names"]
    for name, entry in nodes.items():
        where = f"{path}: node {name}"
        if not isinstance(name, str) or not NODE_NAME.fullmatch(name):
            found.append(f"{where}: not a node name")
            continue
        if not isinstance(entry, dict):
            found.append(f"{where}: not a mapping")
            continue
        if entry.get("state") not in STATES:
            found.append(f"{where}: state {entry.get('state')!r} is not one of {', '.join(STATES)}")
        if entry.get("state") != "in_service":
            if entry.get("source") not in SOURCES:
                found.append(f"{where}: source {entry.get('source')!r} is not one of {', '.join(SOURCES)}")
            if not isinstance(entry.get("reason"), str) or not entry.get("reason"):
                found.append(f"{where}: a {entry.get('state')} node needs a reason")
        found += [problem for problem in [_time_problem(f"{where}: since", entry.get("since"))] if problem]
        if "forced" in entry and (entry["forced"] is not True or entry.get("state") != "in_service"):
            found.append(f"{where}: forced is {entry['forced']!r}: only true, on a node in service")
        if "upgraded" in entry:
            found += [problem for problem in [_time_problem(f"{where}: upgraded", entry["upgraded"])] if problem]
        host_key = entry.get("host_key")
        if host_key is not None:
            if not isinstance(host_key, dict) or not isinstance(host_key.get("fingerprints"), list) \
                    or host_key.get("accepted_by") not in HOST_KEY_ACCEPTED_BY:
                found.append(f"{where}: host_key is not a mapping of fingerprints and accepted_by "
                             f"({', '.join(HOST_KEY_ACCEPTED_BY)})")
            else:
                found += [problem for problem in [_time_problem(f"{where}: host_key time", host_key.get("time"))]
                          if problem]
        verdicts = entry.get("verdicts", {})
        if not isinstance(verdicts, dict):
            found.append(f"{where}: verdicts is not a mapping")
            continue
        for source, verdict in verdicts.items():
            if source not in VERDICT_SOURCES or not isinstance(verdict, dict) or verdict.get("result") not in RESULTS:
                found.append(f"{where}: verdict {source!r} is not a doctor or acceptance pass or fail")
                continue
            problem = _time_problem(f"{where}: verdict {source} time", verdict.get("time"))
            if problem:
                found.append(problem)
    return found


def check_identity(ledger, inventory, addresses, path):
    """Problems when the ledger belongs to another inventory or knows a node at another address."""
    found = []
    if ledger["inventory"] != os.path.abspath(inventory):
        found.append(f"{path}: the ledger of inventory {ledger['inventory']}, not of {os.path.abspath(inventory)}")
    for name, address in sorted(addresses.items()):
        known = ledger["nodes"].get(name, {}).get("address")
        if known is not None and address is not None and known != address:
            found.append(f"{name}: the ledger knows it at {known}, the inventory at {address}: not the same "
                         "node, so its record is not trusted (retire it or forget the ledger)")
    return found


def read(path, inventory, addresses):
    """The ledger at ``path`` (an empty one when there is none), refused with LedgerError when it
    cannot be trusted."""
    try:
        with open(path, encoding="utf-8") as handle:
            ledger = json.load(handle)
    except FileNotFoundError:
        return empty(inventory)
    except (OSError, ValueError) as error:
        raise LedgerError(f"{path}: cannot be read: {error}") from error
    found = problems(ledger, path)
    if not found:
        found = check_identity(ledger, inventory, addresses, path)
    if found:
        raise LedgerError("; ".join(found))
    return ledger


def write(path, ledger):
    """Replace the ledger atomically (a temporary file beside it, flushed, renamed)."""
    directory = os.path.dirname(path)
    os.makedirs(directory, mode=0o700, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=".ledger.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(ledger, out, indent=2, sort_keys=True)
            out.write("\n")
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


@contextlib.contextmanager
def locked(path):
    """An exclusive lock for a read-modify-write of the ledger at ``path``."""
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    with open(path + ".lock", "a", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _entry(ledger, name, address):
    entry = ledger["nodes"].setdefault(name, {"state": "in_service", "since": None, "verdicts": {}})
    if address is not None:
        entry["address"] = address
    entry.setdefault("verdicts", {})
    return entry


def _set_state(entry, state, reason, source, evidence, when, forced=False):
    if entry.get("state") != state or entry.get("since") is None:
        entry["since"] = when
    entry.update(state=state, reason=reason, source=source, evidence=evidence)
    if forced:
        entry["forced"] = True
    else:
        entry.pop("forced", None)


def record(ledger, addresses, findings, when):
    """Apply findings: {node: {"source", "result" (pass|fail), "reason", "evidence"}}.

    A doctor or acceptance result is kept as the node's latest verdict of that source. A failure
    quarantines a node in service (the first failure's reason stays while it is quarantined); a
    pass changes no state. Retired nodes are left as they are. Returns the names whose state changed.
    """
    changed = []
    for name, finding in sorted(findings.items()):
        entry = _entry(ledger, name, addresses.get(name))
        source = finding["source"]
        if source in VERDICT_SOURCES:
            entry["verdicts"][source] = {"result": finding["result"], "time": when,
                                         "reason": finding.get("reason") or "",
                                         "evidence": finding.get("evidence") or ""}
        if entry["state"] == "in_service" and finding["result"] == "fail":
            _set_state(entry, "quarantined", finding.get("reason") or source, source, finding.get("evidence") or "",
                       when)
            changed.append(name)
        elif entry.get("since") is None:
            entry["since"] = when
    return changed


def quarantine(ledger, addresses, names, reason, when):
    """The operator's quarantine of ``names`` with ``reason``; returns the names that changed."""
    changed = []
    for name in names:
        entry = _entry(ledger, name, addresses.get(name))
        if entry["state"] == "retired":
            raise LedgerError(f"{name}: retired; add it again instead of quarantining it")
        if entry["state"] != "quarantined":
            _set_state(entry, "quarantined", reason, "operator", "", when)
            changed.append(name)
    return changed


def retire(ledger, addresses, names, reason, when):
    changed = []
    for name in names:
        entry = _entry(ledger, name, addresses.get(name))
        if entry["state"] != "retired":
            _set_state(entry, "retired", reason, "operator", "", when)
            changed.append(name)
    return changed


def upgraded(ledger, addresses, names, when):
    """Mark ``names`` as upgraded now (playbooks/upgrade.yml changed their environment): they are
    ungated until the doctor and acceptance pass them again. Returns the names marked."""
    for name in names:
        entry = _entry(ledger, name, addresses.get(name))
        entry["upgraded"] = when
        if entry.get("since") is None:
            entry["since"] = when
    return list(names)


def return_problems(entry, name):
    """Why ``name`` may not return to service yet: each of doctor and acceptance must have passed
    it after it was quarantined."""
    since = entry.get("since")
    found = []
    for source in VERDICT_SOURCES:
        verdict = entry.get("verdicts", {}).get(source)
        if not verdict or verdict["result"] != "pass" or (since and parse_time(verdict["time"]) < parse_time(since)):
            last = (f"its last {source} verdict is {verdict['result']} at {verdict['time']}" if verdict
                    else f"no {source} verdict")
            found.append(f"{name}: not passed by the {source} since it was quarantined at {since} ({last}); run "
                         f"playbooks/{source}.yml, or force the return with a reason")
    return found


def return_to_service(ledger, addresses, names, when, force_reason=None):
    """Return ``names`` to service; refused (LedgerError naming every node) unless each passed the
    doctor and acceptance after its quarantine, or ``force_reason`` is given (and recorded)."""
    refused = []
    for name in names:
        entry = ledger["nodes"].get(name)
        if entry is None or entry["state"] == "in_service":
            continue
        if entry["state"] == "retired":
            refused.append(f"{name}: retired; add it again instead of returning it")
        elif not force_reason:
            refused += return_problems(entry, name)
    if refused:
        raise LedgerError("; ".join(refused))
    changed = []
    for name in names:
        entry = ledger["nodes"].get(name)
        if entry is None or entry["state"] == "in_service":
            continue
        reason = f"returned by the operator, forced: {force_reason}" if force_reason else "returned: passed again"
        _set_state(entry, "in_service", reason, "operator", "", when, forced=bool(force_reason))
        changed.append(name)
    return changed


def add(ledger, addresses, names, when, force_reason=None):
    """Nodes the operator adds (playbooks/add.yml): a node the ledger does not know, or knows in
    service, needs nothing. Refused (LedgerError naming every node): a quarantined node (return
    it instead) and a retired one unless ``force_reason`` is given, which puts it back in service
    with that reason recorded. Returns the names that changed."""
    refused = []
    for name in names:
        state = (ledger["nodes"].get(name) or {}).get("state", "in_service")
        if state == "quarantined":
            refused.append(f"{name}: quarantined; return it with playbooks/fleet.yml -e fleet_action=return "
                           "(after the doctor and acceptance pass it, or forced with a reason) instead of adding it")
        elif state == "retired" and not force_reason:
            refused.append(f"{name}: retired; to add it again pass fleet_force with fleet_reason, which is recorded")
    if refused:
        raise LedgerError("; ".join(refused))
    changed = []
    for name in names:
        entry = ledger["nodes"].get(name)
        if entry is not None and entry["state"] == "retired":
            _set_state(_entry(ledger, name, addresses.get(name)), "in_service",
                       f"added again by the operator: {force_reason}", "operator", "", when, forced=True)
            changed.append(name)
    return changed


def host_key(ledger, addresses, names, fingerprints, accepted_by, reason, when):
    """Record the host key the operator accepted for ``names`` (one node, reinstalled): its
    fingerprints, how it was accepted and the operator's words. Refused for a retired node.
    Returns the names whose recorded key changed."""
    if accepted_by not in HOST_KEY_ACCEPTED_BY:
        raise LedgerError(f"host key accepted by {accepted_by!r}: one of {', '.join(HOST_KEY_ACCEPTED_BY)}")
    if accepted_by == "trust_on_first_use" and not reason:
        raise LedgerError("a host key trusted on first use needs the operator's reason, which is recorded")
    if not fingerprints:
        raise LedgerError("a host key needs its fingerprints")
    changed = []
    for name in names:
        entry = _entry(ledger, name, addresses.get(name))
        if entry["state"] == "retired":
            raise LedgerError(f"{name}: retired; add it again before replacing its host key")
        old = entry.get("host_key") or {}
        if sorted(old.get("fingerprints") or []) == sorted(fingerprints) and old.get("accepted_by") == accepted_by:
            continue
        entry["host_key"] = {"fingerprints": sorted(fingerprints), "accepted_by": accepted_by,
                             "reason": reason or "", "time": when}
        if entry.get("since") is None:
            entry["since"] = when
        changed.append(name)
    return changed
