"""Filters of the firewall role's firewalld path (logic: plugins/plugin_utils/provision/firewalld_rules.py).

    wanted: "{{ port_list | cluster_suite.hpc.firewalld_wanted_rules(ssh_port, allowed_sources) }}"
    plan: "{{ wanted | cluster_suite.hpc.firewalld_plan(listing_stdout, record_text, ssh_port) }}"
"""


from ansible.errors import AnsibleFilterError

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.provision import firewalld_rules
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.ansible_values import plain


def firewalld_wanted_rules(ports, ssh_port, sources):
    try:
        return firewalld_rules.wanted_rules(str(ssh_port), plain(ports), plain(sources))
    except (KeyError, TypeError) as exc:
        raise AnsibleFilterError(f"firewalld_wanted_rules: {exc}") from exc


def firewalld_plan(wanted, listing, record_text, ssh_port=None):
    try:
        return firewalld_rules.plan(plain(wanted), firewalld_rules.parse_present(listing),
                                    firewalld_rules.parse_record(record_text),
                                    None if ssh_port is None else str(ssh_port))
    except (KeyError, TypeError) as exc:
        raise AnsibleFilterError(f"firewalld_plan: {exc}") from exc


class FilterModule:
    def filters(self):
        return {
            "firewalld_wanted_rules": firewalld_wanted_rules,
            "firewalld_plan": firewalld_plan,
        }
