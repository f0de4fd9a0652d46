#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: what role ssh_trust needs to know about a node, read-only, with its checks."""

DOCUMENTATION = r"""
---
module: ssh_trust_node_read
short_description: Read a node's SSH host keys, names, training user and groups for role ssh_trust
description:
  - Reads the node's SSH host public keys (C(/etc/ssh/ssh_host_*_key.pub)), its own addresses
    (C(ip -o addr show), loopback left out), the names it is reached by (its fully qualified and
    short host names, as the facts C(fqdn) and C(hostname) read them, and O(host)), the training
    user O(user) as NSS knows it, and whether C(setfacl) and the NPU driver's group O(npu_group)
    are there. It needs no facts.
  - Fails, naming O(host), when C(ip) is missing, when O(address) is not one of the node's
    addresses, when the node has no host key,
    when Ansible logs in as another account than O(user) and C(setfacl) is missing (Ansible needs it to
    become O(user)), or when O(npu_group) is set and does not exist.
  - Changes nothing; runs in check mode too.
author:
  - Cluster suite contributors
options:
  host:
    description: The node's inventory name, which every message starts with.
    type: str
    required: true
  address:
    description: The node's cluster address (its C(ansible_host)).
    type: str
    required: true
  user:
    description: The training user.
    type: str
    required: true
  login:
    description: The account Ansible logs in as.
    type: str
    required: true
  npu_group:
    description: The NPU driver's group the training user joins; empty on a node without NPUs.
    type: str
    default: ""
  acl_package:
    description: The package that provides C(setfacl), named in the message when it is missing.
    type: str
    default: acl
  server_package:
    description: The SSH server's package, named in the message when there is no host key.
    type: str
    default: openssh-server
  sshd_service:
    description: The SSH server's service, named in the message when there is no host key.
    type: str
    default: sshd
"""

EXAMPLES = r"""
- name: Read the node's host keys, names and training user
  cluster_suite.hpc.ssh_trust_node_read:
    host: "{{ inventory_hostname }}"
    address: "{{ ansible_host }}"
    user: mpiuser
    login: admin
  register: node
"""

RETURN = r"""
addresses:
  description: The node's own IPv4 and IPv6 addresses, loopback left out, IPv4 first.
  returned: always
  type: list
  elements: str
  sample: ["10.88.0.5", "fe80::4c1b:2dff:fe3a:9e01"]
host_keys:
  description: The node's SSH host public keys as C(type base64), without comments.
  returned: always
  type: list
  elements: str
names:
  description: The host names the node is reached by (no addresses, no loopback names), names with a domain first.
  type: list
  elements: str
  returned: success
  sample: ["node1.cluster.example", "node1"]
user:
  description: >-
    The training user's C(name), C(uid), C(gid), C(home) and C(groups) (the names of all its groups),
    or null when it does not exist.
  returned: always
  type: dict
errors:
  description: Every reason the node cannot be used, the first of them also as C(msg).
  returned: failure
  type: list
  elements: str
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.cluster_suite.hpc.plugins.module_utils.ssh_trust_node import (
    account, host_keys, node_names, own_addresses, own_host_names, read_errors)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            host=dict(type="str", required=True),
            address=dict(type="str", required=True),
            user=dict(type="str", required=True),
            login=dict(type="str", required=True),
            npu_group=dict(type="str", default=""),
            acl_package=dict(type="str", default="acl"),
            server_package=dict(type="str", default="openssh-server"),
            sshd_service=dict(type="str", default="sshd"),
        ),
        supports_check_mode=True,
    )
    params = module.params
    ip = module.get_bin_path("ip")
    if not ip:
        module.fail_json(msg=f"{params['host']}: ip not found in PATH: ssh_trust reads the node's addresses "
                             "with `ip -o addr show`; install iproute2")
    rc, out, err = module.run_command([ip, "-o", "addr", "show"])
    if rc != 0:
        module.fail_json(msg=f"{params['host']}: `ip -o addr show` failed (rc {rc}): {err.strip()}")
    addresses = own_addresses(out)
    keys = host_keys()
    setfacl = module.get_bin_path("setfacl") if params["login"] != params["user"] else ""
    result = dict(changed=False, addresses=addresses, host_keys=keys, user=account(params["user"]))
    errors = read_errors(params, keys, addresses, setfacl)
    if errors:
        # Without names: the role's known_hosts and /etc/hosts list only the nodes whose names it read.
        module.fail_json(msg=errors[0], errors=errors, **result)
    fqdn, hostname = own_host_names()
    module.exit_json(names=node_names(fqdn, params["host"], hostname), **result)


if __name__ == "__main__":
    main()
