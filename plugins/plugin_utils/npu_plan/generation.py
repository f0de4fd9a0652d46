"""Generation of NPU device plans from the compact settings (npu_network_<name> without the prefix,
described in plugins/plugin_utils/npu_plan/plan.py)."""

import collections
import copy
from collections.abc import Mapping

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.npu_plan.ipv4 import (
    ALL_ONES, cidr, format_ipv4, is_unicast, netmask_problem, parse_ipv4, prefix_mask,
)
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.npu_plan.rules import (
    ATLAS800_POSITIONS, DEFAULT_DEVICE_COUNT, MODEL_RULES, PlanError, count_for, device_count_problem,
    unknown_model_message,
)

# The compact settings: inventory variables npu_network_<name>.
DEFAULT_HOST_STEP = 10
INVENTORY_PREFIX = "npu_network_"
SETTING_NAMES = ("base", "netmask", "host_start", "host_step", "gateway", "detect", "plan")

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
        raise PlanError(unknown_model_message(model))
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
        count = count_for(host, device_counts)
        problem = device_count_problem(host, count)
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
    prefix, problem = netmask_problem(netmask, f"{INVENTORY_PREFIX}netmask")
    if netmask is None:
        problems.append(f"{INVENTORY_PREFIX}netmask is required")
    elif problem:
        problems.append(problem)
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
        subnet = cidr(network, prefix)
        if gateway & prefix_mask(prefix) != network:
            problems.append(
                f"{INVENTORY_PREFIX}gateway {settings['gateway']} is outside the device subnet {subnet}"
            )
        elif gateway in (network, network | (~prefix_mask(prefix) & ALL_ONES)):
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
        elif not is_unicast(value):
            problems.append(f"{name} {text} is not a usable unicast network")
        elif prefix is not None and value & prefix_mask(prefix) != value:
            problems.append(
                f"{name} {text} is not a network address for the netmask "
                f"(did you mean {format_ipv4(value & prefix_mask(prefix))}?)"
            )
        else:
            values.append(value)
    if prefix is None or len(values) != len(texts):
        return None
    if len(values) == 1 and positions > 1:
        block = 1 << (32 - prefix)
        values = [values[0] + position * block for position in range(positions)]
        if values[-1] > ALL_ONES or not is_unicast(values[-1]):
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
                    f"the last host number {last_host_number} of {cidr(network, layout.prefix)}; "
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

