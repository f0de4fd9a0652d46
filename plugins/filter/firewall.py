"""Filters of the firewall role's settings check (logic: plugins/plugin_utils/firewall_settings.py).

    problems: "{{ settings | cluster_suite.hpc.firewall_settings_errors(inventory_hostname) }}"
"""

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils import firewall_settings


def _plain(value):
    """Ansible's lazy containers as plain dicts and lists."""
    if isinstance(value, dict) or hasattr(value, "items"):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def firewall_settings_errors(settings, host="controller"):
    return firewall_settings.settings_errors(_plain(settings), host)


class FilterModule:
    def filters(self):
        return {"firewall_settings_errors": firewall_settings_errors}
