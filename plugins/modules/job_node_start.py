"""Documentation of action job_node_start (plugins/action/job_node_start.py); it has no module code."""

DOCUMENTATION = r"""
---
module: job_node_start
short_description: Start one node's launcher, after the master's port answers from it when asked, in one task
description:
  - On the node, runs module M(cluster_suite.hpc.tcp_port_check) with O(port_check) (failing when
    the port does not answer within its retries), then the command O(start).
  - One task instead of two per node, as ansible-playbook's own process handles every task result on
    one core, which at a thousand nodes sets how long a launch takes.
author:
  - Cluster suite contributors
options:
  port_check:
    description: >-
      The options of M(cluster_suite.hpc.tcp_port_check); left out (the master), no port is checked.
    type: dict
  start:
    description: >-
      The command (argv) that starts the node's launcher; left out (the nodes other than the master
      of an mpirun job), nothing is started.
    type: list
    elements: str
extends_documentation_fragment:
  - action_common_attributes
  - cluster_suite.hpc.attributes
attributes:
  check_mode:
    support: partial
    details: The port is checked; nothing is started.
  diff_mode:
    support: none
seealso:
  - module: cluster_suite.hpc.tcp_port_check
"""

EXAMPLES = r"""
- name: Start this node once the master's port answers
  cluster_suite.hpc.job_node_start:
    port_check: {host: 10.89.0.2, port: 8118, timeout: 2, retries: 60, delay: 1}
    start: [bash, /home/trainer/jobs/demo/start.sh]
"""

RETURN = r"""
port:
  description: The result of tcp_port_check; null without O(port_check).
  returned: always
  type: dict
  sample: {reachable: true}
started:
  description: Whether the launcher was started.
  returned: always
  type: bool
  sample: true
"""
