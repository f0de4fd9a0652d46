#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: every check of a node before a training launch, in one run."""

DOCUMENTATION = r"""
---
module: job_preflight
short_description: Check a node before a training launch, in one module run
description:
  - Used by C(playbooks/launch.yml) before anything is copied or started. In one run on the node
    it finds the training user's home and from it the job's absolute directories, finds the job's
    Python as the training user would (C(command -v)), checks that it finds the launcher's
    framework (without importing it), looks for the files the launch needs (the environment
    script, OpenMPI's C(orted)), looks for processes of a previous run of the same job (by
    C(CS_JOB_DIR), as M(job_processes) does), checks on the master that the port can be bound,
    and reads the node's IPv4 addresses (C(ip -o -4 addr show)).
  - Returns the versions a job needs to be the same on every node (the Python, its framework,
    OpenMPI under O(openmpi_prefix)); the play compares them across nodes as the doctor does.
  - Returns every problem found as one line each, naming the job variable to fix; it does not
    fail on them, so that the play can list every node's problems at once.
  - Changes nothing; runs in check mode too.
author:
  - Cluster suite contributors
options:
  user:
    description: The training user (its home holds relative job directories).
    type: str
    required: true
  job_dir:
    description: The plan's job directory, absolute or relative to the user's home.
    type: str
    required: true
  log_dir:
    description: The plan's log directory, relative to the job directory.
    type: str
    required: true
  workspace:
    description:
      - Paths relative to the job directory that the launch will clear or make, each with the job
        variable that names it; checked with the job directory itself against the suite's
        deletion contract (see M(job_workspace)), before any node changes.
    type: list
    elements: dict
    default: []
    suboptions:
      path:
        description: Path relative to the job directory.
        type: str
        required: true
      variable:
        description: The job variable reported when the path is refused.
        type: str
        required: true
  name:
    description: The job's name (for the messages).
    type: str
    required: true
  launcher:
    description: The launcher (for the messages).
    type: str
    required: true
  python:
    description: The job's Python, a name looked up in C(PATH) or an absolute path.
    type: str
    required: true
  python_module:
    description: Module the Python must find (the launcher's framework); empty to skip.
    type: str
    default: ""
  files:
    description: Files that must exist, each with the job variable a missing one is reported under.
    type: list
    elements: dict
    default: []
    suboptions:
      path:
        description: Absolute path.
        type: path
        required: true
      variable:
        description: V(job_source_env) or V(job_mpirun_prefix).
        type: str
        required: true
        choices: [job_source_env, job_mpirun_prefix]
  port:
    description: TCP port that must be free to bind on this node (the master's); omit elsewhere.
    type: int
  master_addr:
    description: Address that must be one of this node's (given on the master only).
    type: str
  address:
    description: This node's address; RV(iface) is the device holding it.
    type: str
  openmpi_prefix:
    description:
      - The OpenMPI prefix mpirun starts from (C(bin/ompi_info) under it); its version, and the build
        the openmpi role's marker records, are returned in RV(versions) for the comparison across
        nodes. Empty to skip.
    type: str
    default: ""
extends_documentation_fragment:
  - action_common_attributes
  - cluster_suite.hpc.attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
    details: Linux (C(/proc), C(ip)). Run it as the training user (become_user).
"""

EXAMPLES = r"""
- name: Check this node before the launch
  job_preflight:
    user: trainer
    job_dir: jobs/sample-msrun
    log_dir: logs
    workspace:
      - {path: logs, variable: job_log_dir}
    name: sample-msrun
    launcher: msrun
    python: python3
    python_module: mindspore
    files:
      - {path: /etc/cluster-suite/env_npu.sh, variable: job_source_env}
    port: 8118
    master_addr: 10.89.0.2
    address: 10.89.0.2
  register: preflight

- name: Every check passed
  ansible.builtin.assert:
    that: preflight.problems | length == 0
    fail_msg: "{{ preflight.problems }}"
"""

