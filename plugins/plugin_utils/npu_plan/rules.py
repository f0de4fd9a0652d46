"""The hardware models of the NPU device plans, their rules, and validate_plan, which checks any plan
(generated or hand-written) against them; the rules are described in plugins/plugin_utils/npu_plan/plan.py."""

import collections
from collections.abc import Mapping

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.npu_plan.ipv4 import (
    ALL_ONES, cidr, format_ipv4, is_unicast, netmask_problem, parse_ipv4, prefix_mask,
)

ATLAS800 = "atlas800"
# Model name -> which family of subnet rules applies.
MODEL_RULES = {
    ATLAS800: "paired",
    "atlas800t_a2": "single_subnet",
    "atlas900_a2_pod": "single_subnet",
}
KNOWN_MODELS = tuple(MODEL_RULES)
SUPPORTED_DEVICE_COUNTS = (1, 2, 4, 8)
DEFAULT_DEVICE_COUNT = 8
# An atlas800 server spreads its devices over 4 subnets; device i and i + 4 share one.
ATLAS800_POSITIONS = 4

# The keys of a device entry, and the host variables giving a host's hardware.
DEVICE_KEYS = ("device", "address", "netmask", "gateway", "detect")
MODEL_VAR = "npu_model"
DEVICE_COUNT_VAR = "npu_device_count"


class PlanError(ValueError):
    """Malformed plan settings or input; ``problems`` lists every problem found."""

    def __init__(self, problems):
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        super().__init__("; ".join(self.problems))


# A well-formed device entry, reduced to what the cross-device rules compare.
_Device = collections.namedtuple("_Device", "address value prefix network gateway")


def _subnet(device):
    return (device.network, device.prefix)


def _subnet_text(device):
    return cidr(device.network, device.prefix)


def validate_plan(plan, model, device_counts=DEFAULT_DEVICE_COUNT):
    """Check a plan (generated or hand-written) against every rule; return all violations.

    ``device_counts`` is one int for every host or a mapping host -> int. Returns a list
    of messages ``"<host>: device <i>: <what is wrong> [<rule>]"``, empty if the plan is
    good. Runs in linear time: 1024 devices take a few milliseconds.
    """
    if not isinstance(plan, Mapping):
        return [f"the plan must be a mapping of host to device list, not {type(plan).__name__}"]
    problems = []
    rules = MODEL_RULES.get(model)
    if rules is None:
        problems.append(unknown_model_message(model))
    devices_by_host = {}
    for host, entries in plan.items():
        count = _host_device_count(host, device_counts, problems)
        devices_by_host[host] = _check_host_entries(host, entries, count, problems)
    _check_unique_addresses(devices_by_host, problems)
    if rules == "paired":
        _check_atlas800(devices_by_host, problems)
    elif rules == "single_subnet":
        _check_single_subnet(devices_by_host, problems)
    return problems


def unknown_model_message(model):
    return f"unknown hardware model {model!r} (known: {', '.join(KNOWN_MODELS)}) [model]"


def device_count_problem(host, count):
    """Return the message for a bad device count, or None if it is usable."""
    if count is None:
        return f"{host}: no device count ({DEVICE_COUNT_VAR}) given [device-count]"
    if isinstance(count, bool) or not isinstance(count, int):
        return f"{host}: {DEVICE_COUNT_VAR} {count!r} is not an integer [device-count]"
    if count not in SUPPORTED_DEVICE_COUNTS:
        supported = ", ".join(map(str, SUPPORTED_DEVICE_COUNTS))
        return f"{host}: {DEVICE_COUNT_VAR} {count} is not one of {supported} [device-count]"
    return None


def count_for(host, device_counts):
    return device_counts.get(host) if isinstance(device_counts, Mapping) else device_counts


def _host_device_count(host, device_counts, problems):
    """Return the host's device count, or None (after reporting why) if it is unusable."""
    count = count_for(host, device_counts)
    problem = device_count_problem(host, count)
    if problem:
        problems.append(problem)
        return None
    return count


