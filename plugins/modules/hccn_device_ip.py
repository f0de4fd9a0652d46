#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: apply one node's NPU device IP plan with hccn_tool, idempotently."""

DOCUMENTATION = r"""
---
module: hccn_device_ip
short_description: Apply an Ascend node's NPU device addresses with hccn_tool
description:
  - Applies one node's part of the device plan (see C(plugins/plugin_utils/npu_plan/plan.py)) in one call,
    which is much faster over SSH than one command task per device and setting.
  - For every device reads C(hccn_tool -i N -ip -g) and runs
    C(hccn_tool -i N -ip -s address A netmask M) only where the address or netmask differs.
    A device that has no address yet (C(-ip -g) fails) is set.
  - When the entry has a C(gateway), reads C(-gateway -g) and sets C(-gateway -s gateway G) if
    it differs; when it has a C(detect) address, reads C(-netdetect -g) and sets
    C(-netdetect -s address D) if it differs. Settings an entry does not name are left alone
    (for example a detect address a connectivity test set).
  - "Keeps C(/etc/hccn.conf) consistent with what is applied: hccn_tool writes it when it sets
    something; afterwards the module checks the file's C(address_N), C(netmask_N) (and
    C(gateway_N), C(netdetect_N) where the plan has them) and rewrites only the lines that
    drifted, keeping every other line in place."
  - After setting, reads every changed device back (C(-ip -g), C(-gateway -g), C(-netdetect -g))
    and fails if the device does not report what was set.
  - When one device's new address is still held by another device that is about to change, the
    set is retried after the others. Addresses swapped between two devices cannot be applied in
    place (hccn_tool refuses an address another device holds); the module fails naming them.
  - Parsing and rendering live in C(plugins/module_utils/hccn_output.py).
author:
  - Cluster suite contributors
options:
  devices:
    description:
      - The node's device entries from the plan, for example
        C(npu_plan[inventory_hostname]).
    type: list
    elements: dict
    required: true
    suboptions:
      device:
        description: Device index (C(hccn_tool -i)).
        type: int
        required: true
      address:
        description: Device IPv4 address.
        type: str
        required: true
      netmask:
        description: Dotted netmask.
        type: str
        required: true
      gateway:
        description: Default gateway of the device (A2 models), optional.
        type: str
      detect:
        description: Detect address for the health check, optional.
        type: str
  hccn_tool:
    description: Path of hccn_tool on the node.
    type: path
    default: /usr/local/Ascend/driver/tools/hccn_tool
  hccn_conf:
    description: Path of the hccn_tool configuration file.
    type: path
    default: /etc/hccn.conf
  manage_conf:
    description: Check O(hccn_conf) after applying and rewrite the lines that differ from the plan.
    type: bool
    default: true
  verify:
    description: Read changed devices back after setting and fail when they do not match.
    type: bool
    default: true
extends_documentation_fragment:
  - action_common_attributes
  - cluster_suite.hpc.attributes
attributes:
  check_mode:
    support: full
    details: Reads the devices and O(hccn_conf) and reports what would be set; nothing is changed.
  diff_mode:
    support: full
    details: Shows the devices' settings and O(hccn_conf) before and after.
notes:
  - Needs root on a real node (hccn_tool does); use C(become).
seealso:
  - module: hccn_netdetect
"""

EXAMPLES = r"""
- name: Apply this node's device addresses from the plan
  become: true
  hccn_device_ip:
    devices: "{{ npu_plan[inventory_hostname] }}"

- name: Device 0 of AI Server0 in Ascend's PyTorch multi-node training guide, by hand
  become: true
  hccn_device_ip:
    devices:
      - device: 0
        address: 192.168.100.101
        netmask: 255.255.255.0

- name: An A2 node with gateway and detect address
  become: true
  hccn_device_ip:
    devices:
      - {device: 0, address: 10.20.0.11, netmask: 255.255.255.0, gateway: 10.20.0.1, detect: 10.20.0.1}
"""

