"""Checks of a cluster inventory that must pass before anything touches a node.

Plain functions over plain data (the inventory's groups and each host's variables), so they
run on the controller without facts, are unit tested, and report every problem at once.
Each message names the host (or group) and the variable, then says what is wrong.

Every pattern matches the whole value (re.fullmatch: `$` would also match before a trailing
newline, so "root\n" passed as a user name), and no string value the checks read may hold a
control character (below 0x20, 0x7f, NUL): these values end up in scripts and command lines.
"""
import ipaddress
import re

from ansible_collections.cluster_suite.hpc.plugins.module_utils import socket_ifname
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.ansible_values import is_int
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation.inventory_settings import check_settings
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation.shell_names import ENV_NAME, SHELL_NAME
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation.text import (
    control_problems, control_text, grouped, host_text, shown, type_name)

NODE_GROUPS = ("npu_nodes", "gpu_nodes", "cpu_nodes")
NPU_MODELS = ("atlas800", "atlas800t_a2", "atlas900_a2_pod")
NPU_DEVICE_COUNTS = (1, 2, 4, 8, 16)
# Every pattern below is used with fullmatch (the whole value, no trailing newline).
# POSIX portable user names, as useradd accepts them by default.
USER_NAME = re.compile(r"[a-z_][a-z0-9_-]{0,31}")
IPV4_LIKE = re.compile(r"[0-9.]+")
CIDR_LIKE = re.compile(r"[0-9.]+/[0-9]+")
# A DNS host name (RFC 1123 labels; '_' tolerated as many sites use it), at most 253 characters.
HOST_NAME = re.compile(r"(?=.{1,253}\Z)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"
                       r"(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*", re.ASCII)
# Inventory names end up in scripts (CS_HOST, comments), hostfiles and /etc/hosts.
INVENTORY_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,252}", re.ASCII)
# A network interface name (as role npu_env reads them; Linux allows at most 15 characters).
IFNAME = socket_ifname.NAME
# A cluster name (ssh_trust_cluster_name): it names a directory and the key comment.
CLUSTER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*", re.ASCII)
# HCCL_SOCKET_IFNAME / NCCL_SOCKET_IFNAME: optional ^ (exclude) and = (exact), then names.
SOCKET_IFNAME = re.compile(r"\^?=?[A-Za-z0-9_.:@-]{1,15}(?:,[A-Za-z0-9_.:@-]{1,15})*", re.ASCII)
# An absolute path on the nodes that is safe in a shell word even unquoted (templates write
# some of these unquoted, e.g. the OpenMPI prefix): letters, digits and / . _ - + (the set
# plugins/plugin_utils/jobs/spec.py allows for job_python and job_mpirun_prefix, which default to these).
NODE_PATH = re.compile(r"/[A-Za-z0-9_.+/-]*", re.ASCII)
# A program: a bare command name (looked up in PATH on the node) or a NODE_PATH.
COMMAND = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*|/[A-Za-z0-9_.+/-]*", re.ASCII)
# Host variables with a format of their own, beyond "no control characters":
# variable -> (pattern or kind, what the value must be).
VALUE_RULES = {
    "launch_python": (COMMAND, "a command name or an absolute path of letters, digits and / . _ - +"),
    "render_user_home": (NODE_PATH, "an absolute path of letters, digits and / . _ - +"),
    "render_iface": (IFNAME, "an interface name (1-15 letters, digits, '.', '_', '-', ':', '@')"),
    "npu_env_hccl_socket_ifname": (SOCKET_IFNAME, "interface names separated by ',' (1-15 letters, digits, "
                                                  "'.', '_', '-', ':', '@' each), optionally after ^ or ="),
    "npu_env_nccl_socket_ifname": (SOCKET_IFNAME, "interface names separated by ',' (1-15 letters, digits, "
                                                  "'.', '_', '-', ':', '@' each), optionally after ^ or ="),
    "npu_env_hccl_if_ip": ("ipv4", "an IPv4 address"),
    "openmpi_ring_if_include": (re.compile(r"[0-9./]+|[A-Za-z0-9_.:@,-]+", re.ASCII),
                                "an IPv4 network (CIDR) or interface names separated by ','"),
    "ssh_trust_user": (USER_NAME, "a user name (lower case letters, digits, '_', '-')"),
    "ssh_trust_group": (USER_NAME, "a group name (lower case letters, digits, '_', '-')"),
    "openmpi_ring_user": (USER_NAME, "a user name (lower case letters, digits, '_', '-')"),
    "npu_network_npu_smi": (COMMAND, "a command name or an absolute path of letters, digits and / . _ - +"),
    "npu_env_extra": ("env", "a mapping of environment variable names"),
}
# Paths on the nodes (they reach scripts and command lines): absolute, safe characters, no '..'.
for _name in ("openmpi_prefix", "openmpi_build_dir", "openmpi_link_dir", "openmpi_ring_dir", "cluster_env_npu_path",
              "cluster_env_gpu_path", "npu_env_install_path", "cluster_hccn_tool", "npu_network_hccn_conf",
              "npu_network_rank_table_path", "ssh_trust_user_shell", "cluster_python_env_path",
              "cluster_python_provided", "cluster_tools_env_path"):
    VALUE_RULES[_name] = ("node_path", "an absolute path of letters, digits and / . _ - + without '..'")
