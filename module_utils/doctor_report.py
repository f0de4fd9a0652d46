"""The preflight doctor's verdicts: per-node results in, one report out.

Plain stdlib functions (see docs/CONVENTIONS.md), used by filter_plugins/doctor.py and unit
tested in tests/unit/test_doctor_report.py. playbooks/doctor.yml gathers, on every node at once,
what the node sees (modules doctor_probe, ssh_mesh_check, tcp_port_check, hccn_netdetect) and
hands all of it to ``build_report``, which compares the nodes with each other and with the
inventory. The report holds exactly one entry per check per node the check applies to:

    {"check": "version_openmpi", "node": "node2", "status": "fail",
     "message": "Open MPI 4.1.5 here, but the inventory expects 4.1.4 (openmpi_version) ..."}

status is ok, warn or fail. A failure is reported once, on the node that has to be fixed:
when node2 does not accept SSH, node2's ``ssh_login`` fails and the other nodes' ``ssh_mesh``
only warn that they cannot reach it; a device without its address fails ``npu_device_ips`` on
its node, and the netdetect tests it spoils only warn. Checks that could not run on a node
(unreachable, probe failed) warn "not checked".
"""

import ipaddress
import re
from collections import Counter

STATUSES = ("ok", "warn", "fail")
# Every check, in report order. NPU checks apply to npu_nodes, master_port_free to the master.
CHECKS = (
    "ssh_login",
    "ssh_mesh",
    "hostname",
    "etc_hosts",
    "host_ip",
    "interfaces",
    "firewall",
    "master_port_free",
    "master_port_reachable",
    "version_openmpi",
    "version_python",
    "version_mindspore",
    "version_torch",
    "version_torch_npu",
    "version_nccl",
    "version_cann",
    "npu_device_count",
    "npu_device_ips",
    "npu_netdetect",
)
NPU_CHECKS = ("version_cann", "npu_device_count", "npu_device_ips", "npu_netdetect")
FRAMEWORK_CHECKS = {"mindspore": "version_mindspore", "torch": "version_torch", "torch_npu": "version_torch_npu"}
REPORT_VERSION = 1

# ssh_mesh_check statuses: whose side has to be fixed.
SSH_TARGET_SIDE = ("unreachable", "timeout", "auth_refused", "error")
SSH_HINTS = {
    "host_key_unknown": "its host key is not in known_hosts here: run site.yml --tags ssh "
                        "(role ssh_trust writes /etc/ssh/ssh_known_hosts)",
    "host_key_changed": "known_hosts here holds another key for it (reinstalled node, or a wrong "
                        "address): verify the new key, then run site.yml --tags ssh",
    "unresolved": "the name does not resolve here: check /etc/hosts (site.yml --tags ssh manages it)",
    "auth_refused": "login refused: the cluster key is missing from the training user's "
                    "authorized_keys there, or ~/.ssh/id_ed25519 is missing here: run site.yml --tags ssh",
    "unreachable": "connection refused or no route: is sshd running there, and port 22 open?",
    "timeout": "no answer: a firewall dropping port 22, or a wrong address?",
    "error": "see the ssh message",
}
PORT_HINTS = {
    "refused": "nothing accepts it from here (connection refused): a firewall rejecting the port, "
               "or the listener bound to another address",
    "timeout": "the packets are dropped: a firewall on the master or between the nodes",
    "no_route": "no route to the master's address from here: check ansible_host and the routes",
    "unreachable": "the master's network is unreachable from here: check ansible_host and the routes",
    "unresolved": "the master's name does not resolve here",
}
_IFNAME = re.compile(r"^[A-Za-z0-9_.:@-]{1,15}$")
_MODULE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]*$")


class _Results:
    """Collects (status, message) per (check, node); at most one each."""

    def __init__(self):
        self.by_key = {}

    def set(self, check, node, status, message):
        if status not in STATUSES:
            raise ValueError("unknown status %r" % (status,))
        self.by_key[(check, node)] = (status, message)


def _is_ipv4(text):
    try:
        ipaddress.IPv4Address(str(text))
        return True
    except ValueError:
        return False


def _join(items, limit=6):
    items = list(items)
    if len(items) > limit:
        return ", ".join(items[:limit]) + " and %d more" % (len(items) - limit)
    return ", ".join(items)


