#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: is a TCP port reachable from this node, or free to bind on it."""

DOCUMENTATION = r"""
---
module: tcp_port_check
short_description: Check that a TCP port is reachable from a node, or free to bind on it
description:
  - Before a multi-node training launch (MindSpore scheduler, PyTorch rendezvous / TCPStore,
    OpenMPI), checks what C(telnet host port) would show from the node the task runs on
    (O(mode=connect)), or that the port can still be bound on the master (O(mode=bind)).
  - O(mode=connect) opens and closes a TCP connection, trying every address the name resolves
    to, up to 1 + O(retries) times, O(delay) seconds apart. A name that does not resolve is not
    retried, except for a temporary resolver failure.
  - O(mode=bind) binds the port without C(SO_REUSEADDR) and closes it again. Any socket holding
    the port makes it busy; that is a listener, and also, conservatively, a connection still in
    C(TIME_WAIT) which a server setting C(SO_REUSEADDR) could take over. When the port is busy
    the module names, where C(/proc) allows, the process holding it (other users' processes are
    only visible to root).
  - Neither mode changes anything on the node, so the probe also runs in check mode, and
    C(changed) is always false.
  - By default the module reports the result without failing; set O(fail_on_unreachable=true)
    to fail the task instead.
author:
  - Cluster suite contributors
options:
  host:
    description:
      - Host name or IP address to connect to.
      - Required when O(mode=connect); ignored when O(mode=bind).
    type: str
  port:
    description:
      - TCP port, 1 to 65535.
    type: int
    required: true
  mode:
    description:
      - V(connect) checks that O(host):O(port) accepts a TCP connection from this node.
      - V(bind) checks that O(port) is free to bind on O(bind_address) of this node.
    type: str
    choices: [connect, bind]
    default: connect
  timeout:
    description:
      - Seconds each connection attempt may take, per resolved address.
    type: float
    default: 3
  retries:
    description:
      - Extra connection attempts after a failed first one (O(mode=connect) only). V(0) tries
        once.
    type: int
    default: 3
  delay:
    description:
      - Seconds to wait between connection attempts (O(mode=connect) only).
    type: float
    default: 1
  bind_address:
    description:
      - Local address to bind in O(mode=bind). V(0.0.0.0) also finds a port held on any single
        IPv4 address; use V(::) for IPv6.
    type: str
    default: 0.0.0.0
  fail_on_unreachable:
    description:
      - Fail the task when the port is not reachable (O(mode=connect)) or not free
        (O(mode=bind)).
      - When false, the task reports the result and only fails on invalid options.
    type: bool
    default: false
extends_documentation_fragment:
  - action_common_attributes
  - cluster_suite.hpc.attributes
attributes:
  check_mode:
    support: full
    details: The probe only opens and closes a socket, so it runs in check mode as well.
  diff_mode:
    support: none
    details: Naming the process holding a busy port needs Linux C(/proc).
notes:
  - IPv6 literals are given without brackets, for example V(::1).
seealso:
  - module: ssh_mesh_check
"""

EXAMPLES = r"""
- name: Scheduler port is free on the master before launch
  tcp_port_check:
    port: 8118
    mode: bind
  register: scheduler_port
  when: inventory_hostname in groups['cluster_master']

- name: Every node reaches the master's scheduler port
  tcp_port_check:
    host: "{{ hostvars[groups['cluster_master'][0]].ansible_host }}"
    port: 8118
    timeout: 2
    retries: 5
    delay: 2
    fail_on_unreachable: true

- name: Report, without failing, what a node sees
  tcp_port_check:
    host: "{{ hostvars[groups['cluster_master'][0]].ansible_host }}"
    port: 29500
  register: rendezvous

- name: Show why it is not reachable
  ansible.builtin.debug:
    msg: "{{ rendezvous.error }}: {{ rendezvous.error_text }}"
  when: not rendezvous.reachable
"""

