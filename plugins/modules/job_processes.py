#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: find, wait for or stop the processes of one training job on a node."""

DOCUMENTATION = r"""
---
module: job_processes
short_description: Find, wait for or stop the processes of one training job on a node
description:
  - Finds the job's processes by the C(CS_JOB_DIR) variable in their environment (every process
    a launch starts carries it) plus the daemons recorded in C(<job_dir>/run/*.pids) (OpenMPI's
    C(orted)), never by program name, so other jobs are never touched.
  - O(state=query) reports them; O(state=wait) waits up to O(timeout) seconds until none is left
    or a rank of this node failed; O(state=stopped) sends SIGTERM, then SIGKILL after O(grace)
    seconds, and reports what is still alive.
  - Also reads the rank status files of this node (C(<log_dir>/status/rank_<N>.json)).
  - Without O(job_dir), O(state=query) reports every job of the suite with a live process on the
    node in RV(jobs), the drain check of C(playbooks/upgrade.yml).
  - Tells whether the job was ever here (RV(job_found)), that is O(job_dir) holds C(run/), which
    every launch makes, or a process carries the job's tag. Stopping a job where it never ran
    finds nothing; RV(job_found) tells that apart from a job that has no process left.
author:
  - Cluster suite contributors
options:
  job_dir:
    description:
      - Absolute job directory on the node (the value of C(CS_JOB_DIR)).
      - Required unless O(state=query), which then reports every job of the node in RV(jobs).
    type: path
  log_dir:
    description: Absolute log directory of the job; default C(<job_dir>/logs).
    type: path
  state:
    description: What to do.
    type: str
    choices: [query, wait, stopped]
    default: query
  timeout:
    description: Seconds O(state=wait) waits at most.
    type: float
    default: 20
  grace:
    description: Seconds between SIGTERM and SIGKILL with O(state=stopped).
    type: float
    default: 10
  ranks:
    description:
      - With O(state=wait), also wait (up to O(timeout)) until each of these ranks of the node
        recorded its exit in its status file, since no process of the job on a node may mean none
        started yet (mpirun starts the other nodes' ranks after the master's launch).
    type: list
    elements: int
    default: []
  activity:
    description:
      - Also return when each rank last wrote to its log under O(log_dir) (RV(activity)), for hang
        detection, in the same run.
    type: bool
    default: false
extends_documentation_fragment:
  - action_common_attributes
  - cluster_suite.hpc.attributes
attributes:
  check_mode:
    support: full
    details: In check mode O(state=stopped) only reports what it would stop.
  diff_mode:
    support: none
    details: Linux C(/proc) is read. Run it as the job's user (become_user), who can read its own processes' environment; root without CAP_SYS_PTRACE (containers) cannot.
"""

EXAMPLES = r"""
- name: Every job of the suite still running on the node (none on a drained node)
  job_processes:
    state: query
  become: true
  become_user: trainer
  register: running

- name: Stop the job and prove nothing is left (and that the job was here at all)
  job_processes:
    job_dir: /home/trainer/jobs/sample-msrun
    state: stopped
  become: true
  register: stopped
  failed_when: stopped.remaining | length > 0 or not stopped.job_found

- name: Wait up to 20 s for the job on this node
  job_processes:
    job_dir: /home/trainer/jobs/sample-msrun
    state: wait
    timeout: 20
"""

