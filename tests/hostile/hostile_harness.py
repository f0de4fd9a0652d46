"""Running the real playbooks for the hostile corpus, with no connection possible.

Every run gets its own work directory with the inventory and the job (JSON: every string stays a
string, escapes included), `ssh` replaced by a stand-in that records any attempt and fails
(ANSIBLE_SSH_EXECUTABLE, as tests/bad_inputs does), and 127.0.0.x addresses only. Runs go a few
at a time (HOSTILE_WORKERS, default 3).
"""
import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import yaml

from hostile_corpus import ROOT, bash_n

FORBIDDEN = ("Traceback", "TemplateSyntaxError", "AnsibleUndefinedVariable", "UNREACHABLE",
             "The `loop` value must resolve", "Unexpected templating type error", "TemplateRuntimeError",
             "jinja2.exceptions", "Syntax error in template", "template error while templating")
FAKE_SSH = """#!/bin/sh
# Stand-in for ssh: records the attempt; no connection is ever made.
echo "$@" >>"$FAKE_SSH_LOG"
echo "fake ssh: connection attempts are not allowed in the hostile-input tests" >&2
exit 255
"""
WORKERS = int(os.environ.get("HOSTILE_WORKERS", "3"))
JOB_PLAY = "Check the job description"
INVENTORY_PLAY = "Validate the inventory on the controller before any node is contacted"
# Files of a render that bash reads (cs_rank.py is Python; hostfile and tls/config.json are data).
SHELL_FILES = ("launch.sh", "start.sh", "rank.sh", "job.env", "bin/python")


def ansible_playbook():
    beside = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")
    return beside if os.path.exists(beside) else shutil.which("ansible-playbook")


def inventory_yaml(groups, hostvars, group_vars):
    """An Ansible YAML inventory: groups {name: [hosts]} (cluster's children are the node groups)."""
    children = {}
    for group in ("npu_nodes", "gpu_nodes", "cpu_nodes"):
        if groups.get(group):
            children[group] = {"hosts": {host: dict(hostvars.get(host, {})) for host in groups[group]}}
    data = {"all": {"vars": dict(group_vars), "children": {
        "cluster": {"children": children},
        "cluster_master": {"hosts": {host: None for host in groups.get("cluster_master", [])}},
    }}}
    return yaml.safe_dump(data, default_flow_style=False, allow_unicode=False, width=1 << 20)


def failing_play(output):
    """Name of the play in which the first task failed."""
    play = None
    for line in output.splitlines():
        match = re.match(r"^PLAY \[(.*)\] \**$", line)
        if match:
            play = match.group(1)
        elif re.match(r"^(fatal|failed): \[", line):
            return play
    return None


def run_playbook(workdir, playbook, inventory_text, job, extra=None, check=False):
    """One ansible-playbook run; returns rc, output, ssh attempts and (render) the files written."""
    os.makedirs(workdir, exist_ok=True)
    fake = os.path.join(workdir, "fake-ssh")
    with open(fake, "w", encoding="utf-8") as handle:
        handle.write(FAKE_SSH)
    os.chmod(fake, 0o755)
    inventory = os.path.join(workdir, "inventory.yml")
    with open(inventory, "w", encoding="utf-8") as handle:
        handle.write(inventory_text)
    job_file = os.path.join(workdir, "job.json")
    with open(job_file, "w", encoding="utf-8") as handle:
        json.dump(job, handle, ensure_ascii=True, indent=1)
    ssh_log = os.path.join(workdir, "ssh-attempts.log")
    out_dir = os.path.join(workdir, "out")
    argv = [ansible_playbook(), "-i", inventory, os.path.join(ROOT, playbook), "-e", "@" + job_file]
    if playbook.endswith("render.yml"):
        argv += ["-e", "render_dir=" + out_dir]
    if extra:
        argv += ["-e", json.dumps(extra)]
    if check:
        argv.append("--check")
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_SSH_EXECUTABLE=fake,
               FAKE_SSH_LOG=ssh_log, ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0",
               ANSIBLE_LOCAL_TEMP=os.path.join(workdir, "tmp"), ANSIBLE_RETRY_FILES_ENABLED="0")
    proc = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, errors="replace",
                          timeout=600, check=False)
    attempts = open(ssh_log, encoding="utf-8", errors="replace").read() if os.path.exists(ssh_log) else ""
    return {"rc": proc.returncode, "out": proc.stdout + proc.stderr, "ssh_attempts": attempts,
            "out_dir": out_dir, "workdir": workdir}


def run_all(runs):
    """{key: result} of [(key, kwargs of run_playbook)], a few at a time."""
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        futures = {key: pool.submit(run_playbook, **kwargs) for key, kwargs in runs}
        return {key: future.result() for key, future in futures.items()}


def rendered(result):
    """{host: {relative path: text}} of a render.yml run."""
    files = {}
    root = result["out_dir"]
    if not os.path.isdir(root):
        return files
    for host in sorted(os.listdir(root)):
        for folder, _dirs, names in os.walk(os.path.join(root, host)):
            for name in names:
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8", errors="surrogateescape") as handle:
                    files.setdefault(host, {})[os.path.relpath(path, os.path.join(root, host))] = handle.read()
    return files


def render_problems(result, hosts=None):
    """What is wrong with a render run as a whole: its exit, its output, bash -n of every script."""
    out = result["out"]
    problems = []
    if result["rc"] != 0:
        lines = [line for line in out.splitlines() if line.startswith(("fatal", "failed", "[ERROR]"))]
        problems.append("render.yml failed (rc %d): %s" % (result["rc"], " | ".join(lines)[:1500] or out[-1500:]))
    if result["ssh_attempts"]:
        problems.append("Ansible tried to connect: " + result["ssh_attempts"][:300])
    problems += ["%r in the output" % word for word in FORBIDDEN if word in out]
    if result["rc"] == 0:
        files = rendered(result)
        for host in hosts or []:
            if host not in files:
                problems.append("%s: nothing rendered" % host)
        for host, paths in files.items():
            for path in paths:
                if path in SHELL_FILES:
                    complaint = bash_n(os.path.join(result["out_dir"], host, path))
                    if complaint:
                        problems.append("%s/%s: bash -n: %s" % (host, path, complaint[:300]))
    return problems


def refusal_problems(result, play, variable, host=None):
    """What is wrong with a run that must refuse its input in ``play``, naming the variable (and host)."""
    out = result["out"]
    problems = []
    if result["rc"] == 0:
        problems.append("the playbook succeeded")
    if result["ssh_attempts"]:
        problems.append("Ansible tried to connect: " + result["ssh_attempts"][:300])
    problems += ["%r in the output" % word for word in FORBIDDEN if word in out]
    failed_in = failing_play(out)
    if failed_in != play:
        problems.append("failed in play %r, not in %r" % (failed_in, play))
    lines = [line for line in out.splitlines() if variable in line and (host is None or host in line)]
    if not lines:
        problems.append("no line of the output names %s%s" % (variable, " and " + host if host else ""))
    return problems
