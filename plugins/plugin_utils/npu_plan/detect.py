"""The addresses each NPU device runs its health checks (hccn_tool -netdetect) against."""

from collections.abc import Mapping

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.npu_plan.ipv4 import (
    parse_ipv4, parse_netmask, prefix_mask,
)
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.npu_plan.rules import (
    MODEL_RULES, PlanError, unknown_model_message,
)


def detect_targets(plan, model, host, device, peers=None):
    """Return the addresses device ``device`` of ``host`` should run health checks against.

    The entry's own ``detect`` wins. Otherwise an A2 device with a gateway checks the
    gateway; every other device checks the same-numbered device of each other server in
    its subnet, in plan order (the peer test of Ascend's PyTorch multi-node training guide: for
    atlas800 that is every peer), or of the servers in ``peers`` only (a large cluster's sample).
    """
    rules = MODEL_RULES.get(model)
    if rules is None:
        raise PlanError(unknown_model_message(model))
    entry = _find_entry(plan, host, device)
    if entry.get("detect"):
        return [entry["detect"]]
    if rules == "single_subnet" and entry.get("gateway"):
        return [entry["gateway"]]
    value = parse_ipv4(entry.get("address"))
    prefix = parse_netmask(entry.get("netmask"))
    if value is None or prefix is None:
        raise PlanError(
            f"{host}: device {device}: address {entry.get('address')} / netmask {entry.get('netmask')} is not usable"
        )
    mask = prefix_mask(prefix)
    targets = []
    for peer, entries in plan.items():
        if peer == host or not isinstance(entries, (list, tuple)) or (peers is not None and peer not in peers):
            continue
        for peer_entry in entries:
            if isinstance(peer_entry, Mapping) and peer_entry.get("device") == device:
                peer_value = parse_ipv4(peer_entry.get("address"))
                if peer_value is not None and peer_value & mask == value & mask:
                    targets.append(peer_entry["address"])
    return targets


def host_detect_targets(plan, model, host, peers=None):
    """Return {device: detect targets} for every device of ``host`` (see detect_targets)."""
    entries = _host_entries(plan, host)
    return {
        entry["device"]: detect_targets(plan, model, host, entry["device"], peers)
        for entry in entries
        if isinstance(entry, Mapping) and "device" in entry
    }


def _host_entries(plan, host):
    if not isinstance(plan, Mapping) or host not in plan:
        raise PlanError(f"{host}: not in the device plan")
    entries = plan[host]
    if not isinstance(entries, (list, tuple)):
        raise PlanError(f"{host}: the device list must be a list, not {type(entries).__name__}")
    return entries


def _find_entry(plan, host, device):
    for entry in _host_entries(plan, host):
        if isinstance(entry, Mapping) and entry.get("device") == device:
            return entry
    raise PlanError(f"{host}: device {device} is not in the device plan")

