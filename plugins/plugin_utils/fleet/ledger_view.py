"""The node ledger as the playbooks read it and operators list it: each node's state with its reason,
since when and on what evidence, whether its verdict is stale, and the nodes in service still to be
gated (after a forced return or an upgrade)."""
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.fleet.ledger import (
    VERDICT_SOURCES, parse_time, return_problems)


def stale(entry, max_age_seconds, now):
    """Whether the verdict behind ``entry`` (its latest, else its state) is older than the limit."""
    times = [verdict["time"] for verdict in entry.get("verdicts", {}).values()] or [entry.get("since")]
    times = [parse_time(text) for text in times if text]
    return bool(times) and (now - max(times)).total_seconds() > max_age_seconds


def _passed_since(entry, when):
    verdicts = entry.get("verdicts", {})
    return all(verdicts.get(source, {}).get("result") == "pass"
               and parse_time(verdicts[source]["time"]) >= parse_time(when) for source in VERDICT_SOURCES)


def ungated(entry, name):
    """Whether a node in service has not passed both the doctor and acceptance since it was put in
    service by force (returned or added again with the operator's reason) or since its last
    upgrade: playbooks/upgrade.yml gates it again even when it holds the new pins."""
    if entry.get("state", "in_service") != "in_service":
        return False
    forced = entry.get("forced") is True and bool(return_problems(entry, name))
    return forced or (bool(entry.get("upgraded")) and not _passed_since(entry, entry["upgraded"]))


def view(ledger, names, max_age_seconds, now):
    """What the playbooks read: {in_service, quarantined: {node: text}, retired, ungated, rows}.
    ``names`` are the inventory's nodes (a node the ledger does not know is in service); ``ungated``
    the nodes in service not passed by the doctor and acceptance since a forced return or an upgrade."""
    result = {"in_service": [], "quarantined": {}, "retired": [], "ungated": [], "rows": []}
    for name in names:
        entry = ledger["nodes"].get(name, {"state": "in_service"})
        state = entry["state"]
        is_stale = stale(entry, max_age_seconds, now)
        note = f"{entry.get('reason')} ({state} since {entry.get('since')}"
        note += f"; evidence {entry['evidence']}" if entry.get("evidence") else ""
        note += "; stale: older than cluster_verdict_max_age" if is_stale else ""
        note += ")"
        if state == "in_service":
            result["in_service"].append(name)
            if ungated(entry, name):
                result["ungated"].append(name)
        elif state == "quarantined":
            result["quarantined"][name] = note
        else:
            result["retired"].append(name)
        result["rows"].append({"node": name, "state": state, "reason": entry.get("reason") or "",
                               "since": entry.get("since") or "", "evidence": entry.get("evidence") or "",
                               "source": entry.get("source") or "", "stale": is_stale})
    return result


def table(rows):
    """The list as text lines: node, state, reason, since, evidence."""
    header = ("node", "state", "reason", "since", "evidence")
    lines = [[row["node"], row["state"] + (" (stale)" if row["stale"] else ""), row["reason"] or "-",
              row["since"] or "-", row["evidence"] or "-"] for row in rows]
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *lines)]
    return ["  ".join(str(cell).ljust(width) for cell, width in zip(line, widths)).rstrip()
            for line in [list(header)] + lines]
