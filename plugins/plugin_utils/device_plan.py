"""NPU device IP plans: generate them from compact settings, validate any plan.

Plan structure
--------------
A plan maps each inventory host, in inventory order, to the list of its NPU devices::

    {"node1": [{"device": 0, "address": "192.168.100.101", "netmask": "255.255.255.0"},
               ...],
     "node2": [...]}

Each device entry has ``device`` (int, 0..device_count-1), ``address`` and ``netmask``
(dotted IPv4) and optionally ``gateway`` and ``detect`` (dotted IPv4; ``detect`` is the
address ``hccn_tool -netdetect -s`` measures health against).

Hardware models and their rules
-------------------------------
``atlas800`` (Atlas 800 training server / Atlas 900, SMP mode)
    devices 0&4, 1&5, 2&6, 3&7 share a subnet [pair-subnet]; devices 0-3 are in
    different subnets, and so are 4-7 [position-subnets]; device i of every server is in
    the subnet of device i of the other servers [cross-server-subnet]. With 4 devices
    that means four different subnets; with 1 or 2 devices each device has its own subnet.
``atlas800t_a2``, ``atlas900_a2_pod`` (Atlas 800T A2 / Atlas 900 A2 PoD)
    all ports of a node in one subnet [single-subnet].

Every model: addresses are valid dotted IPv4 [ipv4] and usable host addresses, not the
network or broadcast address of their subnet [host-address]; netmasks are contiguous,
/8 to /30 [netmask]; device indexes lie in 0..device_count-1 [device-index], each listed
once [duplicate-device], none missing [missing-device]; device counts are 1, 2, 4 or 8
[device-count]; no address is used twice in the plan [unique-ip]; a gateway lies in its
device's subnet and is no device's address [gateway]; a detect address is not the
device's own [detect]. Distinct addresses in a /24 (the usual mask) differ in the last
octet, so the "last octets differ within a subnet" rule follows from [unique-ip].
Every violation message names host, device, address and the rule tag in brackets.

Compact settings
----------------
Inventory variables ``npu_network_<name>``; the API takes them without the prefix:

``base``        network address of device 0's subnet. atlas800 puts positions 0-3 in
                consecutive subnets of the netmask's size (192.168.100.0/24 ..
                192.168.103.0/24); atlas800 also accepts a list of one network per position.
``netmask``     netmask of every device subnet, e.g. 255.255.255.0.
``host_start``  host number (offset inside the subnet; the last octet for a /24) of server 0.
``host_step``   host numbers between consecutive servers; default 10.
``gateway``     A2 models only: the nodes' gateway, inside the subnet.
``detect``      A2 models only: the detect address; defaults to the gateway.
``plan``        hand-written device lists, {host: [device entries]}; those hosts are taken
                as written (check them with validate_plan), the others are generated.

Server s is the host's position in the host list. It gets:

* atlas800: device i in the subnet of position i % 4, host number
  ``host_start + s * host_step + 1`` for devices 0-3 and ``host_start + s * host_step``
  for devices 4-7 (the layout of Ascend's PyTorch multi-node training guide; the same for 1,
  2 and 4 devices).
* A2 models: device i in the base subnet, host number ``host_start + s * host_step + i``.

Three inventory lines give the two-server table of Ascend's PyTorch multi-node training guide
(server 0: 192.168.100-103.101 for devices 0-3 and .100 for devices 4-7; server 1: .111 and
.110)::

    npu_network_base: 192.168.100.0
    npu_network_netmask: 255.255.255.0
    npu_network_host_start: 100
"""

import collections
import copy
import functools
from collections.abc import Mapping

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
DEFAULT_HOST_STEP = 10
# An atlas800 server spreads its devices over 4 subnets; device i and i + 4 share one.
ATLAS800_POSITIONS = 4

INVENTORY_PREFIX = "npu_network_"
SETTING_NAMES = ("base", "netmask", "host_start", "host_step", "gateway", "detect", "plan")
DEVICE_KEYS = ("device", "address", "netmask", "gateway", "detect")
MODEL_VAR = "npu_model"
DEVICE_COUNT_VAR = "npu_device_count"