RETURN = r"""
devices:
  description: Each device as it is now (after the change; in check mode as it would be).
  returned: always
  type: list
  elements: dict
  contains:
    device:
      description: Device index.
      type: int
      sample: 0
    address:
      description: Address from the plan.
      type: str
      sample: 192.168.100.101
    netmask:
      description: Netmask from the plan.
      type: str
      sample: 255.255.255.0
    before:
      description: What the device reported before (address, netmask, and gateway/detect where
        the plan has them); null values for unset.
      type: dict
      sample: {"address": null, "netmask": null}
    changed_settings:
      description: Settings set on this device (V(ip), V(gateway), V(detect)).
      type: list
      elements: str
      sample: [ip]
commands:
  description: The hccn_tool command lines that set something (or would, in check mode).
  returned: always
  type: list
  elements: str
  sample: ["/usr/local/Ascend/driver/tools/hccn_tool -i 0 -ip -s address 192.168.100.101 netmask 255.255.255.0"]
conf_changed:
  description: Whether O(hccn_conf) differs from the plan after hccn_tool's own writes and was
    rewritten by the module (drift fixed).
  returned: always
  type: bool
  sample: false
conf_keys:
  description: The O(hccn_conf) keys the module rewrote (or would).
  returned: always
  type: list
  elements: str
  sample: [address_3]
"""

import os
import tempfile

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.cluster_suite.hpc.plugins.module_utils.hccn_output import parse_hccn_conf, render_hccn_conf
from ansible_collections.cluster_suite.hpc.plugins.module_utils.hccn_devices import (
    check_devices, conf_mismatches, conf_settings, describe_devices, describe_state, read_entry)
from ansible_collections.cluster_suite.hpc.plugins.module_utils.hccn_tool import HccnError, HccnTool




def ip_sets(tool, pending, before, module):
    """Set the addresses of ``pending`` entries; retry those refused while another device
    still holds their new address, as long as a pass makes progress."""
    while pending:
        refused = []
        errors = []
        for entry in pending:
            try:
                tool.run(entry["device"], "-ip", "-s", "address", entry["address"], "netmask", entry["netmask"])
            except HccnError as error:
                refused.append(entry)
                errors.append(str(error))
        if len(refused) == len(pending):
            msg = "hccn_tool refused the device addresses: %s" % "; ".join(errors)
            holders = {state["address"]: device for device, state in before.items() if state["address"]}
            waiting = {entry["device"] for entry in refused}
            cycle = sorted(
                "%d and %d" % tuple(sorted((entry["device"], holders[entry["address"]])))
                for entry in refused
                if holders.get(entry["address"]) in waiting and holders[entry["address"]] != entry["device"]
            )
            if cycle:
                msg += (
                    "; devices %s would swap addresses, which hccn_tool cannot do in place: give one of them a"
                    " free address first" % ", ".join(sorted(set(cycle)))
                )
            module.fail_json(msg=msg)
        pending = refused


def read_conf(module, path):
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except FileNotFoundError:
        return ""
    except OSError as error:
        module.fail_json(msg="cannot read %s: %s" % (path, error))


