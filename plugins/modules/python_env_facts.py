#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: what role python_env needs to know about a node, read-only."""

DOCUMENTATION = r"""
---
module: python_env_facts
short_description: Read a node's Python, CANN, training environment and wheels for role python_env
description:
  - Runs O(base_python) for its version and platform (machine, glibc), reads the CANN version
    under O(cann_install_path) when set, the versions of O(packages) in the environment's
    Python O(env_python) when it exists, and the sha256 of the wheels O(wheels) in O(wheel_dir).
  - Changes nothing; runs in check mode too. With O(require_python), fails when the base Python does
    not run.
author:
  - Cluster suite contributors
options:
  base_python:
    description: The node's Python the environment is made from (a command name or a path).
    type: str
    required: true
  env_python:
    description: The environment's Python (C(<path>/bin/python)).
    type: str
    required: true
  packages:
    description: Distribution names whose installed version is read.
    type: list
    elements: str
    default: []
  cann_install_path:
    description: Where CANN is installed; empty skips the CANN version.
    type: str
    default: ""
  wheel_dir:
    description: The directory on the node that holds the wheels.
    type: str
    default: ""
  wheels:
    description: Wheel file names in O(wheel_dir) whose sha256 is read.
    type: list
    elements: str
    default: []
  require_python:
    description: Fail, naming O(host) and C(python_env_base_python), when O(base_python) does not run.
    type: bool
    default: false
  host:
    description: The node's inventory name, which that failure message starts with.
    type: str
    default: ""
"""

EXAMPLES = r"""
- name: Read the node's Python and what the environment holds
  python_env_facts:
    base_python: python3
    env_python: /opt/cluster-suite/python/bin/python
    packages: [mindspore, torch]
    cann_install_path: /usr/local/Ascend
"""

RETURN = r"""
python:
  description: The base Python's version, machine and glibc version, or C(error).
  returned: always
  type: dict
  sample: {"version": "3.11.2", "machine": "x86_64", "libc": "2.36"}
installed:
  description: Installed version of each of O(packages) (null when absent); empty without environment.
  returned: always
  type: dict
  sample: {"torch": "2.13.0+cpu", "mindspore": null}
env_exists:
  description: Whether O(env_python) exists.
  returned: always
  type: bool
cann:
  description: The CANN version found (C(version)) or C(absent); empty when not asked.
  returned: always
  type: dict
wheel_sums:
  description: sha256 of each of O(wheels) present in O(wheel_dir).
  returned: always
  type: dict
"""

import os
import shutil

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.cluster_suite.hpc.plugins.module_utils.doctor_probe import collect_cann
from ansible_collections.cluster_suite.hpc.plugins.module_utils.python_env_node import PLATFORM_SCRIPT, installed_versions, parse_json_line, wheel_sums


def _read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return None


def main():
    module = AnsibleModule(
        argument_spec=dict(
            base_python=dict(type="str", required=True),
            env_python=dict(type="str", required=True),
            packages=dict(type="list", elements="str", default=[]),
            cann_install_path=dict(type="str", default=""),
            wheel_dir=dict(type="str", default=""),
            wheels=dict(type="list", elements="str", default=[]),
            require_python=dict(type="bool", default=False),
            host=dict(type="str", default=""),
        ),
        supports_check_mode=True,
    )
    params = module.params
    base = params["base_python"] if "/" in params["base_python"] else shutil.which(params["base_python"])
    python = {"error": "%s is not found" % params["base_python"]}
    if base:
        rc, out, err = module.run_command([base, "-c", PLATFORM_SCRIPT])
        python = parse_json_line(out) if rc == 0 else None
        python = python or {"error": "%s does not run (rc %s): %s" % (base, rc, (err or out).strip()[-300:])}
        python["path"] = base
    if params["require_python"] and "error" in python:
        module.fail_json(msg="%s: python_env_base_python: %s" % (params["host"], python["error"]), python=python)
    env_exists = os.path.isfile(params["env_python"])
    installed = {}
    if env_exists and params["packages"]:
        installed, error = installed_versions(module.run_command, params["env_python"], params["packages"])
        if error:
            module.fail_json(msg=error)
    cann = collect_cann(params["cann_install_path"], _read) if params["cann_install_path"] else {}
    module.exit_json(changed=False, python=python, env_exists=env_exists, installed=installed, cann=cann,
                     wheel_sums=wheel_sums(params["wheel_dir"], params["wheels"]) if params["wheel_dir"] else {})


if __name__ == "__main__":
    main()
