#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: when each rank of a job last wrote to its log on this node."""

DOCUMENTATION = r"""
---
module: job_log_activity
short_description: When each rank of a job last wrote to its log on this node
description:
  - Reads the modification times of the rank logs under O(log_dir) (C(worker_<N>.log) of msrun,
    torchrun and the dynamic cluster, C(mpirun/1/rank.<N>/stdout) of mpirun) and the node's
    clock, for the hang detection of a launch (C(job_hang_timeout)). Never follows a link.
author:
  - Cluster suite contributors
options:
  log_dir:
    description: Absolute log directory of the job on the node.
    type: path
    required: true
extends_documentation_fragment:
  - action_common_attributes
  - cluster_suite.hpc.attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
"""

EXAMPLES = r"""
- name: When did each rank last log here
  job_log_activity:
    log_dir: /home/trainer/jobs/sample-msrun/logs
  register: activity
"""

RETURN = r"""
now:
  description: The node's clock (epoch seconds) when the times were read.
  returned: always
  type: float
  sample: 1764000000.5
files:
  description: Rank to the newest modification time (epoch seconds, node clock) of its logs here.
  returned: always
  type: dict
  sample: {"0": 1763999990.1, "1": 1763999970.0}
"""

import os
import time

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.cluster_suite.hpc.plugins.module_utils.job_log_names import MPI_LOG, RANK_LOG


def rank_activity(log_dir):
    """{rank: newest mtime} of the rank logs under ``log_dir`` (links are never followed)."""
    found = {}
    for dirpath, dirs, files in os.walk(log_dir):
        dirs[:] = [name for name in dirs if not os.path.islink(os.path.join(dirpath, name))]
        for name in files:
            path = os.path.join(dirpath, name)
            match = RANK_LOG.search(os.path.relpath(path, log_dir)) or MPI_LOG.search(os.path.relpath(path, log_dir))
            if not match:
                continue
            try:
                info = os.stat(path, follow_symlinks=False)
            except OSError:
                continue
            rank = int(match.group(1))
            found[rank] = max(found.get(rank, 0.0), info.st_mtime)
    return found


def main():
    module = AnsibleModule(argument_spec=dict(log_dir=dict(type="path", required=True)),
                           supports_check_mode=True)
    files = rank_activity(module.params["log_dir"])
    module.exit_json(changed=False, now=time.time(), files={str(rank): when for rank, when in files.items()})


if __name__ == "__main__":
    main()