MIN_PREFIX = 8
MAX_PREFIX = 30  # /31 and /32 leave no room for a network of devices
ALL_ONES = 0xFFFFFFFF


class PlanError(ValueError):
    """Malformed plan settings or input; ``problems`` lists every problem found."""

    def __init__(self, problems):
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        super().__init__("; ".join(self.problems))


# A well-formed device entry, reduced to what the cross-device rules compare.
_Device = collections.namedtuple("_Device", "address value prefix network gateway")


# --- IPv4 arithmetic -------------------------------------------------------------------


def parse_ipv4(text):
    """Return dotted IPv4 ``text`` as an int, or None if it is not one.

    Strict: four decimal octets 0..255 without leading zeros (which some tools read as
    octal). Plain string work, because ipaddress is slow for thousands of addresses.
    """
    if not isinstance(text, str):
        return None
    parts = text.split(".")
    if len(parts) != 4:
        return None
    value = 0
    for part in parts:
        if not (part.isascii() and part.isdigit()) or len(part) > 3:
            return None
        if len(part) > 1 and part[0] == "0":
            return None
        octet = int(part)
        if octet > 255:
            return None
        value = value << 8 | octet
    return value


def format_ipv4(value):
    """Return the int ``value`` as dotted IPv4 text."""
    return f"{value >> 24}.{value >> 16 & 255}.{value >> 8 & 255}.{value & 255}"


def parse_netmask(text):
    """Return the prefix length of a contiguous dotted netmask /8../30, or None."""
    return _netmask_prefix(text) if isinstance(text, str) else None


@functools.lru_cache(maxsize=64)
def _netmask_prefix(text):
    # A plan repeats a handful of netmasks a thousand times: parse each once.
    value = parse_ipv4(text)
    if value is None:
        return None
    host_bits = ~value & ALL_ONES
    if host_bits & (host_bits + 1):  # ones not contiguous from the left
        return None
    prefix = 32 - host_bits.bit_length()
    return prefix if MIN_PREFIX <= prefix <= MAX_PREFIX else None


def _mask(prefix):
    return ALL_ONES << (32 - prefix) & ALL_ONES


def _cidr(network, prefix):
    return f"{format_ipv4(network)}/{prefix}"


def _is_unicast(value):
    """False for 0.0.0.0/8, loopback and multicast/reserved addresses."""
    first_octet = value >> 24
    return first_octet not in (0, 127) and first_octet < 224


def _subnet(device):
    return (device.network, device.prefix)


def _subnet_text(device):
    return _cidr(device.network, device.prefix)


# --- validation ------------------------------------------------------------------------


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
        problems.append(_unknown_model_message(model))
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


def _unknown_model_message(model):
    return f"unknown hardware model {model!r} (known: {', '.join(KNOWN_MODELS)}) [model]"


def _device_count_problem(host, count):
    """Return the message for a bad device count, or None if it is usable."""
    if count is None:
        return f"{host}: no device count ({DEVICE_COUNT_VAR}) given [device-count]"
    if isinstance(count, bool) or not isinstance(count, int):
        return f"{host}: {DEVICE_COUNT_VAR} {count!r} is not an integer [device-count]"
    if count not in SUPPORTED_DEVICE_COUNTS:
        supported = ", ".join(map(str, SUPPORTED_DEVICE_COUNTS))
        return f"{host}: {DEVICE_COUNT_VAR} {count} is not one of {supported} [device-count]"
    return None


def _count_for(host, device_counts):
    return device_counts.get(host) if isinstance(device_counts, Mapping) else device_counts


