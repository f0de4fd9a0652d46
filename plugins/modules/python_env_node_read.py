"""Documentation of action python_env_node_read (plugins/action/python_env_node_read.py); it has no module code."""

DOCUMENTATION = r"""
---
module: python_env_node_read
short_description: Read a node for role python_env and refuse what does not fit, in one task
description:
  - Runs module M(cluster_suite.hpc.python_env_facts) on the node with O(read), then judges on the
    controller what it read (the base Python, the CANN version) against the framework O(settings)
    and the compatibility table O(compat).
  - Fails, listing every problem with the host and the variable, when the base Python does not run
    or the combination does not fit; a pairing the table does not know is a warning.
  - One task instead of three per node (read, refuse, warn), as ansible-playbook's own process
    handles every task result on one core, which at a thousand nodes sets how long a run takes.
author:
  - Cluster suite contributors
options:
  read:
    description: The options of M(cluster_suite.hpc.python_env_facts).
    type: dict
    required: true
  settings:
    description: The role's framework settings (C(_python_env_settings)).
    type: dict
    required: true
  compat:
    description: The compatibility table (C(roles/python_env/files/compat.yml)).
    type: dict
    required: true
  backend:
    description: The node's backend (C(ascend), C(gpu) or C(cpu)).
    type: str
    required: true
  host:
    description: The node's inventory name, which every message names.
    type: str
    required: true
extends_documentation_fragment:
  - action_common_attributes
  - cluster_suite.hpc.attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
seealso:
  - module: cluster_suite.hpc.python_env_facts
"""

EXAMPLES = r"""
- name: Read the node's Python, CANN and environment, and refuse what does not fit
  cluster_suite.hpc.python_env_node_read:
    read: {base_python: python3, env_python: /opt/cluster-suite/python/bin/python, packages: [torch]}
    settings: "{{ _python_env_settings }}"
    compat: "{{ _python_env_compat }}"
    backend: cpu
    host: "{{ inventory_hostname }}"
"""

RETURN = r"""
python:
  description: What M(cluster_suite.hpc.python_env_facts) returns, and the same other keys.
  returned: always
  type: dict
"""