def _short(text, limit=160):
    text = " ".join(str(text or "").split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _node_addresses(system):
    """{ip: ifname} of a node's IPv4 addresses."""
    found = {}
    for name, info in sorted(((system or {}).get("interfaces") or {}).items()):
        for cidr in info.get("ipv4") or []:
            found.setdefault(cidr.split("/", 1)[0], name)
    return found


def not_checked_reason(host, node):
    """Why a node has no data, or None when it has."""
    if not node.get("reached", True):
        return "not checked: Ansible cannot reach %s (see ssh_login)" % host
    if node.get("error"):
        return "not checked: collecting the node's data failed: %s" % _short(node["error"])
    return None


# --- SSH ------------------------------------------------------------------------------------


def check_ssh(nodes, hosts, results):
    """ssh_login (this node accepts logins) and ssh_mesh (this node logs in to every node)."""
    tested = {host: [] for host in hosts}
    for source in hosts:
        mesh = nodes[source].get("mesh")
        for item in (mesh or {}).get("results") or []:
            if item.get("peer") in tested:
                tested[item["peer"]].append((source, item))
    down = set()
    for target in hosts:
        node = nodes[target]
        by_source = {}
        for source, item in tested[target]:
            by_source.setdefault(source, []).append(item)
        refusing = {source: items for source, items in by_source.items()
                    if all(item.get("status") in SSH_TARGET_SIDE for item in items)}
        accepted = sorted(source for source, items in by_source.items()
                          if any(item.get("status") == "ok" for item in items))
        why = "; ".join("%s: %s (%s)" % (source, items[0].get("status"), _short(items[0].get("message"), 90))
                        for source, items in sorted(refusing.items()))
        if not node.get("reached", True):
            down.add(target)
            message = "Ansible cannot reach %s: %s" % (target, _short(node.get("unreachable"), 140))
            if refusing:
                message += "; nodes cannot log in either: %s" % why
            if accepted:
                message += ("; %s can log in to it, so check the controller's way in (ansible_host, "
                            "ansible_user, the controller's known_hosts)" % _join(accepted))
            else:
                message += "; is sshd running on %s and port 22 open?" % target
            results.set("ssh_login", target, "fail", message)
        elif by_source and len(refusing) == len(by_source):
            down.add(target)
            results.set("ssh_login", target, "fail",
                        "no node can log in to %s as the training user: %s; %s" % (
                            target, why, SSH_HINTS.get(next(iter(refusing.values()))[0].get("status"),
                                                       SSH_HINTS["error"])))
        elif not by_source:
            results.set("ssh_login", target, "warn", "not checked: no node tested logins to %s" % target)
        else:
            results.set("ssh_login", target, "ok",
                        "accepts SSH logins from %d node(s) (Ansible too)" % len(by_source))
    for source in hosts:
        node = nodes[source]
        reason = not_checked_reason(source, node)
        mesh = node.get("mesh")
        if reason or mesh is None:
            results.set("ssh_mesh", source, "warn", reason or "not checked: the SSH mesh did not run")
            continue
        items = mesh.get("results") or []
        own = [item for item in items if item.get("status") != "ok" and item.get("peer") not in down]
        derived = sorted({item.get("peer") for item in items
                          if item.get("status") != "ok" and item.get("peer") in down})
        if own:
            lines = []
            for item in own:
                name = item.get("address") or item.get("peer")
                label = name if name == item.get("peer") else "%s as %s" % (item.get("peer"), name)
                lines.append("%s: %s (%s)" % (label, item.get("status"), _short(item.get("message"), 90)))
            statuses = []
            for item in own:
                if item.get("status") not in statuses:
                    statuses.append(item.get("status"))
            results.set("ssh_mesh", source, "fail",
                        "cannot log in to %d of %d peer name(s): %s. Fix: %s" % (
                            len(own), len(items), "; ".join(lines),
                            " / ".join(SSH_HINTS.get(status, SSH_HINTS["error"]) for status in statuses)))
        elif derived:
            results.set("ssh_mesh", source, "warn",
                        "cannot log in to %s (see its ssh_login); every other peer name works" % _join(derived))
        else:
            results.set("ssh_mesh", source, "ok",
                        "logs in to every node by every name in batch mode (%d logins)" % len(items))
    return down


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
                            name, _join(others)))
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
        if name and name not in unique and not _is_ipv4(name):
            unique.append(name)
    return unique


