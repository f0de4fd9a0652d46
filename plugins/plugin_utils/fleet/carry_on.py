"""Carrying a run on past failed nodes: what site.yml keeps of each node it lost, and its limit.

A node is lost when a task failed on it or it became unreachable. Each play of site.yml catches
a failed task in a rescue block (``failure``); between and after the plays the nodes of the play
that are no longer in it are collected (``lost``), with the failure kept for them or, for a node
that vanished without one, as unreachable. ``over_limit`` is the run's own limit, the rule of
Ansible's max_fail_percentage applied to the whole run: more than ``percent`` % of the in-service
nodes lost stops everything. The doctor and acceptance apply the same rule to their verdicts
(``verdict_limit``): when more of the in-service nodes they judged failed than ``percent`` % allows,
none is quarantined. Plain Python, no Ansible imports.
"""

MAX_REASON = 300


def first_line(message):
    """The first non-blank line of a task's message (text, a list of lines, or nothing)."""
    if isinstance(message, (list, tuple)):
        message = "\n".join(str(item) for item in message)
    lines = [line.strip() for line in str(message or "").splitlines() if line.strip()]
    line = lines[0] if lines else ""
    return line if len(line) <= MAX_REASON else line[:MAX_REASON - 3] + "..."


def failure(play, task, result):
    """The finding of a node a task failed on: {source, result, reason}. ``result`` is the task's
    result (ansible_failed_result); an unreachable node's is marked ``unreachable``, or ``node_unreachable``
    by the play's first contact (action carry_reach)."""
    result = result if isinstance(result, dict) else {}
    if result.get("node_unreachable"):  # action carry_reach: the play's first contact
        result = {"unreachable": True, "msg": result.get("reach_msg")}
    message = first_line(result.get("msg"))
    detail = first_line(result.get("stderr")) or first_line(result.get("module_stderr"))
    if detail and (not message or message in ("non-zero return code", "MODULE FAILURE")):
        message = f"{message}: {detail}" if message else detail
    message = message or "failed (no message)"
    if result.get("unreachable"):
        return {"source": "unreachable", "result": "fail",
                "reason": f"unreachable in play '{play}': {message}"}
    return {"source": "provisioning", "result": "fail",
            "reason": f"play '{play}', task '{task}': {message}"}


def lost(all_hosts, alive, failures, play, known=None):
    """The nodes of a play (``all_hosts``) no longer in it (``alive``), not yet in ``known``:
    {node: finding}, the failure kept for the node (``failures`` {node: finding or None}) or else
    unreachable during ``play``."""
    known = known or {}
    found = {}
    for name in all_hosts:
        if name in alive or name in known:
            continue
        kept = (failures or {}).get(name)
        found[name] = kept if isinstance(kept, dict) and kept.get("reason") else {
            "source": "unreachable", "result": "fail",
            "reason": f"unreachable during play '{play}' (or failed outside its tasks)"}
    return found


def tolerated(total, percent):
    """How many of ``total`` nodes may be lost (each quarantined) without stopping the run:
    ``percent`` % of them, rounded down, and always one of two or more, so that a small cluster
    (2 to 9 nodes at 10 %) still puts its one broken node aside; losing every node stops it.
    ``percent`` 0 tolerates none: the first lost node stops the run and nobody is quarantined."""
    total = int(total)
    if total <= 0 or float(percent) <= 0:
        return 0
    return max(int(float(percent) * total // 100), min(1, total - 1))


def over_limit(lost_count, total, percent):
    """Whether losing ``lost_count`` of ``total`` nodes stops the run (more than tolerated)."""
    return int(total) > 0 and int(lost_count) > tolerated(total, percent)


def play_percentage(total, percent):
    """The max_fail_percentage that makes Ansible (which stops a play when failed / nodes * 100 is
    above it) tolerate exactly ``tolerated(total, percent)`` of ``total`` nodes: half a node above
    that share, clear of rounding."""
    total = int(total)
    return round(100.0 * (tolerated(total, percent) + 0.5) / total, 3) if total > 0 else 0


def summary(lost_nodes, left_out=None):
    """One line per node left out: the nodes lost in this run (``lost_nodes`` {node: finding}),
    then those the ledger already kept out (``left_out`` {node: why})."""
    lines = [f"{name}: {finding.get('reason') or finding.get('source')} ({finding.get('source')}; now quarantined)"
             for name, finding in sorted(lost_nodes.items())]
    lines += [f"{name}: {why}" for name, why in sorted((left_out or {}).items()) if name not in lost_nodes]
    return lines


def verdict_limit(findings, states, percent):
    """Whether recording a run's findings ({node: {source, result, reason}}) would quarantine more
    of the in-service nodes it judged than ``percent`` % allows: {"stopped", "failed" {node:
    finding}, "judged"}. ``states`` is {node: state} from the node ledger (a node it does not know
    is in service); a quarantined or retired node failing again changes nothing, so it counts in
    neither share."""
    judged = [name for name in findings if (states or {}).get(name, "in_service") == "in_service"]
    failed = {name: findings[name] for name in judged if findings[name].get("result") == "fail"}
    return {"stopped": over_limit(len(failed), len(judged), percent), "failed": failed, "judged": len(judged)}


def limit_message(limit, percent):
    """The error of a run stopped by ``verdict_limit``: the limit, the failed share, every failed node and why."""
    share = round(100.0 * len(limit["failed"]) / limit["judged"]) if limit["judged"] else 0
    lines = [line.replace("; now quarantined)", ")") for line in summary(limit["failed"])]
    return (f"stopped: {len(limit['failed'])} of the {limit['judged']} in-service nodes judged failed ({share} %), "
            f"more than cluster_max_fail_percentage {percent} % allows; a broken inventory, network or setting is "
            f"more likely than that many broken nodes, so none is quarantined and the node ledger is unchanged: "
            + "; ".join(lines))