# Every host variable the checks read (filters pass these, plus each role setting of the specs).
CHECKED_VARS = ("ansible_host", "ansible_port", "npu_device_count", "npu_model", "cluster_user",
                "cluster_allow_root", "cluster_network_cidr", "ansible_user") + tuple(VALUE_RULES)
# Variables whose own check reports control characters (check_strings leaves them out).
OWN_CONTROL_CHECK = ("ansible_host", "cluster_user", "cluster_network_cidr") + tuple(VALUE_RULES)
def check_groups(groups):
    errors = []
    cluster = groups.get("cluster") or []
    if not groups.get("all"):
        # ansible.cfg names no inventory: a command without -i has none.
        errors.append("inventory: no hosts at all: name the cluster's inventory with -i "
                      "(ansible-playbook -i inventory/<cluster>/ ...)")
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


def check_host_names(hosts):
    """Inventory names reach scripts, hostfiles and /etc/hosts: a plain name, no control character."""
    errors = []
    for host in hosts:
        text = control_text(host)
        if text:
            errors.append(f"{shown(host)}: inventory name: {text}")
        elif not isinstance(host, str) or not INVENTORY_NAME.fullmatch(host):
            errors.append(f"{host_text(host)}: inventory name: {shown(host)} is not a host name (letters, digits, "
                          f"'.', '_', '-', starting with a letter, digit or '_')")
    return errors


def check_addresses(hostvars, hosts):
    """ansible_host must be a valid address or name, and no two nodes share one."""
    errors, holders = [], {}
    for host in hosts:
        given = "ansible_host" in hostvars.get(host, {})
        address = hostvars.get(host, {}).get("ansible_host", host)
        if not isinstance(address, str) or not address:
            errors.append(f"{host}: ansible_host: must be an IPv4 address or a host name, "
                          f"got {shown(address)}")
            continue
        text = control_text(address)
        if text:
            if given:
                errors.append(f"{host_text(host)}: ansible_host: {shown(address)} {text}")
            continue  # an inventory name without ansible_host: check_host_names reports it
        if IPV4_LIKE.fullmatch(address):
            try:
                ipaddress.IPv4Address(address)
            except ValueError:
                errors.append(f"{host}: ansible_host: {address} is not a valid IPv4 address")
                continue
        elif not HOST_NAME.fullmatch(address):
            if given:
                errors.append(f"{host}: ansible_host: {shown(address)} is neither an IPv4 address nor a "
                              f"host name (letters, digits, '-', '_' in labels separated by '.')")
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
        elif not is_int(count):
            errors.append(f"{host}: npu_device_count: must be an integer, got "
                          f"{type_name(count)} {shown(count)}")
        elif count not in NPU_DEVICE_COUNTS:
            errors.append(f"{host}: npu_device_count: {count} is not a device count of an "
                          f"Ascend server (one of {', '.join(map(str, NPU_DEVICE_COUNTS))})")
        model = hvars.get("npu_model")
        if model is not None and model not in NPU_MODELS:
            errors.append(f"{host}: npu_model: unknown hardware model {shown(model)} (known: "
                          f"{', '.join(NPU_MODELS)})")
    return errors


