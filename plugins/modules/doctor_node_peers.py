"""Documentation of action doctor_node_peers (plugins/action/doctor_node_peers.py); it has no module code."""

DOCUMENTATION = r"""
---
module: doctor_node_peers
short_description: The doctor's checks from one node toward the others in one task, and the user probe collected
description:
  - Runs module M(cluster_suite.hpc.ssh_mesh_check) with O(mesh), then module
    M(cluster_suite.hpc.tcp_port_check) with O(port_check), on the node; then polls the async job
    O(probe_job) (the training user's probe, started earlier with M(cluster_suite.hpc.doctor_probe))
    with M(ansible.builtin.async_status) once a second until it finished, and removes its job file.
  - What the checks find is a result, not a failure; the task fails when a module fails or the
    probe does not finish within O(probe_wait) seconds.
  - One task instead of three per node, as ansible-playbook's own process handles every task result
    on one core, which at a thousand nodes sets how long the doctor takes.
author:
  - Cluster suite contributors
options:
  mesh:
    description: The options of M(cluster_suite.hpc.ssh_mesh_check).
    type: dict
    required: true
  port_check:
    description: The options of M(cluster_suite.hpc.tcp_port_check).
    type: dict
    required: true
  probe_job:
    description: The async job id of the training user's probe.
    type: str
    required: true
  probe_wait:
    description: Seconds to wait for the probe to finish.
    type: int
    default: 300
extends_documentation_fragment:
  - action_common_attributes
  - cluster_suite.hpc.attributes
attributes:
  check_mode:
    support: full
    details: Changes nothing but the removal of the probe's job file.
  diff_mode:
    support: none
seealso:
  - module: cluster_suite.hpc.ssh_mesh_check
  - module: cluster_suite.hpc.tcp_port_check
  - module: ansible.builtin.async_status
"""

EXAMPLES = r"""
- name: Check SSH to the peers and the master port, collect the user probe
  cluster_suite.hpc.doctor_node_peers:
    mesh:
      peers: [{name: node2, address: 10.89.0.3}]
      connect_timeout: 5
    port_check: {host: 10.89.0.2, port: 8118, timeout: 3, retries: 5, delay: 1}
    probe_job: "{{ user_probe.ansible_job_id }}"
  register: peers
"""

RETURN = r"""
mesh:
  description: The result of ssh_mesh_check (results, failed_peers, ok).
  returned: success
  type: dict
  sample: {ok: true, failed_peers: []}
port_connect:
  description: The result of tcp_port_check.
  returned: success
  type: dict
  sample: {reachable: true}
user:
  description: The training user's probe as async_status returned it once finished.
  returned: success
  type: dict
  sample: {finished: 1, python: {version: 3.11.2}}
"""
