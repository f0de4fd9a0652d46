"""Documentation of action job_node_gather (plugins/action/job_node_gather.py); it has no module code."""

DOCUMENTATION = r"""
---
module: job_node_gather
short_description: A job's logs from one node to the controller in one task
description:
  - Measures the node's clock against the controller's (action M(cluster_suite.hpc.node_clock)),
    packs the job's logs on the node (module M(cluster_suite.hpc.job_workspace), O(workspace) with
    C(state=packed)), fetches the archive O(archive) into a private folder it makes on the
    controller (mode 0700) and unpacks it under O(log_root)/<host>/ (action M(cluster_suite.hpc.job_summary),
    regular files and directories only, never through or into a link), then removes that folder.
  - One task instead of five per node, as ansible-playbook's own process handles every task result on
    one core, which at a thousand nodes sets how long a launch takes.
author:
  - Cluster suite contributors
options:
  workspace:
    description: The options of M(cluster_suite.hpc.job_workspace) that pack the logs (home, job_dir, name, log_dir, archive).
    type: dict
    required: true
  archive:
    description: The archive's absolute path on the node.
    type: path
    required: true
  log_root:
    description: The job's log folder on the controller (C(logs/<job>)).
    type: path
    required: true
  job:
    description: The job's name (for messages).
    type: str
    required: true
extends_documentation_fragment:
  - action_common_attributes
  - cluster_suite.hpc.attributes
attributes:
  check_mode:
    support: partial
    details: Measures the clock; packs, fetches and unpacks nothing.
  diff_mode:
    support: none
seealso:
  - module: cluster_suite.hpc.job_workspace
  - module: cluster_suite.hpc.job_summary
"""

EXAMPLES = r"""
- name: Gather this node's logs
  cluster_suite.hpc.job_node_gather:
    workspace: {home: /home/trainer, job_dir: /home/trainer/jobs/demo, name: demo, log_dir: logs,
                archive: run/logs.tar.gz}
    archive: /home/trainer/jobs/demo/run/logs.tar.gz
    log_root: /srv/project/logs/demo
    job: demo
  register: gathered
"""

RETURN = r"""
clock:
  description: The node's clock against the controller's (offset and uncertainty, seconds).
  returned: always
  type: dict
  sample: {offset: 0.004, uncertainty: 0.002}
files:
  description: How many files were unpacked.
  returned: outside check mode
  type: int
  sample: 12
not_copied:
  description: Members of the archive left out (links, special files), each with the reason.
  returned: always
  type: list
  elements: dict
  sample: []
"""
