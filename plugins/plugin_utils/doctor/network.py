"""Doctor checks of names and addresses (hostname, etc_hosts, host_ip, interfaces), of the
firewall, and of the master port (master_port_free, master_port_reachable)."""

import ipaddress
import re
from collections import Counter

from ansible_collections.cluster_suite.hpc.plugins.module_utils import socket_ifname
from ansible_collections.cluster_suite.hpc.plugins.module_utils.netdetect import is_ipv4
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.doctor.checks import (
    join_items, node_addresses, not_checked_reason, shorten)



# --- names and addresses ----------------------------------------------------------------------


def check_hostnames(nodes, hosts, results):
    names = {}
    for host in hosts:
        system = nodes[host].get("system")
        if system and system.get("hostname"):
            names[host] = system["hostname"].split(".", 1)[0]
    holders = {}
    for host, name in names.items():
        holders.setdefault(name, []).append(host)
    for host in hosts:
        reason = not_checked_reason(host, nodes[host])
        if host not in names:
            results.set("hostname", host, "warn", reason or "not checked: the host name was not read")
            continue
        name = names[host]
        others = [other for other in holders[name] if other != host]
        if name == "localhost":
            results.set("hostname", host, "fail",
                        "the host name is localhost: give the node its own name (hostnamectl set-hostname)")
        elif others:
            results.set("hostname", host, "fail",
                        "host name '%s' is also the host name of %s: give every node its own "
                        "(hostnamectl set-hostname); mpirun hostfiles and HCCL need unique names" % (
                            name, join_items(others)))
        else:
            results.set("hostname", host, "ok", "host name %s, unique in the cluster" % name)


def _resolve(hosts_file, name):
    """The first address /etc/hosts gives ``name`` (first matching line wins), or None."""
    for address, names in hosts_file:
        if name in names:
            return address
    return None


def _node_names(host, node):
    names = [host, host.split(".", 1)[0]]
    system = node.get("system") or {}
    if system.get("hostname") and system["hostname"] != "localhost":
        names.append(system["hostname"])
    unique = []
    for name in names:
        if name and name not in unique and not is_ipv4(name):
            unique.append(name)
    return unique


def check_etc_hosts(nodes, hosts, results, out_of_service=()):
    """Every node name resolves, in every node's /etc/hosts, to that node's ansible_host; the
    names of a node the node ledger holds out of service may be missing on the others (site.yml
    leaves it out of their /etc/hosts until it returns)."""
    wanted = {}
    for host in hosts:
        address = nodes[host].get("expect", {}).get("ansible_host")
        for name in _node_names(host, nodes[host]):
            # A name two nodes claim is the hostname check's failure, not a wrong /etc/hosts.
            wanted.setdefault(name, (host, address if is_ipv4(address) else None))
    seen = {}
    for host in hosts:
        hosts_file = (nodes[host].get("system") or {}).get("hosts_file")
        if hosts_file is not None:
            seen[host] = {name: _resolve(hosts_file, name) for name in wanted}
    for name, (owner, address) in wanted.items():
        if address is None:
            answers = Counter(found[name] for found in seen.values() if found[name])
            if answers:
                wanted[name] = (owner, answers.most_common(1)[0][0])
    for host in hosts:
        node = nodes[host]
        if host not in seen:
            results.set("etc_hosts", host, "warn",
                        not_checked_reason(host, node) or "not checked: /etc/hosts was not read")
            continue
        manage = node.get("expect", {}).get("manage_hosts_file", True)
        problems = []
        for name, (owner, address) in wanted.items():
            found = seen[host][name]
            if found is None:
                if manage and address and (owner == host or owner not in out_of_service):
                    problems.append("%s is missing (%s's address is %s)" % (name, owner, address))
            elif address and found != address:
                loopback = found.startswith("127.") or found == "::1"
                problems.append("%s -> %s, but %s's address is %s%s" % (
                    name, found, owner, address,
                    " (a loopback address: mpirun and HCCL would announce it to the other nodes)"
                    if loopback else ""))
        if problems:
            results.set("etc_hosts", host, "fail",
                        "/etc/hosts: %s. Fix: run site.yml --tags ssh (role ssh_trust keeps the cluster "
                        "block at the top of /etc/hosts)" % "; ".join(problems))
        else:
            results.set("etc_hosts", host, "ok",
                        "every node name resolves to its ansible_host (%d names)" % len(wanted))