def check_etc_hosts(nodes, hosts, results):
    """Every node name resolves, in every node's /etc/hosts, to that node's ansible_host."""
    wanted = {}
    for host in hosts:
        address = nodes[host].get("expect", {}).get("ansible_host")
        for name in _node_names(host, nodes[host]):
            # A name two nodes claim is the hostname check's failure, not a wrong /etc/hosts.
            wanted.setdefault(name, (host, address if _is_ipv4(address) else None))
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
                if manage and address:
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
        mine = _node_addresses(system)
        listing = _join("%s on %s" % (ip, name) for ip, name in mine.items() if not ip.startswith("127."))
        if not _is_ipv4(address):
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
    listing = _join(names, 12)
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
        if not _IFNAME.match(item):
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
            results.set("firewall", host, "warn", "cannot read ufw: %s" % _short(ufw["error"]))
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
                            _short(bind.get("error_text") or bind.get("error"))))
            if state and state != "LISTEN":
                skip_reach = ("not checked: port %s on %s is held by a socket in state %s, nothing "
                              "listens on it" % (port, master, state))
    if listener.get("error"):
        skip_reach = None
        results.set("master_port_reachable", master, "fail",
                    "the temporary listener on port %s did not start on %s: %s" % (
                        port, master, _short(listener["error"])))
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
                        master, address, port, first.get("error"), _short(first.get("error_text"), 60),
                        _join(failing), PORT_HINTS.get(first.get("error"), "see the error")))
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
                            master, address, port, result.get("error"), _short(result.get("error_text"), 60),
                            PORT_HINTS.get(result.get("error"), "see the error")))


# --- versions -------------------------------------------------------------------------------


def _release(version, parts):
    return ".".join(re.split(r"[.+-]", str(version))[:parts])


def compare_versions(label, values, order, master=None, expected=None, expected_var=None,
                     required=False, fix="install the same version on every node", patch_warn=False):
    """Verdicts for one component: {host: (status, message)}.

    values: host -> {"version": v} | {"absent": True[, "error": why]} | {"error": why}.
    expected: the version the inventory asks for (odd = every node that differs from it);
    otherwise the majority is the reference, a tie going to the master's, then the first node's.
    required: absent is a failure even when no node has it. patch_warn: a difference only after
    MAJOR.MINOR is a warning (Python).
    """
    verdicts = {}
    present = {host: str(value["version"]) for host, value in values.items()
               if value and value.get("version") is not None}
    for host, value in values.items():
        if value and value.get("error") and not value.get("absent"):
            verdicts[host] = ("fail", "%s: %s" % (label, _short(value["error"], 200)))
    reference = None
    if expected is not None:
        reference = str(expected)
    elif present:
        counts = Counter(present.values())
        best = max(counts.values())
        tied = [version for version, count in counts.items() if count == best]
        if len(tied) == 1:
            reference = tied[0]
        elif master in present and present[master] in tied:
            reference = present[master]
        else:
            reference = next(present[host] for host in order if host in present and present[host] in tied)
    holders = [host for host in order if present.get(host) == reference]
    where = ("the inventory expects %s (%s)" % (reference, expected_var) if expected is not None
             else "%s on %s" % (reference, _join(holders)))
    for host in order:
        if host not in values or host in verdicts:
            continue
        value = values[host] or {}
        version = present.get(host)
        if version is None:
            if reference is None and not required:
                verdicts[host] = ("ok", "%s: not installed on any node (skipped)" % label)
            elif reference is None:
                verdicts[host] = ("fail", "%s: %s" % (label, _short(value.get("error") or "not installed", 200)))
            else:
                verdicts[host] = ("fail", "%s: not installed here%s, but %s: %s" % (
                    label, " (%s)" % _short(value["error"], 120) if value.get("error") else "", where, fix))
        elif version == reference:
            verdicts[host] = ("ok", "%s %s%s" % (label, version, " (as expected)" if expected is not None
                                                 else " (same on %d node(s))" % len(holders)))
        elif patch_warn and _release(version, 2) == _release(reference, 2):
            verdicts[host] = ("warn", "%s %s here, %s: same release, different patch level" % (label, version, where))
        else:
            verdicts[host] = ("fail", "%s %s here, but %s: %s" % (label, version, where, fix))
    return verdicts


