#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: write a node's system configuration files, whole or a block at the top, in one run."""

DOCUMENTATION = r"""
---
module: system_files
short_description: Write system configuration files, whole or as a managed block at the top, in one run
description:
  - Writes every entry of O(files). Without C(marker) the whole file is C(content); with C(marker)
    C(content) is a block between the marker's BEGIN and END lines, replaced where the file has
    them and put at the top of the file where it does not, the rest of the file kept (as
    M(ansible.builtin.blockinfile) with C(insertbefore=BOF) does, so a block it wrote is found).
  - A file whose text, mode and owner already match is left alone; the others are written to a
    temporary file beside them and moved into place. C(backup) keeps a timestamped copy of a file
    it replaces.
  - One module run for several files, where a task per file costs ansible-playbook's own process a
    result per file and node.
  - Every path is checked before anything is written.
author:
  - Cluster suite contributors
options:
  files:
    description: The files to write.
    type: list
    elements: dict
    required: true
    suboptions:
      path:
        description: The file's absolute path; its directory must exist.
        type: path
        required: true
      content:
        description: The file's text, or the block's when C(marker) is set.
        type: str
        required: true
      mode:
        description: Octal mode as text.
        type: str
        default: "0644"
      marker:
        description:
          - The block's marker line, with C({mark}) where BEGIN and END go; empty for a whole file.
        type: str
        default: ""
      backup:
        description: Keep a timestamped copy of the file before it is replaced.
        type: bool
        default: false
  owner:
    description: The owner of every file.
    type: str
    default: root
  group:
    description: The group of every file.
    type: str
    default: root
extends_documentation_fragment:
  - action_common_attributes
  - cluster_suite.hpc.attributes
attributes:
  check_mode:
    support: full
    details: Reports what would be written, and changes nothing.
  diff_mode:
    support: full
"""

EXAMPLES = r"""
- name: Write the linker's and the login shells' configuration of OpenMPI
  cluster_suite.hpc.system_files:
    files:
      - {path: /etc/ld.so.conf.d/openmpi.conf, content: "/usr/local/openmpi-4.1.6/lib\n"}
      - {path: /etc/profile.d/openmpi.sh, content: "{{ lookup('ansible.builtin.template', 'openmpi.sh.j2') }}"}
  become: true

- name: Keep a block of cluster addresses at the top of /etc/hosts
  cluster_suite.hpc.system_files:
    files:
      - path: /etc/hosts
        marker: "# {mark} cluster nodes"
        content: "10.0.0.1  node1\n10.0.0.2  node2"
  become: true
"""

RETURN = r"""
written:
  description: The files written (or that would be, in check mode).
  returned: always
  type: list
  elements: str
  sample: [/etc/profile.d/openmpi.sh]
backups:
  description: The backup copies made, as C(path -> backup).
  returned: always
  type: list
  elements: str
"""

import os
import tempfile

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_bytes


def with_block(text, block, marker):
    """``text`` with ``block`` between the marker's BEGIN and END lines: replaced where both are,
    at the top otherwise, every other line kept; ends with a newline."""
    begin, end = marker.replace("{mark}", "BEGIN"), marker.replace("{mark}", "END")
    lines = text.splitlines()
    found = [i for i, line in enumerate(lines) if line == begin], [i for i, line in enumerate(lines) if line == end]
    at = 0
    if found[0] and found[1]:
        first, last = sorted((found[0][-1], found[1][-1]))
        del lines[first:last + 1]
        at = first
    lines[at:at] = [begin] + block.splitlines() + [end]
    return "\n".join(lines) + "\n"


def _read(path):
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def main():
    module = AnsibleModule(
        argument_spec=dict(
            files=dict(type="list", elements="dict", required=True, options=dict(
                path=dict(type="path", required=True),
                content=dict(type="str", required=True),
                mode=dict(type="str", default="0644"),
                marker=dict(type="str", default=""),
                backup=dict(type="bool", default=False),
            )),
            owner=dict(type="str", default="root"),
            group=dict(type="str", default="root"),
        ),
        supports_check_mode=True,
    )
    entries = module.params["files"]
    for entry in entries:
        if not os.path.isabs(entry["path"]) or not os.path.isdir(os.path.dirname(entry["path"])):
            module.fail_json(msg=f"{entry['path']}: not an absolute path in an existing directory (nothing was written)")
        if os.path.islink(entry["path"]) or os.path.lexists(entry["path"]) and not os.path.isfile(entry["path"]):
            module.fail_json(msg=f"{entry['path']}: not a regular file (nothing was written)")
        if entry["marker"] and "{mark}" not in entry["marker"]:
            module.fail_json(msg=f"{entry['path']}: marker {entry['marker']!r} has no {{mark}} (nothing was written)")
    written, backups, diffs = [], [], []
    for entry in entries:
        path = entry["path"]
        before = _read(path)
        after = with_block(before or "", entry["content"], entry["marker"]) if entry["marker"] else entry["content"]
        if before != after:
            written.append(path)
            diffs.append({"before_header": path, "after_header": path, "before": before or "", "after": after})
            if not module.check_mode:
                if entry["backup"] and before is not None:
                    backups.append(f"{path} -> {module.backup_local(path)}")
                handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=f".{os.path.basename(path)}.")
                try:
                    with os.fdopen(handle, "wb") as out:
                        out.write(to_bytes(after))
                    module.atomic_move(temporary, path)
                finally:
                    if os.path.lexists(temporary):
                        os.unlink(temporary)  # the temporary file made just above, when the move failed
        if path in written and not os.path.exists(path):
            continue  # check mode: the file a real run would create
        file_args = module.load_file_common_arguments(dict(path=path, mode=entry["mode"], owner=module.params["owner"],
                                                           group=module.params["group"]))
        if module.set_fs_attributes_if_different(file_args, False, diff={}) and path not in written:
            written.append(path)
    module.exit_json(changed=bool(written), written=written, backups=backups, diff=diffs)


if __name__ == "__main__":
    main()