RETURN = r"""
home:
  description: The training user's home.
  returned: always
  type: str
  sample: /home/trainer
job_dir:
  description: Absolute job directory.
  returned: always
  type: str
  sample: /home/trainer/jobs/sample-msrun
log_dir:
  description: Absolute log directory.
  returned: always
  type: str
  sample: /home/trainer/jobs/sample-msrun/logs
python_path:
  description: The job's Python as found (empty when not found).
  returned: always
  type: str
  sample: /opt/ml/bin/python3
ipv4_addresses:
  description: This node's IPv4 addresses.
  returned: always
  type: list
  elements: str
  sample: [127.0.0.1, 10.89.0.2]
iface:
  description: The device holding O(address) (empty when none does or no address was given).
  returned: always
  type: str
  sample: eth0
processes:
  description: Live processes of a previous run of this job.
  returned: always
  type: list
  elements: dict
  sample: []
port:
  description: The bind check of O(port) (see M(tcp_port_check)); null without O(port).
  returned: always
  type: dict
  sample: {"free": true, "error": null, "error_text": null, "holder_pid": null, "holder_name": null, "holder_state": null}
versions:
  description:
    - "C(python): the job's Python's version (null when it does not run); C(framework): the
      installed version of O(python_module) (null when not found or not asked for); C(openmpi): what
      the doctor reads of OpenMPI (C(version), C(path), C(build) from the role's marker), null
      without O(openmpi_prefix)."
  returned: always
  type: dict
  sample: {"python": "3.11.2", "framework": "2.7.1", "openmpi": null}
problems:
  description: Every problem found, one line each, naming the job variable to fix.
  returned: always
  type: list
  elements: str
  sample: ["job_python: python3.11 is not found by trainer (set launch_python in the inventory or job_python)"]
"""

import os
import pwd

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.cluster_suite.hpc.plugins.module_utils.doctor_probe import collect_openmpi
from ansible_collections.cluster_suite.hpc.plugins.module_utils.job_preflight import (find_python, interface_of, node_paths, parse_ipv4_addresses,
                                                problems, read_python)
from ansible_collections.cluster_suite.hpc.plugins.module_utils.job_procs import job_processes
from ansible_collections.cluster_suite.hpc.plugins.module_utils.job_workspace import problems as workspace_problems
from ansible_collections.cluster_suite.hpc.plugins.module_utils.tcp_probe import probe_bind


def openmpi_at(module, prefix):
    """What the doctor reads of OpenMPI, from prefix/bin/ompi_info and the role's marker beside it."""
    ompi_info = os.path.join(prefix, "bin", "ompi_info")
    marker = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(ompi_info))),
                          "share", "cluster-suite-build.json")

    def read(path):
        try:
            with open(path) as handle:
                return handle.read()
        except (IOError, OSError):
            return None

    def which(_name):
        return ompi_info if os.access(ompi_info, os.X_OK) else None

    return collect_openmpi(module.run_command, which, read, marker)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            user=dict(type="str", required=True),
            job_dir=dict(type="str", required=True),
            log_dir=dict(type="str", required=True),
            name=dict(type="str", required=True),
            launcher=dict(type="str", required=True),
            python=dict(type="str", required=True),
            python_module=dict(type="str", default=""),
            workspace=dict(type="list", elements="dict", default=[], options=dict(
                path=dict(type="str", required=True),
                variable=dict(type="str", required=True),
            )),
            files=dict(type="list", elements="dict", default=[], options=dict(
                path=dict(type="path", required=True),
                variable=dict(type="str", required=True, choices=["job_source_env", "job_mpirun_prefix"]),
            )),
            port=dict(type="int"),
            master_addr=dict(type="str"),
            address=dict(type="str"),
            openmpi_prefix=dict(type="str", default=""),
        ),
        supports_check_mode=True,
    )
    params = module.params
    try:
        home = pwd.getpwnam(params["user"]).pw_dir
    except KeyError:
        module.fail_json(msg="cluster_user: %s does not exist on this node (run site.yml first)" % params["user"])
    job_dir, log_dir = node_paths(home, params["job_dir"], params["log_dir"])
    python_path = find_python(params["python"])
    python = read_python(python_path, params["python_module"]) if python_path else None
    module_ok = None
    if python_path and params["python_module"]:
        module_ok = bool(python and python["found"])
    rc, out, err = module.run_command([module.get_bin_path("ip", required=True), "-o", "-4", "addr", "show"])
    if rc != 0:
        module.fail_json(msg="ip -o -4 addr show failed: %s" % err.strip())
    ipv4 = parse_ipv4_addresses(out)
    facts = dict(
        python_path=python_path or "",
        python_module_ok=module_ok,
        missing_files=[item for item in params["files"] if not os.path.exists(item["path"])],
        processes=job_processes(job_dir),
        port=probe_bind(params["port"]) if params["port"] is not None else None,
        ipv4_addresses=ipv4,
    )
    module.exit_json(
        changed=False, home=home, job_dir=job_dir, log_dir=log_dir, python_path=facts["python_path"],
        ipv4_addresses=[address for _device, address in ipv4],
        iface=interface_of(ipv4, params["address"]) if params["address"] else "",
        processes=facts["processes"], port=facts["port"],
        versions=dict(python=(python or {}).get("python"), framework=(python or {}).get("version"),
                      openmpi=openmpi_at(module, params["openmpi_prefix"]) if params["openmpi_prefix"] else None),
        problems=workspace_problems(home, job_dir, [(item["path"], item["variable"]) for item in params["workspace"]])
        + problems(facts, params),
    )


if __name__ == "__main__":
    main()
