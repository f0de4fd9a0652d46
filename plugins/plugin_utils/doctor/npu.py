"""Doctor checks npu_device_count, npu_device_ips and npu_netdetect on the NPU nodes."""

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.doctor.checks import not_checked_reason, shorten


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
            results.set("npu_device_count", host, "fail", "cannot count the NPUs: %s" % shorten(npu.get("error"), 200))
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
                problems.append("device %s has no address (%s), plan %s" % (device, shorten(have["error"], 60), want))
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
