"""Filter of role job over plugins/plugin_utils/jobs/healthy.py (job_use_ledger, job_exclude_unhealthy,
job_min_nodes).

    healthy: "{{ job_vars | cluster_suite.hpc.job_healthy(groups, healthy_json_text, path, ledger_view) }}"
"""
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs import healthy as logic


def job_healthy(job, groups, result_text, result_path=logic.DEFAULT_RESULT, ledger=None):
    """{"updates", "notes", "errors"} for a launch on the healthy nodes only; ``ledger`` is action
    node_ledger's result (None or {} when the ledger was not read)."""
    return logic.healthy_job(dict(job), dict(groups), result_text or "", result_path,
                             dict(ledger) if ledger else None)


class FilterModule:
    def filters(self):
        return {"job_healthy": job_healthy}
