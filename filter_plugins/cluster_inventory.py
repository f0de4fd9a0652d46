"""Filters over module_utils/inventory_checks.py (see that file for the rules)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "module_utils"))

import inventory_checks  # noqa: E402  pylint: disable=wrong-import-position

CHECKED_VARS = ("ansible_host", "npu_device_count", "npu_model", "cluster_user",
                "cluster_allow_root")


def cluster_inventory_errors(groups, hostvars):
    """All inventory problems as a list of messages (empty when the inventory is fine)."""
    plain_hostvars = {}
    for host in groups.get("all", []):
        host_vars = hostvars[host]
        plain_hostvars[host] = {name: host_vars[name] for name in CHECKED_VARS if name in host_vars}
        plain_hostvars[host].setdefault("ansible_host", host)
    return inventory_checks.inventory_errors(dict(groups), plain_hostvars)


class FilterModule:
    def filters(self):
        return {"cluster_inventory_errors": cluster_inventory_errors}
