#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: check on a node the network interfaces a job names, before its launch."""

DOCUMENTATION = r"""
---
module: job_interfaces
short_description: Check the network interfaces a job names on a node, before its launch
description:
  - Every interface a job names must exist on the node and hold an address on the cluster
    network (the network of the node's own address O(address)) - mpirun's include list
    O(if_include) (names or IPv4 CIDRs) and C(NCCL_SOCKET_IFNAME), C(HCCL_SOCKET_IFNAME),
    C(GLOO_SOCKET_IFNAME) from O(env) (the job's job_env) or else from the environment
    scripts O(env_files) the launch sources.
  - For C(NCCL_SOCKET_IFNAME) and C(HCCL_SOCKET_IFNAME) a name is a prefix, C(=name) exact and
    C(^names) excludes; C(GLOO_SOCKET_IFNAME) lists exact names.
  - Reports the problems (RV(problems)); never changes anything.
author:
  - Cluster suite contributors
options:
  address:
    description: The node's cluster address (its C(ansible_host)).
    type: str
    required: true
  if_include:
    description: mpirun's C(btl/oob_tcp_if_include) value, interface names or IPv4 CIDRs separated by commas; empty when the launcher is not mpirun.
    type: str
    default: ""
  env:
    description: The job's job_env (only the C(*_SOCKET_IFNAME) variables are read).
    type: dict
    default: {}
  env_files:
    description: Environment scripts the launch sources (env_npu.sh, env_gpu.sh); their C(*_SOCKET_IFNAME) values count unless O(env) sets the variable.
    type: list
    elements: path
    default: []
extends_documentation_fragment:
  - action_common_attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  platform:
    platforms: posix
"""

EXAMPLES = r"""
- name: Check the interfaces job sample-mpirun names
  job_interfaces:
    address: 10.89.0.2
    if_include: eth0
    env: {NCCL_SOCKET_IFNAME: eth0}
    env_files: [/home/trainer/.cluster-suite/env_gpu.sh]
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
  sample: [eth0, lo]
settings:
  description: The C(*_SOCKET_IFNAME) values checked, with where each comes from.
  returned: always
  type: list
  elements: dict
  sample: [{"variable": "NCCL_SOCKET_IFNAME", "value": "eth0", "origin": "job_env"}]
"""

import os

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.cluster_suite.hpc.plugins.module_utils.job_ifaces import VARIABLES, parse_ipv4_interfaces, problems

# Prints each variable after sourcing the scripts, NUL-separated (values may hold anything).
READ_SCRIPT = 'for f in "$@"; do . "$f" >/dev/null 2>&1 || exit 3; done; printf "%s\\0" ' + " ".join(
    '"${%s-}"' % name for name in VARIABLES)


def script_values(module, files):
    """{variable: (value, script)} set by the environment scripts (the last script wins)."""
    found = {}
    for path in files:
        if not os.path.isfile(path):
            continue
        rc, out, err = module.run_command(["bash", "-c", READ_SCRIPT, "bash", path])
        if rc != 0:
            module.fail_json(msg="cannot source %s to read %s: %s" % (path, ", ".join(VARIABLES), err.strip()))
        for name, value in zip(VARIABLES, out.split("\0")):
            if value:
                found[name] = (value, path)
    return found


def main():
    module = AnsibleModule(
        argument_spec=dict(
            address=dict(type="str", required=True),
            if_include=dict(type="str", default=""),
            env=dict(type="dict", default={}),
            env_files=dict(type="list", elements="path", default=[]),
        ),
        supports_check_mode=True,
    )
    params = module.params
    rc, out, err = module.run_command([module.get_bin_path("ip", required=True), "-o", "-4", "addr", "show"])
    if rc != 0:
        module.fail_json(msg="ip -o -4 addr show failed: %s" % err.strip())
    devices = sorted(os.listdir("/sys/class/net"))
    settings = []
    from_scripts = script_values(module, params["env_files"])
    for name in VARIABLES:
        if params["env"].get(name) not in (None, ""):
            settings.append({"variable": name, "value": str(params["env"][name]), "origin": "job_env"})
        elif name in from_scripts:
            value, path = from_scripts[name]
            settings.append({"variable": name, "value": value, "origin": path})
    found = problems(devices, parse_ipv4_interfaces(out), params["address"], params["if_include"],
                     [(item["variable"], item["value"], item["origin"]) for item in settings])
    module.exit_json(changed=False, problems=found, interfaces=devices, settings=settings)


if __name__ == "__main__":
    main()
