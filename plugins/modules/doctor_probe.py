#!/usr/bin/python
# -*- coding: utf-8 -*-
"""Ansible module: read what the preflight doctor compares across nodes, changing nothing."""

DOCUMENTATION = r"""
---
module: doctor_probe
short_description: Read a node's versions, interfaces, /etc/hosts, firewall and NPU state for the doctor
description:
  - The node side of role C(doctor) (C(playbooks/doctor.yml)). It only reads; the verdicts (same
    versions on every node, interfaces present, /etc/hosts consistent, firewall as the inventory
    expects, the device IP plan applied) are made on the controller by
    C(plugins/plugin_utils/doctor/report.py), which sees every node at once.
  - O(what=system) (run as root) reads the host name, every interface and its IPv4 addresses
    (C(ip -j addr show)), C(/etc/hosts), the state of ufw and firewalld, NCCL's version (C(nccl.h)
    or the C(libnccl.so) the linker cache knows), and, when asked, the CANN version under
    O(cann_install_path), the NPU count (C(npu-smi info -l)), each device's address
    (C(hccn_tool -i N -ip -g)), what the NPU health gates need (C(npu-smi info) with its process
    table; per device C(npu-smi info -t health), C(-t board) and C(-t ecc), C(hccn_tool -link -g)
    and C(-tls -g)) and whether O(bind_port) is free to bind (binding it and closing it
    again at once, as M(tcp_port_check) does).
  - O(what=user) (run as the training user, as a launch would) reads C(ompi_info --version) on
    that user's PATH (and the openmpi role's marker file), and imports each of O(frameworks) with
    O(python), each in its own process and in parallel, after sourcing O(env_script) when it
    exists. A framework that is not installed is reported as absent, not as an error. It opens each
    of O(device_files) read/write and closes it again.
  - Nothing is changed, so it also runs in check mode and C(changed) is always false. What the node
    lacks is data in the result, never a failure; the module fails only on invalid options.
  - Logic in C(plugins/module_utils/doctor_probe.py); C(hccn_tool)/C(npu-smi) output is parsed by
    C(plugins/module_utils/hccn_output.py).
author:
  - Cluster suite contributors
options:
  what:
    description: V(system) for the node's state (needs root), V(user) for the training user's tools.
    type: str
    choices: [system, user]
    required: true
  cann_install_path:
    description:
      - O(what=system) only. Where CANN is installed (role npu_env's C(npu_env_install_path));
        empty skips the CANN version.
    type: str
    default: ""
  npu_devices:
    description:
      - O(what=system) only. Number of NPU devices whose address is read with
        C(hccn_tool -i N -ip -g) (0..N-1); V(0) skips the NPU part.
    type: int
    default: 0
  hccn_tool:
    description: Path of hccn_tool.
    type: str
    default: /usr/local/Ascend/driver/tools/hccn_tool
  bind_port:
    description:
      - O(what=system) only. A TCP port to test, as M(tcp_port_check) with C(mode=bind) does, for
        being free to bind on this node (the master port on the master); V(0) skips the test.
    type: int
    default: 0
  npu_smi:
    description: npu-smi (a name on PATH or a path).
    type: str
    default: npu-smi
  python:
    description: O(what=user) only. The Python the jobs run (the inventory's C(launch_python)).
    type: str
    default: python3
  frameworks:
    description: O(what=user) only. Modules to import with O(python) and report the version of.
    type: list
    elements: str
    default: [mindspore, torch, torch_npu]
  env_script:
    description:
      - O(what=user) only. A script sourced before each import when it exists on the node, e.g.
        C(/etc/cluster-suite/env_npu.sh) so that torch_npu finds CANN.
    type: str
    default: ""
  openmpi_marker:
    description: O(what=user) only. The openmpi role's marker file, read as a second opinion.
    type: str
    default: ""
  device_files:
    description:
      - O(what=user) only. Device files (the NPU driver's C(/dev/davinci*), C(davinci_manager),
        C(devmm_svm), C(hisi_hdc)) to open read/write and close again, as a framework would.
    type: list
    elements: str
    default: []
  timeout:
    description: Seconds each command (each import) may take.
    type: float
    default: 60
extends_documentation_fragment:
  - action_common_attributes
  - cluster_suite.hpc.attributes
attributes:
  check_mode:
    support: full
    details: The module only reads, so it runs in check mode as well.
  diff_mode:
    support: none
requirements:
  - C(ip) from iproute2 (JSON output, C(ip -j)).
seealso:
  - module: ssh_mesh_check
  - module: tcp_port_check
  - module: hccn_netdetect
"""