def write_conf(module, path, text):
    directory = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(prefix=".hccn.conf.", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(tmp, 0o644)
    except OSError as error:
        os.unlink(tmp)
        module.fail_json(msg="cannot write %s: %s" % (path, error))
    module.atomic_move(tmp, path)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            devices=dict(
                type="list",
                elements="dict",
                required=True,
                options=dict(
                    device=dict(type="int", required=True),
                    address=dict(type="str", required=True),
                    netmask=dict(type="str", required=True),
                    gateway=dict(type="str"),
                    detect=dict(type="str"),
                ),
            ),
            hccn_tool=dict(type="path", default="/usr/local/Ascend/driver/tools/hccn_tool"),
            hccn_conf=dict(type="path", default="/etc/hccn.conf"),
            manage_conf=dict(type="bool", default=True),
            verify=dict(type="bool", default=True),
        ),
        supports_check_mode=True,
    )
    params = module.params
    devices = sorted(params["devices"], key=lambda entry: entry["device"])
    problems = check_devices(devices)
    if problems:
        module.fail_json(msg="devices: %s" % "; ".join(problems))
    path = params["hccn_tool"]
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        module.fail_json(msg="hccn_tool not found or not executable at %s (is the Ascend driver installed?)" % path)
    tool = HccnTool(module, path)
    conf_original = read_conf(module, params["hccn_conf"]) if params["manage_conf"] else ""

    try:
        before = {entry["device"]: read_entry(tool, entry) for entry in devices}
    except (HccnError, ValueError) as error:
        module.fail_json(msg=str(error))

    commands = []
    ip_pending = []
    later = []  # (device, argv tail) for gateway / detect, after the addresses
    report = []
    for entry in devices:
        device = entry["device"]
        state = before[device]
        settings = []
        if (state["address"], state["netmask"]) != (entry["address"], entry["netmask"]):
            settings.append("ip")
            ip_pending.append(entry)
            commands.append(
                " ".join(tool.argv(device, "-ip", "-s", "address", entry["address"], "netmask", entry["netmask"]))
            )
        if entry.get("gateway") and state.get("gateway") != entry["gateway"]:
            settings.append("gateway")
            later.append((device, ["-gateway", "-s", "gateway", entry["gateway"]]))
        if entry.get("detect") and state.get("detect") != entry["detect"]:
            settings.append("detect")
            later.append((device, ["-netdetect", "-s", "address", entry["detect"]]))
        report.append(
            dict(
                device=device,
                address=entry["address"],
                netmask=entry["netmask"],
                before=state,
                changed_settings=settings,
            )
        )
    commands.extend(" ".join(tool.argv(device, *tail)) for device, tail in later)

    if not module.check_mode:
        try:
            ip_sets(tool, ip_pending, before, module)
            for device, tail in later:
                tool.run(device, *tail)
        except HccnError as error:
            module.fail_json(msg=str(error), commands=commands)

    # /etc/hccn.conf: hccn_tool wrote what it set; fix whatever still differs from the plan.
    conf_changed = False
    conf_keys = []
    conf_after = conf_original
    if params["manage_conf"]:
        conf_now = conf_original if module.check_mode else read_conf(module, params["hccn_conf"])
        wanted = conf_settings(devices)
        try:
            current = parse_hccn_conf(conf_now)
            conf_after = render_hccn_conf(wanted, conf_now)
        except ValueError as error:
            module.fail_json(msg="%s: %s; fix or remove the file" % (params["hccn_conf"], error))
        conf_keys = conf_mismatches(wanted, current)
        if module.check_mode:
            # hccn_tool itself would write the keys of what it sets; the rest is drift.
            tool_keys = set()
            for entry in ip_pending:
                tool_keys.update(("address_%d" % entry["device"], "netmask_%d" % entry["device"]))
            for device, tail in later:
                tool_keys.add("%s_%d" % ("gateway" if tail[0] == "-gateway" else "netdetect", device))
            conf_keys = [key for key in conf_keys if key not in tool_keys]
        conf_changed = bool(conf_keys)
        if conf_changed and not module.check_mode:
            write_conf(module, params["hccn_conf"], conf_after)
            wrong = conf_mismatches(wanted, parse_hccn_conf(read_conf(module, params["hccn_conf"])))
            if wrong:
                module.fail_json(msg="%s still differs after rewriting: %s" % (params["hccn_conf"], ", ".join(wrong)))

    changed_devices = [item for item in report if item["changed_settings"]]
    after = {}
    for item in report:
        entry = next(entry for entry in devices if entry["device"] == item["device"])
        after[item["device"]] = {key: entry.get(key) for key in before[item["device"]]}
    if params["verify"] and not module.check_mode and changed_devices:
        mismatches = []
        for item in changed_devices:
            entry = next(entry for entry in devices if entry["device"] == item["device"])
            try:
                now = read_entry(tool, entry)
            except (HccnError, ValueError) as error:
                mismatches.append("device %d: %s" % (item["device"], error))
                continue
            if now != after[item["device"]]:
                mismatches.append(
                    "device %d reports %s after setting %s"
                    % (
                        item["device"],
                        describe_state(now),
                        describe_state(after[item["device"]]),
                    )
                )
        if mismatches:
            module.fail_json(
                msg="hccn_tool does not report the settings just applied: %s" % "; ".join(mismatches), commands=commands
            )

    changed = bool(changed_devices) or conf_changed
    result = dict(
        changed=changed,
        devices=report,
        commands=commands,
        conf_changed=conf_changed,
        conf_keys=conf_keys,
        msg="%d device(s) %sset, %d key(s) of %s %srewritten"
        % (
            len(changed_devices),
            "would be " if module.check_mode else "",
            len(conf_keys) if conf_changed else 0,
            params["hccn_conf"],
            "would be " if module.check_mode else "",
        ),
    )
    if module._diff:
        result["diff"] = [
            dict(
                before_header="hccn_tool devices",
                after_header="hccn_tool devices",
                before=describe_devices(before),
                after=describe_devices(after),
            )
        ]
        if params["manage_conf"]:
            result["diff"].append(
                dict(
                    before_header=params["hccn_conf"],
                    after_header=params["hccn_conf"],
                    before=conf_original,
                    after=conf_after,
                )
            )
    module.exit_json(**result)


if __name__ == "__main__":
    main()
