#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Documentation of the action plugin job_summary (plugins/action/job_summary.py), which runs on the controller."""

DOCUMENTATION = r"""
---
module: job_summary
short_description: Summarise a training job from its gathered logs
description:
  - Reads C(<log_root>/<host>/...) (each node's job log directory, gathered by
    C(playbooks/launch.yml) or C(playbooks/logs.yml)) and reports per rank the exit status,
    the last loss line and, for failed ranks, the first error lines. The job succeeded when
    every rank's own record says its script returned 0; what failed after that is a warning.
  - Reads the ranks' flight records (C(<host>/flight/rank_<N>.json)) of a job that did not
    succeed and names the rank that held the others up.
  - Writes the summary as JSON to O(dest) (default C(<log_root>/summary.json)) and, beside it,
    C(summary_inputs.json), the options it was made from besides the logs.
  - With O(archive), only unpacks one node's archive of its job log directory into
    C(<log_root>/<host>/) (replaced), in plain Python rather than with tar, because the
    logs are written on the node by the job. Only regular files (byte for byte, without
    setuid/setgid bits or group/other write) and directories are written; symbolic and hard
    links, devices, fifos, absolute names and names with C(..) are left out and returned in
    RV(not_copied). C(<log_root>) is never followed when it is a symbolic link.
  - Runs on the controller (delegated to localhost).
author:
  - Cluster suite contributors
options:
  log_root:
    description: The job's folder of gathered logs, C(logs/<job>).
    type: path
    required: true
  job:
    description: The job's name.
    type: str
    required: true
  launcher:
    description: The job's launcher, for the report.
    type: str
  expected:
    description: Global rank to host of the plan; ranks without a status are reported missing.
    type: dict
    default: {}
  running_hosts:
    description: Nodes where the job still has processes.
    type: list
    elements: str
    default: []
  extra:
    description: More fields to store in the JSON summary (for example why the wait ended).
    type: dict
    default: {}
  hosts:
    description: The nodes of this run. Only their folders under O(log_root) are read; a
      folder of another node was left by an earlier run of the job on other nodes and is named
      in the summary as not read. Without it, every folder is read.
    type: list
    elements: str
  dest:
    description: Where to write the JSON summary; default C(<log_root>/summary.json).
    type: path
  not_copied:
    description: What was left out of each node's logs when they were unpacked (host to the
      RV(not_copied) list of the unpack); recorded in the summary.
    type: dict
    default: {}
  catalogue:
    description:
      - The catalogue of known failures (C(roles/job/files/failure_catalogue.yml) read as data,
        a mapping whose C(failures) lists entries with C(id), C(signature), C(exit), C(cause), C(fix)
        and C(source)). With it, every failed rank, scheduler and launcher is matched against it
        and the summary names the cause and the fix,
        and the first failure is the one that ended first on the controller's clock.
    type: dict
    default: {}
  clocks:
    description: Each node's clock offset against the controller (host to C(offset) and
      C(uncertainty), in seconds, node minus controller), to order failures of several nodes on one clock.
    type: dict
    default: {}
  stacks:
    description:
      - Each node's result of M(cluster_suite.hpc.job_stacks) (host to the module's result; a node
        without processes of the job as an empty C(processes) list). With it the summary groups the
        ranks by identical stack, names the rank likely to hold the others up and each rank whose
        process is gone, and the dumps are written under C(<log_root>/stacks/) (replaced).
    type: dict
    default: {}
  archive:
    description: A node's job log directory packed by tar (any compression); unpack it into
      C(<log_root>/<host>/) instead of summarising. Removed after unpacking.
    type: path
  host:
    description: The node whose archive O(archive) is (the folder name under O(log_root)).
    type: str
extends_documentation_fragment:
  - action_common_attributes
  - cluster_suite.hpc.attributes
attributes:
  check_mode:
    support: full
    details: In check mode the summary is computed but not written; an archive is read but not unpacked.
  diff_mode:
    support: none
"""

EXAMPLES = r"""
- name: Summarise the job
  job_summary:
    log_root: "{{ playbook_dir }}/../logs/sample-msrun"
    job: sample-msrun
    launcher: msrun
    expected: {0: node1, 1: node1, 2: node2, 3: node2}
  delegate_to: localhost
  register: summary

- name: Unpack node1's logs under logs/sample-msrun/node1/
  job_summary:
    log_root: "{{ playbook_dir }}/../logs/sample-msrun"
    job: sample-msrun
    host: node1
    archive: /tmp/cluster-suite-logs.x1/node1.tar.gz
  delegate_to: localhost
  register: unpacked
"""

RETURN = r"""
summary:
  description: The whole summary (also written to O(dest)).
  returned: without O(archive)
  type: dict
  sample: {"job": "sample-msrun", "result": "succeeded", "failed_ranks": [], "ranks": []}
result:
  description: V(succeeded), V(failed) or V(running).
  returned: without O(archive)
  type: str
  sample: succeeded
text:
  description: The summary as printable lines.
  returned: without O(archive)
  type: str
  sample: "job sample-msrun (msrun): succeeded, 4/4 ranks exited 0"
files:
  description: Regular files unpacked from O(archive).
  returned: with O(archive)
  type: int
  sample: 12
bytes:
  description: Bytes of the regular files unpacked from O(archive).
  returned: with O(archive)
  type: int
  sample: 40960
not_copied:
  description: Members of O(archive) that were not unpacked, and why.
  returned: with O(archive)
  type: list
  elements: dict
  sample: [{"member": "./x", "reason": "symbolic link to /home/ctrl/.ssh"}]
"""
