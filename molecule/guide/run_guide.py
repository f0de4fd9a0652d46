#!/usr/bin/env python3
"""Follow docs/guide.md as written, on this scenario's sandbox nodes treated as a foreign cluster.

    run_guide.py PROJECT WORK STATE RECORD

The commands are the guide's fenced blocks, in order, taken from the document itself:
  ```sh guide            run on the controller, in WORK (a clone: the project's files linked in)
  ```sh guide-console    run on each node's console (podman exec, as root): the fingerprint
  ```sh guide-per-node   run on the controller once per node
  ```sh guide-fails      run on the controller; must fail (the guide's failing job)
each line with its placeholders filled in as the guide says (<cluster>, <admin>, <node>,
<address>, <fingerprint>) and the sudo password on stdin where it has -K (Ansible asks for it).
After the block that copies inventory/sample, the lines of the guide's step-3 table are edited
(every row must be filled in, and the test knows the value of each); then the settings where a
sandbox differs from a real Ascend cluster are added in group_vars/all/sandbox.yml.
STATE is the sandbox's state directory (its inventory: the nodes' addresses; its key: the
operator's SSH key). Each step's command, exit status and output go to RECORD (JSON).
"""
import json
import os
import re
import subprocess
import sys

import yaml

BLOCK = re.compile(r"^```sh (guide(?:-console|-per-node|-fails)?)\n(.*?)^```$", re.M | re.S)
TABLE_ROW = re.compile(r"^\| `([^`]+)` \| (.+?) \| .+ \|$", re.M)
CLUSTER = "guide"
ADMIN = "admin"
# The project's files the guide's commands use from the clone's root.
LINKED = ("ansible.cfg", "site.yml", "playbooks", "roles", "plugins", "meta", "galaxy.yml", "collections",
          "jobs", "requirements.txt", "docs")


def guide_blocks(text):
    """[(kind, [command lines])] of the guide's marked blocks, in order."""
    return [(kind, [line for line in body.splitlines() if line.strip()]) for kind, body in BLOCK.findall(text)]


def fill_table(text):
    """[(file, what)] of the rows of step 3's table (the lines to edit)."""
    section = text.split("## 3. The inventory", 1)[1].split("\n## ", 1)[0]
    return [(path, what) for path, what in TABLE_ROW.findall(section) if path != "file"]


def fill(command, values):
    for name, value in values.items():
        command = command.replace("<%s>" % name, value)
    assert not re.search(r"<[a-z]+>", command), "a placeholder the guide does not explain: " + command
    return command


def make_clone(project, work):
    os.makedirs(os.path.join(work, "inventory"), exist_ok=True)
    for name in LINKED:
        target = os.path.join(work, name)
        if not os.path.lexists(target):
            os.symlink(os.path.join(project, name), target)
    # A copy, never a link: the guide's cp -r must not make the new inventory a link to the sample.
    subprocess.run(["cp", "-r", os.path.join(project, "inventory", "sample"), os.path.join(work, "inventory")], check=True)


def edit_inventory(work, rows, nodes, sandbox_vars):
    """Edit the lines of step 3's table as an operator does, each with the sandbox's value."""
    inventory = os.path.join(work, "inventory", CLUSTER)
    openmpi = sandbox_vars["openmpi"]
    node_names = list(nodes)
    edits = {
        "hosts.yml": [("ansible_user: trainer", "ansible_user: " + ADMIN),
                      ("ai-server0:", node_names[0] + ":"), ("ai-server1:", node_names[1] + ":"),
                      ("ansible_host: 10.10.0.22", "ansible_host: " + nodes[node_names[0]]),
                      ("ansible_host: 10.10.0.23", "ansible_host: " + nodes[node_names[1]])],
        "group_vars/all/cluster.yml": [("cluster_network_cidr: 10.10.0.0/24",
                                        "cluster_network_cidr: " + sandbox_vars["cidr"])],
        "group_vars/all/openmpi.yml": [
            ("openmpi_source_file: FILL-IN", "openmpi_source_file: " + openmpi["source_file"]),
            ('openmpi_version: "4.0.2"', 'openmpi_version: "%s"' % openmpi["openmpi_version"]),
            ("openmpi_source_sha256: 900bf751be72eccf06de9d186f7b1c4b5c2fa9fa66458e53b77778dffdfe4057",
             "openmpi_source_sha256: " + openmpi["openmpi_source_sha256"])],
        # The frameworks of the sandbox's ML volume (no NPU compute: no torch_npu).
        "group_vars/all/python_env.yml": [('python_env_torch_version: "2.1.0"', 'python_env_torch_version: "2.13.0+cpu"'),
                                          ('python_env_torch_npu_version: "2.1.0.post17"', 'python_env_torch_npu_version: ""')],
        # The sample's device plan is the sandbox's too (Atlas 800, Ascend's table): kept.
        "group_vars/npu_nodes/npu_network.yml": [],
    }
    assert sorted({path for path, _ in rows}) == sorted(edits), (rows, sorted(edits))
    for path, changes in edits.items():
        full = os.path.join(inventory, path)
        with open(full, encoding="utf-8") as handle:
            text = handle.read()
        for old, new in changes:
            assert old in text, (path, old)
            text = text.replace(old, new)
        with open(full, "w", encoding="utf-8") as handle:
            handle.write(text)
    # Where the sandbox differs from a real Ascend cluster, not what the guide asks of an operator:
    # stand-in NPUs without compute, the frameworks ready-made on the ML volume, the OpenMPI build
    # settings of the build the controller cache holds (scenario openmpi), and nodes that share 2
    # cores with everything else on the machine: a framework import may take minutes, and a node's
    # own shared-memory test is noise (judged slow only under 0.02 of the median, as in scenario
    # acceptance), 2 job workers per node as in the sandbox's own inventory, where the guide's
    # jobs start one per NPU, and hccl_test's messages up to 4 MiB (its ranks, one per NPU as on a
    # real server, share those cores).
    extra = {"cluster_backend": "cpu", "cluster_python_provided": "/opt/ml/bin/python",
             "openmpi_configure_flags": openmpi["openmpi_configure_flags"],
             "openmpi_cache_dir": openmpi["openmpi_cache_dir"],
             "doctor_import_timeout": 300, "acceptance_intra_slow_ratio": 0.02, "acceptance_max_bytes": 4194304,
             "job_workers_per_node": sandbox_vars["job_workers_per_node"]}
    with open(os.path.join(inventory, "group_vars", "all", "sandbox.yml"), "w", encoding="utf-8") as handle:
        handle.write("---\n# What the sandbox has that a real Ascend cluster does not (molecule/guide).\n")
        yaml.safe_dump(extra, handle, sort_keys=False, width=200)