def check_host_ip(nodes, hosts, results):
    for host in hosts:
        node = nodes[host]
        system = node.get("system")
        if not system or system.get("interfaces") is None:
            results.set("host_ip", host, "warn", not_checked_reason(host, node)
                        or "not checked: %s" % (system or {}).get("interfaces_error", "no interface data"))
            continue
        expect = node.get("expect", {})
        address = expect.get("ansible_host")
        mine = node_addresses(system)
        listing = join_items("%s on %s" % (ip, name) for ip, name in mine.items() if not ip.startswith("127."))
        if not is_ipv4(address):
            results.set("host_ip", host, "warn",
                        "ansible_host %s is a name, not the host IP, so it cannot be compared with the "
                        "node's addresses (%s)" % (address, listing))
            continue
        if address not in mine:
            results.set("host_ip", host, "fail",
                        "ansible_host %s is not an address of %s (it has %s): set ansible_host to the "
                        "node's host IP" % (address, host, listing or "none"))
            continue
        cidr = expect.get("cluster_network_cidr")
        try:
            network = ipaddress.IPv4Network(cidr, strict=False) if cidr else None
        except ValueError:
            network = None
        if network is not None:
            if ipaddress.IPv4Address(address) not in network:
                results.set("host_ip", host, "fail",
                            "ansible_host %s is not in cluster_network_cidr %s: training traffic would "
                            "use another network" % (address, cidr))
                continue
        results.set("host_ip", host, "ok", "ansible_host %s is on %s" % (address, mine[address]))


def interface_problems(variable, value, interfaces):
    """Problems of one inventory interface setting against {ifname: {"ipv4": [...]}}.

    NCCL/HCCL/GLOO socket syntax: ``eth`` (prefix), ``=eth0`` (exact), ``^docker`` (exclude,
    not checked), comma-separated. OpenMPI's ``*_if_include``: exact names or CIDRs.
    """
    names = sorted(interfaces)
    listing = join_items(names, 12)
    items = value if isinstance(value, list) else str(value).split(",")
    items = [str(item).strip() for item in items if str(item).strip()]
    problems = []
    openmpi = variable.endswith("if_include") or variable.endswith("if_exclude")
    if not openmpi and items and items[0].startswith("^"):
        return []
    exact = False
    if not openmpi and items and items[0].startswith("="):
        exact = True
        items[0] = items[0][1:]
    for item in items:
        if openmpi and "/" in item:
            try:
                network = ipaddress.IPv4Network(item, strict=False)
            except ValueError:
                problems.append("%s %s: %s is neither an interface name nor a CIDR" % (variable, value, item))
                continue
            if variable.endswith("if_include") and not any(
                    ipaddress.IPv4Address(cidr.split("/", 1)[0]) in network
                    for info in interfaces.values() for cidr in info.get("ipv4") or []):
                problems.append("%s %s: no address of this node is in %s" % (variable, value, item))
            continue
        if not socket_ifname.NAME.fullmatch(item):
            problems.append("%s %s: %r is not an interface name" % (variable, value, item))
        elif openmpi:
            if variable.endswith("if_include") and item not in interfaces:
                problems.append("%s %s: interface %s does not exist here (interfaces: %s)" % (
                    variable, value, item, listing))
        elif exact:
            if item not in interfaces:
                problems.append("%s %s: interface %s does not exist here (interfaces: %s)" % (
                    variable, value, item, listing))
        elif not any(name.startswith(item) for name in names):
            problems.append("%s %s: no interface here starts with %s (interfaces: %s)" % (
                variable, value, item, listing))
    return problems