def _host_device_count(host, device_counts, problems):
    """Return the host's device count, or None (after reporting why) if it is unusable."""
    count = _count_for(host, device_counts)
    problem = _device_count_problem(host, count)
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
    prefix = parse_netmask(netmask)
    if address is None:
        problems.append(f"{where}: no address [entry]")
    elif value is None:
        problems.append(f"{where}: address {address} is not a valid dotted IPv4 address [ipv4]")
    if netmask is None:
        problems.append(f"{where}: address {address}: no netmask [entry]")
    elif prefix is None:
        problems.append(
            f"{where}: address {address}: netmask {netmask} is not a valid contiguous netmask "
            f"from 255.0.0.0 to 255.255.255.252 [netmask]"
        )
    gateway = _check_optional_address(where, entry, "gateway", problems)
    detect = _check_optional_address(where, entry, "detect", problems)
    if value is None:
        return None
    if detect == value:
        problems.append(f"{where}: detect address {address} is the device's own address [detect]")
    if not _is_unicast(value):
        problems.append(f"{where}: address {address} is not a usable unicast address [host-address]")
    if prefix is None:
        return None
    network = value & _mask(prefix)
    broadcast = network | (~_mask(prefix) & ALL_ONES)
    subnet = _cidr(network, prefix)
    if value == network:
        problems.append(f"{where}: address {address} is the network address of {subnet} [host-address]")
    elif value == broadcast:
        problems.append(f"{where}: address {address} is the broadcast address of {subnet} [host-address]")
    if gateway is not None:
        gateway_text = entry["gateway"]
        if gateway & _mask(prefix) != network:
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


# --- generation ------------------------------------------------------------------------

# Generation parameters read from the compact settings.
_Layout = collections.namedtuple("_Layout", "networks netmask prefix host_start host_step gateway detect")


def generate_plan(hosts, model, settings, device_counts=DEFAULT_DEVICE_COUNT):
    """Return the plan {host: [device entries]} for ``hosts`` (in that order).

    ``settings`` holds the compact settings described in the module docstring, without
    the ``npu_network_`` prefix; ``device_counts`` is one int or a mapping host -> int.
    Hosts listed in ``settings["plan"]`` get a copy of their hand-written list; the
    others are generated from their position in ``hosts``. Raises PlanError listing every
    problem with the input. Generated entries satisfy validate_plan by construction; run
    validate_plan when the plan includes hand-written lists.
    """
    rules = MODEL_RULES.get(model)
    if rules is None:
        raise PlanError(_unknown_model_message(model))
    hosts = _check_hosts(hosts)
    problems = []
    if not isinstance(settings, Mapping):
        raise PlanError(f"plan settings must be a mapping, not {type(settings).__name__}")
    unknown = sorted(str(name) for name in settings if name not in SETTING_NAMES)
    if unknown:
        known = ", ".join(INVENTORY_PREFIX + name for name in SETTING_NAMES)
        problems.append(f"unknown setting {', '.join(unknown)} (known: {known})")
    explicit = _explicit_lists(settings.get("plan"), hosts, problems)
    servers = [(server, host) for server, host in enumerate(hosts) if host not in explicit]
    counts = {}
    for _server, host in servers:
        count = _count_for(host, device_counts)
        problem = _device_count_problem(host, count)
        if problem:
            problems.append(problem)
        else:
            counts[host] = count
    layout = None
    if servers:
        layout = _read_layout(rules, settings, problems)
    if layout is not None and len(counts) == len(servers):
        _check_layout_fits(rules, layout, servers, counts, problems)
    if problems:
        raise PlanError(problems)
    plan = {}
    for server, host in enumerate(hosts):
        if host in explicit:
            plan[host] = copy.deepcopy(explicit[host])
        else:
            plan[host] = [_generated_entry(rules, layout, server, index) for index in range(counts[host])]
    return plan


def _check_hosts(hosts):
    """Return hosts as a list of unique host names; raise PlanError otherwise."""
    if isinstance(hosts, (str, Mapping)) or not hasattr(hosts, "__iter__"):
        raise PlanError(f"hosts must be a list of host names, not {type(hosts).__name__}")
    hosts = list(hosts)
    problems = []
    seen = set()
    for host in hosts:
        if not isinstance(host, str):
            problems.append(f"host name {host!r} is not a string")
        elif host in seen:
            problems.append(f"{host}: listed more than once in the hosts")
        else:
            seen.add(host)
    if problems:
        raise PlanError(problems)
    return hosts


def _explicit_lists(plan, hosts, problems):
    """Return the hand-written {host: device list} part of the settings."""
    if plan is None:
        return {}
    if not isinstance(plan, Mapping):
        problems.append(
            f"{INVENTORY_PREFIX}plan must be a mapping of host to device list, not {type(plan).__name__}"
        )
        return {}
    known = set(hosts)
    strangers = [str(host) for host in plan if host not in known]
    if strangers:
        problems.append(
            f"{INVENTORY_PREFIX}plan names hosts that are not in the host list: {', '.join(strangers)}"
        )
    return {host: entries for host, entries in plan.items() if host in known}


