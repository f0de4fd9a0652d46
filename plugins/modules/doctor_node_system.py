"""Documentation of action doctor_node_system (plugins/action/doctor_node_system.py); it has no module code."""

DOCUMENTATION = r"""
---
module: doctor_node_system
short_description: The doctor's look at one node's system in one task (doctor_probe, then node_clock)
description:
  - Runs module M(cluster_suite.hpc.doctor_probe) with O(probe) and O(cluster_suite.hpc.doctor_probe#module:what=system),
    then action M(cluster_suite.hpc.node_clock), on the node, and returns both results. Neither
    changes anything; what they find is a result, not a failure.
  - One task instead of two per node, as ansible-playbook's own process handles every task result on
    one core, which at a thousand nodes sets how long the doctor takes.
  - Fails only when one of them fails (the node cannot run it).
author:
  - Cluster suite contributors
options:
  probe:
    description: The options of M(cluster_suite.hpc.doctor_probe) but O(cluster_suite.hpc.doctor_probe#module:what).
    type: dict
    required: true
  clock_reads:
    description: The reads of the node's clock (M(cluster_suite.hpc.node_clock)'s O(cluster_suite.hpc.node_clock#module:reads)).
    type: int
    default: 5
extends_documentation_fragment:
  - action_common_attributes
  - cluster_suite.hpc.attributes
attributes:
  check_mode:
    support: full
    details: Changes nothing in either mode.
  diff_mode:
    support: none
seealso:
  - module: cluster_suite.hpc.doctor_probe
  - module: cluster_suite.hpc.node_clock
"""

EXAMPLES = r"""
- name: Read the node's system and clock
  cluster_suite.hpc.doctor_node_system:
    probe:
      cann_install_path: /usr/local/Ascend
      npu_devices: 8
      bind_port: 8118
  become: true
  register: system
"""

RETURN = r"""
system:
  description: The result of doctor_probe (interfaces, hosts file, firewall, NPU devices, port_bind, ...).
  returned: success
  type: dict
  sample: {hostname: node1, port_bind: {free: true}}
clock:
  description: The result of node_clock (offset, uncertainty, sync_service).
  returned: success
  type: dict
  sample: {offset: 0.0012, uncertainty: 0.0004, sync_service: chrony}
"""
