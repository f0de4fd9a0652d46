"""Filters of the firewall role's settings check (logic: plugins/plugin_utils/firewall_settings.py).

    problems: "{{ settings | cluster_suite.hpc.firewall_settings_errors(inventory_hostname) }}"
"""

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils import firewall_settings
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.ansible_values import plain


def firewall_settings_errors(settings, host="controller"):
    return firewall_settings.settings_errors(plain(settings), host)


class FilterModule:
    def filters(self):
        return {"firewall_settings_errors": firewall_settings_errors}
