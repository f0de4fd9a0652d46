#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: choose and check a node's one network interface for every library of a launch."""

DOCUMENTATION = r"""
---
module: job_interfaces
short_description: Choose and check a node's one network interface for every library of a launch
description:
  - The node's interface toward the master comes from its own routing (C(ip -o route get
    O(master_address))); on the master, where the kernel answers with loopback, it is the
    interface holding the master's address. It must hold an address on the cluster network
    (the network of the node's own address O(address)).
  - From it come RV(env) - C(NCCL_SOCKET_IFNAME) and C(HCCL_SOCKET_IFNAME) as C(=name) (an exact
    name; without C(=) both libraries read a prefix), C(GLOO_SOCKET_IFNAME) as the name and on
    NPU nodes C(HCCL_IF_IP) as its address - except the variables O(env) (the job's job_env) sets.
  - What the job sets (C(NCCL_SOCKET_IFNAME), C(HCCL_SOCKET_IFNAME), C(GLOO_SOCKET_IFNAME),
    C(HCCL_IF_IP)) and mpirun's include list O(if_include) (names or IPv4 CIDRs) must each select
    exactly one interface here, not loopback, holding an address on the cluster network; every
    problem is returned in RV(problems).
  - Never changes anything.
author:
  - Cluster suite contributors
options:
  address:
    description: The node's cluster address (its C(ansible_host)).
    type: str
    required: true
  master_address:
    description: The master's address (C(job_master_addr) or the master's C(ansible_host)).
    type: str
    required: true
  npu:
    description: Whether the node is an NPU node (then RV(env) holds C(HCCL_IF_IP)).
    type: bool
    default: false
  if_include:
    description: mpirun's C(btl/oob_tcp_if_include) value, interface names or IPv4 CIDRs separated by commas; empty when the launcher is not mpirun.
    type: str
    default: ""
  env:
    description: The job's job_env (only the C(*_SOCKET_IFNAME) variables and C(HCCL_IF_IP) are read).
    type: dict
    default: {}
extends_documentation_fragment:
  - action_common_attributes
  - cluster_suite.hpc.attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
"""

EXAMPLES = r"""
- name: Choose and check the interface of job sample-mpirun on this node
  job_interfaces:
    address: 10.89.0.3
    master_address: 10.89.0.2
    if_include: 10.89.0.0/24
    env: {}
  register: interfaces
"""

RETURN = r"""
problems:
  description: Each problem, naming the variable, the interface and what is wrong.
  returned: always
  type: list
  elements: str
  sample: ["job_mpirun_if_include: interface eth9 does not exist here (interfaces: eth0, lo)"]
interfaces:
  description: The node's interfaces.
  returned: always
  type: list
  elements: str
  sample: [eth0, ens1, lo]
choice:
  description: The interface toward the master, its address on the cluster network, the network, the master's address and the route (C(local) on the master); null when there is none.
  returned: always
  type: dict
  sample: {"iface": "eth0", "address": "10.89.0.3", "network": "10.89.0.0/24", "master": "10.89.0.2", "route": "dev eth0 src 10.89.0.3"}
env:
  description: The variables the launch sets from the choice (those the job does not set).
  returned: always
  type: dict
  sample: {"NCCL_SOCKET_IFNAME": "=eth0", "HCCL_SOCKET_IFNAME": "=eth0", "GLOO_SOCKET_IFNAME": "eth0"}
set_by_job:
  description: The interface variables job_env sets (checked, and left as the job sets them).
  returned: always
  type: dict
  sample: {"GLOO_SOCKET_IFNAME": "eth0"}
"""

import os

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.cluster_suite.hpc.plugins.module_utils.job_ifaces import parse_ipv4_interfaces, plan


def main():
    module = AnsibleModule(
        argument_spec=dict(
            address=dict(type="str", required=True),
            master_address=dict(type="str", required=True),
            npu=dict(type="bool", default=False),
            if_include=dict(type="str", default=""),
            env=dict(type="dict", default={}),
        ),
        supports_check_mode=True,
    )
    params = module.params
    ip = module.get_bin_path("ip", required=True)
    rc, out, err = module.run_command([ip, "-o", "-4", "addr", "show"])
    if rc != 0:
        module.fail_json(msg="ip -o -4 addr show failed: %s" % err.strip())
    rc, route, err = module.run_command([ip, "-o", "route", "get", params["master_address"]])
    if rc != 0:
        module.fail_json(msg="ip route get %s failed: %s (no route toward the master)" % (
            params["master_address"], err.strip()))
    devices = sorted(os.listdir("/sys/class/net"))
    result = plan(devices, parse_ipv4_interfaces(out), params["address"], params["master_address"], route,
                  params["if_include"], params["env"], params["npu"])
    module.exit_json(changed=False, interfaces=devices, **result)


if __name__ == "__main__":
    main()
