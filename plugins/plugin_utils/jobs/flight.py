"""The flight records of a job's ranks: the rank wrapper's last sample of each rank's stack,
``<host>/flight/rank_<N>.json`` in the gathered logs, standing in for a py-spy dump of a rank
that ended, or that py-spy caught ending, so jobs/stacks.py can still say where it was.
Plain Python, stdlib only.
"""
import json
import os
import re

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs.stacks import frames_of, is_user_frame, main_thread

FLIGHT_FOLDER = "flight"


def _flight_record(path):
    try:
        with open(path, encoding="utf-8") as handle:
            record = json.load(handle)
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or not isinstance(record.get("rank"), int) \
            or not isinstance(record.get("frames"), list):
        return None
    return record


def flight_records(root, hosts, exits, ended=None):
    """{host: {"processes": [...]}}: the flight records under ``<root>/<host>/flight/`` of the
    ranks that did not return 0 (``exits``: {rank: exit status} of the ranks' own records), as
    processes in job_stacks' form with ``source`` "flight recorder" and, where ``ended`` ({rank:
    epoch seconds}) says when the rank ended, ``age``: how long before its end it was written."""
    ended = ended or {}
    found = {}
    for host in hosts:
        folder = os.path.join(root, host, FLIGHT_FOLDER)
        if os.path.islink(os.path.join(root, host)) or os.path.islink(folder) or not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            if not re.fullmatch(r"rank_\d+\.json", name) or os.path.islink(path):
                continue
            record = _flight_record(path)
            if record is None or exits.get(record["rank"]) == 0:
                continue
            found.setdefault(host, {"processes": []})["processes"].append({
                "pid": record.get("pid"), "role": "rank", "rank": record["rank"], "python": True,
                "source": "flight recorder", "time": record.get("time"), "job_dir": record.get("code_dir"),
                "age": _age(ended.get(record["rank"]), record.get("time")),
                "threads": [{"thread_name": "MainThread", "frames": record["frames"]}]})
    return found


def _age(end, written):
    if isinstance(end, (int, float)) and isinstance(written, (int, float)) and end >= written:
        return round(end - written, 1)
    return None


def with_flight_records(nodes, flight):
    """``nodes`` (py-spy's dumps) with the flight records of the ranks py-spy did not dump in their
    script: those it did not find, those whose dump failed and those it caught ending, without a
    frame of the job's own code (a rank that ended while py-spy read it: a launcher's SIGTERM,
    a collective that gave up); their last record says where they were."""
    def dumped_in_script(item, job_dir):
        thread = main_thread(item.get("threads"), item.get("pid"))
        return item.get("role") == "rank" and thread is not None and any(
            is_user_frame(frame, item.get("job_dir") or job_dir) for frame in frames_of(thread))

    dumped = {item.get("rank") for result in (nodes or {}).values() for item in (result or {}).get("processes") or []
              if dumped_in_script(item, (result or {}).get("job_dir"))}
    recorded = {item["rank"] for result in flight.values() for item in result["processes"] if item["rank"] not in dumped}
    merged = {}
    for host, result in (nodes or {}).items():
        entry = dict(result or {})
        entry["processes"] = [item for item in entry.get("processes") or []
                              if not (item.get("role") == "rank" and item.get("rank") in recorded)]
        merged[host] = entry
    for host, result in sorted(flight.items()):
        extra = [item for item in result["processes"] if item["rank"] in recorded]
        if extra:
            entry = merged.setdefault(host, {"processes": []})
            entry["processes"] = list(entry.get("processes") or []) + extra
    return merged
