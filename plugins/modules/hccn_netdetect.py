#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: test NPU device connectivity with hccn_tool -netdetect / -net_health."""

DOCUMENTATION = r"""
---
module: hccn_netdetect
short_description: Test an Ascend node's NPU device links with hccn_tool's health check
description:
  - Runs the connectivity test of Ascend's PyTorch multi-node training guide on the node. For
    each device it sets the detect address
    (C(hccn_tool -i <device> -netdetect -s address <target>)), waits, and reads
    C(hccn_tool -i <device> -net_health -g) until it is no longer C(Init) (or C(Detect ip set)),
    at most O(timeout) seconds.
  - A device with several targets (several peer servers) tests them one after the other; all
    devices run each round together, so a two-server test of 8 devices takes one round.
  - Returns one result per device and target with the status text and code, the link state
    (C(-link -g)) and the number of readings; a failure to run hccn_tool for one device is
    reported as status V(Unknown) (code V(-1)) and the other tests go on.
  - By default the module reports and does not fail on a non-Success status; set
    O(fail_on_error=true) to fail the task, or decide in the playbook from RV(unsuccessful).
  - The detect address stays at the device's last target afterwards (C(/etc/hccn.conf) keeps
    it as C(netdetect_<device>)), as after running the guide's commands by hand; C(changed)
    says whether any device's detect address is now different from before.
  - Logic lives in C(plugins/module_utils/netdetect.py), output parsing in C(plugins/module_utils/hccn_output.py).
author:
  - Cluster suite contributors
options:
  targets:
    description:
      - What to test, one entry per device. The C(npu_detect_targets) filter gives a mapping of
        device to addresses for a host of the device plan; turn it into this list with
        C(dict2items(key_name='device', value_name='targets')).
      - A device with an empty target list is not tested (RV(untested_devices)).
    type: list
    elements: dict
    required: true
    suboptions:
      device:
        description: Device index (C(hccn_tool -i)).
        type: int
        required: true
      targets:
        description: Addresses to check, in order; usually device i of every peer server.
        type: list
        elements: str
        required: true
  target_labels:
    description:
      - Optional names for target addresses, for example V(node2 device 3), copied into each
        result's RV(results[].target_label) and the failure lines.
    type: dict
    default: {}
  hccn_tool:
    description: Path of hccn_tool on the node.
    type: path
    default: /usr/local/Ascend/driver/tools/hccn_tool
  timeout:
    description:
      - Seconds after setting a detect address during which a C(Init) status is read again.
        A status still pending then is reported with RV(results[].timed_out).
    type: float
    default: 30
  delay:
    description: Seconds to wait after setting the detect addresses before the first reading.
    type: float
    default: 2
  interval:
    description: Seconds between readings while the status is pending.
    type: float
    default: 1
  fail_on_error:
    description: Fail the task when any test is not C(Success).
    type: bool
    default: false
extends_documentation_fragment:
  - action_common_attributes
  - cluster_suite.hpc.attributes
attributes:
  check_mode:
    support: full
    details:
      - In check mode nothing is set and nothing is tested. Each device's current state is read
        once (detect address, health, link) and reported for each of its targets with
        RV(results[].tested) false; RV(results[].success) is then true only when the current
        detect address is that target and the health is C(Success).
  diff_mode:
    support: none
notes:
  - Needs root on a real node (hccn_tool does); use C(become).
  - A device answers C(Unreachable) for a target outside its own subnet.
seealso:
  - module: hccn_device_ip
"""

EXAMPLES = r"""
- name: Test every device against the same device of each peer server
  become: true
  hccn_netdetect:
    targets: "{{ plan | cluster_suite.hpc.npu_detect_targets(npu_model, inventory_hostname)
                 | dict2items(key_name='device', value_name='targets') }}"
  register: netdetect

- name: One device against two addresses, failing on any problem
  become: true
  hccn_netdetect:
    targets:
      - device: 0
        targets: [192.168.100.111, 192.168.100.121]
    target_labels:
      192.168.100.111: node2 device 0
      192.168.100.121: node3 device 0
    timeout: 60
    fail_on_error: true

- name: Only look at the current state (nothing is set)
  hccn_netdetect:
    targets: [{device: 0, targets: [192.168.100.111]}]
  check_mode: true
"""

