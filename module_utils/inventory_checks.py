"""Checks of a cluster inventory that must pass before anything touches a node.

Plain functions over plain data (the inventory's groups and each host's variables), so they
run on the controller without facts, are unit tested, and report every problem at once.
Each message names the host (or group) and the variable, then says what is wrong.
"""
import difflib
import ipaddress
import re

NODE_GROUPS = ("npu_nodes", "gpu_nodes", "cpu_nodes")
NPU_MODELS = ("atlas800", "atlas800t_a2", "atlas900_a2_pod")
NPU_DEVICE_COUNTS = (1, 2, 4, 8, 16)
# POSIX portable user names, as useradd accepts them by default.
USER_NAME = re.compile(r"^[a-z_][a-z0-9_-]{0,31}$")
IPV4_LIKE = re.compile(r"^[0-9.]+$")
# Every host variable the checks read (filters pass these, plus each role setting of the specs).
CHECKED_VARS = ("ansible_host", "ansible_port", "npu_device_count", "npu_model", "cluster_user",
                "cluster_allow_root", "cluster_network_cidr")
# Role settings whose unknown names are reported as typos (npu_network_* is checked by its role).
TYPO_PREFIXES = ("firewall_", "openmpi_", "ssh_trust_", "npu_env_")
# Argument spec types -> the YAML values they accept (no conversion: "8" is not a number).
SPEC_TYPES = {
    "bool": ("true or false", lambda v: isinstance(v, bool)),
    "int": ("an integer", lambda v: isinstance(v, int) and not isinstance(v, bool)),
    "float": ("a number", lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)),
    "str": ("a string (quote it in YAML)", lambda v: isinstance(v, str)),
    "path": ("a path (a string)", lambda v: isinstance(v, str)),
    "list": ("a list", lambda v: isinstance(v, list)),
    "dict": ("a mapping", lambda v: isinstance(v, dict)),
}


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def type_name(value):
    """The plain type name of a value (Ansible's tagged str/int subclasses read as str/int)."""
    for kind in (bool, int, float, str, list, dict):
        if isinstance(value, kind):
            return kind.__name__
    return "null" if value is None else type(value).__name__


def _shown(value):
    """repr() of a value without Ansible's tagged subclasses showing through."""
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            return repr(kind(value))
    return repr(value)


def _hosts_text(hosts, limit=5):
    hosts = list(hosts)
    if len(hosts) > limit:
        return ", ".join(hosts[:limit]) + f" (and {len(hosts) - limit} more)"
    return ", ".join(hosts)


def check_groups(groups):
    errors = []
    cluster = groups.get("cluster") or []
    if not cluster:
        errors.append("inventory: group 'cluster' is empty or missing: put every training node "
                      "in it (through its children npu_nodes, gpu_nodes, cpu_nodes)")
    masters = groups.get("cluster_master") or []
    if len(masters) != 1:
        errors.append(f"inventory: group 'cluster_master' must hold exactly one host (the master/"
                      f"scheduler node), it holds {len(masters)}: {', '.join(masters) or 'none'}")
    errors += [f"{host}: group 'cluster_master': the master is not in group 'cluster'"
               for host in masters if cluster and host not in cluster]
    seen = {}
    for group in NODE_GROUPS:
        for host in groups.get(group) or []:
            if host in seen:
                errors.append(f"{host}: in both groups '{seen[host]}' and '{group}': a node is "
                              f"one kind of training server")
            seen[host] = group
    return errors


def check_addresses(hostvars, hosts):
    """ansible_host must be a valid address or name, and no two nodes share one."""
    errors, holders = [], {}
    for host in hosts:
        address = hostvars.get(host, {}).get("ansible_host", host)
        if not isinstance(address, str) or not address:
            errors.append(f"{host}: ansible_host: must be an IPv4 address or a host name, "
                          f"got {_shown(address)}")
            continue
        if IPV4_LIKE.match(address):
            try:
                ipaddress.IPv4Address(address)
            except ValueError:
                errors.append(f"{host}: ansible_host: {address} is not a valid IPv4 address")
                continue
        if address in holders:
            errors.append(f"{host}: ansible_host: {address} is already the address of "
                          f"{holders[address]}; every node needs its own")
        holders.setdefault(address, host)
    short_names = {}
    for host in hosts:
        short = host.split(".", 1)[0]
        if short in short_names:
            errors.append(f"{host}: inventory name: short name '{short}' is also used by "
                          f"{short_names[short]}; mpirun hostfiles and /etc/hosts need unique "
                          f"short names")
        short_names.setdefault(short, host)
    return errors


def check_npu_hosts(hostvars, hosts):
    errors = []
    for host in hosts:
        hvars = hostvars.get(host, {})
        count = hvars.get("npu_device_count")
        if count is None:
            errors.append(f"{host}: npu_device_count: missing; set the number of NPUs of this "
                          f"node (one of {', '.join(map(str, NPU_DEVICE_COUNTS))})")
        elif not _is_int(count):
            errors.append(f"{host}: npu_device_count: must be an integer, got "
                          f"{type_name(count)} {_shown(count)}")
        elif count not in NPU_DEVICE_COUNTS:
            errors.append(f"{host}: npu_device_count: {count} is not a device count of an "
                          f"Ascend server (one of {', '.join(map(str, NPU_DEVICE_COUNTS))})")
        model = hvars.get("npu_model")
        if model is not None and model not in NPU_MODELS:
            errors.append(f"{host}: npu_model: unknown hardware model {_shown(model)} (known: "
                          f"{', '.join(NPU_MODELS)})")
    return errors