def check_interfaces(nodes, hosts, results):
    for host in hosts:
        node = nodes[host]
        system = node.get("system")
        if not system or system.get("interfaces") is None:
            results.set("interfaces", host, "warn", not_checked_reason(host, node) or "not checked: no interface data")
            continue
        settings = node.get("expect", {}).get("interfaces") or []
        problems = []
        for variable, value in settings:
            problems += interface_problems(variable, value, system["interfaces"])
        if problems:
            results.set("interfaces", host, "fail",
                        "%s. Fix the variable for %s (host_vars when nodes differ)" % ("; ".join(problems), host))
        elif settings:
            results.set("interfaces", host, "ok", "present: %s" % "; ".join(
                "%s=%s" % (variable, value if not isinstance(value, list) else ",".join(map(str, value)))
                for variable, value in settings))
        else:
            results.set("interfaces", host, "ok", "no interface is named in the inventory for this node")


# --- firewall -------------------------------------------------------------------------------


def _port_allowed(rules, port):
    """Whether an ALLOW rule of `ufw status` covers TCP ``port`` (single port or low:high)."""
    for rule in rules:
        fields = rule.split()
        if len(fields) < 2 or "ALLOW" not in fields:
            continue
        spec = fields[0]
        if "(v6)" in rule:
            continue
        proto = spec.split("/", 1)[1] if "/" in spec else "tcp"
        if proto not in ("tcp", "any"):
            continue
        ports = spec.split("/", 1)[0]
        for part in ports.split(","):
            low, _, high = part.partition(":")
            if low.isdigit() and (high or low).isdigit() and int(low) <= port <= int(high or low):
                return True
    return False


def _firewalld_allows(ports, port):
    for item in ports:
        spec, _, proto = item.partition("/")
        low, _, high = spec.partition("-")
        if proto == "tcp" and low.isdigit() and (high or low).isdigit() and int(low) <= port <= int(high or low):
            return True
    return False


def check_firewall(nodes, hosts, port, results):
    for host in hosts:
        node = nodes[host]
        firewall = (node.get("system") or {}).get("firewall")
        if firewall is None:
            results.set("firewall", host, "warn", not_checked_reason(host, node) or "not checked: no firewall data")
            continue
        mode = node.get("expect", {}).get("firewall_mode", "disabled")
        ufw, firewalld = firewall.get("ufw", {}), firewall.get("firewalld", {})
        if ufw.get("error"):
            results.set("firewall", host, "warn", "cannot read ufw: %s" % shorten(ufw["error"]))
            continue
        active = [name for name, on in (("ufw", ufw.get("active")), ("firewalld", firewalld.get("running"))) if on]
        installed = [name for name, there in (("ufw", ufw.get("installed")),
                                               ("firewalld", firewalld.get("installed"))) if there]
        if mode == "disabled":
            if active:
                results.set("firewall", host, "fail",
                            "%s is active but firewall_mode is disabled: run site.yml --tags firewall "
                            "(or set firewall_mode: open_ports)" % " and ".join(active))
            else:
                results.set("firewall", host, "ok", "%s, as firewall_mode disabled expects" % (
                    " and ".join(name + " inactive" for name in installed) or "no firewall installed"))
        elif mode == "open_ports":
            if not active:
                results.set("firewall", host, "fail",
                            "firewall_mode is open_ports but no firewall is active (installed: %s): "
                            "run site.yml --tags firewall" % (", ".join(installed) or "none"))
            elif len(active) > 1:
                results.set("firewall", host, "fail", "ufw and firewalld are both active: disable one")
            elif active == ["ufw"] and not _port_allowed(ufw.get("rules") or [], port):
                results.set("firewall", host, "fail",
                            "ufw is active but does not allow the master port %s/tcp: add it to "
                            "firewall_master_ports and run site.yml --tags firewall" % port)
            elif active == ["firewalld"] and not _firewalld_allows(firewalld.get("ports") or [], port):
                results.set("firewall", host, "warn",
                            "firewalld is active and %s/tcp is not among its open ports (rich rules "
                            "are not read): check firewall_master_ports" % port)
            else:
                results.set("firewall", host, "ok", "%s active and allows the master port %s/tcp, as "
                                                    "firewall_mode open_ports expects" % (active[0], port))
        else:
            results.set("firewall", host, "fail", "firewall_mode %s is not disabled or open_ports" % mode)