def sandbox_facts(project, state):
    with open(os.path.join(state, "hosts.yml"), encoding="utf-8") as handle:
        inventory = yaml.safe_load(handle)
    hosts = inventory["all"]["children"]["cluster"]["children"]["npu_nodes"]["hosts"]
    nodes = {name: values["ansible_host"] for name, values in hosts.items()}
    with open(os.path.join(project, "inventory", "sandbox", "group_vars", "all", "openmpi.yml"), encoding="utf-8") as handle:
        openmpi = yaml.safe_load(handle)
    cache = os.environ.get("SANDBOX_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.environ["HOME"], ".cache"), "cluster-suite")
    openmpi["source_file"] = os.path.join(cache, "sources", os.path.basename(openmpi["openmpi_source_file"].split("'")[-2]))
    assert os.path.isfile(openmpi["source_file"]), openmpi["source_file"]
    with open(os.path.join(project, "inventory", "sandbox", "group_vars", "all", "job.yml"), encoding="utf-8") as handle:
        workers = yaml.safe_load(handle)["job_workers_per_node"]
    return nodes, {"openmpi": openmpi, "cidr": inventory["all"]["vars"]["cluster_network_cidr"],
                   "job_workers_per_node": workers}


def run(record, kind, command, cwd, env, password, node=None):
    stdin = (password + "\n") if re.search(r"(^|\s)-K(\s|$)", command) else ""
    proc = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=cwd, env=env, input=stdin,
                          capture_output=True, text=True, timeout=3600, check=False)
    record.append({"kind": kind, "node": node, "command": command, "rc": proc.returncode,
                   "output": (proc.stdout + proc.stderr)[-20000:]})
    print("$ %s\n  -> rc %d" % (command, proc.returncode), flush=True)
    return proc


def main(project, work, state, record_path):
    with open(os.path.join(project, "docs", "guide.md"), encoding="utf-8") as handle:
        guide = handle.read()
    password = os.environ["SANDBOX_SUDO_PASSWORD"]
    prefix = os.environ["SANDBOX_PREFIX"]
    nodes, sandbox_vars = sandbox_facts(project, state)
    make_clone(project, work)
    # The operator's SSH key (their agent or ~/.ssh in real life) is the sandbox's key.
    env = dict(os.environ, ANSIBLE_PRIVATE_KEY_FILE=os.path.join(state, "id_ed25519"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_FORCE_COLOR="0")
    values = {"cluster": CLUSTER, "admin": ADMIN}
    record, fingerprints = [], {}
    try:
        for kind, lines in guide_blocks(guide):
            if kind == "guide-console":
                for index, node in enumerate(nodes, 1):
                    for line in lines:
                        proc = subprocess.run(["podman", "exec", "%s-node%d" % (prefix, index), "sh", "-c", line],
                                              capture_output=True, text=True, check=True)
                        record.append({"kind": kind, "node": node, "command": line, "rc": 0, "output": proc.stdout})
                        fingerprints[node] = re.search(r" (SHA256:\S+) ", proc.stdout).group(1)
                continue
            if kind == "guide-per-node":
                first = next(iter(nodes))
                # Never accepted blindly: with another node's fingerprint nothing enters known_hosts.
                wrong = dict(values, node=first, address=nodes[first], fingerprint=fingerprints[list(nodes)[1]])
                for line in lines:
                    run(record, "wrong-fingerprint", fill(line, wrong), work, env, password, first)
                record.append({"kind": "known_hosts-after-wrong", "node": first, "command": "", "rc": 0,
                               "output": read(os.path.join(work, "inventory", CLUSTER, "known_hosts"))})
                for node, address in nodes.items():
                    filled = dict(values, node=node, address=address, fingerprint=fingerprints[node])
                    for line in lines:
                        if run(record, kind, fill(line, filled), work, env, password, node).returncode:
                            raise SystemExit("guide step failed: " + line)
                continue
            for line in lines:
                proc = run(record, kind, fill(line, values), work, env, password)
                if (proc.returncode == 0) == (kind == "guide-fails"):
                    raise SystemExit("guide step %s: %s: rc %d\n%s" % (kind, line, proc.returncode,
                                                                        (proc.stdout + proc.stderr)[-4000:]))
                if line.startswith("cp -r inventory/sample "):
                    edit_inventory(work, fill_table(guide), nodes, sandbox_vars)
    finally:
        with open(record_path, "w", encoding="utf-8") as handle:
            json.dump(record, handle, indent=1)


def read(path):
    if not os.path.exists(path):
        return ""
    with open(path, encoding="utf-8") as handle:
        return handle.read()


if __name__ == "__main__":
    main(*sys.argv[1:5])
