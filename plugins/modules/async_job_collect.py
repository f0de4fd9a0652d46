"""Documentation of action async_job_collect (plugins/action/async_job_collect.py); it has no module code."""

DOCUMENTATION = r"""
---
module: async_job_collect
short_description: Wait for an async job on a node, return its result and remove its job file, in one task
description:
  - Reads the job O(jid) with M(ansible.builtin.async_status) once a second until it finished (at
    most O(wait) seconds), then removes its job file (C(mode=cleanup)) and returns the job's result.
    Fails when the job failed or did not finish in time (its job file is then left for the caller's
    cleanup).
  - One task result per node. A task's own C(until)/C(retries) sends every try to ansible-playbook's
    process as a result of its own, which at a thousand nodes sets how long a run takes.
  - Run it with the become of the task that started the job (the job file is that user's).
author:
  - Cluster suite contributors
options:
  jid:
    description: The job's id (C(ansible_job_id) of the task that started it with C(poll=0)).
    type: str
    required: true
  wait:
    description: Seconds to wait at most.
    type: int
    default: 600
  what:
    description: What the job is, for the messages.
    type: str
    default: the job
extends_documentation_fragment:
  - action_common_attributes
  - cluster_suite.hpc.attributes
attributes:
  check_mode:
    support: none
    details: Run it with C(check_mode=false), as M(ansible.builtin.async_status).
  diff_mode:
    support: none
seealso:
  - module: ansible.builtin.async_status
"""

EXAMPLES = r"""
- name: Start a slow test
  ansible.builtin.command: sleep 5
  async: 60
  poll: 0
  register: slow

- name: Wait for it and remove its job file
  cluster_suite.hpc.async_job_collect:
    jid: "{{ slow.ansible_job_id }}"
    wait: 60
    what: the slow test
  register: slow_result
"""

RETURN = r"""
finished:
  description: True when the task succeeds; the rest is the job's own result.
  returned: success
  type: bool
  sample: true
"""
