"""Filters of the openmpi role (logic: plugins/plugin_utils/provision/openmpi_build.py).

    key: "{{ ansible_facts | cluster_suite.hpc.openmpi_build_key(version, flags, sha256, prefix) }}"
    installed: "{{ marker_text | cluster_suite.hpc.openmpi_marker_key }}"
    plan: "{{ host_states | cluster_suite.hpc.openmpi_build_plan(cached_ids, strategy) }}"
    missing: "{{ ring_stdout | cluster_suite.hpc.openmpi_ring_errors(ranks) }}"
    problems: "{{ path | cluster_suite.hpc.openmpi_private_path_errors('openmpi_ring_dir', inventory_hostname, home=true) }}"
    chain: "{{ '/var/lib/x' | cluster_suite.hpc.openmpi_path_chain }}"
    problems: "{{ stat_results | cluster_suite.hpc.openmpi_private_dir_errors(owner, variable, inventory_hostname) }}"
"""


from ansible.errors import AnsibleFilterError

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.provision import openmpi_build
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.ansible_values import plain


def openmpi_build_key(facts, version, flags, sha256, prefix):
    try:
        return openmpi_build.build_key(plain(facts), version, plain(flags), sha256, prefix)
    except (TypeError, ValueError) as exc:
        raise AnsibleFilterError(f"openmpi_build_key: {exc}") from exc


def openmpi_marker_key(text):
    return openmpi_build.marker_key(text)


def openmpi_build_plan(host_states, cached_ids, strategy):
    try:
        return openmpi_build.build_plan(plain(host_states), plain(cached_ids), strategy)
    except (KeyError, ValueError) as exc:
        raise AnsibleFilterError(f"openmpi_build_plan: {exc}") from exc


def openmpi_ring_errors(stdout, ranks):
    return openmpi_build.ring_errors(stdout, int(ranks))


def openmpi_private_path_errors(path, var, host="controller", home=False):
    return openmpi_build.private_path_errors(path, str(var), str(host), bool(home))


def openmpi_path_chain(path):
    return openmpi_build.path_chain(str(path))


def openmpi_private_dir_errors(stat_results, owner, var, host="controller"):
    """``stat_results``: the results of a stat loop over openmpi_path_chain (item in
    _openmpi_item, or item)."""
    chain = []
    for result in plain(stat_results):
        path = result.get("_openmpi_item", result.get("item"))
        chain.append(dict(result.get("stat") or {}, path=path))
    return openmpi_build.private_dir_errors(chain, str(owner), str(var), str(host))


class FilterModule:
    def filters(self):
        return {
            "openmpi_build_key": openmpi_build_key,
            "openmpi_marker_key": openmpi_marker_key,
            "openmpi_build_plan": openmpi_build_plan,
            "openmpi_ring_errors": openmpi_ring_errors,
            "openmpi_private_path_errors": openmpi_private_path_errors,
            "openmpi_path_chain": openmpi_path_chain,
            "openmpi_private_dir_errors": openmpi_private_dir_errors,
        }