def check_versions(nodes, hosts, master, results):
    def collect(getter, applies=lambda host: True):
        values, skipped = {}, {}
        for host in hosts:
            if not applies(host):
                continue
            node = nodes[host]
            reason = not_checked_reason(host, node)
            value = getter(node) if not reason else None
            if value is None:
                skipped[host] = reason or "not checked: no data"
            else:
                values[host] = value
        return values, skipped

    def record(check, verdicts, skipped):
        for host in hosts:
            if host in verdicts:
                results.set(check, host, *verdicts[host])
            elif host in skipped:
                results.set(check, host, "warn", skipped[host])

    # OpenMPI: ompi_info on the training user's PATH; the inventory's openmpi_version decides.
    values, skipped = collect(lambda node: (node.get("user") or {}).get("openmpi"))
    for host, value in values.items():
        if value.get("absent") and value.get("marker_version"):
            value["error"] = ("ompi_info is not on the training user's PATH, although the openmpi role's "
                              "marker says %s is installed: run site.yml --tags openmpi (it links "
                              "mpirun and ompi_info into /usr/local/bin)" % value["marker_version"])
    expected = sorted({str(nodes[host]["expect"]["openmpi_version"]) for host in values
                       if nodes[host].get("expect", {}).get("openmpi_version")})
    record("version_openmpi", compare_versions(
        "Open MPI", values, hosts, master,
        expected=expected[0] if len(expected) == 1 else None, expected_var="openmpi_version",
        required=bool(expected),
        fix="install the same OpenMPI on every node (site.yml --tags openmpi; mpirun fails with "
            "'Data unpack would read past end of buffer' otherwise)"), skipped)

    values, skipped = collect(lambda node: (node.get("user") or {}).get("python"))
    for host, value in values.items():
        if value.get("error"):
            value["error"] = "%s does not run: %s (launch_python)" % (value.get("path"), value["error"])
    record("version_python", compare_versions(
        "Python", values, hosts, master, required=True, patch_warn=True,
        fix="use the same Python on every node (launch_python)"), skipped)

    for module, check in FRAMEWORK_CHECKS.items():
        values, skipped = collect(lambda node, module=module: ((node.get("user") or {}).get("frameworks") or {})
                                  .get(module))
        for host in list(skipped):
            user = nodes[host].get("user") or {}
            if user and user.get("frameworks") is None and (user.get("python") or {}).get("error"):
                skipped[host] = "not checked: the training Python does not run (see version_python)"
            elif user and module not in (user.get("frameworks") or {}):
                del skipped[host]  # not asked for (doctor_frameworks)
        record(check, compare_versions(module, values, hosts, master,
                                       fix="install the same %s on every node" % module), skipped)

    values, skipped = collect(lambda node: (node.get("system") or {}).get("nccl"))
    record("version_nccl", compare_versions("NCCL", values, hosts, master,
                                            fix="install the same NCCL on every node"), skipped)

    npu = [host for host in hosts if nodes[host].get("expect", {}).get("kind") == "npu"]
    values, skipped = collect(lambda node: (node.get("system") or {}).get("cann"), lambda host: host in npu)
    for host, value in values.items():
        if value.get("absent"):
            value["error"] = "no CANN version file under the detected layouts (looked in %s)" % _join(
                value.get("looked_in") or [], 3)
    record("version_cann", compare_versions("CANN", values, npu, master, required=True,
                                            fix="install the same CANN toolkit on every NPU node"), skipped)


# --- NPU --------------------------------------------------------------------------------------