EXAMPLES = r"""
- name: Read the node's state
  doctor_probe:
    what: system
    cann_install_path: /usr/local/Ascend
    npu_devices: "{{ npu_device_count | default(0) }}"
  become: true
  register: system

- name: Read the training user's OpenMPI, Python and frameworks
  doctor_probe:
    what: user
    python: "{{ launch_python | default('python3') }}"
    env_script: /etc/cluster-suite/env_npu.sh
    openmpi_marker: /usr/local/openmpi-4.1.4/share/cluster-suite-build.json
  register: user
"""

RETURN = r"""
hostname:
  description: O(what=system). The output of C(hostname).
  returned: when O(what=system)
  type: str
  sample: node1
fqdn:
  description: O(what=system). C(hostname -f), or the host name when that fails.
  returned: when O(what=system)
  type: str
  sample: node1.cluster
interfaces:
  description:
    - O(what=system). Every interface, whether it is up and its IPv4 addresses with prefix length.
    - Null when C(ip) failed; RV(interfaces_error) says why.
  returned: when O(what=system)
  type: dict
  sample: {"eth0": {"up": true, "ipv4": ["10.89.0.2/24"]}, "lo": {"up": true, "ipv4": ["127.0.0.1/8"]}}
interfaces_error:
  description: O(what=system). Why the interfaces could not be read.
  returned: when C(ip -j addr show) failed
  type: str
  sample: "ip -j addr show failed (rc 1): Object \"addr\" is unknown"
hosts_file:
  description: O(what=system). C(/etc/hosts) as [address, [names]] in file order; null when unreadable.
  returned: when O(what=system)
  type: list
  sample: [["10.89.0.2", ["node1"]], ["127.0.0.1", ["localhost"]]]
firewall:
  description: O(what=system). ufw (installed, active, rules) and firewalld (installed, running, ports).
  returned: when O(what=system)
  type: dict
  sample: {"ufw": {"installed": true, "active": false, "rules": []},
           "firewalld": {"installed": false, "running": false, "ports": []}}
nccl:
  description: "O(what=system). NCCL's version and where it was read (C(version), C(source)), or C(absent)."
  returned: when O(what=system)
  type: dict
  sample: {"absent": true}
cann:
  description:
    - "O(what=system) with O(cann_install_path). The CANN layout, version file and version, or
      C(absent) with the files looked in (C(looked_in))."
  returned: when O(cann_install_path) is set
  type: dict
  sample: {"layout": "ascend-toolkit", "version": "7.0.0",
           "path": "/usr/local/Ascend/ascend-toolkit/latest/ascend_toolkit_install.info"}
npu:
  description:
    - "O(what=system) with O(npu_devices). C(count) from C(npu-smi info -l) (null, with C(error), when
      that failed) and C(devices): per device index (a string) its C(address) and C(netmask), or
      C(error); C(table) from C(npu-smi info) (each NPU's C(name) and C(health), and the
      C(processes) holding NPUs) or C(table_error); C(state): per device index what the health
      gates read (C(link), C(tls), C(health) per chip, C(software_version), C(firmware_version),
      C(ecc_double): uncorrected ECC errors) and C(errors), the queries that failed."
  returned: when O(npu_devices) > 0
  type: dict
  sample: {"count": 8, "error": null, "devices": {"0": {"address": "192.168.100.101", "netmask": "255.255.255.0"}},
           "table": {"devices": {"0": {"name": "910B3", "health": "OK"}}, "processes": []}, "table_error": null,
           "state": {"0": {"link": "UP", "tls": 0, "health": ["OK"], "software_version": "23.0.0",
                           "firmware_version": "7.1.0.3.220", "ecc_double": 0, "errors": []}}}
port_bind:
  description:
    - "O(what=system) with O(bind_port). The bind test's result, as M(tcp_port_check) returns it in
      C(mode=bind): C(free), C(error), C(error_text), C(holder_pid), C(holder_name), C(holder_state)."
  returned: when O(bind_port) > 0
  type: dict
  sample: {"free": true, "error": null, "error_text": null, "holder_pid": null, "holder_name": null,
           "holder_state": null}
openmpi:
  description:
    - "O(what=user). C(version) from C(ompi_info --version) and its C(path); or C(absent) and C(error);
      C(marker_version) and C(build) (build C(key), C(os), C(architecture), C(prefix),
      C(configure_flags), C(source_sha256)) from the openmpi role's marker file when
      O(openmpi_marker) is readable."
  returned: when O(what=user)
  type: dict
  sample: {"version": "4.1.4", "path": "/usr/local/bin/ompi_info", "marker_version": "4.1.4",
           "build": {"key": "openmpi-414-debian12-x86_64-3f0c2a9b1d4e", "os": "Debian 12",
                     "architecture": "x86_64", "prefix": "/usr/local/openmpi-4.1.4",
                     "configure_flags": ["--enable-orterun-prefix-by-default"], "source_sha256": "ddae..."}}
python:
  description: "O(what=user). The Python's C(path), C(executable) and C(version), or C(error) when it does not run."
  returned: when O(what=user)
  type: dict
  sample: {"path": "python3", "executable": "/usr/bin/python3", "version": "3.11.2"}
device_files:
  description:
    - "O(what=user) with O(device_files). Per file: null when it opened, else C(error) (the
      system's message) and C(group), the group that owns it."
  returned: when O(device_files) is not empty
  type: dict
  sample: {"/dev/davinci0": null, "/dev/davinci_manager": {"error": "Permission denied", "group": "HwHiAiUser"}}
frameworks:
  description:
    - "O(what=user). Per module of O(frameworks): C(version), C(absent) (not installed) or C(error)
      (the import failed). Null when the Python does not run at all."
  returned: when O(what=user)
  type: dict
  sample: {"mindspore": {"version": "2.7.1"}, "torch": {"version": "2.13.0+cpu"}, "torch_npu": {"absent": true}}
"""