def _int_setting(settings, name, default, minimum, problems):
    value = settings.get(name, default)
    if value is None:
        problems.append(f"{INVENTORY_PREFIX}{name} is required")
    elif isinstance(value, bool) or not isinstance(value, int):
        problems.append(f"{INVENTORY_PREFIX}{name} {value!r} is not an integer")
    elif value < minimum:
        problems.append(f"{INVENTORY_PREFIX}{name} {value} must be at least {minimum}")
    else:
        return value
    return None


def _address_setting(settings, name, problems):
    text = settings.get(name)
    if text is None:
        return None
    value = parse_ipv4(text)
    if value is None:
        problems.append(f"{INVENTORY_PREFIX}{name} {text} is not a valid dotted IPv4 address")
    return value


def _read_layout(rules, settings, problems):
    """Read and check the compact settings; return a _Layout, or None after reporting."""
    before = len(problems)
    netmask = settings.get("netmask")
    prefix = parse_netmask(netmask)
    if netmask is None:
        problems.append(f"{INVENTORY_PREFIX}netmask is required")
    elif prefix is None:
        problems.append(
            f"{INVENTORY_PREFIX}netmask {netmask} is not a valid contiguous netmask "
            f"from 255.0.0.0 to 255.255.255.252"
        )
    networks = _read_networks(rules, settings.get("base"), prefix, problems)
    host_start = _int_setting(settings, "host_start", None, 1, problems)
    host_step = _int_setting(settings, "host_step", DEFAULT_HOST_STEP, 1, problems)
    gateway = _address_setting(settings, "gateway", problems)
    _address_setting(settings, "detect", problems)  # only checked: entries carry the text
    if rules == "paired":
        for name in ("gateway", "detect"):
            if settings.get(name) is not None:
                problems.append(
                    f"{INVENTORY_PREFIX}{name} applies to the A2 models only; atlas800 devices "
                    f"check each other (write {INVENTORY_PREFIX}plan for anything else)"
                )
    elif gateway is not None and networks:
        network = networks[0]
        subnet = _cidr(network, prefix)
        if gateway & _mask(prefix) != network:
            problems.append(
                f"{INVENTORY_PREFIX}gateway {settings['gateway']} is outside the device subnet {subnet}"
            )
        elif gateway in (network, network | (~_mask(prefix) & ALL_ONES)):
            problems.append(
                f"{INVENTORY_PREFIX}gateway {settings['gateway']} is the network or broadcast address of {subnet}"
            )
    if len(problems) > before:
        return None
    detect_text = settings.get("detect") or settings.get("gateway")
    return _Layout(networks, netmask, prefix, host_start, host_step, settings.get("gateway"), detect_text)


def _read_networks(rules, base, prefix, problems):
    """Return the network (int) of each device position; report bad base settings."""
    name = INVENTORY_PREFIX + "base"
    if base is None:
        problems.append(f"{name} is required")
        return None
    positions = ATLAS800_POSITIONS if rules == "paired" else 1
    if isinstance(base, (list, tuple)):
        if rules != "paired":
            problems.append(f"{name} must be one network address: all ports of an A2 node share one subnet")
            return None
        if len(base) != positions:
            problems.append(
                f"{name} lists {len(base)} networks; atlas800 needs {positions}, one per device position"
            )
            return None
        texts = list(base)
    else:
        texts = [base]
    values = []
    for text in texts:
        value = parse_ipv4(text)
        if value is None:
            problems.append(f"{name} {text} is not a valid dotted IPv4 address")
        elif not _is_unicast(value):
            problems.append(f"{name} {text} is not a usable unicast network")
        elif prefix is not None and value & _mask(prefix) != value:
            problems.append(
                f"{name} {text} is not a network address for the netmask "
                f"(did you mean {format_ipv4(value & _mask(prefix))}?)"
            )
        else:
            values.append(value)
    if prefix is None or len(values) != len(texts):
        return None
    if len(values) == 1 and positions > 1:
        block = 1 << (32 - prefix)
        values = [values[0] + position * block for position in range(positions)]
        if values[-1] > ALL_ONES or not _is_unicast(values[-1]):
            problems.append(
                f"{name} {base}: {positions} consecutive subnets run into {format_ipv4(values[-1] & ALL_ONES)}, "
                f"which is not a usable unicast network"
            )
            return None
    if len(set(values)) != len(values):
        problems.append(f"{name} lists the same network twice; each device position needs its own subnet")
        return None
    return values


