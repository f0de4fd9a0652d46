"""A launch on the healthy nodes only: job_exclude_unhealthy leaves out the nodes the last
acceptance run (playbooks/acceptance.yml, its healthy.json) did not pass, moves the master to a
healthy node when it was left out, and job_min_nodes refuses a launch on too few nodes.

Input: the job variables, the inventory's groups and the text of healthy.json
({"healthy": [...], "excluded": {node: reason}, "passed": bool}). Output: the job variables to
replace (job_hosts, job_master, job_workers_per_node), notes for people, and errors, each naming
the node and the variable.
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


def healthy_job(job, groups, result_text, result_path=DEFAULT_RESULT):
    """{"updates": {...}, "notes": [...], "errors": [...]} for the job variables `job`."""
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
    kept, dropped = list(hosts), {}
    if exclude:
        result = _read_result(result_text, result_path, where, errors)
        if result is None:
            return {"updates": updates, "notes": notes, "errors": errors}
        healthy = set(result["healthy"])
        kept = [host for host in hosts if host in healthy]
        for host in hosts:
            if host not in healthy:
                dropped[host] = str(result.get("excluded", {}).get(host, "not tested by the acceptance run"))
        updates["job_hosts"] = kept
        for host, reason in dropped.items():
            notes.append(f"{host}: left out (job_exclude_unhealthy): {reason}")
        if master in dropped and kept:
            if job.get("job_master_addr"):
                errors.append(f"{master}: job_master_addr: set for master {master}, which the acceptance run "
                              f"left out; unset it or give {kept[0]}'s address")
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
