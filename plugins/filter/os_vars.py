"""The OS vars of a role for a node (logic: plugins/plugin_utils/provision/os_vars.py), read by
the role's vars/main.yml rather than loaded by a task:

    _firewall_os: "{{ ansible_facts | cluster_suite.hpc.os_vars(role_path) }}"
    _firewall_ufw_binary: "{{ _firewall_os._firewall_ufw_binary }}"

the variables of the first of <role>/vars/<distribution>-<version>.yml, <distribution>-<major>.yml,
<distribution>.yml, <os_family>.yml, default.yml that exists. A role variable, not an
include_vars task: each task costs ansible-playbook's process a task result per node.
"""
import functools
import os

import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.provision import os_vars as os_vars_choice

# Facts the choice needs: a node whose facts were not gathered would silently get default.yml.
REQUIRED_FACTS = ("distribution", "os_family")


def os_vars_file(facts, role_path):
    directory = os.path.join(str(role_path), "vars")
    try:
        available = os.listdir(directory)
    except OSError as error:
        raise AnsibleFilterError(f"os_vars: cannot list {directory}: {error.strerror}") from error
    name = os_vars_choice.first_found(dict(facts or {}), available)
    if name is None:
        raise AnsibleFilterError(f"os_vars: {directory} has no {os_vars_choice.DEFAULT}")
    return os.path.join(directory, name)


@functools.lru_cache(maxsize=64)
def _load(path):
    try:
        with open(path, encoding="utf-8") as handle:
            found = yaml.safe_load(handle) or {}
    except (OSError, yaml.YAMLError) as error:
        raise AnsibleFilterError(f"os_vars: cannot read {path}: {error}") from error
    if not isinstance(found, dict):
        raise AnsibleFilterError(f"os_vars: {path} is not a mapping of variables")
    return found


def os_vars(facts, role_path):
    """The variables of the role's OS vars file for a node with ``facts`` (its ansible_facts)."""
    facts = dict(facts or {})
    missing = [name for name in REQUIRED_FACTS if not facts.get(name)]
    if missing:
        raise AnsibleFilterError(f"os_vars: the node's facts have no {', '.join(missing)}: gather them first "
                                 "(ansible.builtin.setup, gather_subset min)")
    return dict(_load(os_vars_file(facts, role_path)))


class FilterModule:
    def filters(self):
        return {"os_vars": os_vars}
