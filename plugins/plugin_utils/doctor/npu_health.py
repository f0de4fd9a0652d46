"""Doctor checks of the NPUs themselves, before any job: the training user opens every device file
(npu_device_access), the chips are those npu_model plans for (npu_model), and the health gates
(npu_health, npu_link, npu_tls, npu_versions, npu_processes, npu_ecc) from what doctor_probe read
with npu-smi and hccn_tool. Each failure names the device and the fix."""

import re
from collections import Counter

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.doctor.checks import join_items, not_checked_reason, shorten

# npu_model -> the chip family npu-smi names (the Name column of `npu-smi info`): an Atlas 800
# training server carries Ascend 910 (910A, 910ProA, 910ProB, 910PremiumA), the A2 servers 910B1..4.
MODEL_CHIPS = {"atlas800": "910", "atlas800t_a2": "910B", "atlas900_a2_pod": "910B"}
MODEL_FOR_CHIP = {"910": "atlas800 (the Atlas 800 plan: four subnets, device i and i+4 paired)",
                  "910B": "atlas800t_a2 (one subnet for all 8 devices) with a gateway (npu_network_gateway)"}
PLAN_OF_MODEL = {"atlas800": "910A plan", "atlas800t_a2": "910B plan", "atlas900_a2_pod": "910B plan"}
HEALTH_CHECKS = ("npu_device_access", "npu_model", "npu_health", "npu_link", "npu_tls", "npu_versions",
                 "npu_processes", "npu_ecc")


def chip_family(name):
    """npu-smi's chip name -> "910B" (Ascend 910B1..4, the A2 servers), "910" (the first Ascend 910
    chips) or None (anything else, e.g. an A3's Ascend910_93 or a 310)."""
    name = re.sub(r"^Ascend", "", str(name or ""))
    if re.fullmatch(r"910B\d", name):
        return "910B"
    if re.fullmatch(r"910(A|B|ProA|ProB|PremiumA)?", name):
        return "910"
    return None


def _devices(state, count):
    return [str(index) for index in range(count)] if count else sorted(state, key=int)


def check_device_access(host, node, results):
    files = (node.get("user") or {}).get("device_files")
    if files is None:
        results.set("npu_device_access", host, "warn", "not checked: the training user's probe did not run")
        return
    user = node.get("expect", {}).get("user") or "the training user"
    bad = {path: entry for path, entry in sorted(files.items()) if entry}
    if not bad:
        results.set("npu_device_access", host, "ok", "%s opens all %d NPU device files" % (user, len(files)))
        return
    groups = sorted({entry.get("group") for entry in bad.values() if entry.get("group")})
    fix = ("add %s to group %s, which owns them (ssh_trust_npu_group; site.yml --tags ssh)"
           % (user, " / ".join(groups)) if groups else "install the NPU driver (the files are missing)")
    results.set("npu_device_access", host, "fail", "%s cannot open %s: %s" % (
        user, join_items(["%s (%s)" % (path, entry.get("error")) for path, entry in bad.items()], 4), fix))


def check_model(host, npu, expect, results):
    table = npu.get("table") or {}
    names = sorted({device.get("name") for device in (table.get("devices") or {}).values()})
    model = expect.get("npu_model")
    if not names:
        results.set("npu_model", host, "fail", "cannot read the chip names: %s" % shorten(npu.get("table_error"), 200))
        return
    families = {chip_family(name) for name in names}
    wanted = MODEL_CHIPS.get(model)
    shown = "/".join("Ascend" + re.sub(r"^Ascend", "", name) for name in names)
    if families == {wanted}:
        results.set("npu_model", host, "ok", "npu-smi reports %s, as npu_model %s plans" % (shown, model))
        return
    found = families.pop() if len(families) == 1 else None
    fix = ("set npu_model: %s" % MODEL_FOR_CHIP[found]) if found in MODEL_FOR_CHIP else \
        "this suite plans Atlas 800 (Ascend 910) and Atlas 800T A2 / 900 A2 PoD (Ascend 910B) servers only"
    results.set("npu_model", host, "fail", "npu-smi reports %s but npu_model is %s (%s); %s" % (
        shown, model, PLAN_OF_MODEL.get(model, "no known plan"), fix))


def check_health(host, npu, devices, results):
    table = (npu.get("table") or {}).get("devices") or {}
    state = npu.get("state") or {}
    bad, unread = [], []
    for device in devices:
        healths = list((state.get(device) or {}).get("health") or [])
        if device.isdigit() and int(device) in table:
            healths.append(table[int(device)].get("health"))
        if not healths:
            unread.append(device)
        elif any(health != "OK" for health in healths):
            bad.append("device %s is %s" % (device, "/".join(sorted({h for h in healths if h != "OK"}))))
    _judge(results, "npu_health", host, state, unread, ("health", "health"), bad and (
        "%s (npu-smi info -t health -i N): read the device's error codes (npu-smi info -t health -i N -c 0) and "
        "reset or replace it before any job" % "; ".join(bad)), "all %d devices OK" % len(devices))


def _judge(results, check, host, state, unread, read_what, failure, ok_text):
    """One per-device check's verdict: the failure when there is one, else the devices it could not
    read (``read_what``: what, and the word of the query in the probe's errors), else ok."""
    if failure:
        results.set(check, host, "fail", failure)
    elif unread:
        errors = [error for device in unread for error in (state.get(device) or {}).get("errors") or []
                  if read_what[1] in error]
        results.set(check, host, "fail", "cannot read the %s of device(s) %s: %s" % (
            read_what[0], ", ".join(unread), shorten("; ".join(errors) or "no answer", 200)))
    else:
        results.set(check, host, "ok", ok_text)