import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.cluster_suite.hpc.plugins.module_utils.doctor_probe import collect_openmpi, collect_python, collect_system
from ansible_collections.cluster_suite.hpc.plugins.module_utils.npu_probe import collect_npu, open_device_files
from ansible_collections.cluster_suite.hpc.plugins.module_utils.tcp_probe import probe_bind


def make_runner(timeout):
    """run(argv) -> (rc, stdout, stderr); a missing program is rc 127, a hang rc 124."""
    def run(argv):
        try:
            proc = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                  timeout=timeout, check=False)
        except FileNotFoundError as exc:
            return 127, "", "%s: %s" % (argv[0], exc.strerror)
        except PermissionError as exc:
            return 126, "", "%s: %s" % (argv[0], exc.strerror)
        except subprocess.TimeoutExpired:
            return 124, "", "%s: no answer within %s s" % (argv[0], timeout)
        return proc.returncode, proc.stdout, proc.stderr
    return run


def read_text(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return None


def main():
    module = AnsibleModule(
        argument_spec=dict(
            what=dict(type="str", choices=["system", "user"], required=True),
            cann_install_path=dict(type="str", default=""),
            npu_devices=dict(type="int", default=0),
            bind_port=dict(type="int", default=0),
            hccn_tool=dict(type="str", default="/usr/local/Ascend/driver/tools/hccn_tool"),
            npu_smi=dict(type="str", default="npu-smi"),
            python=dict(type="str", default="python3"),
            frameworks=dict(type="list", elements="str", default=["mindspore", "torch", "torch_npu"]),
            env_script=dict(type="str", default=""),
            openmpi_marker=dict(type="str", default=""),
            device_files=dict(type="list", elements="str", default=[]),
            timeout=dict(type="float", default=60),
        ),
        supports_check_mode=True,
    )
    params = module.params
    if params["npu_devices"] < 0 or params["timeout"] <= 0:
        module.fail_json(msg="npu_devices must be 0 or more and timeout greater than 0")
    run = make_runner(params["timeout"])
    if params["what"] == "system":
        result = collect_system(run, read_text, shutil.which,
                                {"cann_install_path": params["cann_install_path"]})
        if params["npu_devices"]:
            result["npu"] = collect_npu(run, params["npu_devices"], params["hccn_tool"], params["npu_smi"])
        if params["bind_port"]:
            try:
                result["port_bind"] = probe_bind(params["bind_port"], "0.0.0.0")
            except ValueError as exc:
                module.fail_json(msg="bind_port: %s" % exc)
    else:
        env_script = params["env_script"] if params["env_script"] and os.path.exists(params["env_script"]) else None

        def run_many(commands):
            with ThreadPoolExecutor(max_workers=max(1, len(commands))) as pool:
                return list(pool.map(run, commands))

        result = collect_python(params["python"], params["frameworks"], run_many, env_script)
        result["openmpi"] = collect_openmpi(run, shutil.which, read_text, params["openmpi_marker"] or None)
        if params["device_files"]:
            result["device_files"] = open_device_files(params["device_files"])
    module.exit_json(changed=False, **result)


if __name__ == "__main__":
    main()
