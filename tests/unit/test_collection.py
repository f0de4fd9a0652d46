"""The checkout is the collection cluster_suite.hpc: built with ansible-galaxy, installed into an
empty path, it ships only what an operator needs, and a playbook run from the installed copy
renders the same scripts as the checkout does. ansible-doc lists each module and role once."""

import filecmp
import os
import shutil
import subprocess
import sys
import re
import tarfile

import pytest
import yaml

from scenarios import planning

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.dirname(sys.executable)
SHIPPED = ("roles/job/tasks/launch.yml", "plugins/modules/job_preflight.py", "plugins/action/job_summary.py",
           "plugins/filter/job.py", "plugins/module_utils/socket_ifname.py", "plugins/plugin_utils/jobs/spec.py",
           "playbooks/launch.yml", "playbooks/render.yml", "playbooks/site.yml", "inventory/sample/hosts.yml", "jobs/sample_msrun.yml",
           "README.md", "requirements.txt", "meta/runtime.yml")
# A module or filter's fully qualified name: namespace.collection.name.
FQCN = re.compile(r"\b((?:ansible|community|cluster_suite)\.[a-z_]+)\.[a-z_]+\b")
LEFT_OUT = ("tests/", "molecule/", "sandbox/", "bench/", ".ci/", "collections/", ".venv/", "Makefile",
            "inventory/sandbox/")


def tool(name):
    beside = os.path.join(BIN, name)
    return beside if os.path.exists(beside) else shutil.which(name)


def run(argv, env=None, cwd=ROOT):
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, " ".join(argv) + "\n" + proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(archive, collections path) of the collection built from the checkout and installed."""
    base = tmp_path_factory.mktemp("collection")
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_LOCAL_TEMP=str(base / "tmp"))
    run([tool("ansible-galaxy"), "collection", "build", ROOT, "--output-path", str(base / "dist")], env=env)
    (archive,) = (base / "dist").iterdir()
    target = base / "installed"
    config = base / "ansible.cfg"
    config.write_text(f"[defaults]\ncollections_path = {target}\n")
    env = dict(os.environ, ANSIBLE_CONFIG=str(config), ANSIBLE_LOCAL_TEMP=str(base / "tmp"))
    # --no-deps: the dependencies galaxy.yml declares come with the ansible package; resolving them
    # would ask a collection server.
    run([tool("ansible-galaxy"), "collection", "install", "--no-deps", str(archive), "-p", str(target)], env=env,
        cwd=str(base))
    return archive, target, config


def test_the_archive_ships_what_an_operator_needs_and_nothing_else(installed):
    archive, _, _ = installed
    with tarfile.open(archive) as tar:
        names = tar.getnames()
    for path in SHIPPED:
        assert path in names, path
    for prefix in LEFT_OUT:
        assert not [name for name in names if name == prefix.rstrip("/") or name.startswith(prefix)], prefix


def test_a_playbook_of_the_installed_copy_renders_what_the_checkout_renders(installed, tmp_path):
    _, target, config = installed
    inventory = planning.write_inventory(str(tmp_path / "inventory"), 2)
    outputs = {}
    for side, playbook, config_file in (
            ("checkout", os.path.join(ROOT, "playbooks", "render.yml"), os.path.join(ROOT, "ansible.cfg")),
            ("installed", "cluster_suite.hpc.render", str(config))):
        out = tmp_path / side
        env = dict(os.environ, ANSIBLE_CONFIG=config_file, ANSIBLE_NOCOLOR="1",
                   ANSIBLE_LOCAL_TEMP=str(tmp_path / "tmp"))
        run([tool("ansible-playbook"), "-i", inventory, playbook,
             "-e", "@" + os.path.join(ROOT, "jobs", "examples", "torchrun.yml"), "-e", "render_dir=" + str(out),
             "-e", '{"render_iface": "eth1"}'], env=env, cwd=str(tmp_path))
        outputs[side] = out
    compared = filecmp.dircmp(outputs["checkout"], outputs["installed"])
    assert sorted(compared.left_list) == ["node1", "node2"]
    for node in ("node1", "node2"):
        files = sorted(os.path.relpath(os.path.join(d, f), outputs["checkout"] / node)
                       for d, _, fs in os.walk(outputs["checkout"] / node) for f in fs)
        assert files
        _, mismatch, errors = filecmp.cmpfiles(outputs["checkout"] / node, outputs["installed"] / node, files,
                                               shallow=False)
        assert (mismatch, errors) == ([], [])
    run([tool("ansible-playbook"), "-i", inventory, "--syntax-check", "cluster_suite.hpc.site"],
        env=dict(os.environ, ANSIBLE_CONFIG=str(config)), cwd=str(tmp_path))
    # Nothing of the checkout was read: the installed copy names its own roles.
    assert str(target) in run([tool("ansible-galaxy"), "collection", "list", "cluster_suite.hpc"],
                              env=dict(os.environ, ANSIBLE_CONFIG=str(config)), cwd=str(tmp_path))


def test_ansible_doc_lists_and_renders_each_module_and_role_once():
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1")
    modules = [line.split()[0] for line in run([tool("ansible-doc"), "-l", "cluster_suite.hpc"], env=env).splitlines()
               if line.strip()]
    expected = sorted("cluster_suite.hpc." + name[:-3] for name in os.listdir(os.path.join(ROOT, "plugins", "modules"))
                      if name.endswith(".py"))
    assert sorted(modules) == expected
    # Every module's documentation renders as text, one by one (--json and lists hide some errors).
    for module in expected:
        assert "> MODULE %s " % module in run([tool("ansible-doc"), module], env=env)
    ours = os.listdir(os.path.join(ROOT, "roles"))
    listed = [line.rstrip(":") for line in run([tool("ansible-doc"), "-t", "role", "-l"], env=env).splitlines()
              if line and not line.startswith(" ")]
    # Other collections installed beside ansible list their roles too; ours appear once, by FQCN only.
    assert sorted(name for name in listed if name.startswith("cluster_suite.hpc.")) == sorted(
        "cluster_suite.hpc." + name for name in ours)
    assert not set(listed) & set(ours)
    for role in ours:
        # Role cluster has no tasks: its settings are documented under entry point "settings".
        entry = "settings" if role == "cluster" else "main"
        assert "ENTRY POINT: *%s*" % entry in run([tool("ansible-doc"), "-t", "role", "cluster_suite.hpc." + role], env=env)


def test_galaxy_declares_every_collection_the_code_uses():
    with open(os.path.join(ROOT, "galaxy.yml"), encoding="utf-8") as f:
        declared = set(yaml.safe_load(f)["dependencies"])
    used = set()
    for folder in ("roles", "playbooks", "plugins"):
        for directory, _, files in os.walk(os.path.join(ROOT, folder)):
            for name in files:
                if name.endswith((".yml", ".py", ".j2")):
                    with open(os.path.join(directory, name), encoding="utf-8") as f:
                        used |= set(FQCN.findall(f.read()))
    # ansible.module_utils and ansible.plugins are ansible-core's Python packages, not collections.
    assert used - {"ansible.builtin", "ansible.module_utils", "ansible.plugins", "cluster_suite.hpc"} == declared
