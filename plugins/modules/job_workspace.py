#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: make a job's directory on a node and clear the suite's own parts of it."""

DOCUMENTATION = r"""
---
module: job_workspace
short_description: Make a job's directory and clear only what the suite made in it; pack its logs
description:
  - Used by C(playbooks/launch.yml) after every node passed M(job_preflight). Makes the job
    directory (mode 0700) with a marker file, C(.cluster-suite-job), deletes the paths in
    O(clear) (the previous run's logs, state, scripts and code) and makes the directories in
    O(make), all in one run.
  - The suite deletes only what it created. It refuses, before touching anything, a job
    directory that is a symlink, the home itself or inside a dot-directory, one that exists
    without the marker and is not empty, and any path to clear or make whose parts below the
    job directory include a symlink.
  - With O(state=packed) it packs the log directory into an archive inside the job directory for
    the controller to fetch, after the same symlink checks; links inside the log directory are
    stored as links, never followed, and the archive is written to a new file, never through a link.
author:
  - Cluster suite contributors
options:
  home:
    description: The training user's home.
    type: path
    required: true
  job_dir:
    description: Absolute job directory.
    type: str
    required: true
  name:
    description: The job's name (written into the marker).
    type: str
    required: true
  clear:
    description: Paths relative to the job directory to delete when present.
    type: list
    elements: str
    default: []
  make:
    description: Directories relative to the job directory to make (mode 0700).
    type: list
    elements: str
    default: []
  state:
    description: V(prepared) makes and clears; V(packed) packs O(log_dir) into O(archive) only.
    type: str
    choices: [prepared, packed]
    default: prepared
  log_dir:
    description: With O(state=packed), the log directory relative to the job directory.
    type: str
    default: logs
  archive:
    description: With O(state=packed), the archive to write, relative to the job directory.
    type: str
    default: run/logs.tar.gz
extends_documentation_fragment:
  - action_common_attributes
  - cluster_suite.hpc.attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
    details: Run it as the training user (become_user).
"""

EXAMPLES = r"""
- name: Make the job directory, clear the previous run
  job_workspace:
    home: /home/trainer
    job_dir: /home/trainer/jobs/sample-msrun
    name: sample-msrun
    clear: [logs, run, bin, tls]
    make: [run, bin, logs, logs/status]

- name: Pack the job's logs for the controller
  job_workspace:
    home: /home/trainer
    job_dir: /home/trainer/jobs/sample-msrun
    name: sample-msrun
    state: packed
    log_dir: logs
    archive: run/logs.tar.gz
"""

RETURN = r"""
created:
  description: Whether this run made the job directory's marker (a new job directory).
  returned: always
  type: bool
  sample: false
cleared:
  description: The paths of O(clear) that existed and were deleted.
  returned: always
  type: list
  elements: str
  sample: [logs, run]
made:
  description: The directories of O(make) that were made.
  returned: always
  type: list
  elements: str
  sample: [run, logs, logs/status]
archive:
  description: With O(state=packed), the absolute path of the archive.
  returned: when O(state=packed)
  type: str
  sample: /home/trainer/jobs/sample-msrun/run/logs.tar.gz
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.cluster_suite.hpc.plugins.module_utils.job_workspace import pack, prepare


def main():
    module = AnsibleModule(
        argument_spec=dict(
            home=dict(type="path", required=True),
            job_dir=dict(type="str", required=True),
            name=dict(type="str", required=True),
            clear=dict(type="list", elements="str", default=[]),
            make=dict(type="list", elements="str", default=[]),
            state=dict(type="str", choices=["prepared", "packed"], default="prepared"),
            log_dir=dict(type="str", default="logs"),
            archive=dict(type="str", default="run/logs.tar.gz"),
        ),
        supports_check_mode=True,
    )
    params = module.params
    try:
        if params["state"] == "packed":
            result = pack(params["home"], params["job_dir"], params["log_dir"], params["archive"],
                          check_mode=module.check_mode)
        else:
            result = prepare(params["home"], params["job_dir"], params["name"], params["clear"],
                             params["make"], check_mode=module.check_mode)
    except ValueError as error:
        module.fail_json(msg="; ".join(error.args[0]), problems=error.args[0])
    module.exit_json(**result)


if __name__ == "__main__":
    main()