def check_npu(nodes, hosts, results):
    npu_hosts = [host for host in hosts if nodes[host].get("expect", {}).get("kind") == "npu"]
    bad_devices = set()
    owner = {}
    for host in npu_hosts:
        for entry in nodes[host].get("expect", {}).get("plan") or []:
            owner[entry.get("address")] = (host, entry.get("device"))
    for host in npu_hosts:
        node = nodes[host]
        expect = node.get("expect", {})
        npu = (node.get("system") or {}).get("npu")
        reason = not_checked_reason(host, node)
        if reason or npu is None:
            reason = reason or "not checked: the NPU state was not read"
            results.set("npu_device_count", host, "warn", reason)
            results.set("npu_device_ips", host, "warn", reason)
            continue
        wanted = expect.get("npu_device_count")
        if npu.get("error") or npu.get("count") is None:
            results.set("npu_device_count", host, "fail", "cannot count the NPUs: %s" % _short(npu.get("error"), 200))
        elif npu["count"] != wanted:
            results.set("npu_device_count", host, "fail",
                        "npu-smi info -l counts %s NPU(s) but npu_device_count is %s: fix the inventory, "
                        "or the driver if devices are missing" % (npu["count"], wanted))
        else:
            results.set("npu_device_count", host, "ok", "%s NPUs, as npu_device_count says" % npu["count"])
        problems = []
        plan = expect.get("plan") or []
        for entry in plan:
            device = entry.get("device")
            have = (npu.get("devices") or {}).get(str(device)) or {"error": "not read"}
            want = "%s/%s" % (entry.get("address"), entry.get("netmask"))
            if have.get("error"):
                problems.append("device %s has no address (%s), plan %s" % (device, _short(have["error"], 60), want))
                bad_devices.add((host, device))
            elif (have.get("address"), have.get("netmask")) != (entry.get("address"), entry.get("netmask")):
                problems.append("device %s has %s/%s, plan %s" % (device, have.get("address"), have.get("netmask"), want))
                bad_devices.add((host, device))
        if not plan:
            results.set("npu_device_ips", host, "warn", "no device plan for this node (npu_network_* settings)")
        elif problems:
            results.set("npu_device_ips", host, "fail",
                        "%s. Fix: run site.yml --tags npu_network (hccn_tool -i N -ip -s)" % "; ".join(problems))
        else:
            results.set("npu_device_ips", host, "ok", "all %d devices have their planned address" % len(plan))
    for host in npu_hosts:
        node = nodes[host]
        netdetect = node.get("netdetect")
        reason = not_checked_reason(host, node)
        if not reason and netdetect is None and node.get("expect", {}).get("netdetect") is False:
            results.set("npu_netdetect", host, "ok", "skipped: doctor_netdetect is false")
            continue
        if reason or netdetect is None:
            results.set("npu_netdetect", host, "warn", reason or "not checked: the netdetect test did not run")
            continue
        own, explained = [], []
        for item in netdetect.get("results") or []:
            if item.get("success"):
                continue
            target = owner.get(item.get("target"))
            line = "device %s -> %s%s: %s" % (
                item.get("device"), item.get("target"),
                " (%s device %s)" % target if target else "", item.get("status") or "Unknown")
            if (host, item.get("device")) in bad_devices or (target and target in bad_devices):
                explained.append(line)
            else:
                own.append(line)
        total = netdetect.get("total", len(netdetect.get("results") or []))
        if own:
            results.set("npu_netdetect", host, "fail",
                        "%d of %d device link test(s) not Success: %s. Check the optical links, the device "
                        "subnets and the peers' addresses (hccn_tool -i N -net_health -g)" % (
                            len(own) + len(explained), total, "; ".join(own + explained)))
        elif explained:
            results.set("npu_netdetect", host, "warn",
                        "%d of %d test(s) not Success, all involving a device without its planned address "
                        "(see npu_device_ips): %s" % (len(explained), total, "; ".join(explained)))
        else:
            results.set("npu_netdetect", host, "ok", "%d device link test(s), all Success" % total)


# --- from Ansible's registered results -----------------------------------------------------------

REGISTERED = {"system": "doctor_system", "user": "doctor_user_probe", "mesh": "doctor_mesh",
              "port_connect": "doctor_port_connect", "netdetect": "doctor_netdetect_result"}


def _registered(value):
    """A registered module result, or None when the task was skipped, failed or never ran."""
    if not isinstance(value, dict) or value.get("skipped") or value.get("failed") or value.get("unreachable"):
        return None
    return value


def unreachable_reason(message):
    """The telling part of Ansible's unreachable message: ssh's own last words when present."""
    text = " ".join(str(message or "unreachable").split())
    for pattern in (r"ssh: connect to host \S+ port \d+: [A-Za-z ]+", r"ssh: Could not resolve hostname [^;:]+: [A-Za-z ]+",
                    r"Host key verification failed", r"Permission denied \([^)]*\)"):
        found = re.findall(pattern, text)
        if found:
            return found[-1].strip()
    return _short(text.replace("Task failed: ", ""), 200)


