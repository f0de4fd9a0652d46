"""Filters of role npu_env (logic: plugins/plugin_utils/validation/npu_env.py).

    problems: "{{ settings | cluster_suite.hpc.npu_env_problems(node) }}"

settings: the npu_env_* values; node: the node's facts the checks need (see
npu_env_settings.node_problems). Problems name the variable; the role's task adds the host.
"""
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import npu_env as npu_env_settings
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.ansible_values import plain


def npu_env_problems(settings, node):
    return npu_env_settings.node_problems(plain(settings, scalars=True), plain(node, scalars=True))


class FilterModule:
    def filters(self):
        return {"npu_env_problems": npu_env_problems}
