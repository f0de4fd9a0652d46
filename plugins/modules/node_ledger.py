#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Documentation of the action plugin node_ledger (plugins/action/node_ledger.py), run on the controller."""

DOCUMENTATION = r"""
---
module: node_ledger
short_description: Read or update the node ledger of an inventory (in service, quarantined, retired)
description:
  - The controller's memory of each node of one inventory, in
    C(<ledger_dir>/<inventory name>-<hash of its path>.json); a node it does not know is in service.
  - C(record) keeps the doctor's and acceptance's verdicts and quarantines a node in service that
    failed one (or was unreachable, or failed provisioning or a launch check), with the reason, the
    time and the evidence. A pass never returns a quarantined node by itself.
  - C(quarantine) and C(retire) are the operator's, with a reason. C(return) puts a node back in
    service only when it passed both the doctor and acceptance after its quarantine, unless
    O(force) is true (O(reason) is then recorded).
  - C(add) (playbooks/add.yml) refuses a quarantined node and a retired one unless O(force) with
    O(reason), which puts it back in service; a node the ledger does not know needs nothing.
  - C(host_key) records the host key the operator accepted for a reinstalled node
    (playbooks/replace.yml) with O(fingerprints), O(accepted_by) and O(reason).
  - A ledger of another inventory, one that knows a node at another address, or one edited into an
    invalid state is refused, naming the file and the node; nothing is changed.
  - Writes lock the ledger for the whole read-modify-write and replace the file atomically.
author:
  - Cluster suite contributors
options:
  ledger_dir:
    description: Directory of the ledgers (role C(cluster)'s C(cluster_ledger_dir)).
    type: path
    required: true
  inventory:
    description: The inventory file that defines the nodes, the ledger's identity.
    type: str
    required: true
  nodes:
    description: Every node of the inventory, name to address.
    type: dict
    required: true
  action:
    description: What to do.
    type: str
    choices: [read, record, quarantine, retire, return, add, host_key, upgraded]
    default: read
  findings:
    description:
      - For C(record), node to a finding with C(source) (doctor, acceptance, unreachable,
        provisioning, launch, operator), C(result) (pass or fail), C(reason) and C(evidence).
    type: dict
    default: {}
  names:
    description: The nodes to quarantine, retire, return, add, mark with a host key or mark as upgraded.
    type: list
    elements: str
    default: []
  reason:
    description: The operator's words, required to quarantine, retire or force a return.
    type: str
    default: ""
  force:
    description: Return the nodes even if they have not passed the doctor and acceptance.
    type: bool
    default: false
  fingerprints:
    description: For C(host_key), the SHA256 fingerprints of the host key the operator accepted for O(names).
    type: list
    elements: str
    default: []
  accepted_by:
    description: For C(host_key), how it was accepted; C(trust_on_first_use) needs O(reason).
    type: str
    choices: [fingerprint, trust_on_first_use]
    default: fingerprint
  max_age:
    description: Seconds after which a verdict is stale (role C(cluster)'s C(cluster_verdict_max_age)).
    type: int
    default: 604800
  max_fail_percentage:
    description:
      - For C(record), the limit of role C(cluster)'s C(cluster_max_fail_percentage) (0 to 100). When more than
        this share of the in-service nodes among O(findings) failed, nothing is recorded and the task fails
        naming the limit, the failed share and every failed node with its reason.
      - Unset, every finding is recorded.
    type: int
extends_documentation_fragment:
  - action_common_attributes
  - cluster_suite.hpc.attributes
attributes:
  check_mode:
    support: full
    details: Computes the result and writes nothing.
  diff_mode:
    support: none
"""

EXAMPLES = r"""
- name: Which nodes are in service
  cluster_suite.hpc.node_ledger:
    ledger_dir: "{{ cluster_ledger_dir }}"
    inventory: "{{ hostvars[groups['cluster'][0]].inventory_file }}"
    nodes: "{{ dict(groups['cluster'] | zip(groups['cluster'] | map('extract', hostvars, 'ansible_host'))) }}"
  register: ledger
"""

RETURN = r"""
ledger:
  description: The ledger file.
  returned: always
  type: str
in_service:
  description: The inventory's nodes in service.
  returned: always
  type: list
  elements: str
quarantined:
  description: Quarantined node to its reason, state, time and evidence in one line.
  returned: always
  type: dict
retired:
  description: Retired nodes of the inventory.
  returned: always
  type: list
  elements: str
ungated:
  description: >-
    Nodes in service that the doctor and acceptance have not both passed since they were put in
    service by force (returned or added again with the operator's reason) or since
    playbooks/upgrade.yml changed their environment (action C(upgraded)); playbooks/upgrade.yml
    gates them even when they hold the new pins.
  returned: always
  type: list
  elements: str
rows:
  description: One row per node (node, state, reason, since, evidence, source, stale).
  returned: always
  type: list
  elements: dict
table:
  description: The rows as aligned text lines.
  returned: always
  type: list
  elements: str
nodes_changed:
  description: The nodes whose state changed.
  returned: always
  type: list
  elements: str
"""
