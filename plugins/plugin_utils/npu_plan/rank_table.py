"""HCCL rank table (version 1.0): build it from a device plan and check one.

Format (all values are strings; rank_id runs 0..N-1, contiguous within a server,
servers in inventory order; device_ip is the device address from hccn.conf)::

    {"status": "completed", "version": "1.0", "server_count": "2",
     "server_list": [
       {"server_id": "10.0.0.1",
        "device": [{"device_id": "0", "device_ip": "192.168.100.101", "rank_id": "0"}, ...]},
       {"server_id": "10.0.0.2",
        "device": [{"device_id": "0", "device_ip": "192.168.100.111", "rank_id": "8"}, ...]}]}

Plan devices are the entries of a device plan: {"device": 0, "address": "...", ...}.
"""

from collections.abc import Mapping

from ansible_collections.cluster_suite.hpc.plugins.module_utils.netdetect import is_ipv4

STATUS = "completed"
VERSION = "1.0"
DEVICE_FIELDS = ("device_id", "device_ip", "rank_id")


class RankTableError(ValueError):
    """Input that cannot be turned into a rank table."""


def _is_count(text):
    return isinstance(text, str) and text.isascii() and text.isdigit()


def build_rank_table(servers):
    """Return the rank table for ``servers``: ordered (server_id, plan devices) pairs.

    ``server_id`` is the server's host IP. Each server's devices are sorted by device
    index and numbered on from the previous server's last rank. Raises RankTableError
    for input that is not shaped like that; check content with validate_rank_table.
    """
    if isinstance(servers, (str, Mapping)) or not hasattr(servers, "__iter__"):
        raise RankTableError(
            f"servers must be a list of (server_id, devices) pairs, not {type(servers).__name__}"
        )
    server_list = []
    next_rank = 0
    for position, pair in enumerate(servers):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise RankTableError(f"server {position}: expected a (server_id, devices) pair, got {pair!r}")
        server_id, devices = pair
        if not isinstance(devices, (list, tuple)):
            raise RankTableError(
                f"server {position} ({server_id}): devices must be a list, not {type(devices).__name__}"
            )
        for device in devices:
            if (
                not isinstance(device, Mapping)
                or "address" not in device
                or isinstance(device.get("device"), bool)
                or not isinstance(device.get("device"), int)
            ):
                raise RankTableError(
                    f"server {position} ({server_id}): {device!r} is not a plan device with an integer "
                    f"device and an address"
                )
        entries = []
        for device in sorted(devices, key=lambda device: device["device"]):
            entries.append(
                {
                    "device_id": str(device["device"]),
                    "device_ip": str(device["address"]),
                    "rank_id": str(next_rank),
                }
            )
            next_rank += 1
        server_list.append({"server_id": str(server_id), "device": entries})
    return {
        "status": STATUS,
        "version": VERSION,
        "server_count": str(len(server_list)),
        "server_list": server_list,
    }


