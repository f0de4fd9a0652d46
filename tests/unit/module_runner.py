"""Run one of the collection's node modules as Ansible runs it on a node: in a new Python process,
arguments from a JSON file, the result as JSON on stdout. Its module_utils import under their
collection names (ansible_collections.cluster_suite.hpc.plugins.module_utils.*) from the checkout,
as Ansible's packaging ships them."""
import json
import os
import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]
RUNNER = f"""
import runpy, sys
sys.path.insert(0, {str(PROJECT / "collections")!r})
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def module_path(name):
    return PROJECT / "plugins" / "modules" / f"{name}.py"


def run_module(name, args, args_file, check=False, env=None, cwd=None, timeout=120):
    """The module's result (a dict); ``args_file`` is where its arguments are written."""
    Path(args_file).write_text(json.dumps({"ANSIBLE_MODULE_ARGS": dict(args, _ansible_check_mode=check)}))
    proc = subprocess.run([sys.executable, "-c", RUNNER, str(module_path(name)), str(args_file)],
                          env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)
    assert proc.stdout, proc.stderr
    return json.loads(proc.stdout)


def run_playbook(playbook, inventory, tmp_path, timeout=300):
    """ansible-playbook run on ``playbook`` with the project's ansible.cfg: (its return code, its
    report as the json callback writes it)."""
    env = dict(os.environ, ANSIBLE_CONFIG=str(PROJECT / "ansible.cfg"), ANSIBLE_STDOUT_CALLBACK="json",
               ANSIBLE_LOAD_CALLBACK_PLUGINS="1", ANSIBLE_CALLBACKS_ENABLED="ansible.builtin.json",
               ANSIBLE_LOCAL_TEMP=str(tmp_path))
    proc = subprocess.run([str(Path(sys.executable).with_name("ansible-playbook")), "-i", str(inventory), str(playbook)],
                          cwd=PROJECT, env=env, capture_output=True, text=True, timeout=timeout, check=False)
    assert proc.stdout.startswith("{"), proc.stdout + proc.stderr
    return proc.returncode, json.loads(proc.stdout)
