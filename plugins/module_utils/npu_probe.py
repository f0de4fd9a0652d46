"""What the doctor reads of a node's NPUs, for module doctor_probe: npu-smi's count and table, each
device's address, health, link, TLS switch, versions and ECC counts (read in parallel), and whether
the training user can open each device file."""
import grp
import os
import re
from concurrent.futures import ThreadPoolExecutor

from ansible_collections.cluster_suite.hpc.plugins.module_utils.hccn_output import (
    parse_ip, parse_link, parse_npu_fields, parse_npu_list, parse_npu_table, parse_tls)


def device_state(run, index, hccn_tool, npu_smi):
    """What the health gates read of one device: health, link, TLS switch, versions, ECC."""
    state, errors = {}, []

    def ask(argv, parse):
        rc, out, err = run(argv)
        try:
            if rc != 0:
                raise ValueError((err or out).strip()[:200] or "rc %s" % rc)
            return parse(out)
        except ValueError as exc:
            errors.append("%s: %s" % (" ".join(argv[1:] if argv[0] == hccn_tool else argv), exc))
            return None

    device = str(index)
    state["link"] = ask([hccn_tool, "-i", device, "-link", "-g"], parse_link)
    state["tls"] = ask([hccn_tool, "-i", device, "-tls", "-g"], parse_tls)
    health = ask([npu_smi, "info", "-t", "health", "-i", device], parse_npu_fields)
    if health is not None:
        state["health"] = [value for key, value in health if key == "Health"]
    board = ask([npu_smi, "info", "-t", "board", "-i", device], parse_npu_fields)
    if board is not None:
        fields = dict(board)
        state["software_version"] = fields.get("Software Version")
        state["firmware_version"] = fields.get("Firmware Version")
    ecc = ask([npu_smi, "info", "-t", "ecc", "-i", device, "-c", "0"], parse_npu_fields)
    if ecc is not None:
        state["ecc_double"] = sum(int(value) for key, value in ecc
                                  if re.match(r"(?i)^(\w+ )?double[- ]bit error (count|cnt)$", key) and value.isdigit())
    state["errors"] = errors
    return state


def collect_npu(run, devices, hccn_tool, npu_smi):
    """NPU count, each device's address and what the health gates read (npu-smi's table with its
    processes; per device health, link, TLS switch, versions, ECC), read in parallel."""
    result = {"count": None, "error": None, "devices": {}, "table": None, "table_error": None, "state": {}}
    rc, out, err = run([npu_smi, "info", "-l"])
    try:
        if rc != 0:
            raise ValueError("%s info -l failed (rc %s): %s" % (npu_smi, rc, (err or out).strip()[:300]))
        result["count"] = parse_npu_list(out)["total"]
    except ValueError as exc:
        result["error"] = str(exc)

    def read_table():
        rc, out, err = run([npu_smi, "info"])
        try:
            if rc != 0:
                raise ValueError("%s info failed (rc %s): %s" % (npu_smi, rc, (err or out).strip()[:300]))
            result["table"] = parse_npu_table(out)
        except ValueError as exc:
            result["table_error"] = str(exc)[:300]

    def read_device(index):
        rc, out, err = run([hccn_tool, "-i", str(index), "-ip", "-g"])
        try:
            if rc != 0:
                raise ValueError((err or out).strip()[:300] or "rc %s" % rc)
            return str(index), parse_ip(out)
        except ValueError as exc:
            return str(index), {"error": str(exc)}

    with ThreadPoolExecutor(max_workers=8) as pool:
        table = pool.submit(read_table)
        states = [pool.submit(device_state, run, index, hccn_tool, npu_smi) for index in range(devices)]
        result["devices"] = dict(pool.map(read_device, range(devices)))
        table.result()
        result["state"] = {str(index): future.result() for index, future in enumerate(states)}
    return result


def open_device_files(paths):
    """Open each file read/write and close it again, as the training user; {path: None or error}."""
    found = {}
    for path in paths:
        try:
            os.close(os.open(path, os.O_RDWR | os.O_NONBLOCK))
            found[path] = None
        except OSError as exc:
            entry = {"error": exc.strerror or str(exc)}
            try:
                entry["group"] = grp.getgrgid(os.stat(path).st_gid).gr_name
            except (OSError, KeyError):
                pass
            found[path] = entry
    return found
