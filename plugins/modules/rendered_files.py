#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: write a set of already rendered files under one directory in one run."""

DOCUMENTATION = r"""
---
module: rendered_files
short_description: Write many rendered files (text and mode) under one directory in one run
description:
  - Writes every entry of O(files) to O(root)/C(path) with its text and mode, creating the
    directories it needs; a file whose text and mode already match is left alone, the others
    are replaced atomically (a temporary file beside it, then a rename).
  - Deletes the O(remove) paths under O(root) where they exist (files of an earlier render that
    this one does not write).
  - Made for C(playbooks/render.yml), which renders every node's launch scripts on the
    controller (lookup C(ansible.builtin.template)) and writes them all with one run of this
    module instead of two module runs per file of the template module.
  - Every path is checked before anything is written; paths are relative to O(root) and may not
    leave it.
author:
  - Cluster suite contributors
options:
  root:
    description:
      - Absolute directory the paths are relative to; created when missing.
    type: path
    required: true
  files:
    description:
      - The files to write.
    type: list
    elements: dict
    required: true
    suboptions:
      path:
        description: Relative path under O(root), without C(.) or C(..) parts.
        type: str
        required: true
      content:
        description: The file's text (written as UTF-8).
        type: str
        required: true
      mode:
        description: Octal mode as text, for example V('0755').
        type: str
        default: "0644"
  private_files:
    description:
      - Files whose text is a secret (passwords, tokens), written as O(files) are, mode V(0600)
        unless given; their text is never logged or returned.
    type: list
    elements: dict
    default: []
    suboptions:
      path:
        description: Relative path under O(root), without C(.) or C(..) parts.
        type: str
        required: true
      content:
        description: The file's text (written as UTF-8).
        type: str
        required: true
      mode:
        description: Octal mode as text.
        type: str
        default: "0600"
  remove:
    description:
      - Relative paths under O(root) to delete when present; not one of O(files).
    type: list
    elements: str
    default: []
extends_documentation_fragment:
  - action_common_attributes
  - cluster_suite.hpc.attributes
attributes:
  check_mode:
    support: full
    details: Reports what would be written or removed, and changes nothing.
  diff_mode:
    support: none
notes:
  - The logic lives in C(plugins/module_utils/rendered_files.py).
seealso:
  - module: ansible.builtin.template
"""

EXAMPLES = r"""
- name: Write every node's scripts into the review directory
  rendered_files:
    root: /tmp/rendered
    files:
      - {path: node1/launch.sh, content: "#!/usr/bin/env bash\n", mode: "0755"}
      - {path: node1/job.env, content: "export CS_JOB=demo\n", mode: "0644"}
    remove: [node1/hostfile]
"""

RETURN = r"""
written:
  description: Paths (relative to O(root)) written because they were missing or differed.
  returned: always
  type: list
  elements: str
  sample: [node1/launch.sh]
unchanged:
  description: How many files already had the same text and mode.
  returned: always
  type: int
  sample: 1
removed:
  description: Paths of O(remove) that existed and were deleted.
  returned: always
  type: list
  elements: str
  sample: [node1/hostfile]
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.cluster_suite.hpc.plugins.module_utils.rendered_files import RenderedFilesError, write_files


def main():
    module = AnsibleModule(
        argument_spec={
            "root": {"type": "path", "required": True},
            "files": {"type": "list", "elements": "dict", "required": True,
                      "options": {"path": {"type": "str", "required": True},
                                  "content": {"type": "str", "required": True, "no_log": False},
                                  "mode": {"type": "str", "default": "0644"}}},
            "private_files": {"type": "list", "elements": "dict", "default": [],
                              "options": {"path": {"type": "str", "required": True},
                                          "content": {"type": "str", "required": True, "no_log": True},
                                          "mode": {"type": "str", "default": "0600"}}},
            "remove": {"type": "list", "elements": "str", "default": []},
        },
        supports_check_mode=True,
    )
    try:
        result = write_files(module.params["root"], module.params["files"] + module.params["private_files"],
                             module.params["remove"],
                             check_mode=module.check_mode)
    except RenderedFilesError as error:
        module.fail_json(msg="rendered_files: " + "; ".join(error.errors), errors=error.errors)
    except OSError as error:
        module.fail_json(msg=f"rendered_files: {error}")
    module.exit_json(changed=bool(result["written"] or result["removed"]), **result)


if __name__ == "__main__":
    main()
