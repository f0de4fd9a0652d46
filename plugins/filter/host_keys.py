"""Filters over plugins/plugin_utils/provision/host_keys.py, for role fleet's tasks/replace.yml:

    keys: "{{ scan.stdout | cluster_suite.hpc.host_keys_scanned }}"
    check: "{{ keys | cluster_suite.hpc.host_keys_check(node, fleet_host_key_fingerprint, fleet_trust_on_first_use) }}"
    file: "{{ [common_args, extra_args] | cluster_suite.hpc.host_keys_file(home) }}"
    name: "{{ address | cluster_suite.hpc.host_keys_name(port) }}"
    plan: "{{ found.stdout | cluster_suite.hpc.host_keys_plan(node, name, check.keys) }}"
"""
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.provision import host_keys as logic


def host_keys_scanned(text):
    return logic.scanned_keys(str(text))


def host_keys_check(keys, node, wanted, trust_on_first_use=False):
    return logic.check(str(node), [dict(key) for key in keys], str(wanted or ""), trust_on_first_use is True)


def host_keys_file(ssh_args, home):
    return logic.known_hosts_file([str(arg) for arg in ssh_args if arg], str(home))


def host_keys_name(address, port=22):
    return logic.known_hosts_name(str(address), port)


def host_keys_plan(found_text, node, name, keys):
    return logic.plan(str(node), str(name), logic.current_keys(str(found_text)), [dict(key) for key in keys])


class FilterModule:
    def filters(self):
        return {"host_keys_scanned": host_keys_scanned, "host_keys_check": host_keys_check,
                "host_keys_file": host_keys_file, "host_keys_name": host_keys_name, "host_keys_plan": host_keys_plan}
