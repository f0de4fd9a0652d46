#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: the cluster key pair in the training user's ~/.ssh, in one run (the node's half
of action ssh_trust_user_keys)."""

DOCUMENTATION = r"""
---
module: ssh_trust_key_files
short_description: Write the cluster key pair into the training user's ~/.ssh and authorize it
description:
  - The node's half of action M(cluster_suite.hpc.ssh_trust_user_keys), which reads the key pair on
    the controller and passes it here; use that action, not this module.
  - Makes the training user's C(~/.ssh) a directory of mode 0700, C(~/.ssh/id_ed25519) O(private_key)
    (0600), C(~/.ssh/id_ed25519.pub) O(public_key) with O(comment) (0644), all owned by the user and
    its primary group; adds O(public_key) to C(~/.ssh/authorized_keys) (0600) and removes from it
    every other key that carries O(comment) (the keys of earlier rotations). The user's own lines are
    kept as they are.
  - Runs as root in a directory the user owns, so it never follows a link there; a C(~/.ssh) or a
    key file that is a link is refused. A file is replaced by renaming a new one into place.
  - Supports check mode and diff (the private key is never in a diff). In check mode a user that does
    not exist yet skips the module.
author:
  - Cluster suite contributors
options:
  user:
    description: The training user.
    type: str
    required: true
  private_key:
    description: The cluster's private key (OpenSSH format).
    type: str
    required: true
  public_key:
    description: The cluster's public key as C(type base64).
    type: str
    required: true
  comment:
    description: The comment of the cluster key in its public key file and its C(authorized_keys) line.
    type: str
    required: true
"""

EXAMPLES = r"""
# Called by action cluster_suite.hpc.ssh_trust_user_keys; see its examples.
"""

RETURN = r"""
changed_files:
  description: The paths the run changed (or would change, in check mode).
  returned: always
  type: list
  elements: str
removed_keys:
  description: The earlier cluster keys removed from C(authorized_keys), by the end of their base64 blob.
  returned: always
  type: list
  elements: str
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.cluster_suite.hpc.plugins.module_utils.ssh_trust_node import (
    KEY_TYPE, SshDir, UnsafeHome, account, authorized_keys, key_label)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            user=dict(type="str", required=True),
            private_key=dict(type="str", required=True, no_log=True),
            public_key=dict(type="str", required=True),
            comment=dict(type="str", required=True),
        ),
        supports_check_mode=True,
    )
    params = module.params
    public_key = params["public_key"].split()
    if len(public_key) != 2 or not KEY_TYPE.match(public_key[0]):
        module.fail_json(msg="public_key: %r is not 'type base64'" % params["public_key"])
    user = account(params["user"])
    if user is None:
        if module.check_mode:
            module.exit_json(changed=False, skipped=True, changed_files=[], removed_keys=[], msg=(
                "check mode: user %s does not exist yet, so the tasks in its home are skipped "
                "(a real run creates it first)" % params["user"]))
        module.fail_json(msg="user %s does not exist" % params["user"])
    public_key = " ".join(public_key)
    try:
        ssh_dir = SshDir(user, module.check_mode)
        try:
            ssh_dir.ensure("id_ed25519", params["private_key"], 0o600, show_diff=False)
            ssh_dir.ensure("id_ed25519.pub", "%s %s\n" % (public_key, params["comment"]), 0o644)
            text, removed = authorized_keys(ssh_dir.read("authorized_keys") or "", public_key, params["comment"])
            ssh_dir.ensure("authorized_keys", text, 0o600)
        finally:
            ssh_dir.close()
    except (UnsafeHome, OSError) as error:
        module.fail_json(msg="%s: %s" % (params["user"], error))
    if not module.check_mode:
        for path in ssh_dir.planned:
            module.set_default_selinux_context(path, False)
    module.exit_json(changed=bool(ssh_dir.planned), changed_files=ssh_dir.planned,
                     removed_keys=[key_label(line) for line in removed], diff=ssh_dir.diffs)


if __name__ == "__main__":
    main()