def node_from_vars(host_vars):
    """One node's input of build_report from its variables after the node play of doctor.yml
    (doctor_expect, doctor_ping, the registered probes, doctor_listener, doctor_error)."""
    ping = host_vars.get("doctor_ping")  # the node play's first task (async start of the user probe)
    node = {"expect": dict(host_vars.get("doctor_expect") or {})}
    if not isinstance(ping, dict):
        node.update(reached=False, unreachable="the node play did not run on it (see the output above)")
        return node
    if ping.get("unreachable"):
        node.update(reached=False, unreachable=unreachable_reason(ping.get("msg")))
        return node
    node["reached"] = True
    for key, name in REGISTERED.items():
        node[key] = _registered(host_vars.get(name))
    node["port_bind"] = (node["system"] or {}).get("port_bind")  # the master port, on the master
    node["listener"] = host_vars.get("doctor_listener")
    node["error"] = host_vars.get("doctor_error")
    return node


# --- the report ---------------------------------------------------------------------------------


def applies(check, host, node, master):
    if check in NPU_CHECKS:
        return node.get("expect", {}).get("kind") == "npu"
    if check == "master_port_free":
        return host == master
    return True


def build_report(nodes, settings):
    """The report: {"version", "master", "master_port", "nodes", "status", "summary", "entries"}.

    nodes: host -> {"expect": {...}, "reached": bool, "unreachable": msg, "error": msg,
    "system", "user", "mesh", "port_bind", "port_connect", "listener", "netdetect"} (see
    playbooks/doctor.yml); settings: {"hosts": [cluster hosts in inventory order],
    "master": host, "master_port": int}.
    """
    hosts = list(settings["hosts"])
    master = settings.get("master")
    port = settings.get("master_port")
    nodes = {host: dict(nodes.get(host) or {"reached": False, "unreachable": "no data"}) for host in hosts}
    results = _Results()
    check_ssh(nodes, hosts, results)
    check_hostnames(nodes, hosts, results)
    check_etc_hosts(nodes, hosts, results)
    check_host_ip(nodes, hosts, results)
    check_interfaces(nodes, hosts, results)
    check_firewall(nodes, hosts, port, results)
    check_master_port(nodes, hosts, master, port, results)
    check_versions(nodes, hosts, master, results)
    check_npu(nodes, hosts, results)
    entries = []
    for check in CHECKS:
        for host in hosts:
            if (check, host) in results.by_key and applies(check, host, nodes[host], master):
                status, message = results.by_key[(check, host)]
                entries.append({"check": check, "node": host, "status": status, "message": message})
    counts = Counter(entry["status"] for entry in entries)
    summary = {status: counts.get(status, 0) for status in STATUSES}
    summary["failed_checks"] = sorted({entry["check"] for entry in entries if entry["status"] == "fail"},
                                      key=CHECKS.index)
    summary["failed_nodes"] = [host for host in hosts
                               if any(e["node"] == host and e["status"] == "fail" for e in entries)]
    return {
        "version": REPORT_VERSION,
        "master": master,
        "master_port": port,
        "nodes": hosts,
        "status": "fail" if summary["fail"] else ("warn" if summary["warn"] else "ok"),
        "summary": summary,
        "entries": entries,
    }


MARKS = {"ok": "ok", "warn": "warn", "fail": "FAIL"}


def format_table(report, max_columns=8, width=150):
    """The report for people: a check x node grid (or per-check counts for many nodes), then
    one line per warning and failure, failures first."""
    hosts = report["nodes"]
    entries = report["entries"]
    by_key = {(entry["check"], entry["node"]): entry for entry in entries}
    checks = [check for check in CHECKS if any(entry["check"] == check for entry in entries)]
    summary = report["summary"]
    lines = ["cluster doctor: %d node(s), %d result(s): %d ok, %d warn, %d fail (master %s, port %s)" % (
        len(hosts), len(entries), summary["ok"], summary["warn"], summary["fail"],
        report.get("master"), report.get("master_port"))]
    first = max([len("check")] + [len(check) for check in checks]) + 2
    if len(hosts) <= max_columns:
        column = max([6] + [len(host) for host in hosts]) + 2
        lines.append(("%-*s" % (first, "check") + "".join("%-*s" % (column, host) for host in hosts)).rstrip())
        for check in checks:
            cells = [MARKS[by_key[(check, host)]["status"]] if (check, host) in by_key else "-" for host in hosts]
            lines.append(("%-*s" % (first, check) + "".join("%-*s" % (column, cell) for cell in cells)).rstrip())
    else:
        lines.append("%-*s%-6s%-6s%-6s%s" % (first, "check", "ok", "warn", "fail", "failing nodes"))
        for check in checks:
            mine = [entry for entry in entries if entry["check"] == check]
            count = Counter(entry["status"] for entry in mine)
            failing = [entry["node"] for entry in mine if entry["status"] == "fail"]
            lines.append(("%-*s%-6d%-6d%-6d%s" % (first, check, count["ok"], count["warn"], count["fail"],
                                                   _join(failing, 8))).rstrip())
    for status in ("fail", "warn"):
        grouped = {}
        for entry in entries:
            if entry["status"] != status:
                continue
            if status == "warn" and entry["message"].startswith("not checked:"):
                key = (entry["node"], entry["message"])
                if key in grouped:
                    grouped[key].append(entry["check"])
                    continue
                grouped[key] = [entry["check"]]
            lines.append((status, entry["node"], entry["check"], entry["message"]))
        lines[:] = [line if isinstance(line, str) else _table_line(line, grouped, width) for line in lines]
    return lines