def user_name_problem(user, allow_root):
    """What is wrong with a training user name: "control" (a control character), "invalid" (not
    a POSIX portable user name), "root" (root without ``allow_root``), None when it is fine.
    The rule of cluster_user, also applied to ssh_trust_user (role_settings)."""
    if control_text(user):
        return "control"
    if not isinstance(user, str) or not USER_NAME.fullmatch(user):
        return "invalid"
    if user == "root" and not allow_root:
        return "root"
    return None


def check_cluster_user(hostvars, hosts):
    errors, users = [], {}
    for host in hosts:
        hvars = hostvars.get(host, {})
        user = hvars.get("cluster_user")
        allow_root = hvars.get("cluster_allow_root", False)
        if not isinstance(allow_root, bool):
            errors.append(f"{host}: cluster_allow_root: must be true or false, got "
                          f"{type_name(allow_root)} {shown(allow_root)}")
        found = user_name_problem(user, allow_root is True)
        if found == "control":
            errors.append(f"{host}: cluster_user: {shown(user)} {control_text(user)}")
            continue
        if found == "invalid":
            errors.append(f"{host}: cluster_user: {shown(user)} is not a valid user name")
            continue
        if found == "root":
            errors.append(f"{host}: cluster_user: root is refused unless cluster_allow_root is "
                          f"true (the upstream guides run training as a non-root user)")
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
        if not is_int(port) or not 1 <= port <= 65535:
            errors.append(f"{host}: ansible_port: {type_name(port)} {shown(port)} is not a TCP port "
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
        text = control_text(cidr)
        if text:
            errors.append(f"{host}: cluster_network_cidr: {shown(cidr)} {text}")
            continue
        try:
            if not isinstance(cidr, str) or not CIDR_LIKE.fullmatch(cidr):
                raise ValueError
            network = ipaddress.IPv4Network(cidr, strict=True)
        except ValueError:
            hint = ""
            if isinstance(cidr, str) and CIDR_LIKE.fullmatch(cidr):
                try:
                    hint = f" (did you mean {ipaddress.IPv4Network(cidr, strict=False)}?)"
                except ValueError:
                    hint = ""
            errors.append(f"{host}: cluster_network_cidr: {shown(cidr)} is not an IPv4 network in CIDR "
                          f"notation such as 10.0.0.0/24{hint}")
            continue
        address = hvars.get("ansible_host", host)
        if isinstance(address, str) and IPV4_LIKE.fullmatch(address):
            try:
                inside = ipaddress.IPv4Address(address) in network
            except ValueError:
                continue  # reported by check_addresses
            if not inside:
                errors.append(f"{host}: ansible_host: {address} is not in cluster_network_cidr {cidr}; "
                              f"the host IP must be on the training network")
    return errors


def check_strings(hostvars, hosts):
    """No string the checks read (nested in lists and mappings too) holds a control character.

    Variables with a check of their own (OWN_CONTROL_CHECK) report it there. Messages naming
    several hosts stand for one value (usually from group_vars) that is wrong on each of them.
    """
    found = {}
    for host in hosts:
        hvars = hostvars.get(host, {})
        for name in sorted(hvars):
            if name in OWN_CONTROL_CHECK:
                continue
            for path, text in control_problems(name, hvars[name]):
                found.setdefault((path, text), []).append(host)
    return grouped(found)


def _value_problem(name, value):
    """What is wrong with ``value`` of variable ``name`` (VALUE_RULES), or None."""
    rule, wanted = VALUE_RULES[name]
    if rule == "env":
        if not isinstance(value, dict):
            return None  # the argument spec's type check reports it
        problems = control_problems(name, value)
        if problems:
            return problems[0][1] if problems[0][0] == name else f"{problems[0][0]}: {problems[0][1]}"
        for key in value:
            if not isinstance(key, str) or not ENV_NAME.fullmatch(key):
                return f"{shown(key)} is not an environment variable name"
            if SHELL_NAME.fullmatch(key):
                return f"{key} is a variable the shell sets or reads itself; choose another name"
        return None
    if not isinstance(value, str):
        # Role settings: check_settings reports a wrong type against the argument spec.
        if name in ("launch_python", "render_user_home", "render_iface"):
            return f"must be a string, got {type_name(value)} {shown(value)}"
        return None
    if value == "" and name in ("npu_env_hccl_socket_ifname", "npu_env_nccl_socket_ifname", "npu_env_hccl_if_ip",
                                "openmpi_ring_if_include", "cluster_python_provided"):
        return None  # empty: not set
    text = control_text(value)
    if text:
        return f"{shown(value)} {text}"
    if rule == "ipv4":
        try:
            if not IPV4_LIKE.fullmatch(value):
                raise ValueError
            ipaddress.IPv4Address(value)
        except ValueError:
            return f"{shown(value)} is not {wanted}"
        return None
    if rule == "node_path":
        if not NODE_PATH.fullmatch(value) or ".." in value.split("/"):
            return f"{shown(value)} is not {wanted}"
        return None
    if not rule.fullmatch(value):
        return f"{shown(value)} is not {wanted}"
    return None


def check_values(hostvars, hosts):
    """Variables that reach scripts and command lines have their format (VALUE_RULES): paths,
    programs, interface names, addresses, user names, environment names."""
    found = {}
    for host in hosts:
        hvars = hostvars.get(host, {})
        for name in sorted(set(hvars) & set(VALUE_RULES)):
            if hvars[name] is None:
                continue
            text = _value_problem(name, hvars[name])
            if text:
                found.setdefault((name, text), []).append(host)
    return grouped(found)


# The sample inventory's placeholder for a value only the operator knows (docs/guide.md, step 3).
FILL_IN = "FILL-IN"


def check_fill_in(hostvars, hosts):
    """Every value still holding the sample's placeholder, named; the other checks skip them."""
    found = {}
    for host in hosts:
        for name in sorted(hostvars.get(host, {})):
            if hostvars[host][name] == FILL_IN:
                found.setdefault((name, f"still {FILL_IN}: fill in your value (docs/guide.md, step 3)"),
                                 []).append(host)
    return grouped(found)


def inventory_errors(groups, hostvars, specs=None):
    """Every problem of the inventory, as messages; empty when it is fine.

    groups: group name -> list of host names (Ansible's `groups`).
    hostvars: host name -> mapping of that host's variables.
    specs: optional role settings' argument specs (see check_settings); without them only the
    inventory-wide variables (CHECKED_VARS) are checked.
    """
    errors = check_groups(groups)
    cluster = list(groups.get("cluster") or [])
    errors += check_fill_in(hostvars, cluster)
    hostvars = {host: {name: value for name, value in hvars.items() if value != FILL_IN}
                for host, hvars in hostvars.items()}
    errors += check_host_names(cluster)
    errors += check_addresses(hostvars, cluster)
    errors += check_npu_hosts(hostvars, [h for h in groups.get("npu_nodes") or [] if h in cluster])
    errors += check_cluster_user(hostvars, cluster)
    errors += check_connection(hostvars, cluster)
    errors += check_network(hostvars, cluster)
    errors += check_strings(hostvars, cluster)
    errors += check_values(hostvars, cluster)
    if specs:
        errors += check_settings(hostvars, cluster, specs)
    return errors
