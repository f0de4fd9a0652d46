"""playbooks/tasks/job_gather.yml end to end on this machine (the "node" is localhost over the
local connection): the node's tar is replaced by one that hands over a crafted archive, as a node
whose log directory (or tar) the job controls could. Nothing may land outside logs/<job>/<host>/."""

import io
import os
import shutil
import subprocess
import sys
import tarfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GATHER = os.path.join(ROOT, "playbooks", "tasks", "job_gather.yml")
# A tar that writes the crafted archive when asked to pack, and is the real tar otherwise.
FAKE_TAR = """#!/bin/sh
case " $* " in
  *" -czf "*) for a; do [ "$prev" = -czf ] && cp "$CRAFTED_TAR" "$a"; prev=$a; done; exit 0 ;;
esac
exec {real} "$@"
"""
PLAY = """---
- name: Gather the logs of each node's job
  hosts: node1,node2
  gather_facts: false
  vars:
    launch_plan: {{name: "{{{{ gather_job }}}}"}}
    launch_dir: {job}
    launch_log_dir: {job}/logs
    launch_logs_root: {logs}
    launch_become: false
    cluster_user: nobody
  tasks:
    - name: Gather
      ansible.builtin.include_tasks: {gather}
"""


def ansible_playbook():
    beside = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")
    return beside if os.path.exists(beside) else shutil.which("ansible-playbook")


def member(tar, name, kind=tarfile.REGTYPE, data=b"", link=""):
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.mode = kind, link, 0o644
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    tar.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)


def test_gather_writes_nothing_outside_and_plants_no_link(tmp_path):
    outside = tmp_path / "home" / ".ssh"
    outside.mkdir(parents=True)
    (outside / "id_ed25519").write_text("secret\n")
    crafted = tmp_path / "crafted.tar.gz"
    with tarfile.open(crafted, "w:gz") as tar:
        member(tar, "./x", tarfile.SYMTYPE, link=str(outside))
        member(tar, "./x/authorized_keys", data=b"attacker key\n")
        member(tar, "./worker_1.log", tarfile.SYMTYPE, link=str(outside / "id_ed25519"))
        member(tar, "./worker_0.log", data=b"step: 0, loss: 1.0\n")
    job = tmp_path / "node" / "jobs" / "demo"
    (job / "run").mkdir(parents=True)
    (job / "logs").mkdir()
    logs = tmp_path / "project" / "logs"
    # Job "planted" (gathered from node2): logs/planted is a link to a folder of the controller's user.
    logs.mkdir(parents=True)
    (outside / "node2").mkdir()
    (outside / "node2" / "precious").write_text("keep\n")
    os.symlink(outside, logs / "planted")
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "tar").write_text(FAKE_TAR.format(real=shutil.which("tar")))
    (fake / "tar").chmod(0o755)
    (tmp_path / "hosts.yml").write_text(
        "all:\n  hosts:\n" + "".join(f"    {host}:\n      ansible_connection: local\n"
                                        f"      ansible_python_interpreter: {sys.executable}\n"
                                        f"      gather_job: {name}\n"
                                        for host, name in (("node1", "demo"), ("node2", "planted"))))
    (tmp_path / "play.yml").write_text(PLAY.format(job=job, logs=logs, gather=GATHER))
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               PATH=f"{fake}:{os.environ['PATH']}", CRAFTED_TAR=str(crafted),
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
