#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: can this node ssh to each peer in batch mode, as mpirun would."""

DOCUMENTATION = r"""
---
module: ssh_mesh_check
short_description: Check that a node can ssh to every peer in batch mode, as mpirun needs
description:
  - OpenMPI starts its daemons over SSH, node to node in a tree, with no terminal to answer a
    prompt. Run on every node of the cluster, this module shows which pairs would fail and why.
  - From the node the task runs on, runs C(ssh ... PEER true) against each peer with
    C(BatchMode=yes), C(ConnectTimeout) and C(StrictHostKeyChecking=yes), at most O(parallel)
    at a time, and classifies each result from ssh's exit status and messages.
  - Host keys are always checked strictly, and known_hosts is never C(/dev/null). A peer whose
    key is not yet known is reported with status V(host_key_unknown); record its key (for example
    with C(ssh-keyscan), after verifying it) rather than relaxing the check.
  - It uses the OpenSSH client, not paramiko, on purpose. The client reads the user's real
    C(~/.ssh/config), known_hosts files and agent exactly as mpirun's rsh agent (C(ssh)) does,
    so a pass here means the launch can log in too; paramiko would test a different client,
    with its own config handling, key types and known_hosts parsing.
  - Run the task as the training user (for example with C(remote_user) set to the training
    user), since the keys, known_hosts and config that count are that user's.
  - The check only logs in and runs C(true), so it also runs in check mode, and C(changed) is
    always false.
author:
  - Cluster suite contributors
options:
  peers:
    description:
      - Every name each peer is reached by. known_hosts is keyed by the name or address given
        to ssh, so when a hostfile uses host names and some tool uses IP addresses, list both.
      - Each item is a host name or address, or a dict with C(name) (reported as
        RV(results[].peer)) and optionally C(address) (what ssh connects to, default C(name)).
    type: list
    elements: raw
    required: true
  user:
    description:
      - Remote user (C(ssh -l)). Default is what the ssh config says, else the local user.
    type: str
  identity_file:
    description:
      - Private key to offer (C(ssh -i)), in addition to the agent and config identities.
    type: path
  port:
    description:
      - SSH port of the peers. It is passed as C(ssh -p) and so takes precedence over a C(Port)
        in the ssh config.
    type: int
    default: 22
  connect_timeout:
    description:
      - Seconds for ssh's C(ConnectTimeout) (TCP connect and banner exchange). Key exchange and
        login get 10 seconds more before ssh is stopped and the peer reported as V(timeout).
    type: int
    default: 5
  retries:
    description:
      - Extra attempts for a peer whose failure may be transient (V(timeout), V(unreachable),
        V(error), for example a connection dropped by the peer's C(MaxStartups) limit). Host key,
        authentication and name resolution failures are not retried. V(0) tries once.
    type: int
    default: 1
  parallel:
    description:
      - How many ssh clients run at once.
    type: int
    default: 16
  known_hosts_file:
    description:
      - known_hosts file to use instead of the user's (C(UserKnownHostsFile)). C(/dev/null) is
        refused.
    type: path
  fail_on_error:
    description:
      - Fail the task when any peer is not V(ok). When false, the task reports the results and
        only fails on invalid options.
    type: bool
    default: false
extends_documentation_fragment:
  - action_common_attributes
  - cluster_suite.hpc.attributes
attributes:
  check_mode:
    support: full
    details: The check only logs in and runs C(true), so it runs in check mode as well.
  diff_mode:
    support: none
requirements:
  - OpenSSH client (C(ssh)) on the node the task runs on.
seealso:
  - module: tcp_port_check
"""

