"""Checks of role npu_env's settings: the settings alone, then against the node's facts.

Plain functions over plain values (role_settings runs the settings-only rules in
playbooks/validate.yml; the role's own check adds the node's facts: its addresses, interfaces and
the CANN layout found). Problems name the variable; the caller adds the host.
*_SOCKET_IFNAME values are read by plugins/module_utils/socket_ifname.py, as the libraries read them.
"""
import re

from ansible_collections.cluster_suite.hpc.plugins.module_utils import socket_ifname
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation.shell_names import ENV_NAME

# variable -> (lowest, highest) of the integer settings.
RANGES = {
    "npu_env_hccl_connect_timeout": (120, 7200),
    "npu_env_hccl_if_base_port": (1024, 65519),
    "npu_env_global_log_level": (0, 3),
    "npu_env_slog_print_to_stdout": (0, 1),
    "npu_env_global_event_enable": (0, 1),
    "npu_env_task_queue_enable": (0, 1),
    "npu_env_hccl_whitelist_disable": (0, 1),
}
LOG_LEVELS = ("debug", "info", "warning", "error")


def _text(value):
    """A value as Jinja's string filter shows it."""
    return str(value)


def settings_problems(settings):
    """Problems of the settings alone (no node facts), each naming the variable."""
    problems = []
    for name in sorted(RANGES):
        if name not in settings:
            continue
        value, (low, high) = settings[name], RANGES[name]
        if isinstance(value, bool) or not re.fullmatch(r"[0-9]+", _text(value)) or not low <= int(_text(value)) <= high:
            problems.append(f"{name} {_text(value)} is not an integer from {low} to {high}")
    level = settings.get("npu_env_device_log_level") or ""
    if len(level) > 0 and level not in LOG_LEVELS:
        problems.append(f"npu_env_device_log_level {level} is not one of {', '.join(LOG_LEVELS)} (or empty)")
    for name in list(settings.get("npu_env_extra") or {}):
        if not ENV_NAME.fullmatch(str(name)):
            problems.append(f"npu_env_extra: {name} is not an environment variable name")
    return problems


def node_problems(settings, node):
    """Every problem of the settings on one node, in the order the role reports them.

    node: npu, gpu (what the node gets), addresses (its IPv4 addresses), interfaces (sorted
    names), host_ip, host_ifname (the interface holding host_ip, '' when none), layout (the CANN
    layout found, {} when none), layouts ({name: {set_env: [...], root}}), layout_order.
    """
    problems = settings_problems(settings)
    interfaces = list(node.get("interfaces") or [])
    shown = ", ".join(interfaces)
    if node.get("npu"):
        address = settings.get("npu_env_hccl_if_ip")
        addresses = list(node.get("addresses") or [])
        if address not in addresses:
            problems.append(f"npu_env_hccl_if_ip {address} (HCCL_IF_IP, default ansible_host) is not an address "
                            f"of this node; its addresses: {', '.join(addresses)}")
        layout, layouts, order = settings.get("npu_env_cann_layout"), node.get("layouts") or {}, \
            list(node.get("layout_order") or [])
        if layout != "auto" and layout not in layouts:
            problems.append(f"npu_env_cann_layout {layout} is not auto or one of {', '.join(order)}")
        elif not node.get("layout"):
            tried = [layouts[name] for name in (order if layout == "auto" else [layout])]
            set_env = [path for entry in tried for path in entry["set_env"]]
            problems.append(f"no CANN installation under {settings.get('npu_env_install_path')} (npu_env_install_path):"
                            f" looked for {', '.join(set_env)} and the directories "
                            f"{', '.join(entry['root'] for entry in tried)}")
    if node.get("gpu") and len(settings.get("npu_env_nccl_socket_ifname") or "") == 0 \
            and not node.get("host_ifname"):
        problems.append(f"no interface of this node holds its host IP {node.get('host_ip')} (ansible_host), so "
                        f"NCCL_SOCKET_IFNAME cannot be chosen; set npu_env_nccl_socket_ifname (interfaces: {shown})")
    named = ([("npu_env_hccl_socket_ifname", settings.get("npu_env_hccl_socket_ifname") or "")] if node.get("npu")
             else []) + ([("npu_env_nccl_socket_ifname", settings.get("npu_env_nccl_socket_ifname") or "")]
                         if node.get("gpu") else [])
    for name, value in named:
        if len(value) == 0:
            continue
        exclude, exact, names = socket_ifname.parse(value)
        for ifname in names:
            if not socket_ifname.NAME.fullmatch(ifname):
                problems.append(f"{name} {value}: {ifname or 'an empty name'} is not an interface name")
            elif exclude:
                continue
            elif exact and ifname not in interfaces:
                problems.append(f"{name} {value}: interface {ifname} does not exist on this node "
                                f"(interfaces: {shown})")
            elif not exact and not any(socket_ifname.matches(ifname, device, False) for device in interfaces):
                problems.append(f"{name} {value}: no interface of this node starts with {ifname} "
                                f"(interfaces: {shown})")
    return problems
