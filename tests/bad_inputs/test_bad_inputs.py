"""The bad-input corpus (cases.yml) against the real playbooks, with --check and no node.

Every case must be refused by the playbook's validation play before Ansible connects anywhere:
`ssh` is replaced (ANSIBLE_SSH_EXECUTABLE) by a stand-in that records any attempt and fails, and
the inventories only hold 127.0.0.x addresses, so even a mistake stays on loopback. The refusal
must name the host and the variable, and the output must hold no Python traceback and no template
error. The positive controls prove the base inventory and job pass validation and reach the
connection stage, so each case fails because of its one breakage.

The runs are independent ansible-playbook processes, started a few at a time
(BAD_INPUTS_WORKERS, default 4) before the first assertion.
"""
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PLAYBOOKS = {"site": "site.yml", "doctor": "playbooks/doctor.yml", "launch": "playbooks/launch.yml"}
# The plays of playbooks/validate.yml, which every playbook imports first.
PREFLIGHT_PLAYS = ("Validate the inventory on the controller before any node is contacted",
                   "Validate every role's settings per node before anything changes")
VALIDATION_PLAYS = {
    "site": PREFLIGHT_PLAYS,
    "doctor": PREFLIGHT_PLAYS,
    "launch": PREFLIGHT_PLAYS + ("Check the job description",),
}
FORBIDDEN = ("Traceback", "TemplateSyntaxError", "AnsibleUndefinedVariable", "UNREACHABLE",
             "The `loop` value must resolve", "Unexpected templating type error")
FAKE_SSH = """#!/bin/sh
# Stand-in for ssh: records the attempt; no connection is ever made.
echo "$@" >>"$FAKE_SSH_LOG"
echo "fake ssh: connection attempts are not allowed in the bad-input tests" >&2
exit 255
"""

with open(os.path.join(HERE, "cases.yml"), encoding="utf-8") as handle:
    CASES = yaml.safe_load(handle)

RUNS = [(case["name"], playbook) for case in CASES for playbook in case["playbooks"]]
CONTROLS = [("good", "site", None), ("good", "doctor", None), ("good", "launch", "jobs/good.yml")]


def missing_playbook(playbook):
    """The path of the playbook when it does not exist (each of its tests then fails naming it), else None."""
    path = PLAYBOOKS[playbook]
    return None if os.path.exists(os.path.join(ROOT, path)) else path


def ansible_playbook():
    beside = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")
    return beside if os.path.exists(beside) else shutil.which("ansible-playbook")


def run_playbook(tmp_root, label, playbook, inventory, extra_vars, limit=None):
    workdir = os.path.join(tmp_root, label)
    os.makedirs(workdir, exist_ok=True)
    ssh_log = os.path.join(workdir, "ssh-attempts.log")
    argv = [ansible_playbook(), "-i", os.path.join(HERE, "inventories", inventory + ".yml"),
            os.path.join(ROOT, PLAYBOOKS[playbook]), "--check"]
    if extra_vars:
        argv += ["-e", "@" + os.path.join(HERE, extra_vars)]
    if playbook == "doctor":
        argv += ["-e", "doctor_report_path=" + os.path.join(workdir, "report.json")]
    if limit:
        argv += ["--limit", limit]
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"),
               ANSIBLE_SSH_EXECUTABLE=os.path.join(tmp_root, "fake-ssh"), FAKE_SSH_LOG=ssh_log,
               ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0", ANSIBLE_LOCAL_TEMP=os.path.join(workdir, "tmp"))
    proc = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    attempts = open(ssh_log, encoding="utf-8").read() if os.path.exists(ssh_log) else ""
    return {"rc": proc.returncode, "out": proc.stdout + proc.stderr, "ssh_attempts": attempts}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    tmp_root = str(tmp_path_factory.mktemp("bad_inputs"))
    fake = os.path.join(tmp_root, "fake-ssh")
    with open(fake, "w", encoding="utf-8") as handle:
        handle.write(FAKE_SSH)
    os.chmod(fake, 0o755)
    by_name = {case["name"]: case for case in CASES}
    jobs = {(name, playbook): (by_name[name].get("inventory", "good"), by_name[name].get("extra_vars"),
                               by_name[name].get("limit"))
            for name, playbook in RUNS if not missing_playbook(playbook)}
    jobs.update({("control-" + name, playbook): (name, extra, None) for name, playbook, extra in CONTROLS
                 if not missing_playbook(playbook)})
    workers = int(os.environ.get("BAD_INPUTS_WORKERS", "4"))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {key: pool.submit(run_playbook, tmp_root, "%s-%s" % key, key[1], inventory, extra, limit)
                   for key, (inventory, extra, limit) in jobs.items()}
        return {key: future.result() for key, future in futures.items()}


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


def test_the_corpus_is_big_enough():
    assert len(CASES) >= 30
    assert len({case["name"] for case in CASES}) == len(CASES)
    for case in CASES:
        fragments = case["expect"].values() if isinstance(case["expect"], dict) else [case["expect"]]
        assert all(isinstance(f, str) and f for f in fragments), case["name"]
        assert case.get("host") and case.get("variable"), case["name"]


@pytest.mark.parametrize("name, playbook, extra", CONTROLS, ids=["%s-%s" % c[:2] for c in CONTROLS])
def test_controls_pass_validation_and_reach_the_nodes(results, name, playbook, extra):
    assert not missing_playbook(playbook), "playbook %s does not exist" % missing_playbook(playbook)
    result = results[("control-" + name, playbook)]
    assert result["ssh_attempts"], result["out"][-3000:]
    assert failing_play(result["out"]) not in VALIDATION_PLAYS[playbook], result["out"][-3000:]
    assert "Traceback" not in result["out"]


def params():
    for case in CASES:
        for playbook in case["playbooks"]:
            yield pytest.param(case, playbook, id="%s-%s" % (case["name"], playbook))


@pytest.mark.parametrize("case, playbook", list(params()))
def test_bad_input_is_refused_before_any_connection(results, case, playbook):
    assert not missing_playbook(playbook), "playbook %s does not exist" % missing_playbook(playbook)
    result = results[(case["name"], playbook)]
    out = result["out"]
    assert result["rc"] != 0, out[-3000:]
    assert result["ssh_attempts"] == "", "Ansible tried to connect:\n" + result["ssh_attempts"]
    for word in FORBIDDEN:
        assert word not in out, "%r in the output:\n%s" % (word, out[-3000:])
    assert failing_play(out) in VALIDATION_PLAYS[playbook], out[-3000:]
    expect = case["expect"][playbook] if isinstance(case["expect"], dict) else case["expect"]
    lines = [line for line in out.splitlines() if expect in line]
    assert lines, "expected %r in:\n%s" % (expect, out[-3000:])
    named = [line for line in lines if case["variable"] in line
             and (case["host"] == "inventory" or re.search(r"(^|[\[\s\"'(,])%s\b" % re.escape(case["host"]), line))]
    assert named, "no line names both %s and %s:\n%s" % (case["host"], case["variable"], "\n".join(lines))
