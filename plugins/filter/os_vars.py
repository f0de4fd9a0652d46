"""The OS vars files a role tries for a node, most specific first
(logic: plugins/plugin_utils/provision/os_vars.py).

    files: "{{ ansible_facts | cluster_suite.hpc.os_vars_files }}"
"""

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.provision import os_vars


def os_vars_files(facts):
    return os_vars.candidates(dict(facts or {}))


class FilterModule:
    def filters(self):
        return {"os_vars_files": os_vars_files}
