#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Documentation of the action plugin validate_settings (plugins/action/validate_settings.py), which runs on the controller."""

DOCUMENTATION = r"""
---
module: validate_settings
short_description: Check the inventory, the roles' settings and the job description, every problem at once
description:
  - The one validation action of the collection, run by C(playbooks/validate.yml) for every playbook, checks
    the inventory (O(inventory)), the roles' settings (O(roles)) and the job description (O(job)).
    Each problem names the host (or the job) and the variable.
  - With O(inventory), the inventory as a whole (plugins/plugin_utils/validation/gate.py), that is groups,
    C(cluster_master), addresses, device counts and models, the training user, values that reach
    scripts, and every role setting it sets against the type and choices of the role's
    C(meta/argument_specs.yml), with unknown names of the roles below.
  - With O(roles), the roles' settings (plugins/plugin_utils/validation/role_settings.py).
    For each role of O(roles) and each host of O(hosts), the role's settings as the host has them
    (inventory, C(-e), role parameters of the current host), else the role's C(defaults/main.yml),
    are checked against the role's own rules (ports, paths, versions, ranges...); a boolean given as
    text (C(-e name=true)) is refused with the way to pass it as JSON.
  - With O(typos), unknown C(<role>_*) variables of the roles firewall, openmpi, ssh_trust,
    npu_env, npu_network, python_env, doctor, acceptance and fleet are reported with the nearest known name
    (facts a role publishes are not typos). A role's
    internals (C(vars/main.yml), names starting with C(_)) are never typos.
  - The settings of role doctor are checked as the master has them, those of role acceptance as
    the first node of group C(cluster) has them.
  - Run by C(playbooks/validate.yml), which every playbook imports first, and by each role's first
    task when the role runs on its own (O(typos=false)).
  - With O(job), the job description (the C(job_*) variables) against the inventory (plugins/plugin_utils/jobs/spec.py).
  - Runs on the controller; nothing is contacted.
author:
  - Cluster suite contributors
options:
  inventory:
    description: Check the inventory as a whole (groups, addresses, values, role settings against their specs).
    type: bool
    default: false
  roles:
    description: The roles whose settings are checked.
    type: list
    elements: str
    default: []
  hosts:
    description: The hosts whose settings are checked; default the current host.
    type: list
    elements: str
  typos:
    description: Report unknown C(<role>_*) variables as typos.
    type: bool
    default: true
  job:
    description: The job description to check, the C(job_*) variables by name.
    type: dict
  job_playbook:
    description: The job playbook that runs; C(render) also needs C(job_render_dir).
    type: str
    default: launch
  job_full:
    description: Check the whole launch plan; with C(false) only the job's name, nodes and directories (stop, logs).
    type: bool
    default: true
  job_project_dir:
    description: The project directory, which relative job paths start at.
    type: str
    default: .
  job_launch_python:
    description: The Python the launch uses when the job names none.
    type: str
    default: python3
  controller_in_run:
    description:
      - Whether the plays on the controller run (C(false) when a C(--limit) leaves out localhost, where the
        inventory check, the plans and the reports run); C(false) is a problem naming O(limit).
    type: bool
    default: true
  limit:
    description: The run's C(--limit), for the messages of O(controller_in_run) and O(whole_group).
    type: str
    default: ""
  whole_group:
    description:
      - The name of a playbook that judges every node of group C(cluster) against the others (the
        doctor, acceptance); a problem when the play leaves out any of them. Empty for none.
    type: str
    default: ""
  fail:
    description: Fail with every problem at once; with C(false) the problems are only returned.
    type: bool
    default: true
"""

EXAMPLES = r"""
- name: Refuse an invalid inventory
  cluster_suite.hpc.validate_settings:
    inventory: true

- name: Check the settings of the roles this playbook runs, for every host of the play
  cluster_suite.hpc.validate_settings:
    roles: [firewall, ssh_trust, openmpi]
    hosts: "{{ ansible_play_hosts_all }}"
  run_once: true

- name: Check this role's settings when it runs on its own
  cluster_suite.hpc.validate_settings:
    roles: [firewall]
    typos: false
"""

RETURN = r"""
ansible_facts:
  description: With O(inventory) and no problem, C(_validate_inventory_checked) set on the host the check ran for.
  returned: always
  type: dict
problems:
  description: Every problem found, each naming the host and the variable (empty when fine).
  returned: always
  type: list
  elements: str
  sample: ["node1: firewall_hccl_port_range: 60015:60000 is not a port range low:high with 1 <= low <= high <= 65535"]
"""
