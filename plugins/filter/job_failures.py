"""Filters of the failure analysis of a launch (logic: plugins/plugin_utils/jobs/failures.py).

    "{{ activity | cluster_suite.hpc.job_hang_report(timeout, started, now, ranks) }}"   whether the job hangs
"""

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs import failures as job_failures


def job_hang_report(activity, timeout, started, now, ranks=()):
    """``activity``: {host: the activity of a job_processes result}."""
    plain = {host: {"now": item.get("now"), "files": dict(item.get("files") or {}), "at": item.get("at")}
             for host, item in (activity or {}).items() if item}
    return job_failures.hang_report(plain, timeout, float(started), float(now), [int(rank) for rank in ranks])


class FilterModule:
    def filters(self):
        return {"job_hang_report": job_hang_report}
