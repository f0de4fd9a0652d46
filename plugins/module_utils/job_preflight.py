# -*- coding: utf-8 -*-
"""A node's checks before a launch, in one pass (plugins/modules/job_preflight.py), and the rule that
places a job's directories under the training user's home (also filter job_node_paths).

One module run instead of one per check: on many nodes each module run is a round trip and a
Python start on every node, which is most of a launch's time before the ranks start.
"""

import json
import os
import re
import shutil
import subprocess

# The Python's version and, without importing it (no framework start-up), whether it finds the
# launcher's framework and which version of it is installed.
PYTHON_CHECK = (
    "import importlib.util, json, platform, sys\n"
    "name = sys.argv[1]\n"
    "found = bool(name) and importlib.util.find_spec(name) is not None\n"
    "version = None\n"
    "if found:\n"
    "    try:\n"
    "        from importlib.metadata import version as installed\n"
    "        version = installed(name)\n"
    "    except Exception:\n"
    "        pass\n"
    "print(json.dumps({'python': platform.python_version(), 'found': found, 'version': version}))\n")
# "2: eth0    inet 10.89.0.2/24 brd 10.89.0.255 scope global eth0\       valid_lft ..."
IP_ADDR_LINE = re.compile(r"^\d+:\s+(?P<device>[^\s@]+)(?:@\S+)?\s+inet\s+(?P<address>[0-9.]+)/")


def node_paths(home, job_dir, log_dir):
    """(absolute job directory, absolute log directory) for a plan's job_dir and log_dir.

    A relative job_dir is under home; log_dir is relative to the job directory (the plan's
    default is logs; plugins/plugin_utils/jobs/spec.py keeps it inside).
    """
    home = home.rstrip("/") or "/"
    absolute_job_dir = job_dir if job_dir.startswith("/") else os.path.join(home, job_dir)
    return absolute_job_dir, os.path.join(absolute_job_dir, log_dir)


def parse_ipv4_addresses(text):
    """[(device, address)] from `ip -o -4 addr show`."""
    found = []
    for line in text.splitlines():
        match = IP_ADDR_LINE.match(line)
        if match:
            found.append((match.group("device"), match.group("address")))
    return found


def find_python(python, path=None):
    """Absolute path of the job's Python as `command -v` finds it, or None."""
    if "/" in python:
        return python if os.path.isfile(python) and os.access(python, os.X_OK) else None
    return shutil.which(python, path=path)


def read_python(python_path, module_name, run=subprocess.run):
    """{"python": version, "found": bool, "version": the module's distribution version or None}
    from python_path, or None when it does not run."""
    completed = run([python_path, "-c", PYTHON_CHECK, module_name or ""],
                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
    if completed.returncode != 0:
        return None
    try:
        found = json.loads(completed.stdout.decode() if isinstance(completed.stdout, bytes) else completed.stdout)
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def problems(facts, request):
    """Every problem of a node before a launch, each naming the variable to fix.

    facts: what the node showed (python_path, python_module_ok, missing_files, processes,
    port, ipv4_addresses); request: what the launch needs (user, python, python_module,
    launcher, name, port, master_addr).
    """
    found = []
    if not facts["python_path"]:
        found.append("job_python: %s is not found by %s (set launch_python in the inventory or job_python)"
                     % (request["python"], request["user"]))
    elif facts["python_module_ok"] is False:
        found.append("job_launcher %s: %s cannot import %s"
                     % (request["launcher"], facts["python_path"], request["python_module"]))
    for item in facts["missing_files"]:
        if item["variable"] == "job_mpirun_prefix":
            found.append("job_mpirun_prefix: %s is missing (role openmpi)" % item["path"])
        else:
            found.append("job_source_env: %s is missing (role npu_env), or set job_source_env: false"
                         % item["path"])
    if facts["processes"]:
        found.append("job_name: %s still has %d process(es) here (pids %s); stop it first: "
                     "ansible-playbook -i inventory/<cluster>/ playbooks/stop.yml -e job_name=%s"
                     % (request["name"], len(facts["processes"]),
                        ", ".join(str(item["pid"]) for item in facts["processes"]), request["name"]))
    port = facts["port"]
    # A port held only by a connection in TIME_WAIT (the previous run) is taken over by the
    # launchers' servers, which set SO_REUSEADDR (MindSpore's scheduler, torch's TCPStore).
    if port is not None and not port["free"] and port.get("holder_state") != "TIME_WAIT":
        held_by = " (held by %s pid %s)" % (port["holder_name"], port["holder_pid"]) if port.get("holder_pid") else ""
        found.append("job_port: %s is not free on the master: port %s on 0.0.0.0 is not free (%s)%s"
                     % (request["port"], request["port"], port["error_text"], held_by))
    addresses = [address for _device, address in facts["ipv4_addresses"]]
    if request.get("master_addr") and request["master_addr"] not in addresses:
        found.append("job_master_addr: %s is not an address of the master (%s); msrun finds the scheduler "
                     "node by it" % (request["master_addr"], ", ".join(addresses)))
    return found


def interface_of(ipv4_addresses, address):
    """The device holding address, or ''."""
    return next((device for device, held in ipv4_addresses if held == address), "")