# --- master port ----------------------------------------------------------------------------

PORT_HINTS = {
    "refused": "nothing accepts it from here (connection refused): a firewall rejecting the port, "
               "or the listener bound to another address",
    "timeout": "the packets are dropped: a firewall on the master or between the nodes",
    "no_route": "no route to the master's address from here: check ansible_host and the routes",
    "unreachable": "the master's network is unreachable from here: check ansible_host and the routes",
    "unresolved": "the master's name does not resolve here",
}


def check_master_port(nodes, hosts, master, port, results):
    master_node = nodes.get(master, {})
    address = master_node.get("expect", {}).get("ansible_host", master)
    bind = master_node.get("port_bind")
    listener = master_node.get("listener") or {}
    skip_reach = None
    if master in nodes:
        if bind is None:
            results.set("master_port_free", master, "warn",
                        not_checked_reason(master, master_node) or "not checked: the bind test did not run")
        elif bind.get("free"):
            results.set("master_port_free", master, "ok",
                        "port %s is free to bind on %s, so a launch can use it" % (port, master))
        else:
            holder = ""
            if bind.get("holder_name") or bind.get("holder_pid"):
                holder = " by %s (pid %s)" % (bind.get("holder_name") or "?", bind.get("holder_pid") or "?")
            elif bind.get("error") == "in_use":
                holder = " (see who holds it: sudo ss -tanp 'sport = :%s')" % port
            state = bind.get("holder_state")
            results.set("master_port_free", master, "fail",
                        "port %s is not free on %s%s%s: %s. Stop what holds it (playbooks/stop.yml stops "
                        "a job of this suite) or use another port (job_port / doctor_master_port)" % (
                            port, master, holder, ", state %s" % state if state else "",
                            shorten(bind.get("error_text") or bind.get("error"))))
            if state and state != "LISTEN":
                skip_reach = ("not checked: port %s on %s is held by a socket in state %s, nothing "
                              "listens on it" % (port, master, state))
    if listener.get("error"):
        skip_reach = None
        results.set("master_port_reachable", master, "fail",
                    "the temporary listener on port %s did not start on %s: %s" % (
                        port, master, shorten(listener["error"])))
    probed = {}
    for host in hosts:
        node = nodes[host]
        if ("master_port_reachable", host) in results.by_key:
            continue
        reason = not_checked_reason(host, node) or skip_reach
        if reason or node.get("port_connect") is None:
            results.set("master_port_reachable", host, "warn", reason or "not checked: the connect test did not run")
            continue
        probed[host] = node["port_connect"]
    via = "the temporary listener" if listener.get("temporary") else "the process listening"
    failing = {host: result for host, result in probed.items() if not result.get("reachable")}
    if failing and len(failing) == len(probed) and len(probed) > 1:
        first = next(iter(failing.values()))
        results.set("master_port_reachable", master if master in failing else next(iter(failing)), "fail",
                    "no node reaches %s (%s):%s: %s (%s) from %s; %s" % (
                        master, address, port, first.get("error"), shorten(first.get("error_text"), 60),
                        join_items(failing), PORT_HINTS.get(first.get("error"), "see the error")))
        for host in failing:
            if ("master_port_reachable", host) not in results.by_key:
                results.set("master_port_reachable", host, "warn",
                            "cannot reach %s:%s, nor can any other node (see %s)" % (master, port, master))
        return
    for host, result in probed.items():
        if result.get("reachable"):
            results.set("master_port_reachable", host, "ok",
                        "reaches %s (%s):%s in %s ms (%s)" % (master, address, port, result.get("latency_ms"), via))
        else:
            results.set("master_port_reachable", host, "fail",
                        "cannot connect to %s (%s):%s: %s (%s); %s" % (
                            master, address, port, result.get("error"), shorten(result.get("error_text"), 60),
                            PORT_HINTS.get(result.get("error"), "see the error")))
