"""Filters of site.yml's carrying on past failed nodes (logic: plugins/plugin_utils/fleet/carry_on.py).

    finding: "{{ ansible_play_name | cluster_suite.hpc.carry_failure(ansible_failed_task.name, ansible_failed_result) }}"
    lost: "{{ ansible_play_hosts_all | cluster_suite.hpc.carry_lost(ansible_play_hosts, failures, play, known) }}"
    stop: "{{ lost | length | cluster_suite.hpc.carry_over_limit(in_service | length, cluster_max_fail_percentage) }}"
    lines: "{{ lost | cluster_suite.hpc.carry_summary(cluster_ledger.quarantined) }}"
"""

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.fleet import carry_on


def carry_failure(play, task, result):
    return carry_on.failure(play, task, result)


def carry_lost(all_hosts, alive, failures, play, known=None):
    return carry_on.lost(list(all_hosts), list(alive), dict(failures or {}), play, dict(known or {}))


def carry_over_limit(lost_count, total, percent):
    return carry_on.over_limit(lost_count, total, percent)


def carry_tolerated(total, percent):
    return carry_on.tolerated(total, percent)


def carry_play_percentage(total, percent):
    return carry_on.play_percentage(total, percent)


def carry_summary(lost_nodes, left_out=None):
    return carry_on.summary(dict(lost_nodes or {}), dict(left_out or {}))


class FilterModule:
    """Filters of carrying a run on past failed nodes."""

    def filters(self):
        return {"carry_failure": carry_failure, "carry_lost": carry_lost, "carry_over_limit": carry_over_limit,
                "carry_tolerated": carry_tolerated, "carry_summary": carry_summary,
                "carry_play_percentage": carry_play_percentage}
