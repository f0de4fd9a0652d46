#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: link a build's programs into a directory of every PATH, in one run."""

DOCUMENTATION = r"""
---
module: program_links
short_description: Link the programs of one directory into another, in one run
description:
  - For each of O(programs) present in O(src_dir) (a file or a link), makes O(dest_dir)/C(<program>) a
    symbolic link to it; a program missing from O(src_dir) is skipped. A link pointing elsewhere is
    replaced (a new link renamed into place); a regular file or a directory of that name is never
    replaced; the module fails naming it, before any link changes.
  - One module run for every program, where a loop of M(ansible.builtin.file) costs
    ansible-playbook's own process a result per program and node.
  - Supports check mode and diff.
author:
  - Cluster suite contributors
options:
  src_dir:
    description: The directory holding the programs (an absolute path).
    type: path
    required: true
  dest_dir:
    description: The directory the links are made in (an absolute path; it must exist).
    type: path
    required: true
  programs:
    description: File names (no C(/)) of the programs to link.
    type: list
    elements: str
    required: true
"""

EXAMPLES = r"""
- name: Link OpenMPI's front-end programs into /usr/local/bin
  cluster_suite.hpc.program_links:
    src_dir: /opt/openmpi-4.1.6/bin
    dest_dir: /usr/local/bin
    programs: [mpirun, mpiexec, orted]
  become: true
"""

RETURN = r"""
linked:
  description: The links made or repointed (or that would be, in check mode), as C(dest -> src).
  returned: always
  type: list
  elements: str
  sample: [/usr/local/bin/mpirun -> /opt/openmpi-4.1.6/bin/mpirun]
missing:
  description: The programs not found in O(src_dir), skipped.
  returned: always
  type: list
  elements: str
"""

import os

from ansible.module_utils.basic import AnsibleModule


def _target(path):
    """The target of link ``path``; None when absent; False when it is not a link."""
    try:
        return os.readlink(path)
    except FileNotFoundError:
        return None
    except OSError:
        return False


def main():
    module = AnsibleModule(
        argument_spec=dict(
            src_dir=dict(type="path", required=True),
            dest_dir=dict(type="path", required=True),
            programs=dict(type="list", elements="str", required=True),
        ),
        supports_check_mode=True,
    )
    params = module.params
    for name in ("src_dir", "dest_dir"):
        if not os.path.isabs(params[name]):
            module.fail_json(msg="%s: %s is not an absolute path" % (name, params[name]))
    bad = [program for program in params["programs"] if not program or "/" in program or program in (".", "..")]
    if bad:
        module.fail_json(msg="programs: %s: not file names" % ", ".join(map(repr, bad)))
    plan, missing, blocked = [], [], []
    for program in params["programs"]:
        src, dest = os.path.join(params["src_dir"], program), os.path.join(params["dest_dir"], program)
        if not os.path.lexists(src):
            missing.append(program)
            continue
        current = _target(dest)
        if current is False:
            blocked.append(dest)
        elif current != src:
            plan.append((program, src, dest, current))
    if blocked:
        module.fail_json(msg="%s: not a link, and never replaced by one; move it away and run again (nothing "
                             "was changed)" % ", ".join(blocked), linked=[], missing=missing)
    linked = []
    for program, src, dest, current in plan:
        if not module.check_mode:
            temporary = os.path.join(params["dest_dir"], ".%s.cluster-suite.%d" % (program, os.getpid()))
            try:
                os.symlink(src, temporary)
            except OSError as error:
                module.fail_json(msg="%s: %s" % (temporary, error), linked=linked, missing=missing)
            try:
                os.rename(temporary, dest)
            except OSError as error:
                os.unlink(temporary)  # the link this run made just above
                module.fail_json(msg="%s: %s" % (dest, error), linked=linked, missing=missing)
        linked.append("%s -> %s" % (dest, src))
    before = "".join("%s -> %s\n" % (dest, current) for _, _, dest, current in plan if current)
    after = "".join("%s -> %s\n" % (dest, src) for _, src, dest, _ in plan)
    diff = {"before_header": params["dest_dir"], "after_header": params["dest_dir"],
            "before": before, "after": after}
    module.exit_json(changed=bool(linked), linked=linked, missing=missing, diff=diff)


if __name__ == "__main__":
    main()
