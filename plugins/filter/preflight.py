"""Filters of the preflight validation (playbooks/validate.yml) over plugins/plugin_utils/validation/inventory.py.

    problems: "{{ groups | cluster_suite.hpc.cluster_inventory_problems(hostvars) }}"

Besides the inventory-wide variables it checks every role setting set in the inventory against
the type and choices of the role's meta/argument_specs.yml (all entry points), and reports unknown
firewall_*, openmpi_*, ssh_trust_* and npu_env_* names, before any node is contacted. Values that
reach scripts and command lines (user names, addresses, interface names, paths, programs) must
match their format as a whole, and no string may hold a control character (inventory_checks).
"""
import os

from ansible.errors import AnsibleFilterError

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import inventory as inventory_checks
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import inventory_settings
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import role_settings

ROLES = role_settings.ROLES_DIR


def role_argument_specs(roles_dir=ROLES):
    """variable -> {"type", "elements", "choices", "role"} from every role's argument specs
    (read by plugins/plugin_utils/validation/role_settings.py)."""
    try:
        return role_settings.all_specs(os.path.normpath(roles_dir))
    except role_settings.SettingsError as error:
        raise AnsibleFilterError(str(error)) from error


def _plain_vars(host, host_vars, names, errors):
    """{name: value} of the names a host has; a value that cannot be templated is a problem."""
    plain = {}
    for name in names:
        if name not in host_vars:
            continue
        try:
            plain[name] = host_vars[name]
        except Exception as error:  # pylint: disable=broad-except
            # An inventory value templating an undefined variable: named, not raised.
            errors.append(f"{host}: {name}: cannot be evaluated: {str(error).splitlines()[0]}")
    return plain


def cluster_inventory_problems(groups, hostvars, roles_dir=ROLES):
    """Every problem of the inventory and of the role settings it sets (empty when fine)."""
    specs = role_argument_specs(roles_dir)
    errors, plain_hostvars = [], {}
    for host in groups.get("all", []):
        host_vars = hostvars[host]
        # The settings of roles job and doctor come with each run (-e) and are checked by those
        # roles, with their own messages: not read here.
        names = [name for name in host_vars.keys()
                 if name in inventory_checks.CHECKED_VARS or name in inventory_settings.RENAMED
                 or (name in specs and specs[name]["role"] not in inventory_settings.RUN_ROLES)
                 or name.startswith(inventory_settings.TYPO_PREFIXES)]
        # Without ansible_host the checks take the inventory name as the address.
        plain_hostvars[host] = _plain_vars(host, host_vars, names, errors)
    return errors + inventory_checks.inventory_errors(dict(groups), plain_hostvars, specs)


class FilterModule:
    def filters(self):
        return {"cluster_inventory_problems": cluster_inventory_problems}
