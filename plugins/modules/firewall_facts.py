#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: which firewalls a node has and which are active, for role firewall, in one run."""

DOCUMENTATION = r"""
---
module: firewall_facts
short_description: Find a node's firewalls (ufw, firewalld) and which of them are active
description:
  - ufw counts as installed when O(ufw_binary) exists, and as active when C(ufw status) reports it
    active (C(ufw status) needs root).
  - firewalld counts as installed when O(firewalld_binary) exists or the service manager knows its
    unit O(firewalld_service) (also disabled or masked), and as active when that unit is running.
    Without systemd as the service manager, only the binary counts and firewalld is not active.
  - Fails, before anything changes, when O(mode) is C(open_ports) and both firewalls are active.
  - One module run where a stat loop, M(ansible.builtin.service_facts) (every unit of the node, kept
    in the node's facts) and a command cost ansible-playbook's own process five results per node.
  - Changes nothing; runs in check mode too.
author:
  - Cluster suite contributors
options:
  host:
    description: The node's inventory name, which the failure message starts with.
    type: str
    required: true
  mode:
    description: The role's C(firewall_mode).
    type: str
    choices: [disabled, open_ports]
    required: true
  ufw_binary:
    description: Where ufw is installed.
    type: path
    default: /usr/sbin/ufw
  firewalld_binary:
    description: Where firewall-cmd is installed.
    type: path
    default: /usr/bin/firewall-cmd
  firewalld_service:
    description: firewalld's unit name, without C(.service).
    type: str
    default: firewalld
"""

EXAMPLES = r"""
- name: Find the node's firewalls
  cluster_suite.hpc.firewall_facts:
    host: "{{ inventory_hostname }}"
    mode: disabled
  become: true
  register: firewalls
"""

RETURN = r"""
found:
  description: The firewalls installed, C(ufw) first.
  returned: always
  type: list
  elements: str
  sample: [ufw]
active:
  description: The firewalls active, C(ufw) first.
  returned: always
  type: list
  elements: str
  sample: []
"""

import os
import re

from ansible.module_utils.basic import AnsibleModule

# Where service_facts (and systemd's own sd_booted) look to tell that systemd runs the node.
SYSTEMD_CANARIES = ("/run/systemd/system/", "/dev/.run/systemd/", "/dev/.systemd/")


def firewalld_unit(module, service):
    """(known, running) of firewalld's unit when systemd runs the node, else (False, False)."""
    systemctl = module.get_bin_path("systemctl")
    if not systemctl or not any(os.path.exists(path) for path in SYSTEMD_CANARIES):
        return False, False
    rc, out, err = module.run_command([systemctl, "show", service + ".service", "--property=LoadState,SubState"])
    if rc != 0:
        module.fail_json(msg="systemctl show %s.service failed (rc %s): %s" % (service, rc, (err or out).strip()))
    states = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
    return states.get("LoadState", "not-found") != "not-found", states.get("SubState") == "running"


def main():
    module = AnsibleModule(
        argument_spec=dict(
            host=dict(type="str", required=True),
            mode=dict(type="str", required=True, choices=["disabled", "open_ports"]),
            ufw_binary=dict(type="path", default="/usr/sbin/ufw"),
            firewalld_binary=dict(type="path", default="/usr/bin/firewall-cmd"),
            firewalld_service=dict(type="str", default="firewalld"),
        ),
        supports_check_mode=True,
    )
    params = module.params
    found, active = [], []
    if os.path.exists(params["ufw_binary"]):
        found.append("ufw")
        rc, out, err = module.run_command([params["ufw_binary"], "status"])
        if rc != 0:
            module.fail_json(msg="%s: `ufw status` failed (rc %s): %s" % (params["host"], rc, (err or out).strip()))
        if re.search(r"^Status: active", out, re.MULTILINE):
            active.append("ufw")
    known, running = firewalld_unit(module, params["firewalld_service"])
    if os.path.exists(params["firewalld_binary"]) or known:
        found.append("firewalld")
    if running:
        active.append("firewalld")
    if params["mode"] == "open_ports" and len(active) > 1:
        module.fail_json(msg="%s: firewall_mode: open_ports needs one firewall, but ufw and firewalld are both "
                             "active; disable one of them first" % params["host"], found=found, active=active)
    module.exit_json(changed=False, found=found, active=active)


if __name__ == "__main__":
    main()