EXAMPLES = r"""
- name: Every node reaches every node by host name and by IP, as the training user
  ssh_mesh_check:
    peers: >-
      {{ groups['cluster']
         + groups['cluster'] | map('extract', hostvars, 'ansible_host') | list }}
    fail_on_error: true
  remote_user: "{{ cluster_user }}"

- name: Peers named by inventory host, connecting to an IP, with a dedicated key and known_hosts
  ssh_mesh_check:
    peers:
      - node1
      - name: node2
        address: 10.0.0.2
    identity_file: /home/mpiuser/.ssh/id_ed25519
    known_hosts_file: /home/mpiuser/.ssh/known_hosts_cluster
  register: mesh

- name: Show the peers that failed and why
  ansible.builtin.debug:
    msg: "{{ mesh.results | rejectattr('status', 'eq', 'ok') | map(attribute='message') | list }}"
  when: not mesh.ok
"""

RETURN = r"""
results:
  description: One entry per item of O(peers), in the same order.
  returned: always
  type: list
  elements: dict
  contains:
    peer:
      description: The peer's name as given.
      type: str
      sample: node2
    address:
      description: What ssh connected to.
      type: str
      sample: 10.0.0.2
    status:
      description:
        - V(ok); V(host_key_unknown) (no known_hosts entry for this name); V(host_key_changed)
          (known_hosts has a different key); V(auth_refused) (login refused, for example no
          authorized key); V(unreachable) (connection refused, no route to host, network
          unreachable); V(unresolved) (the name does not resolve); V(timeout) (no answer within
          O(connect_timeout), or ssh killed 10 seconds after it); V(error) (anything else).
      type: str
      sample: host_key_unknown
    message:
      description: The ssh message that decided the status, empty when V(ok).
      type: str
      sample: No ED25519 host key is known for node2 and you have requested strict checking.
    latency_ms:
      description: Milliseconds the last ssh attempt took (login and C(true) when V(ok)).
      type: float
      sample: 182.4
    attempts:
      description: ssh attempts made for this peer.
      type: int
      sample: 1
failed_peers:
  description: Names of the peers whose status is not V(ok), in O(peers) order.
  returned: always
  type: list
  elements: str
  sample: [node3]
ok:
  description: Whether every peer is V(ok).
  returned: always
  type: bool
  sample: false
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.cluster_suite.hpc.plugins.module_utils.ssh_probe import check_peers, normalize_peers


def ssh_options(module):
    """build_ssh_command keyword arguments from the module parameters."""
    params = module.params
    return {
        "user": params["user"],
        "port": params["port"],
        "connect_timeout": params["connect_timeout"],
        "identity_file": params["identity_file"],
        "known_hosts_file": params["known_hosts_file"],
        "ssh": module.get_bin_path("ssh", required=True),
    }


def main():
    module = AnsibleModule(
        argument_spec=dict(
            peers=dict(type="list", elements="raw", required=True),
            user=dict(type="str"),
            identity_file=dict(type="path"),
            port=dict(type="int", default=22),
            connect_timeout=dict(type="int", default=5),
            retries=dict(type="int", default=1),
            parallel=dict(type="int", default=16),
            known_hosts_file=dict(type="path"),
            fail_on_error=dict(type="bool", default=False),
        ),
        supports_check_mode=True,
    )
    params = module.params
    try:
        results = check_peers(
            normalize_peers(params["peers"]),
            ssh_options(module),
            retries=params["retries"],
            parallel=params["parallel"],
        )
    except ValueError as exc:
        module.fail_json(msg=str(exc))
    failed_peers = [result["peer"] for result in results if result["status"] != "ok"]
    outcome = dict(results=results, failed_peers=failed_peers, ok=not failed_peers, changed=False)
    if failed_peers:
        msg = "ssh failed to %d of %d peers: %s" % (
            len(failed_peers), len(results), ", ".join(failed_peers)
        )
    else:
        msg = "ssh works to all %d peers" % len(results)
    if params["fail_on_error"] and failed_peers:
        module.fail_json(msg=msg, **outcome)
    module.exit_json(msg=msg, **outcome)


if __name__ == "__main__":
    main()
