"""Filter over plugins/plugin_utils/acceptance/peer_sample.py: which pairs of nodes a check tests.

    plan: "{{ nodes | cluster_suite.hpc.peer_plan(exhaustive_max_nodes, partners, seed) }}"
"""
from ansible.errors import AnsibleFilterError
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.acceptance import peer_sample


def peer_plan(nodes, exhaustive_max_nodes, partners, seed):
    """{"sampled", "seed", "partners", "rounds", "peers"}: every pair, or the bounded sample."""
    try:
        return peer_sample.plan(list(nodes), int(exhaustive_max_nodes), int(partners), int(seed))
    except (TypeError, ValueError) as error:
        raise AnsibleFilterError(f"peer_plan: {error}") from error


class FilterModule:
    def filters(self):
        return {"peer_plan": peer_plan}
