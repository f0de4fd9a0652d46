#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: install pinned distributions into the training environment from local wheels."""

DOCUMENTATION = r"""
---
module: python_env_install
short_description: Install pinned distributions from a node's wheel directory, only when they differ
description:
  - Reads the installed version of each of O(packages) in the environment's Python O(python) and
    runs C(pip install --no-index --find-links O(wheel_dir)) for the ones that differ. Nothing is
    installed when every version matches; nothing comes from the network.
  - A version is the exact build; a local label names another build of the release, so an
    installed C(2.13.0+cpu) or C(2.13.0+cu121) does not satisfy a pin of C(2.13.0) (nor the
    reverse). Such a package is reinstalled as pinned (requirement C(name===version)), with a
    warning naming both builds; the wheels must hold the pinned build.
  - Check mode reports what would be installed; with diff, the versions before and after.
author:
  - Cluster suite contributors
options:
  python:
    description: The environment's Python.
    type: str
    required: true
  wheel_dir:
    description: The node's directory of wheels.
    type: str
    required: true
  packages:
    description: The pins, each C(name) and C(version).
    type: list
    elements: dict
    required: true
    suboptions:
      name:
        description: Distribution name.
        type: str
        required: true
      version:
        description: Its version.
        type: str
        required: true
  provided:
    description:
      - The environment was provided by other means (C(cluster_python_provided)); install nothing,
        and fail, naming that variable, when a pin is not installed as pinned.
    type: bool
    default: false
"""

EXAMPLES = r"""
- name: Install the pinned frameworks
  python_env_install:
    python: /opt/cluster-suite/python/bin/python
    wheel_dir: /opt/cluster-suite/python/wheels
    packages:
      - {name: torch, version: "2.13.0+cpu"}
"""

RETURN = r"""
installed:
  description: The version of each pinned distribution after the run (before it in check mode).
  returned: always
  type: dict
  sample: {"torch": "2.13.0+cpu"}
requirements:
  description: What was (or, in check mode, would be) installed.
  returned: always
  type: list
  sample: ["torch===2.13.0"]
other_builds:
  description: The pins whose release is installed as another build (another local label).
  returned: always
  type: list
  sample: ["torch 2.13.0+cpu is another build than the pinned 2.13.0"]
msg:
  description: What happened to the other builds, when there are any.
  returned: when other_builds is not empty
  type: str
  sample: "torch 2.13.0+cpu is another build than the pinned 2.13.0: reinstalled as pinned"
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.cluster_suite.hpc.plugins.module_utils.python_env_node import install_plan, installed_versions, other_builds, pip_install_argv


def _installed(module, python, names):
    found, error = installed_versions(module.run_command, python, names)
    if error:
        module.fail_json(msg=error)
    return found


def main():
    module = AnsibleModule(
        argument_spec=dict(
            python=dict(type="str", required=True),
            wheel_dir=dict(type="str", required=True),
            packages=dict(type="list", elements="dict", required=True, options=dict(
                name=dict(type="str", required=True),
                version=dict(type="str", required=True),
            )),
            provided=dict(type="bool", default=False),
        ),
        supports_check_mode=True,
    )
    params = module.params
    pinned = [(item["name"], item["version"]) for item in params["packages"]]
    names = [name for name, _ in pinned]
    installed = _installed(module, params["python"], names)
    requirements, diff = install_plan(pinned, installed)
    others = other_builds(pinned, installed)
    result = dict(installed=installed, requirements=requirements, diff=diff, other_builds=others)
    if others:
        action = "would be reinstalled as pinned" if module.check_mode else "reinstalled as pinned"
        result["msg"] = "%s: %s" % ("; ".join(others), action)
    if params["provided"]:
        if requirements:
            module.fail_json(**dict(result, msg="cluster_python_provided: %s does not hold %s (installed: %s)%s" % (
                params["python"], ", ".join(requirements), installed, "".join("; " + other for other in others))))
        module.exit_json(changed=False, **result)
    if not requirements or module.check_mode:
        module.exit_json(changed=bool(requirements), **result)
    for other in others:
        module.warn("%s: reinstalling as pinned" % other)
    rc, out, err = module.run_command(pip_install_argv(params["python"], params["wheel_dir"], requirements))
    if rc != 0:
        # pip names an exact build it cannot find as a dependency conflict: say which build is missing.
        why = " (%s; the wheels must hold the pinned build)" % "; ".join(others) if others else ""
        module.fail_json(msg="pip install %s failed (rc %s)%s: %s" % (" ".join(requirements), rc, why,
                                                                      (err or out).strip()[-1500:]),
                         other_builds=others)
    installed = _installed(module, params["python"], names)
    left, _ = install_plan(pinned, installed)
    if left:
        module.fail_json(msg="after pip install, still not as pinned: %s (installed: %s)" % (", ".join(left), installed))
    result["installed"] = installed
    module.exit_json(changed=True, **result)


if __name__ == "__main__":
    main()