RETURN = r"""
results:
  description: One entry per device and target, in test order (round by round).
  returned: always
  type: list
  elements: dict
  contains:
    device:
      description: Device index.
      type: int
      sample: 3
    address:
      description: The device's own address (C(-ip -g)), null when it has none.
      type: str
      sample: 192.168.103.101
    target:
      description: The address tested.
      type: str
      sample: 192.168.103.111
    target_label:
      description: The target's name from O(target_labels), or null.
      type: str
      sample: node2 device 3
    detect_address:
      description: The detect address the status was measured against (in check mode the
        device's current one, which may differ from the target or be null).
      type: str
      sample: 192.168.103.111
    status:
      description: Health status name (Success, Socket fail, Receive timeout, Unreachable,
        Time exceeded, Fault, Init, Thread error, Detect ip set, Unknown).
      type: str
      sample: Success
    code:
      description: hccn_tool's code of the status, 0 for Success, -1 for Unknown.
      type: int
      sample: 0
    text:
      description: The status as printed, or the error text for Unknown.
      type: str
      sample: Success
    link:
      description: Link state after the test, V(UP) or V(DOWN); null when not read.
      type: str
      sample: UP
    attempts:
      description: Health readings made.
      type: int
      sample: 1
    seconds:
      description: Seconds from setting the detect address to the last reading.
      type: float
      sample: 2.04
    timed_out:
      description: Whether the status was still pending at O(timeout).
      type: bool
      sample: false
    tested:
      description: Whether the detect address was set for this test (false in check mode and
        when setting it failed).
      type: bool
      sample: true
    success:
      description: Whether the status is Success (in check mode also that the current detect
        address is the target).
      type: bool
      sample: true
    error:
      description: Why hccn_tool could not set or read, or null.
      type: str
      sample: null
total:
  description: Number of tests.
  returned: always
  type: int
  sample: 8
succeeded:
  description: Number of tests with status Success.
  returned: always
  type: int
  sample: 8
unsuccessful:
  description: Number of tests that did not succeed.
  returned: always
  type: int
  sample: 0
failure_lines:
  description: One readable line per failed test.
  returned: always
  type: list
  elements: str
  sample: ["device 3 (192.168.103.101) -> 192.168.103.111 (node2 device 3): Receive timeout (code 2), link UP, 1 attempt in 2.0 s"]
untested_devices:
  description: Devices given without any target.
  returned: always
  type: list
  elements: int
  sample: []
detect_before:
  description: Each device's detect address before the test, by device (null when unset).
  returned: always
  type: dict
  sample: {"0": null}
"""

import os

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.cluster_suite.hpc.plugins.module_utils.hccn_tool import HccnError, HccnTool
from ansible_collections.cluster_suite.hpc.plugins.module_utils.netdetect import describe, observe, parse_pairs, run_tests, summarize


def main():
    module = AnsibleModule(
        argument_spec=dict(
            targets=dict(
                type="list",
                elements="dict",
                required=True,
                options=dict(
                    device=dict(type="int", required=True),
                    targets=dict(type="list", elements="str", required=True),
                ),
            ),
            target_labels=dict(type="dict", default={}),
            hccn_tool=dict(type="path", default="/usr/local/Ascend/driver/tools/hccn_tool"),
            timeout=dict(type="float", default=30),
            delay=dict(type="float", default=2),
            interval=dict(type="float", default=1),
            fail_on_error=dict(type="bool", default=False),
        ),
        supports_check_mode=True,
    )
    params = module.params
    for name in ("timeout", "delay", "interval"):
        if params[name] < 0:
            module.fail_json(msg="%s must not be negative, got %s" % (name, params[name]))
    try:
        pairs = parse_pairs(params["targets"])
    except ValueError as error:
        module.fail_json(msg="targets: %s" % error)
    tool = HccnTool(module, params["hccn_tool"])
    if not (os.path.isfile(params["hccn_tool"]) and os.access(params["hccn_tool"], os.X_OK)):
        module.fail_json(msg="hccn_tool not found or not executable at %s" % params["hccn_tool"])
    labels = {str(key): str(value) for key, value in params["target_labels"].items()}

    detect_before = {}
    for device, targets in pairs:
        if targets:
            try:
                detect_before[device] = tool.detect(device)
            except (HccnError, ValueError):
                detect_before[device] = None
    if module.check_mode:
        results = observe(pairs, tool, labels)
        changed = False
    else:
        results = run_tests(
            pairs, tool, timeout=params["timeout"], delay=params["delay"], interval=params["interval"], labels=labels
        )
        last = {}
        for result in results:
            if result["tested"]:
                last[result["device"]] = result["target"]
        changed = any(detect_before.get(device) != target for device, target in last.items())

    summary = summarize(results, pairs)
    failure_lines = [describe(result) for result in summary["failures"]]
    msg = "%d of %d tests succeeded" % (summary["succeeded"], summary["total"])
    if module.check_mode:
        msg += " (check mode: current state only, nothing set)"
    output = dict(
        changed=changed,
        results=results,
        total=summary["total"],
        succeeded=summary["succeeded"],
        unsuccessful=summary["failed"],
        failure_lines=failure_lines,
        untested_devices=summary["untested_devices"],
        detect_before=detect_before,
        msg=msg,
    )
    if params["fail_on_error"] and summary["failed"]:
        output["msg"] = "%s; failed: %s" % (msg, "; ".join(failure_lines))
        module.fail_json(**output)
    module.exit_json(**output)


if __name__ == "__main__":
    main()
