# -*- coding: utf-8 -*-
"""The interfaces a job names, checked on a node before the launch (plugins/modules/job_interfaces.py):
mpirun's include list (names or CIDRs), NCCL_SOCKET_IFNAME, HCCL_SOCKET_IFNAME and
GLOO_SOCKET_IFNAME must name interfaces the node has, holding an address on the cluster network
(the network of the node's own address). Plain Python, stdlib only.
"""

import ipaddress
import re

from ansible_collections.cluster_suite.hpc.plugins.module_utils import socket_ifname

# "2: eth0    inet 10.89.0.2/24 brd 10.89.0.255 scope global eth0\       valid_lft ..."
IP_ADDR_LINE = re.compile(r"^\d+:\s+(?P<device>[^\s@]+)(?:@\S+)?\s+inet\s+(?P<cidr>[0-9.]+/\d+)")
PREFIX_VARIABLES = socket_ifname.PREFIX_VARIABLES
EXACT_VARIABLES = ("GLOO_SOCKET_IFNAME",)
VARIABLES = PREFIX_VARIABLES + EXACT_VARIABLES


def parse_ipv4_interfaces(text):
    """[(device, IPv4Interface)] from `ip -o -4 addr show`."""
    found = []
    for line in text.splitlines():
        match = IP_ADDR_LINE.match(line)
        if match:
            try:
                found.append((match.group("device"), ipaddress.IPv4Interface(match.group("cidr"))))
            except ValueError:
                continue
    return found


def cluster_network(ipv4, address):
    """The network of the node's ``address`` (from the interface holding it), or None."""
    return next((item.network for _device, item in ipv4 if str(item.ip) == address), None)


def _on_network(ipv4, device, network):
    return any(name == device and item.ip in network for name, item in ipv4)


def _describe(devices):
    return ", ".join(sorted(devices)) or "none"


def check_if_include(value, devices, ipv4, network, variable="job_mpirun_if_include"):
    """Problems of mpirun's include list ``value`` (names or CIDRs, comma-separated)."""
    problems = []
    for item in [part for part in (value or "").split(",") if part]:
        if "/" in item:
            wanted = ipaddress.IPv4Network(item, strict=False)
            holders = sorted({name for name, addr in ipv4 if addr.ip in wanted and addr.ip in network})
            if not holders:
                problems.append(f"{variable}: no interface here has an address in {item} on the cluster "
                                f"network {network} (addresses: {_addresses(ipv4)})")
        elif item not in devices:
            problems.append(f"{variable}: interface {item} does not exist here "
                            f"(interfaces: {_describe(devices)})")
        elif not _on_network(ipv4, item, network):
            problems.append(f"{variable}: interface {item} has no address on the cluster network {network}")
    return problems


def _addresses(ipv4):
    return ", ".join(f"{name} {item}" for name, item in ipv4) or "none"


def check_ifname(variable, value, devices, ipv4, network, origin):
    """Problems of one *_SOCKET_IFNAME ``value`` (``origin`` says where it is set)."""
    where = f"{variable} ({origin})"
    value = (value or "").strip()
    if not value:
        return []
    exclude, exact_all, names = socket_ifname.parse(value, prefixes=variable in PREFIX_VARIABLES)
    patterns = [part for part in names if part]
    holders = sorted({name for name, item in ipv4 if item.ip in network})
    if exclude:
        left = [name for name in holders if not any(socket_ifname.matches(p, name, exact_all) for p in patterns)]
        return [] if left else [f"{where}: {value} excludes {_describe(holders)}, the interface(s) "
                                f"holding this node's address on the cluster network {network}"]
    problems = []
    for pattern in patterns:
        named = sorted(name for name in devices if socket_ifname.matches(pattern, name, exact_all))
        if not named:
            kind = "interface" if exact_all else "interface name or prefix"
            problems.append(f"{where}: {kind} {pattern} matches no interface here "
                            f"(interfaces: {_describe(devices)})")
        elif not any(_on_network(ipv4, name, network) for name in named):
            problems.append(f"{where}: {pattern} ({_describe(named)}) has no address on the cluster "
                            f"network {network}")
    return problems


def problems(devices, ipv4, address, if_include, settings):
    """Every problem of a node's interfaces for a launch.

    ``devices``: the node's interface names; ``ipv4``: parse_ipv4_interfaces; ``address``: the
    node's cluster address; ``if_include``: mpirun's include list ('' when not mpirun);
    ``settings``: [(variable, value, origin)] of the *_SOCKET_IFNAME variables the job sets.
    """
    network = cluster_network(ipv4, address)
    if network is None:
        return [f"ansible_host: {address} is not an address of this node ({_addresses(ipv4)}), so the "
                f"cluster network is unknown"]
    found = check_if_include(if_include, devices, ipv4, network)
    for variable, value, origin in settings:
        found += check_ifname(variable, value, devices, ipv4, network, origin)
    return found
