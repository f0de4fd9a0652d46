"""roles/job/tasks/gather.yml end to end on this machine (the "node" is localhost over the
local connection): the job planted links in its log directory, as a job's code can while it runs.
The node packs them as links (job_workspace), the controller copies none of them, and nothing lands
outside logs/<job>/<host>/. Crafted archives (a member written through a link) are tested against
the unpacking itself in test_job_logs_unpack.py."""

import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLAY = """---
- name: Gather the logs of each node's job
  hosts: node1,node2
  gather_facts: false
  vars:
    cluster_user: nobody
    cluster_become: false
  tasks:
    - name: Gather
      ansible.builtin.include_role:
        name: cluster_suite.hpc.job
        tasks_from: gather
      vars:
        _job_plan: {{name: "{{{{ gather_job }}}}", log_dir: logs}}
        _job_home: {home}
        _job_dir: {job}
        _job_log_dir: {job}/logs
        _job_logs_root: {logs}
"""


def ansible_playbook():
    beside = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")
    return beside if os.path.exists(beside) else shutil.which("ansible-playbook")


def test_gather_writes_nothing_outside_and_plants_no_link(tmp_path):
    outside = tmp_path / "home" / ".ssh"
    outside.mkdir(parents=True)
    (outside / "id_ed25519").write_text("secret\n")
    job = tmp_path / "node" / "jobs" / "demo"
    (job / "run").mkdir(parents=True)
    (job / "logs").mkdir()
    (job / ".cluster-suite-job").write_text("made by the suite\n")
    os.symlink(outside, job / "logs" / "x")
    os.symlink(outside / "id_ed25519", job / "logs" / "worker_1.log")
    (job / "logs" / "worker_0.log").write_bytes(b"step: 0, loss: 1.0\n")
    logs = tmp_path / "project" / "logs"
    # Job "planted" (gathered from node2): logs/planted is a link to a folder of the controller's user.
    logs.mkdir(parents=True)
    (outside / "node2").mkdir()
    (outside / "node2" / "precious").write_text("keep\n")
    os.symlink(outside, logs / "planted")
    (tmp_path / "hosts.yml").write_text(
        "all:\n  hosts:\n" + "".join(f"    {host}:\n      ansible_connection: local\n"
                                        f"      ansible_python_interpreter: {sys.executable}\n"
                                        f"      gather_job: {name}\n"
                                        for host, name in (("node1", "demo"), ("node2", "planted"))))
    (tmp_path / "play.yml").write_text(PLAY.format(home=tmp_path / "node", job=job, logs=logs))
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_LOCAL_TEMP=str(tmp_path / "tmp"), ANSIBLE_REMOTE_TEMP=str(tmp_path / "rtmp"))
    proc = subprocess.run([ansible_playbook(), "-i", str(tmp_path / "hosts.yml"), str(tmp_path / "play.yml")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    out = proc.stdout + proc.stderr
    node = logs / "demo" / "node1"
    links = [os.path.join(d, n) for d, dirs, files in os.walk(logs / "demo") for n in dirs + files
             if os.path.islink(os.path.join(d, n))]
    assert links == [], out[-3000:]
    assert sorted(os.listdir(outside)) == ["id_ed25519", "node2"], out[-3000:]
    assert os.listdir(outside / "node2") == ["precious"], out[-3000:]
    assert (node / "worker_0.log").read_bytes() == b"step: 0, loss: 1.0\n"
    assert sorted(os.listdir(logs / "demo")) == ["node1"]  # no archive left beside the copy
    assert "node1: ./x in the logs of job demo was not copied: symbolic link to" in out
    # The planted job folder (node2's play): refused, naming the node, the job and the folder.
    assert f"node2: the logs of job planted were not unpacked: {logs}/planted is a symbolic link" in out
    assert proc.returncode == 2
