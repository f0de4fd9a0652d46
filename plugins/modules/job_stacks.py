#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: the Python stack of every process of one training job on a node (py-spy)."""

DOCUMENTATION = r"""
---
module: job_stacks
short_description: The Python stack of every process of one training job on a node
description:
  - Finds the job's processes by the C(CS_JOB_DIR) variable in their environment (as
    M(cluster_suite.hpc.job_processes) does) and tells the ranks, their children, the
    scheduler and the launchers apart by their environment.
  - Dumps the stack of each Python process with C(py-spy dump --json), with native frames
    (C(--native)) when O(native) and py-spy can unwind them, else without them
    (RV(processes[].native_error) says why). py-spy pauses a process only while it reads its
    stack; the job's code needs no change.
  - Needs ptrace permission on the job's processes, so run it as the job's user (where Yama's
    C(ptrace_scope) is 0 or Yama is absent) or as root with C(CAP_SYS_PTRACE).
  - Never fails because a dump failed; each process carries its own RV(processes[].error).
author:
  - Cluster suite contributors
options:
  job_dir:
    description: Absolute job directory on the node (the value of C(CS_JOB_DIR)).
    type: path
    required: true
  py_spy:
    description: Absolute path of the py-spy executable (role python_env installs it in C(cluster_tools_env_path)).
    type: path
    required: true
  native:
    description: Try native frames (C, C++) first.
    type: bool
    default: true
  timeout:
    description: Seconds one dump may take.
    type: float
    default: 30
extends_documentation_fragment:
  - action_common_attributes
  - cluster_suite.hpc.attributes
attributes:
  check_mode:
    support: full
    details: It only reads; in check mode it dumps as well.
  diff_mode:
    support: none
    details: Linux C(/proc) is read.
"""

EXAMPLES = r"""
- name: Every stack of the job on this node
  job_stacks:
    job_dir: /home/trainer/jobs/sample-msrun
    py_spy: /opt/cluster-suite/tools/bin/py-spy
  become: true
  become_user: trainer
  register: stacks
"""

RETURN = r"""
job_dir:
  description: O(job_dir), normalised.
  returned: always
  type: str
  sample: /home/trainer/jobs/sample-msrun
now:
  description: The node's clock (epoch seconds) when the dumps began.
  returned: always
  type: float
  sample: 1764000000.5
processes:
  description: Every live process of the job on the node.
  returned: always
  type: list
  elements: dict
  contains:
    pid:
      description: Process id.
      type: int
    ppid:
      description: Parent's process id.
      type: int
    role:
      description: V(rank), V(rank_child), V(rank_wrapper) (a non-Python process in front of a rank), V(scheduler) or V(launcher).
      type: str
    rank:
      description: The rank (ranks and their children), else null.
      type: int
    cmd:
      description: Command line (300 characters at most).
      type: str
    python:
      description: Whether it runs Python (only those are dumped).
      type: bool
    threads:
      description: py-spy's JSON of the process (a list of threads with their frames), or null.
      type: list
    native:
      description: Whether the dump holds native frames.
      type: bool
    error:
      description: Why there is no dump, or null.
      type: str
    native_error:
      description: Why native frames were not dumped, or null.
      type: str
  sample: [{"pid": 42, "ppid": 37, "role": "rank", "rank": 0, "cmd": "python -u cs_rank.py train.py",
            "python": true, "threads": [], "native": true, "error": null, "native_error": null}]
ptrace_scope:
  description: Yama's C(kernel.yama.ptrace_scope) on the node, or null where Yama is absent.
  returned: always
  type: int
  sample: null
error:
  description: Why nothing was dumped (py-spy missing), or null.
  returned: always
  type: str
  sample: null
"""

import os
import time

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.cluster_suite.hpc.plugins.module_utils.job_stack_dump import dump_job


def main():
    module = AnsibleModule(
        argument_spec=dict(
            job_dir=dict(type="path", required=True),
            py_spy=dict(type="path", required=True),
            native=dict(type="bool", default=True),
            timeout=dict(type="float", default=30),
        ),
        supports_check_mode=True,
    )
    params = module.params
    for name in ("job_dir", "py_spy"):
        if not os.path.isabs(params[name]):
            module.fail_json(msg="%s %s must be an absolute path" % (name, params[name]))
    job_dir = os.path.normpath(params["job_dir"])
    now = time.time()
    result = dump_job(job_dir, params["py_spy"], params["native"], params["timeout"])
    module.exit_json(changed=False, job_dir=job_dir, now=now, **result)


if __name__ == "__main__":
    main()