def validate_rank_table(table, plan=None):
    """Return every problem with a rank table (parsed JSON), or an empty list.

    Checks status, version, string types, server_count against server_list, unique
    server_id (an IPv4 address), unique device_id per server, unique device_ip (IPv4),
    and rank_id running 0..N-1 in order. With ``plan`` ({host: [plan devices]}) every
    device_ip must be a plan address of the same device index.
    """
    if not isinstance(table, Mapping):
        return [f"the rank table must be a JSON object, not {type(table).__name__}"]
    problems = []
    for key, expected in (("status", STATUS), ("version", VERSION)):
        if table.get(key) != expected:
            problems.append(f"{key} is {table.get(key)!r}, expected {expected!r}")
    server_list = table.get("server_list")
    if not isinstance(server_list, list):
        problems.append(f"server_list must be a list, not {type(server_list).__name__}")
        return problems
    server_count = table.get("server_count")
    if not _is_count(server_count):
        problems.append(f"server_count {server_count!r} must be a string of digits")
    elif int(server_count) != len(server_list):
        problems.append(f"server_count is {server_count} but server_list has {len(server_list)} servers")
    plan_devices = _plan_devices(plan) if plan is not None else None
    server_ids = {}
    seen = {"device_ip": {}, "rank_id": {}}  # value -> "server ...: device ..." of its first holder
    next_rank = 0
    for position, server in enumerate(server_list):
        if not isinstance(server, Mapping):
            problems.append(f"server {position}: must be an object, not {type(server).__name__}")
            continue
        server_id = server.get("server_id")
        label = f"server {position} ({server_id})"
        if not isinstance(server_id, str):
            problems.append(f"{label}: server_id {server_id!r} must be a string")
        elif not is_ipv4(server_id):
            problems.append(f"{label}: server_id {server_id} is not the host's IPv4 address")
        elif server_id in server_ids:
            problems.append(f"{label}: server_id {server_id} is also server {server_ids[server_id]}")
        else:
            server_ids[server_id] = position
        devices = server.get("device")
        if not isinstance(devices, list) or not devices:
            problems.append(f"{label}: device must be a non-empty list")
            continue
        device_ids = set()
        for entry in devices:
            next_rank = _check_device(label, entry, next_rank, device_ids, seen, plan_devices, problems)
    return problems


def _plan_devices(plan):
    """{address: device index} of every device in a plan."""
    if not isinstance(plan, Mapping):
        raise RankTableError(f"the plan must be a mapping of host to device list, not {type(plan).__name__}")
    return {
        device.get("address"): device.get("device")
        for devices in plan.values()
        if isinstance(devices, (list, tuple))
        for device in devices
        if isinstance(device, Mapping)
    }


def _check_device(label, entry, next_rank, device_ids, seen, plan_devices, problems):
    """Check one device entry of a server; return the rank the next entry should have."""
    if not isinstance(entry, Mapping):
        problems.append(f"{label}: device entry {entry!r} must be an object")
        return next_rank + 1
    device_id, device_ip, rank_id = (entry.get(field) for field in DEVICE_FIELDS)
    where = f"{label}: device {device_id}"
    for field in DEVICE_FIELDS:
        if not isinstance(entry.get(field), str):
            problems.append(f"{where}: {field} {entry.get(field)!r} must be a string")
    if isinstance(device_id, str):
        if not _is_count(device_id):
            problems.append(f"{where}: device_id {device_id!r} is not a device index")
        elif device_id in device_ids:
            problems.append(f"{where}: device_id {device_id} is listed twice in this server")
        device_ids.add(device_id)
    if isinstance(device_ip, str):
        if not is_ipv4(device_ip):
            problems.append(f"{where}: device_ip {device_ip} is not an IPv4 address")
        elif device_ip in seen["device_ip"]:
            problems.append(f"{where}: device_ip {device_ip} is also used by {seen['device_ip'][device_ip]}")
        else:
            seen["device_ip"][device_ip] = where
        if plan_devices is not None:
            if device_ip not in plan_devices:
                problems.append(f"{where}: device_ip {device_ip} is not in the device plan")
            elif str(plan_devices[device_ip]) != device_id:
                problems.append(
                    f"{where}: device_ip {device_ip} belongs to device {plan_devices[device_ip]} in the device plan"
                )
    if not _is_count(rank_id):
        if isinstance(rank_id, str):
            problems.append(f"{where}: rank_id {rank_id!r} is not a rank number")
        return next_rank + 1
    if rank_id in seen["rank_id"]:
        problems.append(f"{where}: rank_id {rank_id} is also the rank of {seen['rank_id'][rank_id]}")
    elif int(rank_id) != next_rank:
        problems.append(
            f"{where}: rank_id {rank_id} should be {next_rank}: ranks run 0..N-1, contiguous "
            f"within a server, servers in order"
        )
    seen["rank_id"].setdefault(rank_id, where)
    # Continue from the rank found so one gap is reported once, not for every later device.
    return int(rank_id) + 1