def _check_host_entries(host, entries, count, problems):
    """Check one host's entries one by one; return its well-formed devices by index."""
    devices = {}
    if not isinstance(entries, (list, tuple)):
        problems.append(f"{host}: the device list must be a list, not {type(entries).__name__} [entry]")
        return devices
    # Without a usable count, still catch indexes no supported server has.
    limit = count if count is not None else max(SUPPORTED_DEVICE_COUNTS)
    listed = set()
    for position, entry in enumerate(entries):
        index, device = _check_entry(host, position, entry, limit, listed, problems)
        if device is not None:
            devices[index] = device
    if count is not None:
        missing = [index for index in range(count) if index not in listed]
        if missing:
            problems.append(
                f"{host}: device {', '.join(map(str, missing))} missing: {DEVICE_COUNT_VAR} is "
                f"{count} but the plan lists {len(listed)} of devices 0..{count - 1} [missing-device]"
            )
    return devices


def _check_entry(host, position, entry, limit, listed, problems):
    """Check one device entry; return (index, _Device), with None for an unusable device."""
    if not isinstance(entry, Mapping):
        problems.append(
            f"{host}: entry {position} must be a mapping with device, address and netmask, "
            f"not {entry!r} [entry]"
        )
        return None, None
    unknown = sorted(str(key) for key in entry if key not in DEVICE_KEYS)
    if unknown:
        problems.append(
            f"{host}: entry {position}: unknown key {', '.join(unknown)} "
            f"(known: {', '.join(DEVICE_KEYS)}) [entry]"
        )
    index = entry.get("device")
    if isinstance(index, bool) or not isinstance(index, int):
        problems.append(
            f"{host}: entry {position}: device {index!r} (address {entry.get('address')}) "
            f"is not an integer device index [device-index]"
        )
        return None, None
    where = f"{host}: device {index}"
    address = entry.get("address")
    if index in listed:
        problems.append(
            f"{where}: address {address}: device {index} is listed more than once [duplicate-device]"
        )
        return index, None
    in_range = 0 <= index < limit
    if in_range:
        listed.add(index)
    else:
        problems.append(
            f"{where}: address {address}: device index {index} is outside 0..{limit - 1} [device-index]"
        )
    device = _check_addresses(where, entry, problems)
    return index, device if in_range else None


def _check_addresses(where, entry, problems):
    """Check address, netmask, gateway and detect of one entry; return a _Device or None."""
    address = entry.get("address")
    netmask = entry.get("netmask")
    value = parse_ipv4(address)
    prefix, problem = netmask_problem(netmask, f"{where}: address {address}: netmask")
    if address is None:
        problems.append(f"{where}: no address [entry]")
    elif value is None:
        problems.append(f"{where}: address {address} is not a valid dotted IPv4 address [ipv4]")
    if netmask is None:
        problems.append(f"{where}: address {address}: no netmask [entry]")
    elif problem:
        problems.append(problem + " [netmask]")
    gateway = _check_optional_address(where, entry, "gateway", problems)
    detect = _check_optional_address(where, entry, "detect", problems)
    if value is None:
        return None
    if detect == value:
        problems.append(f"{where}: detect address {address} is the device's own address [detect]")
    if not is_unicast(value):
        problems.append(f"{where}: address {address} is not a usable unicast address [host-address]")
    if prefix is None:
        return None
    network = value & prefix_mask(prefix)
    broadcast = network | (~prefix_mask(prefix) & ALL_ONES)
    subnet = cidr(network, prefix)
    if value == network:
        problems.append(f"{where}: address {address} is the network address of {subnet} [host-address]")
    elif value == broadcast:
        problems.append(f"{where}: address {address} is the broadcast address of {subnet} [host-address]")
    if gateway is not None:
        gateway_text = entry["gateway"]
        if gateway & prefix_mask(prefix) != network:
            problems.append(
                f"{where}: address {address}: gateway {gateway_text} is outside the device's subnet {subnet} [gateway]"
            )
        elif gateway in (network, broadcast):
            problems.append(
                f"{where}: address {address}: gateway {gateway_text} is the network or broadcast address "
                f"of {subnet} [gateway]"
            )
    return _Device(address, value, prefix, network, gateway)


