"""The OS vars file a role loads for a node (logic: plugins/plugin_utils/provision/os_vars.py):

    - name: Load the OS's package names
      ansible.builtin.include_vars: "{{ ansible_facts | cluster_suite.hpc.os_vars_file(role_path) }}"

the path of the first of <role>/vars/<distribution>-<version>.yml, <distribution>-<major>.yml,
<distribution>.yml, <os_family>.yml, default.yml that exists. A task, not an include of a shared
task file: each include costs ansible-playbook's process a task per node.
"""
import os

from ansible.errors import AnsibleFilterError

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.provision import os_vars


def os_vars_file(facts, role_path):
    directory = os.path.join(str(role_path), "vars")
    try:
        available = os.listdir(directory)
    except OSError as error:
        raise AnsibleFilterError(f"os_vars_file: cannot list {directory}: {error.strerror}") from error
    name = os_vars.first_found(dict(facts or {}), available)
    if name is None:
        raise AnsibleFilterError(f"os_vars_file: {directory} has no {os_vars.DEFAULT}")
    return os.path.join(directory, name)


class FilterModule:
    def filters(self):
        return {"os_vars_file": os_vars_file}
