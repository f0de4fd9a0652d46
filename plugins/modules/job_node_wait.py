"""Documentation of action job_node_wait (plugins/action/job_node_wait.py); it has no module code."""

DOCUMENTATION = r"""
---
module: job_node_wait
short_description: Wait for a job on one node and gather its logs once its part has ended, in one task
description:
  - Runs module M(cluster_suite.hpc.job_processes) with O(wait), O(ranks) and O(state=wait); returns its result.
  - With O(gather), when every rank of O(ranks) recorded its exit (its status file) and no process
    of the job is left on the node, gathers the node's logs at once
    with action M(cluster_suite.hpc.job_node_gather) (its result in RV(gathered)); a node whose part
    of the job has ended needs nothing more, so a launch whose job ends in the first round of
    waiting takes one task per node fewer.
  - One task instead of two per node, as ansible-playbook's own process handles every task result on
    one core, which at a thousand nodes sets how long a launch takes.
author:
  - Cluster suite contributors
options:
  wait:
    description: The options of M(cluster_suite.hpc.job_processes) but O(state) (job_dir, log_dir, timeout, activity).
    type: dict
    required: true
  gather:
    description: >-
      The options of M(cluster_suite.hpc.job_node_gather); left out, nothing is gathered.
    type: dict
  ranks:
    description: >-
      The ranks the node runs: the wait also waits for each of them to record its exit, and the
      logs are gathered only once each did (a node with no process may be one whose ranks have not
      started yet, as mpirun starts them later).
    type: list
    elements: int
    default: []
extends_documentation_fragment:
  - action_common_attributes
  - cluster_suite.hpc.attributes
attributes:
  check_mode:
    support: full
    details: Waits as M(cluster_suite.hpc.job_processes) does, not for O(ranks) (nothing was started); the gather fetches nothing.
  diff_mode:
    support: none
seealso:
  - module: cluster_suite.hpc.job_processes
  - module: cluster_suite.hpc.job_node_gather
"""

EXAMPLES = r"""
- name: Wait up to 20 s for the job on this node; gather its logs when its part has ended
  cluster_suite.hpc.job_node_wait:
    wait: {job_dir: /home/trainer/jobs/demo, log_dir: /home/trainer/jobs/demo/logs, timeout: 20}
    gather:
      workspace: {home: /home/trainer, job_dir: /home/trainer/jobs/demo, name: demo, log_dir: logs,
                  archive: run/logs.tar.gz}
      archive: /home/trainer/jobs/demo/run/logs.tar.gz
      log_root: /srv/project/logs/demo
      job: demo
    ranks: [0, 1]
  register: waited
"""

RETURN = r"""
count:
  description: Number of live processes of the job on the node at the end (as M(cluster_suite.hpc.job_processes)).
  returned: always
  type: int
  sample: 0
failed_ranks:
  description: Ranks of this node whose status file records a non-zero exit.
  returned: always
  type: list
  elements: int
  sample: []
finished_ranks:
  description: Ranks of this node whose status file records exit 0.
  returned: always
  type: list
  elements: int
  sample: [0, 1]
activity:
  description:
    - With the O(wait) option C(activity), as M(cluster_suite.hpc.job_processes) returns it, plus
      C(at), the controller's clock when it was read.
  returned: with the O(wait) option C(activity)
  type: dict
  sample: {now: 1764400000.5, at: 1764400000.6, files: {"0": 1764399990.1}}
gathered:
  description: The result of M(cluster_suite.hpc.job_node_gather) (clock, files, not_copied).
  returned: with O(gather), when the node's part of the job has ended and the gather worked
  type: dict
  sample: {clock: {offset: 0.004, uncertainty: 0.002}, files: 12, not_copied: []}
gather_failed:
  description: >-
    Why the gather failed (the task does not: the caller gathers again later, where a second
    failure is reported as the gather's).
  returned: when the gather was tried and failed
  type: str
  sample: "fetch failed"
"""