def _check_optional_address(where, entry, key, problems):
    """Return the int value of an optional gateway/detect address, None if absent or bad."""
    text = entry.get(key)
    if text is None:
        return None
    value = parse_ipv4(text)
    if value is None:
        problems.append(
            f"{where}: address {entry.get('address')}: {key} {text} is not a valid dotted IPv4 address [ipv4]"
        )
    return value


def _check_unique_addresses(devices_by_host, problems):
    """No address twice in the plan; no gateway equal to any device's address."""
    holders = {}
    for host, devices in devices_by_host.items():
        for index in sorted(devices):
            holder = holders.setdefault(devices[index].value, (host, index))
            if holder != (host, index):
                problems.append(
                    f"{host}: device {index}: address {devices[index].address} is also used by "
                    f"{holder[0]} device {holder[1]}; no IP may be used twice [unique-ip]"
                )
    for host, devices in devices_by_host.items():
        for index in sorted(devices):
            device = devices[index]
            holder = holders.get(device.gateway)
            if holder is not None:
                problems.append(
                    f"{host}: device {index}: address {device.address}: gateway {format_ipv4(device.gateway)} "
                    f"is the address of {holder[0]} device {holder[1]}; a gateway must not be a device address [gateway]"
                )


def _check_atlas800(devices_by_host, problems):
    """Pair, position and cross-server subnet rules of Atlas 800 / Atlas 900 SMP servers."""
    # device index -> subnet -> [(host, _Device)], for the cross-server rule
    holders_by_index = {}
    for host, devices in devices_by_host.items():
        for low in range(ATLAS800_POSITIONS):
            high = low + ATLAS800_POSITIONS
            if low in devices and high in devices and _subnet(devices[low]) != _subnet(devices[high]):
                problems.append(
                    f"{host}: device {high}: address {devices[high].address} is in {_subnet_text(devices[high])}, "
                    f"but device {low} ({devices[low].address}) is in {_subnet_text(devices[low])}; "
                    f"devices 0&4, 1&5, 2&6, 3&7 must share a subnet [pair-subnet]"
                )
        for half in (range(0, ATLAS800_POSITIONS), range(ATLAS800_POSITIONS, 2 * ATLAS800_POSITIONS)):
            holder_by_subnet = {}
            for index in half:
                if index not in devices:
                    continue
                holder = holder_by_subnet.setdefault(_subnet(devices[index]), index)
                if holder != index:
                    problems.append(
                        f"{host}: device {index}: address {devices[index].address} is in "
                        f"{_subnet_text(devices[index])}, the subnet of device {holder} "
                        f"({devices[holder].address}); devices {half[0]}-{half[-1]} must be in "
                        f"different subnets [position-subnets]"
                    )
        for index in sorted(devices):
            subnets = holders_by_index.setdefault(index, {})
            subnets.setdefault(_subnet(devices[index]), []).append((host, devices[index]))
    for index, subnets in sorted(holders_by_index.items()):
        # Blame the servers outside the subnet most servers use (the first one on a tie).
        majority = max(subnets.values(), key=len)
        reference_host, reference = majority[0]
        for holders in subnets.values():
            if holders is majority:
                continue
            for host, device in holders:
                problems.append(
                    f"{host}: device {index}: address {device.address} is in {_subnet_text(device)}, but "
                    f"{reference_host} device {index} ({reference.address}) is in {_subnet_text(reference)}; "
                    f"device {index} of every server must be in the same subnet [cross-server-subnet]"
                )


def _check_single_subnet(devices_by_host, problems):
    """A2 models: every port of a node in the subnet of its lowest device."""
    for host, devices in devices_by_host.items():
        if not devices:
            continue
        first_index = min(devices)
        first = devices[first_index]
        for index in sorted(devices):
            device = devices[index]
            if _subnet(device) != _subnet(first):
                problems.append(
                    f"{host}: device {index}: address {device.address} is in {_subnet_text(device)}, but "
                    f"device {first_index} ({first.address}) is in {_subnet_text(first)}; "
                    f"all ports of a node must be in one subnet [single-subnet]"
                )

