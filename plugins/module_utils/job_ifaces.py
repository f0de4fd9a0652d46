# -*- coding: utf-8 -*-
"""One interface per node for every library of a launch (plugins/modules/job_interfaces.py).

The node's interface toward the master comes from its own routing (`ip route get <master>`; on
the master, the interface holding the master's address, never loopback). Every library's
variable is set from it with exact names (NCCL_SOCKET_IFNAME and HCCL_SOCKET_IFNAME ``=eth1``,
GLOO_SOCKET_IFNAME ``eth1``, HCCL_IF_IP its address) unless the job sets it in job_env. What the
job sets, and mpirun's include list (names or CIDRs), must select exactly one interface here,
not loopback, holding an address on the cluster network (the network of the node's own address).
Plain Python, stdlib only.
"""

import ipaddress
import re

from ansible_collections.cluster_suite.hpc.plugins.module_utils import socket_ifname

# "2: eth0    inet 10.89.0.2/24 brd 10.89.0.255 scope global eth0\       valid_lft ..."
IP_ADDR_LINE = re.compile(r"^\d+:\s+(?P<device>[^\s@]+)(?:@\S+)?\s+inet\s+(?P<cidr>[0-9.]+/\d+)")
PREFIX_VARIABLES = socket_ifname.PREFIX_VARIABLES
EXACT_VARIABLES = ("GLOO_SOCKET_IFNAME",)
VARIABLES = PREFIX_VARIABLES + EXACT_VARIABLES
# "10.89.0.2 dev eth0 src 10.89.0.3 uid 1000 \    cache"; the master itself: "local 10.89.0.2 dev lo ..."
ROUTE_DEV = re.compile(r"\bdev\s+(\S+)")
ROUTE_SRC = re.compile(r"\bsrc\s+(\S+)")
LOOPBACK = "lo"


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
    if not problems and value:
        problems += _one_interface(variable, value, _include_selects(value, ipv4, network), network)
    return problems


def _include_selects(value, ipv4, network):
    """The interfaces mpirun's include list selects here (names exactly, CIDRs by address)."""
    found = set()
    for item in [part for part in value.split(",") if part]:
        if "/" in item:
            wanted = ipaddress.IPv4Network(item, strict=False)
            found |= {name for name, addr in ipv4 if addr.ip in wanted}
        else:
            found.add(item)
    return found


def _one_interface(where, value, selected, network):
    """A problem unless ``selected`` is exactly one interface other than loopback."""
    if LOOPBACK in selected:
        return [f"{where}: {value} selects the loopback interface {LOOPBACK}, which no other node reaches"]
    if len(selected) != 1:
        return [f"{where}: {value} selects {len(selected)} interfaces here ({_describe(selected)}); name exactly one "
                f"(the one on the cluster network {network})"]
    return []


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
        if not left:
            return [f"{where}: {value} excludes {_describe(holders)}, the interface(s) "
                    f"holding this node's address on the cluster network {network}"]
        kept = {name for name, _item in ipv4 if not any(socket_ifname.matches(p, name, exact_all) for p in patterns)}
        return _one_interface(where, value, kept, network)
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
    if not problems:
        selected = {name for name in devices for pattern in patterns if socket_ifname.matches(pattern, name, exact_all)}
        problems += _one_interface(where, value, selected, network)
    return problems


def check_if_ip(value, ipv4, network, origin):
    """Problems of HCCL_IF_IP ``value``: an address of one interface here on the cluster network."""
    where = f"HCCL_IF_IP ({origin})"
    holders = {name for name, item in ipv4 if str(item.ip) == value}
    if not holders:
        return [f"{where}: {value} is not an address of this node ({_addresses(ipv4)})"]
    if not any(_on_network(ipv4, name, network) and str(item.ip) == value for name, item in ipv4):
        return [f"{where}: {value} is not on the cluster network {network}"]
    return _one_interface(where, value, holders, network)


def parse_route(text):
    """{"dev", "src", "local"} of `ip -o route get <address>`."""
    dev, src = ROUTE_DEV.search(text or ""), ROUTE_SRC.search(text or "")
    return {"dev": dev.group(1) if dev else "", "src": src.group(1) if src else "",
            "local": (text or "").lstrip().startswith("local")}


