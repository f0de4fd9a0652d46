"""Checks of a cluster inventory that must pass before anything touches a node.

Plain functions over plain data (the inventory's groups and each host's variables), so they
run on the controller without facts, are unit tested, and report every problem at once.
Each message names the host (or group) and the variable, then says what is wrong.
"""
import ipaddress
import re

NODE_GROUPS = ("npu_nodes", "gpu_nodes", "cpu_nodes")
NPU_MODELS = ("atlas800", "atlas800t_a2", "atlas900_a2_pod")
NPU_DEVICE_COUNTS = (1, 2, 4, 8, 16)
# POSIX portable user names, as useradd accepts them by default.
USER_NAME = re.compile(r"^[a-z_][a-z0-9_-]{0,31}$")
IPV4_LIKE = re.compile(r"^[0-9.]+$")


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


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
                          f"got {address!r}")
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
                          f"{type(count).__name__} {count!r}")
        elif count not in NPU_DEVICE_COUNTS:
            errors.append(f"{host}: npu_device_count: {count} is not a device count of an "
                          f"Ascend server (one of {', '.join(map(str, NPU_DEVICE_COUNTS))})")
        model = hvars.get("npu_model")
        if model is not None and model not in NPU_MODELS:
            errors.append(f"{host}: npu_model: unknown hardware model {model!r} (known: "
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
                          f"{type(allow_root).__name__} {allow_root!r}")
        if not isinstance(user, str) or not USER_NAME.match(user):
            errors.append(f"{host}: cluster_user: {user!r} is not a valid user name")
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


def inventory_errors(groups, hostvars):
    """Every problem of the inventory, as messages; empty when it is fine.

    groups: group name -> list of host names (Ansible's `groups`).
    hostvars: host name -> mapping of that host's variables.
    """
    errors = check_groups(groups)
    cluster = list(groups.get("cluster") or [])
    errors += check_addresses(hostvars, cluster)
    errors += check_npu_hosts(hostvars, [h for h in groups.get("npu_nodes") or [] if h in cluster])
    errors += check_cluster_user(hostvars, cluster)
    return errors