def _host_number(rules, layout, server, index):
    """Offset inside the subnet of device ``index`` on server number ``server``."""
    first = layout.host_start + server * layout.host_step
    if rules == "paired":
        # Ascend's PyTorch multi-node training guide: devices 0-3 one above devices 4-7
        # (.101 / .100 on server 0).
        return first + 1 if index < ATLAS800_POSITIONS else first
    return first + index


def _check_layout_fits(rules, layout, servers, counts, problems):
    """Report a step too small for a server's devices, or host numbers beyond the subnet."""
    if rules == "paired":
        needed = 2 if any(count > ATLAS800_POSITIONS for count in counts.values()) else 1
        why = "each atlas800 server with more than 4 devices uses 2 host numbers per subnet"
    else:
        needed = max(counts.values())
        why = f"each A2 server uses one host number per device, up to {needed}"
    if layout.host_step < needed:
        problems.append(f"{INVENTORY_PREFIX}host_step {layout.host_step} is too small: {why}")
        return
    last_host_number = (1 << (32 - layout.prefix)) - 2
    # A device may not take the gateway's address, nor the detect address (it would check itself).
    reserved = {
        parse_ipv4(text): name
        for name, text in (("detect", layout.detect), ("gateway", layout.gateway))
        if text
    }
    for server, host in servers:
        for index in range(counts[host]):
            number = _host_number(rules, layout, server, index)
            network = layout.networks[index % len(layout.networks)]
            if number > last_host_number:
                problems.append(
                    f"{host}: device {index}: host number {number} ({INVENTORY_PREFIX}host_start "
                    f"{layout.host_start} + {server} x {INVENTORY_PREFIX}host_step {layout.host_step}) is beyond "
                    f"the last host number {last_host_number} of {_cidr(network, layout.prefix)}; "
                    f"use a wider {INVENTORY_PREFIX}netmask or a smaller step"
                )
                return
            name = reserved.get(network + number)
            if name:
                problems.append(
                    f"{host}: device {index}: generated address {format_ipv4(network + number)} is the "
                    f"{INVENTORY_PREFIX}{name}; move the {name} or {INVENTORY_PREFIX}host_start"
                )


def _generated_entry(rules, layout, server, index):
    network = layout.networks[index % len(layout.networks)]
    entry = {
        "device": index,
        "address": format_ipv4(network + _host_number(rules, layout, server, index)),
        "netmask": layout.netmask,
    }
    if layout.gateway:
        entry["gateway"] = layout.gateway
    if layout.detect:
        entry["detect"] = layout.detect
    return entry


# --- detect targets --------------------------------------------------------------------


def detect_targets(plan, model, host, device):
    """Return the addresses device ``device`` of ``host`` should run health checks against.

    The entry's own ``detect`` wins. Otherwise an A2 device with a gateway checks the
    gateway; every other device checks the same-numbered device of each other server in
    its subnet, in plan order (the peer test of Ascend's PyTorch multi-node training guide: for
    atlas800 that is every peer).
    """
    rules = MODEL_RULES.get(model)
    if rules is None:
        raise PlanError(_unknown_model_message(model))
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
    mask = _mask(prefix)
    targets = []
    for peer, entries in plan.items():
        if peer == host or not isinstance(entries, (list, tuple)):
            continue
        for peer_entry in entries:
            if isinstance(peer_entry, Mapping) and peer_entry.get("device") == device:
                peer_value = parse_ipv4(peer_entry.get("address"))
                if peer_value is not None and peer_value & mask == value & mask:
                    targets.append(peer_entry["address"])
    return targets


