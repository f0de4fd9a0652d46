#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Documentation of the action plugin carry_reach (plugins/action/carry_reach.py); it has no module code."""

DOCUMENTATION = r"""
---
module: carry_reach
short_description: Gather a node's facts, failing (not unreachable) when the node cannot be reached
description:
  - The first contact of a C(site.yml) play (role cluster, C(tasks/carry_reach.yml)). Runs
    M(ansible.builtin.setup) with O(gather_subset) and returns its facts.
  - A node that cannot be reached fails the task, marked RV(node_unreachable), instead of being
    unreachable, so that the play's rescue keeps it as unreachable and it counts against the play's
    C(max_fail_percentage), which counts failed nodes only.
  - One task per node where a setup task with C(ignore_unreachable) and a fail task were two, as
    ansible-playbook's own process handles every task result on one core.
author:
  - Cluster suite contributors
options:
  gather_subset:
    description: The fact subsets to gather, as M(ansible.builtin.setup) takes them.
    type: list
    elements: str
    default: [min, network]
extends_documentation_fragment:
  - action_common_attributes
  - cluster_suite.hpc.attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
seealso:
  - module: ansible.builtin.setup
"""

EXAMPLES = r"""
- name: Gather the facts of every node, an unreachable one failed
  cluster_suite.hpc.carry_reach:
    gather_subset: [min, network]
"""

RETURN = r"""
ansible_facts:
  description: The facts M(ansible.builtin.setup) gathered.
  returned: when the node was reached
  type: dict
node_unreachable:
  description: The node could not be reached; the task failed.
  returned: when the node could not be reached
  type: bool
  sample: true
reach_msg:
  description: What the connection reported.
  returned: when the node could not be reached
  type: str
  sample: "Failed to connect to the host via ssh: ssh: connect to host 10.89.0.4 port 22: No route to host"
"""