def route_choice(route, ipv4, address, master_address):
    """(choice, problems): this node's interface toward the master and its address on the cluster
    network. ``route``: parse_route of `ip route get <master_address>`."""
    network = cluster_network(ipv4, address)
    if route["local"] or route["dev"] == LOOPBACK:
        # The master itself: the kernel answers with loopback; the interface is the one holding
        # the master's address.
        holders = sorted({name for name, item in ipv4 if str(item.ip) == master_address} - {LOOPBACK})
        if not holders:
            return None, [f"job_master_addr: {master_address} is held here only by loopback, which no other "
                          f"node reaches"]
        iface = holders[0]
    else:
        iface = route["dev"]
    how = "local" if route["local"] or route["dev"] == LOOPBACK else f"dev {route['dev']} src {route['src']}"
    on_network = [item for name, item in ipv4 if name == iface and network is not None and item.ip in network]
    if not iface or not on_network:
        return None, [f"the route toward the master {master_address} ({how}) leaves by {iface or 'no interface'}, "
                      f"which holds no address on the cluster network {network} ({_addresses(ipv4)})"]
    held = next((item for item in on_network if str(item.ip) == route["src"]), on_network[0])
    return {"iface": iface, "address": str(held.ip), "network": str(network), "master": master_address,
            "route": how}, []


def library_env(iface, address, npu):
    """Every library's variable for one interface: exact names, and HCCL_IF_IP on NPU nodes."""
    found = {"HCCL_IF_IP": address} if npu and address else {}
    if iface:
        found.update(NCCL_SOCKET_IFNAME="=" + iface, HCCL_SOCKET_IFNAME="=" + iface, GLOO_SOCKET_IFNAME=iface)
    return found


def problems(devices, ipv4, address, if_include, settings):
    """Every problem of the interfaces a job sets on a node.

    ``devices``: the node's interface names; ``ipv4``: parse_ipv4_interfaces; ``address``: the
    node's cluster address; ``if_include``: mpirun's include list ('' when not mpirun);
    ``settings``: [(variable, value, origin)] of the *_SOCKET_IFNAME variables and HCCL_IF_IP the
    job sets.
    """
    network = cluster_network(ipv4, address)
    if network is None:
        return [f"ansible_host: {address} is not an address of this node ({_addresses(ipv4)}), so the "
                f"cluster network is unknown"]
    found = check_if_include(if_include, devices, ipv4, network)
    for variable, value, origin in settings:
        if variable == "HCCL_IF_IP":
            found += check_if_ip(str(value).strip(), ipv4, network, origin)
        else:
            found += check_ifname(variable, value, devices, ipv4, network, origin)
    return found


def plan(devices, ipv4, address, master_address, route_text, if_include, job_env, npu):
    """This node's interface for a launch: {"choice", "env", "set_by_job", "problems"}.

    ``choice``: route_choice's (None when there is none); ``env``: the variables the launch sets
    from it (those the job does not set); ``set_by_job``: {variable: value} of job_env, checked.
    """
    job_env = {name: str(value) for name, value in (job_env or {}).items()
               if name in VARIABLES + ("HCCL_IF_IP",) and value not in (None, "")}
    found = problems(devices, ipv4, address, if_include, [(name, value, "job_env") for name, value in sorted(job_env.items())])
    if found and found[0].startswith("ansible_host:"):
        return {"choice": None, "env": {}, "set_by_job": job_env, "problems": found}
    choice, route_problems = route_choice(parse_route(route_text), ipv4, address, master_address)
    env = library_env(choice["iface"], choice["address"], npu) if choice else {}
    return {"choice": choice, "env": {name: value for name, value in env.items() if name not in job_env},
            "set_by_job": job_env, "problems": route_problems + found}


def plan_lines(results, hosts):
    """The launch plan's network, one line per node, from each node's plan() result."""
    lines = []
    for host, result in zip(hosts, results):
        choice = (result or {}).get("choice") or {}
        route = "the master itself" if choice.get("route") == "local" else f"route {choice.get('route')}"
        line = (f"{host}: interface {choice.get('iface')} ({choice.get('address')} on {choice.get('network')}) "
                f"toward the master {choice.get('master')} ({route})")
        env = (result or {}).get("env") or {}
        if env:
            line += "; sets " + " ".join(f"{name}={value}" for name, value in sorted(env.items()))
        job = (result or {}).get("set_by_job") or {}
        if job:
            line += "; job_env sets " + " ".join(f"{name}={value}" for name, value in sorted(job.items()))
        lines.append(line)
    return lines