RETURN = r"""
activity:
  description:
    - With O(activity), the node's time now and the newest modification time of each rank's log
      (C(worker_<N>.log), mpirun's C(rank.<N>/stdout) and C(stderr); links never followed).
  returned: with O(activity)
  type: dict
  sample: {now: 1764400000.5, files: {"0": 1764399990.1, "1": 1764399990.3}}
processes:
  description: Processes of the job found (before stopping, with O(state=stopped)).
  returned: with O(job_dir)
  type: list
  elements: dict
  sample: [{"pid": 4121, "ppid": 1, "pgid": 4121, "state": "S", "rank": "0", "cmd": "python cs_rank.py train.py"}]
count:
  description: Number of live processes of the job at the end.
  returned: with O(job_dir)
  type: int
  sample: 0
ranks_alive:
  description: Values of C(CS_RANK) (ranks, or V(scheduler)) of live processes.
  returned: with O(job_dir)
  type: list
  elements: str
  sample: ["0", "1"]
failed_ranks:
  description: Ranks of this node whose status file records a non-zero exit.
  returned: with O(job_dir)
  type: list
  elements: int
  sample: [3]
finished_ranks:
  description: Ranks of this node whose status file records exit 0.
  returned: with O(job_dir)
  type: list
  elements: int
  sample: [0, 1]
remaining:
  description: Processes still alive after O(state=stopped) (empty when the stop worked).
  returned: with O(job_dir)
  type: list
  elements: dict
  sample: []
zombies:
  description: Zombie children of the job's processes left after O(state=stopped).
  returned: with O(job_dir)
  type: list
  elements: dict
  sample: []
job_dir_exists:
  description: Whether O(job_dir) is a directory on the node.
  returned: with O(job_dir)
  type: bool
  sample: true
run_dir_exists:
  description: Whether C(<job_dir>/run/) (made by every launch) is a directory on the node.
  returned: with O(job_dir)
  type: bool
  sample: true
job_found:
  description: Whether the job ever ran here, RV(run_dir_exists) or a process of the job was found.
  returned: with O(job_dir)
  type: bool
  sample: true
jobs:
  description: Without O(job_dir), every job directory with live tagged processes, and their pids.
  returned: without O(job_dir)
  type: dict
  sample: {"/home/trainer/jobs/sample-msrun": [4121, 4122]}
"""

import glob
import json
import os
import time

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.cluster_suite.hpc.plugins.module_utils.job_log_names import rank_activity
from ansible_collections.cluster_suite.hpc.plugins.module_utils.job_procs import (
    job_processes, job_trace, running_jobs, stop, wait, zombies_of)


def rank_statuses(log_dir):
    """(failed ranks, finished ranks) from the status files of this node."""
    failed, finished = [], []
    for path in sorted(glob.glob(os.path.join(log_dir, "status", "rank_*.json"))):
        try:
            with open(path, encoding="utf-8") as handle:
                status = json.load(handle)
        except (OSError, ValueError):
            continue
        if not isinstance(status, dict) or not isinstance(status.get("rank"), int):
            continue
        (finished if status.get("exit") == 0 else failed).append(status["rank"])
    return sorted(failed), sorted(finished)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            job_dir=dict(type="path"),
            log_dir=dict(type="path"),
            state=dict(type="str", choices=["query", "wait", "stopped"], default="query"),
            timeout=dict(type="float", default=20),
            grace=dict(type="float", default=10),
            activity=dict(type="bool", default=False),
            ranks=dict(type="list", elements="int", default=[]),
        ),
        supports_check_mode=True,
    )
    params = module.params
    job_dir = params["job_dir"]
    if job_dir is None:
        if params["state"] != "query":
            module.fail_json(msg="job_dir is required with state=%s" % params["state"])
        module.exit_json(changed=False, jobs=running_jobs())
    if not os.path.isabs(job_dir):
        module.fail_json(msg="job_dir %s must be an absolute path" % job_dir)
    log_dir = params["log_dir"] or os.path.join(job_dir, "logs")
    result = dict(changed=False, remaining=[], zombies=[])
    if params["state"] == "stopped" and not module.check_mode:
        first, left = stop(job_dir, params["grace"])
        result.update(processes=first, remaining=left, changed=bool(first),
                      zombies=zombies_of([item["pid"] for item in first]))
        alive = left
    elif params["state"] == "wait":
        expected = set(params["ranks"])
        alive, _failed = wait(job_dir, params["timeout"], lambda: rank_statuses(log_dir)[0],
                              pending=lambda: bool(expected.difference(*rank_statuses(log_dir))))
        result.update(processes=alive)
    else:
        alive = job_processes(job_dir)
        result.update(processes=alive)
    failed, finished = rank_statuses(log_dir)
    result.update(job_trace(job_dir, result["processes"]))
    result.update(count=len(alive), failed_ranks=failed, finished_ranks=finished,
                  ranks_alive=sorted({item["rank"] for item in alive if item.get("rank")}))
    if params["activity"]:
        files = rank_activity(log_dir)
        result["activity"] = dict(now=time.time(), files={str(rank): when for rank, when in files.items()})
    module.exit_json(**result)


if __name__ == "__main__":
    main()