def _table_line(item, grouped, width):
    status, node, check, message = item
    checks = grouped.get((node, message))
    if checks and len(checks) > 1:
        check = "%s (and %d more: %s)" % (check, len(checks) - 1, _join(checks[1:], 4))
    line = "%s %s %s: %s" % (MARKS[status], node, check, message)
    return line if len(line) <= width * 4 else line[:width * 4 - 3] + "..."


# --- the doctor's own settings ----------------------------------------------------------------


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _as_int(value):
    """Digits given as `-e doctor_master_port=8118` arrive as a string: they count as the number."""
    if isinstance(value, str) and re.fullmatch(r"[0-9]+", value.strip()):
        return int(value)
    return value


def _type_name(value):
    for kind in (bool, int, float, str, list, dict):
        if isinstance(value, kind):
            return kind.__name__
    return type(value).__name__


SETTINGS = ("doctor_master_port", "doctor_report_path", "doctor_frameworks", "doctor_netdetect",
            "doctor_interfaces", "doctor_ssh_timeout", "doctor_port_timeout", "doctor_listener_seconds",
            "doctor_import_timeout", "doctor_fail_on_warn")


def settings_errors(settings, host="controller"):
    """Problems of the doctor's settings (doctor_* variables), each naming host and variable.

    ``settings["names"]``, when given, lists the doctor_* variables the inventory sets: the
    unknown ones are reported as typos.
    """
    errors = []
    for name in settings.get("names") or []:
        if name not in SETTINGS:
            close = [known for known in SETTINGS if known.startswith(name[:10])]
            errors.append("%s: %s: unknown variable (doctor settings: %s)" % (host, name, ", ".join(close or SETTINGS)))
    port = settings.get("doctor_master_port")
    if not _is_int(_as_int(port)) or not 1024 <= _as_int(port) <= 65535:
        errors.append("%s: doctor_master_port: %s %r is not an integer from 1024 to 65535" % (
            host, _type_name(port), port))
    for name in ("doctor_netdetect", "doctor_fail_on_warn"):
        if name in settings and not isinstance(settings[name], bool):
            errors.append("%s: %s: must be true or false, got %s %r" % (host, name, _type_name(settings[name]),
                                                                       settings[name]))
    for name, low, high in (("doctor_ssh_timeout", 1, 300), ("doctor_port_timeout", 1, 300),
                            ("doctor_listener_seconds", 10, 3600), ("doctor_import_timeout", 5, 540)):
        value = _as_int(settings.get(name))
        if name in settings and (not _is_int(value) or not low <= value <= high):
            errors.append("%s: %s: %s %r is not an integer from %d to %d" % (
                host, name, _type_name(settings[name]), settings[name], low, high))
    path = settings.get("doctor_report_path")
    if not isinstance(path, str) or not path.strip():
        errors.append("%s: doctor_report_path: must be a file path, got %r" % (host, path))
    frameworks = settings.get("doctor_frameworks", [])
    if not isinstance(frameworks, list) or not all(isinstance(f, str) and _MODULE_NAME.match(f) for f in frameworks):
        errors.append("%s: doctor_frameworks: must be a list of Python module names, got %r" % (host, frameworks))
    interfaces = settings.get("doctor_interfaces", [])
    if not isinstance(interfaces, list) or not all(isinstance(i, str) and i for i in interfaces):
        errors.append("%s: doctor_interfaces: must be a list of interface names or CIDRs, got %r" % (
            host, interfaces))
    return errors
