"""Documentation of action job_node_check (plugins/action/job_node_check.py); it has no module code."""

DOCUMENTATION = r"""
---
module: job_node_check
short_description: A launch's checks of one node in one task (job_preflight, then job_interfaces)
description:
  - Runs module M(cluster_suite.hpc.job_preflight) with O(preflight), then module
    M(cluster_suite.hpc.job_interfaces) with O(interfaces), on the node, and returns both results
    and their problems in one result. Neither changes anything; a problem is a result, not a failure.
  - One task instead of five per node, as ansible-playbook's own process
    handles every task result on one core, which at a thousand nodes sets how long a launch takes.
  - Fails only when a module itself fails (the node cannot run it).
author:
  - Cluster suite contributors
options:
  preflight:
    description: The options of M(cluster_suite.hpc.job_preflight).
    type: dict
    required: true
  interfaces:
    description: The options of M(cluster_suite.hpc.job_interfaces).
    type: dict
    required: true
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
  - module: cluster_suite.hpc.job_preflight
  - module: cluster_suite.hpc.job_interfaces
"""

EXAMPLES = r"""
- name: Check this node before the launch
  cluster_suite.hpc.job_node_check:
    preflight:
      user: trainer
      job_dir: jobs/sample-msrun
      log_dir: logs
      name: sample-msrun
      launcher: msrun
      python: python3
      python_module: mindspore
      address: 10.89.0.2
    interfaces:
      address: 10.89.0.2
      master_address: 10.89.0.2
  register: checked
"""

RETURN = r"""
problems:
  description: The problems job_preflight found (its RV(cluster_suite.hpc.job_preflight#module:problems)).
  returned: always
  type: list
  elements: str
  sample: ["job_python: /opt/venv/bin/python3 cannot import mindspore"]
interface_problems:
  description: The problems job_interfaces found.
  returned: always
  type: list
  elements: str
  sample: []
preflight:
  description: The whole result of job_preflight (job_dir, log_dir, home, python_path, versions, ...).
  returned: always
  type: dict
  sample: {job_dir: /home/trainer/jobs/sample-msrun, home: /home/trainer, problems: []}
interfaces:
  description: The whole result of job_interfaces (choice, env, interfaces, ...).
  returned: always
  type: dict
  sample: {choice: {iface: eth0, network: 10.89.0.0/24}, env: {GLOO_SOCKET_IFNAME: eth0}, problems: []}
"""