def host_detect_targets(plan, model, host):
    """Return {device: detect targets} for every device of ``host`` (see detect_targets)."""
    entries = _host_entries(plan, host)
    return {
        entry["device"]: detect_targets(plan, model, host, entry["device"])
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


# --- inventory variables ---------------------------------------------------------------


def hardware_from_hostvars(hosts, hostvars):
    """Return (model, {host: device count}) read from ``npu_model`` / ``npu_device_count``.

    ``hostvars`` is Ansible's hostvars or any mapping host -> mapping of variables. One
    plan covers one hardware model, so hosts must agree on it. Missing device counts are
    left as None for generate_plan/validate_plan to report. Raises PlanError.
    """
    problems = []
    models = {}
    counts = {}
    for host, variables in _host_variables(hosts, hostvars, problems):
        counts[host] = variables.get(DEVICE_COUNT_VAR)
        model = variables.get(MODEL_VAR)
        if model is None:
            problems.append(f"{host}: {MODEL_VAR} is not set (known: {', '.join(KNOWN_MODELS)})")
        else:
            models[host] = model
    if models:
        first_host, first_model = next(iter(models.items()))
        for host, model in models.items():
            if model != first_model:
                problems.append(
                    f"{host}: {MODEL_VAR} is {model} but {first_host} has {first_model}; "
                    f"one plan covers one hardware model"
                )
    if problems:
        raise PlanError(problems)
    return (next(iter(models.values())) if models else None), counts


def settings_from_hostvars(hosts, hostvars):
    """Return the compact settings dict (no prefix) from the ``npu_network_*`` variables.

    Compact settings are cluster-wide, so every host must see the same values (put them
    in group_vars). ``npu_network_plan`` may be a host's own device list (host_vars) or a
    mapping host -> device list (group_vars). Raises PlanError listing every problem.
    """
    problems = []
    settings = {}
    reference_host = None
    explicit = {}
    strangers = set()
    host_list = list(hosts)
    for host, variables in _host_variables(host_list, hostvars, problems):
        unknown = sorted(
            name
            for name in variables
            if isinstance(name, str)
            and name.startswith(INVENTORY_PREFIX)
            and name[len(INVENTORY_PREFIX) :] not in SETTING_NAMES
        )
        if unknown:
            problems.append(f"{host}: unknown variable {', '.join(unknown)}")
        values = {name: variables.get(INVENTORY_PREFIX + name) for name in SETTING_NAMES if name != "plan"}
        if reference_host is None:
            reference_host, settings = host, values
        for name, value in values.items():
            if value != settings[name]:
                problems.append(
                    f"{host}: {INVENTORY_PREFIX}{name} is {_shown(value)} but {reference_host} has "
                    f"{_shown(settings[name])}; compact settings are cluster-wide "
                    f"(write {INVENTORY_PREFIX}plan for per-host addresses)"
                )
        own = variables.get(INVENTORY_PREFIX + "plan")
        if isinstance(own, Mapping):
            strangers.update(str(name) for name in own if name not in host_list)
            if host in own:
                explicit[host] = own[host]
        elif isinstance(own, (list, tuple)):
            explicit[host] = own
        elif own is not None:
            problems.append(
                f"{host}: {INVENTORY_PREFIX}plan must be a device list or a mapping of host to "
                f"device list, not {type(own).__name__}"
            )
    if strangers:
        problems.append(
            f"{INVENTORY_PREFIX}plan names hosts that are not in the host list: {', '.join(sorted(strangers))}"
        )
    if problems:
        raise PlanError(problems)
    settings = {name: value for name, value in settings.items() if value is not None}
    if explicit:
        settings["plan"] = explicit
    return settings


def _shown(value):
    return "not set" if value is None else repr(value)


def _host_variables(hosts, hostvars, problems):
    """Yield (host, variables) for each host found in ``hostvars``; report the others."""
    if isinstance(hosts, (str, Mapping)) or not hasattr(hosts, "__iter__"):
        raise PlanError(f"hosts must be a list of host names, not {type(hosts).__name__}")
    for host in hosts:
        try:
            variables = hostvars[host]
        except (KeyError, TypeError):
            problems.append(f"{host}: no variables for this host (not in the inventory?)")
            continue
        yield host, variables
