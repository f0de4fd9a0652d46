"""Documentation of action ssh_trust_user_keys (plugins/action/ssh_trust_user_keys.py); it has no module code."""

DOCUMENTATION = r"""
---
module: ssh_trust_user_keys
short_description: Create the training user where asked, install the cluster key pair for it and authorize it, in one task
description:
  - With O(create), creates O(user) with a home and O(shell) (M(ansible.builtin.user)); with
    O(add_groups), adds it to those groups and then closes the task's connection, so that the
    next login (the next task, a launch) has them. An existing user is otherwise left as it is.
  - Reads the cluster key pair (C(id_ed25519), C(id_ed25519.pub)) from O(key_dir) on the controller and
    runs module M(cluster_suite.hpc.ssh_trust_key_files) on the node with it (C(~/.ssh) 0700, the
    private key 0600, the public key 0644 with O(comment), the key in C(authorized_keys) and the
    cluster's earlier keys, those with O(comment), out of it).
  - The private key is never in a result, a diff or a log, at any verbosity.
  - One task instead of up to nine per node, as ansible-playbook's own process handles every task result on
    one core, which at a thousand nodes sets how long a run takes.
  - In check mode, a key pair not generated yet or a user not created yet skips the task, saying why.
author:
  - Cluster suite contributors
options:
  user:
    description: The training user.
    type: str
    required: true
  key_dir:
    description: The controller's directory that holds the key pair.
    type: path
    required: true
  comment:
    description: The comment of the cluster key.
    type: str
    required: true
  create:
    description: Create O(user) first; for a user that NSS does not know (local, LDAP, SSSD).
    type: bool
    default: false
  shell:
    description: The login shell of a user O(create) creates.
    type: str
    default: /bin/bash
  add_groups:
    description: Groups to add O(user) to (its other groups are kept); for the NPU driver's group.
    type: list
    elements: str
    default: []
extends_documentation_fragment:
  - action_common_attributes
  - cluster_suite.hpc.attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: partial
    details: The public key file and C(authorized_keys); never the private key.
seealso:
  - module: cluster_suite.hpc.ssh_trust_key_files
"""

EXAMPLES = r"""
- name: Install the cluster key pair for the training user
  cluster_suite.hpc.ssh_trust_user_keys:
    user: mpiuser
    key_dir: /home/admin/.cache/cluster-suite/ssh/prod
    comment: cluster-suite:prod
    add_groups: [HwHiAiUser]
  become: true
"""

RETURN = r"""
changed_files:
  description: The paths on the node the task changed (or would change, in check mode).
  returned: always
  type: list
  elements: str
  sample: [/home/mpiuser/.ssh/authorized_keys]
removed_keys:
  description: The cluster's earlier keys removed from C(authorized_keys), by the end of their base64 blob.
  returned: always
  type: list
  elements: str
user_created:
  description: Whether O(user) was created (or would be, in check mode).
  returned: always
  type: bool
groups_added:
  description: The groups O(user) was added to (or would be, in check mode).
  returned: always
  type: list
  elements: str
"""