RETURN = r"""
host:
  description: The host that was probed (O(mode=connect)).
  returned: when O(mode=connect)
  type: str
  sample: 10.0.0.1
port:
  description: The port that was probed.
  returned: always
  type: int
  sample: 8118
mode:
  description: The probe that ran.
  returned: always
  type: str
  sample: connect
reachable:
  description: Whether a TCP connection to O(host):O(port) succeeded.
  returned: when O(mode=connect)
  type: bool
  sample: true
free:
  description: Whether O(port) could be bound on O(bind_address).
  returned: when O(mode=bind)
  type: bool
  sample: false
error:
  description:
    - Why the probe failed, null when it succeeded.
    - "O(mode=connect): V(refused) (nothing listens), V(timeout) (no answer, often a firewall
      dropping packets), V(no_route) (no route to the host), V(unreachable) (network
      unreachable), V(unresolved) (the name does not resolve), V(other)."
    - "O(mode=bind): V(in_use), V(address_not_available) (O(bind_address) is not on this node),
      V(permission_denied) (a port below 1024 without privilege), V(unresolved), V(other)."
  returned: always
  type: str
  sample: refused
error_text:
  description: The system's text for the error, null when the probe succeeded.
  returned: always
  type: str
  sample: Connection refused
attempts:
  description: Connection attempts made.
  returned: when O(mode=connect)
  type: int
  sample: 1
latency_ms:
  description: Milliseconds the successful connect took; null when not reachable.
  returned: when O(mode=connect)
  type: float
  sample: 0.412
address:
  description: The resolved address last tried (the one connected to, when reachable).
  returned: when O(mode=connect)
  type: str
  sample: 10.0.0.1
holder_pid:
  description: PID of the process holding the port, null when unknown or free.
  returned: when O(mode=bind)
  type: int
  sample: 4121
holder_name:
  description: Command name of that process, null when unknown or free.
  returned: when O(mode=bind)
  type: str
  sample: python3
holder_state:
  description: TCP state of the socket holding the port (for example V(LISTEN) or V(TIME_WAIT)),
    null when unknown or free.
  returned: when O(mode=bind)
  type: str
  sample: LISTEN
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.cluster_suite.hpc.plugins.module_utils.tcp_probe import probe_bind, probe_connect


def run_probe(params):
    """Run the probe the parameters ask for; return (result, succeeded)."""
    if params["mode"] == "bind":
        result = probe_bind(params["port"], params["bind_address"])
        return result, result["free"]
    result = probe_connect(
        params["host"], params["port"], params["timeout"], params["retries"], params["delay"]
    )
    result["host"] = params["host"]
    return result, result["reachable"]


def summary(params, result, succeeded):
    """One line for msg, saying what was probed and the verdict."""
    if params["mode"] == "bind":
        verdict = "free" if succeeded else "not free (%s)" % result["error_text"]
        return "port %d on %s is %s" % (params["port"], params["bind_address"], verdict)
    verdict = "reachable" if succeeded else "not reachable (%s: %s)" % (
        result["error"], result["error_text"]
    )
    return "%s:%d is %s" % (params["host"], params["port"], verdict)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            host=dict(type="str"),
            port=dict(type="int", required=True),
            mode=dict(type="str", choices=["connect", "bind"], default="connect"),
            timeout=dict(type="float", default=3),
            retries=dict(type="int", default=3),
            delay=dict(type="float", default=1),
            bind_address=dict(type="str", default="0.0.0.0"),
            fail_on_unreachable=dict(type="bool", default=False),
        ),
        required_if=[("mode", "connect", ["host"])],
        supports_check_mode=True,
    )
    params = module.params
    try:
        result, succeeded = run_probe(params)
    except ValueError as exc:
        module.fail_json(msg=str(exc))
    result.update(port=params["port"], mode=params["mode"], changed=False)
    msg = summary(params, result, succeeded)
    if params["fail_on_unreachable"] and not succeeded:
        module.fail_json(msg=msg, **result)
    module.exit_json(msg=msg, **result)


if __name__ == "__main__":
    main()
