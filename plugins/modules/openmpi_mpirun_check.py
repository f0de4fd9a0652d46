#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Documentation of the action plugin openmpi_mpirun_check (plugins/action/openmpi_mpirun_check.py); it has no module code."""

DOCUMENTATION = r"""
---
module: openmpi_mpirun_check
short_description: Run mpirun --version on the node and fail unless it is the expected OpenMPI
description:
  - Runs C(mpirun --version) with M(ansible.builtin.command) as the task's user, in the
    non-interactive SSH shell OpenMPI starts its remote daemons in (no profile read), and fails,
    naming the node, when it does not run or reports another version than O(version).
  - One task per node where a command task and an assert task were two, as ansible-playbook's own
    process handles every task result on one core.
  - In check mode it is skipped.
author:
  - Cluster suite contributors
options:
  version:
    description: The OpenMPI version C(mpirun --version) must report.
    type: str
    required: true
extends_documentation_fragment:
  - action_common_attributes
  - cluster_suite.hpc.attributes
attributes:
  check_mode:
    support: none
    details: Skipped in check mode.
  diff_mode:
    support: none
"""

EXAMPLES = r"""
- name: Every node runs OpenMPI 4.1.6
  cluster_suite.hpc.openmpi_mpirun_check:
    version: 4.1.6
  become: false
"""

RETURN = r"""
rc:
  description: The return code of C(mpirun --version).
  returned: unless skipped
  type: int
stdout:
  description: What C(mpirun --version) printed.
  returned: unless skipped
  type: str
  sample: "mpirun (Open MPI) 4.1.6\n\nReport bugs to http://www.open-mpi.org/community/help/"
stderr:
  description: Its error output.
  returned: unless skipped
  type: str
"""
