"""playbooks/render.yml on a 2-host synthetic inventory: every node's scripts land in render_dir and
nothing connects anywhere (ssh is replaced by a stand-in that records attempts and fails)."""

import os
import shutil
import stat
import subprocess
import sys

from scenarios import planning

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FAKE_SSH = "#!/bin/sh\necho \"$@\" >>\"$FAKE_SSH_LOG\"\nexit 255\n"


def ansible_playbook():
    beside = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")
    return beside if os.path.exists(beside) else shutil.which("ansible-playbook")


def test_render_writes_every_nodes_scripts_without_ssh(tmp_path):
    inventory = planning.write_inventory(str(tmp_path / "inventory"), 2)
    fake_ssh = tmp_path / "fake-ssh"
    fake_ssh.write_text(FAKE_SSH)
    fake_ssh.chmod(0o755)
    ssh_log = tmp_path / "ssh.log"
    out = tmp_path / "out"
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_SSH_EXECUTABLE=str(fake_ssh),
               FAKE_SSH_LOG=str(ssh_log), ANSIBLE_NOCOLOR="1", ANSIBLE_LOCAL_TEMP=str(tmp_path / "tmp"))
    proc = subprocess.run(
        [ansible_playbook(), "-i", inventory, os.path.join(ROOT, "playbooks/render.yml"),
         "-e", "@" + os.path.join(ROOT, "jobs/examples/mpirun.yml"), "-e", "render_dir=" + str(out),
         "-e", '{"render_iface": "eth1"}'],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert not ssh_log.exists()

    assert planning.missing_files(str(out), 2, "mpirun") == []
    assert not (out / "node2/hostfile").exists()
    # The example sets no job_workers_per_node: one rank per NPU (npu_device_count 8).
    assert (out / "node1/hostfile").read_text().splitlines()[1:] == ["10.10.0.1 slots=8", "10.10.0.2 slots=8"]
    job_env = (out / "node2/job.env").read_text()
    assert "export CS_JOB_DIR=/home/trainer/jobs/example-mpirun\n" in job_env
    assert "export HCCL_IF_IP=10.10.0.2\n" in job_env
    assert "export GLOO_SOCKET_IFNAME=eth1\n" in job_env
    # launch_python: python3 in the inventory, shown as /usr/bin/python3 (launch.yml asks the node).
    assert (out / "node1/bin/python").read_text() == '#!/bin/sh\nexec /usr/bin/python3 "$@"\n'
    launch = (out / "node1/launch.sh").read_text()
    assert "--mca btl_tcp_if_include 10.10.0.0/16" in launch and "-n 16" in launch
    for name in ("launch.sh", "start.sh", "rank.sh", "cs_rank.py", "bin/python"):
        assert stat.S_IMODE(os.stat(out / "node1" / name).st_mode) == 0o755
    for name in ("launch.sh", "start.sh", "rank.sh", "job.env"):
        subprocess.run(["bash", "-n", str(out / "node2" / name)], check=True)
    assert "mpirun job example-mpirun: 2 node(s)" in proc.stdout