def check_cluster_user(hostvars, hosts):
    errors, users = [], {}
    for host in hosts:
        hvars = hostvars.get(host, {})
        user = hvars.get("cluster_user")
        allow_root = hvars.get("cluster_allow_root", False)
        if not isinstance(allow_root, bool):
            errors.append(f"{host}: cluster_allow_root: must be true or false, got "
                          f"{type_name(allow_root)} {_shown(allow_root)}")
        if not isinstance(user, str) or not USER_NAME.match(user):
            errors.append(f"{host}: cluster_user: {_shown(user)} is not a valid user name")
            continue
        if user == "root" and allow_root is not True:
            errors.append(f"{host}: cluster_user: root is refused unless cluster_allow_root is "
                          f"true (the seeds recommend a non-root training user)")
        users.setdefault(user, []).append(host)
    if len(users) > 1:
        detail = "; ".join(f"{user} on {', '.join(hosts)}" for user, hosts in sorted(users.items()))
        errors.append(f"inventory: cluster_user: the training user must be the same on every "
                      f"node, got {detail}")
    return errors


def check_connection(hostvars, hosts):
    """ansible_port, when set, is a TCP port."""
    errors = []
    for host in hosts:
        hvars = hostvars.get(host, {})
        if "ansible_port" not in hvars:
            continue
        port = hvars["ansible_port"]
        if not _is_int(port) or not 1 <= port <= 65535:
            errors.append(f"{host}: ansible_port: {type_name(port)} {_shown(port)} is not a TCP port "
                          f"(an integer from 1 to 65535)")
    return errors


def check_network(hostvars, hosts):
    """cluster_network_cidr, when set, is an IPv4 network holding every node's ansible_host."""
    errors = []
    for host in hosts:
        hvars = hostvars.get(host, {})
        cidr = hvars.get("cluster_network_cidr")
        if cidr is None:
            continue
        try:
            if not isinstance(cidr, str) or "/" not in cidr:
                raise ValueError
            network = ipaddress.IPv4Network(cidr, strict=True)
        except ValueError:
            hint = ""
            if isinstance(cidr, str) and "/" in cidr:
                try:
                    hint = f" (did you mean {ipaddress.IPv4Network(cidr, strict=False)}?)"
                except ValueError:
                    hint = ""
            errors.append(f"{host}: cluster_network_cidr: {_shown(cidr)} is not an IPv4 network in CIDR "
                          f"notation such as 10.0.0.0/24{hint}")
            continue
        address = hvars.get("ansible_host", host)
        if isinstance(address, str) and IPV4_LIKE.match(address):
            try:
                inside = ipaddress.IPv4Address(address) in network
            except ValueError:
                continue  # reported by check_addresses
            if not inside:
                errors.append(f"{host}: ansible_host: {address} is not in cluster_network_cidr {cidr}; "
                              f"the host IP must be on the training network")
    return errors


def check_settings(hostvars, hosts, specs):
    """Role settings set in the inventory have the type of the role's argument spec, a choice it
    allows, and a name the role knows (typos of firewall_*, openmpi_*, ssh_trust_*, npu_env_*).

    specs: variable -> {"type", "elements", "choices", "role"} from the roles'
    meta/argument_specs.yml (every entry point). Messages naming several hosts stand for one
    setting (usually from group_vars) that is wrong on each of them.
    """
    found = {}
    for host in hosts:
        hvars = hostvars.get(host, {})
        for name in sorted(hvars):
            value = hvars[name]
            spec = specs.get(name)
            if spec is None:
                if name.startswith(TYPO_PREFIXES):
                    close = difflib.get_close_matches(name, list(specs), n=1)
                    hint = f"; did you mean {close[0]}?" if close else ""
                    prefix = next(p for p in TYPO_PREFIXES if name.startswith(p))
                    found.setdefault((name, f"unknown variable (not a setting of role "
                                            f"{prefix.rstrip('_')}{hint})"), []).append(host)
                continue
            if value is None:
                continue
            kind = spec.get("type", "str")
            wanted, accepts = SPEC_TYPES.get(kind, (None, None))
            if accepts is not None and not accepts(value):
                found.setdefault((name, f"must be {wanted}, got {type_name(value)} {_shown(value)}"),
                                 []).append(host)
                continue
            if kind == "list" and spec.get("elements") in SPEC_TYPES:
                wanted, accepts = SPEC_TYPES[spec["elements"]]
                bad = [item for item in value if not accepts(item)]
                if bad:
                    found.setdefault((name, f"every item must be {wanted}, got {type_name(bad[0])} "
                                            f"{_shown(bad[0])}"), []).append(host)
                    continue
            choices = spec.get("choices")
            if choices and value not in choices:
                found.setdefault((name, f"{_shown(value)} is not one of {', '.join(map(str, choices))}"),
                                 []).append(host)
    return [f"{_hosts_text(holders)}: {name}: {text}" for (name, text), holders in found.items()]


def inventory_errors(groups, hostvars, specs=None):
    """Every problem of the inventory, as messages; empty when it is fine.

    groups: group name -> list of host names (Ansible's `groups`).
    hostvars: host name -> mapping of that host's variables.
    specs: optional role settings' argument specs (see check_settings); without them only the
    inventory-wide variables (CHECKED_VARS) are checked.
    """
    errors = check_groups(groups)
    cluster = list(groups.get("cluster") or [])
    errors += check_addresses(hostvars, cluster)
    errors += check_npu_hosts(hostvars, [h for h in groups.get("npu_nodes") or [] if h in cluster])
    errors += check_cluster_user(hostvars, cluster)
    errors += check_connection(hostvars, cluster)
    errors += check_network(hostvars, cluster)
    if specs:
        errors += check_settings(hostvars, cluster, specs)
    return errors
