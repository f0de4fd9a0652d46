"""inventory/sample/ validates as shipped apart from the values docs/guide.md tells the operator to
fill in: playbooks/validate.yml refuses exactly those, naming each, before any node is contacted;
filled in, the same copy passes every check of the validation (the device plan included)."""

import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLE = os.path.join(ROOT, "inventory", "sample")
GUIDE = os.path.join(ROOT, "docs", "guide.md")
FAKE_SSH = "#!/bin/sh\necho \"$@\" >>\"$FAKE_SSH_LOG\"\nexit 255\n"
FILL_IN = re.compile(r"^(\w+): FILL-IN$", re.M)


def ansible_playbook():
    beside = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")
    return beside if os.path.exists(beside) else shutil.which("ansible-playbook")


def fill_ins(inventory):
    """{variable: file} of every value the sample leaves as FILL-IN."""
    found = {}
    for folder, _, files in os.walk(inventory):
        for name in files:
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as handle:
                for variable in FILL_IN.findall(handle.read()):
                    found[variable] = os.path.relpath(path, inventory)
    return found


def validate(inventory, tmp_path):
    """(rc, the problems of the failed task, whether ssh was run) of playbooks/validate.yml."""
    fake_ssh = tmp_path / "fake-ssh"
    fake_ssh.write_text(FAKE_SSH)
    fake_ssh.chmod(0o755)
    ssh_log = tmp_path / "ssh.log"
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_SSH_EXECUTABLE=str(fake_ssh),
               FAKE_SSH_LOG=str(ssh_log), ANSIBLE_NOCOLOR="1", ANSIBLE_LOCAL_TEMP=str(tmp_path / "tmp"),
               ANSIBLE_STDOUT_CALLBACK="ansible.builtin.json", ANSIBLE_CALLBACKS_ENABLED="ansible.builtin.json")
    proc = subprocess.run([ansible_playbook(), "-i", str(inventory) + "/", os.path.join(ROOT, "playbooks", "validate.yml")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    report = json.loads(proc.stdout)
    problems = [line for play in report["plays"] for task in play["tasks"] for result in task["hosts"].values()
                if result.get("failed") for line in result.get("msg", [])[1:]]
    return proc.returncode, problems, ssh_log.exists()


def test_the_sample_is_refused_naming_exactly_the_values_to_fill_in(tmp_path):
    wanted = fill_ins(SAMPLE)
    assert wanted == {"openmpi_source_file": "group_vars/all/openmpi.yml"}
    rc, problems, reached = validate(SAMPLE, tmp_path)
    assert rc != 0 and not reached
    named = {re.match(r"^[\w, -]+: (\w+): ", line).group(1) for line in problems}
    assert named == set(wanted), problems
    assert problems == ["ai-server0, ai-server1: openmpi_source_file: still FILL-IN: fill in your value "
                        "(docs/guide.md, step 3)"]
    # The guide's table of step 3 names each of them, in the file where it is set.
    with open(GUIDE, encoding="utf-8") as handle:
        guide = handle.read()
    for variable, path in wanted.items():
        assert re.search(r"^\| `%s` \| `%s: FILL-IN` \|" % (re.escape(path), variable), guide, re.M), variable


def test_the_sample_filled_in_passes_every_check(tmp_path):
    copy = tmp_path / "cluster"
    shutil.copytree(SAMPLE, copy)
    tarball = tmp_path / "openmpi-4.0.2.tar.bz2"
    tarball.write_bytes(b"")
    settings = copy / "group_vars" / "all" / "openmpi.yml"
    settings.write_text(settings.read_text().replace("openmpi_source_file: FILL-IN", f"openmpi_source_file: {tarball}"))
    rc, problems, reached = validate(copy, tmp_path)
    assert (rc, problems, reached) == (0, [], False)
    # A wrong value after filling in is still refused: the placeholder check hides nothing else.
    settings.write_text(settings.read_text().replace(str(tarball), str(tmp_path / "none.tar.bz2")))
    rc, problems, _ = validate(copy, tmp_path)
    assert rc != 0 and [line for line in problems if "openmpi_source_file" in line and "does not exist" in line]
