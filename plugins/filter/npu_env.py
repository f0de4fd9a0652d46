"""Filters of role npu_env (logic: plugins/plugin_utils/npu_env_settings.py).

    problems: "{{ settings | cluster_suite.hpc.npu_env_problems(node) }}"

settings: the npu_env_* values; node: the node's facts the checks need (see
npu_env_settings.node_problems). Problems name the variable; the role's task adds the host.
"""
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils import npu_env_settings


def _plain(value):
    """Ansible's lazy containers and tagged values as plain dicts, lists and scalars."""
    if isinstance(value, dict) or hasattr(value, "items"):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            return kind(value)
    return value


def npu_env_problems(settings, node):
    return npu_env_settings.node_problems(_plain(settings), _plain(node))


class FilterModule:
    def filters(self):
        return {"npu_env_problems": npu_env_problems}
