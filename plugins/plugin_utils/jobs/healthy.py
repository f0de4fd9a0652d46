"""A launch on the healthy nodes only: job_use_ledger (default true) leaves out the nodes the
node ledger holds quarantined or retired (plugins/plugin_utils/fleet/ledger.py), job_exclude_unhealthy
also the nodes the last acceptance run (playbooks/acceptance.yml, its healthy.json) did not pass;
the master moves to the first node left when it was left out, and job_min_nodes refuses a launch
on too few nodes, naming every node left out and why.

Input: the job variables, the inventory's groups, the text of healthy.json
({"healthy": [...], "excluded": {node: reason}, "passed": bool}) and the ledger's view (action
node_ledger's result: {"quarantined": {node: why}, "retired": [...]}, or None when not read).
Output: the job variables to replace (job_hosts, job_master, job_workers_per_node), notes for
people, and errors, each naming the node and the variable.
"""
import json

DEFAULT_RESULT = "logs/acceptance/healthy.json"


def _flag(value):
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "yes", "1", "false", "no", "0"):
        return value.lower() in ("true", "yes", "1")
    return None


def _read_result(text, path, where, errors):
    if not text:
        errors.append(f"{where}: job_exclude_unhealthy: no acceptance result at {path}; "
                      "run playbooks/acceptance.yml first (or set job_acceptance_result)")
        return None
    try:
        result = json.loads(text)
    except ValueError as error:
        errors.append(f"{where}: job_acceptance_result: {path} is not JSON ({error})")
        return None
    if not isinstance(result, dict) or not isinstance(result.get("healthy"), list) \
            or not isinstance(result.get("excluded", {}), dict):
        errors.append(f"{where}: job_acceptance_result: {path} is not an acceptance result "
                      "(no 'healthy' list of nodes)")
        return None
    return result


def ledger_left_out(ledger):
    """{node: why} of the nodes the ledger's view keeps out of a job: quarantined and retired."""
    if not isinstance(ledger, dict):
        return {}
    out = {node: f"quarantined in the node ledger: {why}" for node, why in (ledger.get("quarantined") or {}).items()}
    retired = {row.get("node"): row for row in ledger.get("rows") or [] if isinstance(row, dict)}
    for node in ledger.get("retired") or []:
        row = retired.get(node) or {}
        out[node] = "retired in the node ledger" + (f": {row['reason']}" if row.get("reason") else "")
    return out


def healthy_job(job, groups, result_text, result_path=DEFAULT_RESULT, ledger=None):
    """{"updates": {...}, "notes": [...], "errors": [...]} for the job variables `job`; ``ledger`` is
    the ledger's view, read when job_use_ledger is true (the caller reads it)."""
    updates, notes, errors = {}, [], []
    cluster = list(groups.get("cluster") or [])
    masters = list(groups.get("cluster_master") or [])
    master = job.get("job_master") or (masters[0] if masters else None)
    where = master if isinstance(master, str) and master else "cluster_master"
    exclude = _flag(job.get("job_exclude_unhealthy", False))
    if exclude is None:
        errors.append(f"{where}: job_exclude_unhealthy: must be true or false, got {job.get('job_exclude_unhealthy')!r}")
    minimum = job.get("job_min_nodes", 1)
    if isinstance(minimum, str) and minimum.isdigit():
        minimum = int(minimum)
    if isinstance(minimum, bool) or not isinstance(minimum, int) or not 1 <= minimum <= 100000:
        errors.append(f"{where}: job_min_nodes: must be an integer from 1 to 100000, got {job.get('job_min_nodes')!r}")
        minimum = None
    hosts = job.get("job_hosts")
    if hosts is None:
        hosts = cluster
    if not isinstance(hosts, list) or not all(isinstance(host, str) for host in hosts):
        return {"updates": updates, "notes": notes, "errors": errors}  # the job's own checks name this
    use_ledger = _flag(job.get("job_use_ledger", True))
    if use_ledger is None:
        errors.append(f"{where}: job_use_ledger: must be true or false, got {job.get('job_use_ledger')!r}")
    kept, dropped, why = list(hosts), {}, {}
    if exclude:
        result = _read_result(result_text, result_path, where, errors)
        if result is None:
            return {"updates": updates, "notes": notes, "errors": errors}
        healthy = set(result["healthy"])
        for host in hosts:
            if host not in healthy:
                dropped[host] = str(result.get("excluded", {}).get(host, "not tested by the acceptance run"))
                why[host] = "job_exclude_unhealthy"
    if use_ledger:
        for host, reason in ledger_left_out(ledger).items():
            if host in hosts and host not in dropped:
                dropped[host] = reason
                why[host] = "job_use_ledger"
    dropped = {host: dropped[host] for host in hosts if host in dropped}
    if dropped or exclude:
        kept = [host for host in hosts if host not in dropped]
        updates["job_hosts"] = kept
        for host, reason in dropped.items():
            notes.append(f"{host}: left out ({why[host]}): {reason}")
        if master in dropped and kept:
            if job.get("job_master_addr"):
                by = "the acceptance run" if why[master] == "job_exclude_unhealthy" else "the node ledger"
                errors.append(f"{master}: job_master_addr: set for master {master}, which {by} left out; "
                              f"unset it or give {kept[0]}'s address")
            notes.append(f"{master}: master moved to {kept[0]} ({master} is left out)")
            updates["job_master"] = kept[0]
        workers = job.get("job_workers_per_node")
        if isinstance(workers, dict):
            updates["job_workers_per_node"] = {host: count for host, count in workers.items() if host not in dropped}
    if minimum is not None and len(kept) < minimum:
        reasons = "; ".join(f"{host}: {reason}" for host, reason in dropped.items())
        errors.append(f"{where}: job_min_nodes: {len(kept)} node(s) left ({', '.join(kept) or 'none'}), "
                      f"fewer than job_min_nodes {minimum}" + (f"; left out: {reasons}" if reasons else ""))
    return {"updates": updates, "notes": notes, "errors": errors}