def check_link(host, state, devices, results):
    down = [device for device in devices if (state.get(device) or {}).get("link") == "DOWN"]
    unread = [device for device in devices if (state.get(device) or {}).get("link") is None]
    _judge(results, "npu_link", host, state, unread, ("link", "-link"), down and (
        "link DOWN on device(s) %s (hccn_tool -i N -link -g): check the optical module and cable of each, and the "
        "switch port" % ", ".join(down)), "link UP on all %d devices" % len(devices))


def check_processes(host, npu, results):
    table = npu.get("table")
    if table is None:
        results.set("npu_processes", host, "fail", "cannot read npu-smi info's process table: %s"
                    % shorten(npu.get("table_error"), 200))
        return
    holders = table.get("processes") or []
    if holders:
        results.set("npu_processes", host, "fail", "%s hold NPUs before any job: stop them (or wait for their job) "
                    "first" % join_items(["pid %s (%s) on device %s" % (p.get("pid"), p.get("name"), p.get("npu"))
                                          for p in holders], 4))
    else:
        results.set("npu_processes", host, "ok", "no process holds an NPU")


def check_ecc(host, state, devices, results):
    bad = ["device %s has %s" % (device, (state.get(device) or {}).get("ecc_double")) for device in devices
           if ((state.get(device) or {}).get("ecc_double") or 0) > 0]
    unread = [device for device in devices if (state.get(device) or {}).get("ecc_double") is None]
    _judge(results, "npu_ecc", host, state, unread, ("ECC counts", "ecc"), bad and (
        "uncorrected (double-bit) ECC errors: %s (npu-smi info -t ecc -i N -c 0): the device's memory is failing; "
        "have it checked before any job" % "; ".join(bad)), "no uncorrected ECC error on %d devices" % len(devices))


def _majority(values):
    """The one most common value, or None when none is (no value, or a tie: then nobody can say which
    side is odd, and every side is named)."""
    ranked = Counter(values).most_common(2)
    if not ranked or (len(ranked) == 2 and ranked[0][1] == ranked[1][1]):
        return None
    return ranked[0][0]


def check_tls(read, results):
    """The TLS switch the same on every device of the cluster (devices of differing TLS cannot link)."""
    known = [(state.get(device) or {}).get("tls") for _, devices, state in read for device in devices]
    known = [value for value in known if value is not None]
    common = _majority(known)
    others = "%s on the cluster's other devices" % common if common is not None else \
        "the cluster's devices are split evenly (%s)" % "/".join(str(v) for v in sorted(set(known)))
    for host, devices, state in read:
        unread = [device for device in devices if (state.get(device) or {}).get("tls") is None]
        odd = [device for device in devices if (state.get(device) or {}).get("tls") not in (None, common)]
        if odd:
            results.set("npu_tls", host, "fail", "TLS switch %s on device(s) %s but %s "
                        "(hccn_tool -i N -tls -g): devices of differing TLS cannot link; set one value everywhere "
                        "(hccn_tool -i N -tls -s enable 0|1)" % (
                            "/".join(sorted({str((state.get(d) or {}).get("tls")) for d in odd})), ", ".join(odd),
                            others))
        else:
            _judge(results, "npu_tls", host, state, unread, ("TLS switch", "-tls"), None,
                   "TLS switch %s on all %d devices, as on the whole cluster" % (common, len(devices)))


def check_versions(read, results):
    """The NPU driver (npu-smi's Software Version) and firmware the same on every device of every node."""
    def common(field):
        """The value of most nodes (each node counted once per value it has)."""
        values = [value for _, devices, state in read
                  for value in dict.fromkeys((state.get(d) or {}).get(field) for d in devices) if value]
        return _majority(values), sorted(set(values))

    (driver, drivers), (firmware, firmwares) = common("software_version"), common("firmware_version")
    for host, devices, state in read:
        problems = []
        for name, field, common_value, seen in (("driver", "software_version", driver, drivers),
                                                ("firmware", "firmware_version", firmware, firmwares)):
            values = {}
            for device in devices:
                values.setdefault((state.get(device) or {}).get(field), []).append(device)
            for value, where in values.items():
                if value is None:
                    problems.append("cannot read the %s version of device(s) %s" % (name, ", ".join(where)))
                elif common_value is None and len(seen) > 1:
                    problems.append("%s %s on device(s) %s; the nodes are split evenly (%s)" % (
                        name, value, ", ".join(where), ", ".join(seen)))
                elif common_value is not None and value != common_value:
                    problems.append("%s %s on device(s) %s, %s on the other nodes" % (
                        name, value, ", ".join(where), common_value))
        if problems:
            results.set("npu_versions", host, "fail", "%s (npu-smi info -t board -i N): install the same NPU driver "
                        "and firmware on every node" % "; ".join(problems))
        else:
            results.set("npu_versions", host, "ok", "driver %s, firmware %s, as on every node" % (driver, firmware))


def check_npu_health(nodes, hosts, results):
    npu_hosts = [host for host in hosts if nodes[host].get("expect", {}).get("kind") == "npu"]
    read = []
    for host in npu_hosts:
        node = nodes[host]
        npu = (node.get("system") or {}).get("npu")
        reason = not_checked_reason(host, node)
        if reason or npu is None or npu.get("state") is None:
            for check in HEALTH_CHECKS:
                results.set(check, host, "warn", reason or "not checked: the NPU state was not read")
            continue
        expect = node.get("expect", {})
        state = npu.get("state") or {}
        devices = _devices(state, int(expect.get("npu_device_count") or 0))
        check_device_access(host, node, results)
        check_model(host, npu, expect, results)
        check_health(host, npu, devices, results)
        check_link(host, state, devices, results)
        check_processes(host, npu, results)
        check_ecc(host, state, devices, results)
        read.append((host, devices, state))
    check_tls(read, results)
    check_versions(read, results)
