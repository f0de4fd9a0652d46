"""The shipped MindSpore and torch examples rendered by playbooks/render.yml (the real templates,
no node contacted) for each kind of node: Ascend NPUs, NVIDIA GPUs, and NPU nodes without NPU
compute (cluster_backend: cpu and the job settings of the sandbox's inventory). Each node's job.env
is then sourced by bash and must give the device target and torch backend of its kind; each node
starts one rank per device (8), the sandbox's 2."""

import os
import shutil
import subprocess
import sys

import pytest
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FAKE_SSH = "#!/bin/sh\necho \"$@\" >>\"$FAKE_SSH_LOG\"\nexit 255\n"
HOSTS = {"node1": "10.10.0.1", "node2": "10.10.0.2"}
# (node group, cluster_backend or None for the default auto, expected device target, torch backend,
#  the environment script job.env sources first, ranks per node)
KINDS = {
    "npu": ("npu_nodes", None, "Ascend", "hccl", "env_npu.sh", 8),
    "gpu": ("gpu_nodes", None, "GPU", "nccl", "env_gpu.sh", 8),
    "sandbox": ("npu_nodes", "cpu", "CPU", "gloo", "env_npu.sh", 2),
}
SANDBOX_JOB_VARS = os.path.join(ROOT, "inventory", "sandbox", "group_vars", "all", "job.yml")
JOBS = {"msrun": "jobs/sample_msrun.yml", "torchrun": "jobs/examples/torchrun.yml",
        "dynamic": "jobs/examples/dynamic.yml"}


def ansible_playbook():
    beside = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")
    return beside if os.path.exists(beside) else shutil.which("ansible-playbook")


def write_inventory(directory, group, backend):
    """hosts.yml with node1-2 in ``group`` and group_vars whose environment scripts exist on the
    controller (job.env sources them when bash reads it below); with a backend (the sandbox's
    kind), also the sandbox inventory's job settings."""
    env_dir = os.path.join(directory, "etc")
    os.makedirs(os.path.join(directory, "group_vars", "all"))
    os.makedirs(env_dir)
    for name in ("env_npu.sh", "env_gpu.sh"):
        with open(os.path.join(env_dir, name), "w", encoding="utf-8") as handle:
            handle.write("export CS_TEST_SOURCED=\"${CS_TEST_SOURCED:-}%s \"\n" % name)
    cluster = {"cluster_user": "trainer", "cluster_network_cidr": "10.10.0.0/16",
               "cluster_env_npu_path": os.path.join(env_dir, "env_npu.sh"),
               "cluster_env_gpu_path": os.path.join(env_dir, "env_gpu.sh")}
    if backend:
        cluster["cluster_backend"] = backend
        shutil.copy(SANDBOX_JOB_VARS, os.path.join(directory, "group_vars", "all", "job.yml"))
    with open(os.path.join(directory, "group_vars", "all", "cluster.yml"), "w", encoding="utf-8") as handle:
        yaml.safe_dump(cluster, handle)
    with open(os.path.join(directory, "group_vars", "all", "launch.yml"), "w", encoding="utf-8") as handle:
        yaml.safe_dump({"launch_python": "python3"}, handle)
    node_vars = {"npu_device_count": 8} if group == "npu_nodes" else {"gpu_device_count": 8}
    if group == "npu_nodes":
        os.makedirs(os.path.join(directory, "group_vars", "npu_nodes"))
        with open(os.path.join(directory, "group_vars", "npu_nodes", "npu.yml"), "w", encoding="utf-8") as handle:
            yaml.safe_dump({"npu_model": "atlas800"}, handle)
    groups = {name: {"hosts": {}} for name in ("npu_nodes", "gpu_nodes", "cpu_nodes")}
    groups[group]["hosts"] = {host: dict(node_vars, ansible_host=addr) for host, addr in HOSTS.items()}
    inventory = {"all": {"children": {"cluster": {"children": groups},
                                      "cluster_master": {"hosts": {"node1": None}}}}}
    path = os.path.join(directory, "hosts.yml")
    with open(path, "w", encoding="utf-8") as handle:
        yaml.safe_dump(inventory, handle)
    return path


def render(tmp_path, kind, job):
    group, backend = KINDS[kind][:2]
    inventory = write_inventory(str(tmp_path / "inventory"), group, backend)
    fake_ssh = tmp_path / "fake-ssh"
    fake_ssh.write_text(FAKE_SSH)
    fake_ssh.chmod(0o755)
    ssh_log = tmp_path / "ssh.log"
    out = tmp_path / "out"
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_SSH_EXECUTABLE=str(fake_ssh),
               FAKE_SSH_LOG=str(ssh_log), ANSIBLE_NOCOLOR="1", ANSIBLE_LOCAL_TEMP=str(tmp_path / "tmp"))
    proc = subprocess.run(
        [ansible_playbook(), "-i", inventory, os.path.join(ROOT, "playbooks/render.yml"),
         "-e", "@" + os.path.join(ROOT, JOBS[job]), "-e", "render_dir=" + str(out),
         "-e", '{"render_iface": "eth0"}'],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert not ssh_log.exists()
    return out, proc.stdout


def sourced(job_env, names):
    """The values of ``names`` after bash sources the rendered job.env."""
    script = ". \"$1\" >/dev/null && printf '%s\\n' " + " ".join('"${%s:-}"' % name for name in names)
    proc = subprocess.run(["bash", "-c", script, "bash", str(job_env)], capture_output=True, text=True,
                          check=True, env={"PATH": os.environ["PATH"]})
    return dict(zip(names, proc.stdout.splitlines()))


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_torchrun_example_gets_its_nodes_backend(tmp_path, kind):
    _, _, target, backend, env_script, ranks = KINDS[kind]
    out, stdout = render(tmp_path, kind, "torchrun")
    for host, addr in HOSTS.items():
        values = sourced(out / host / "job.env",
                         ["CS_DEVICE_TARGET", "CS_TORCH_BACKEND", "CS_TEST_SOURCED", "HCCL_IF_IP"])
        assert values["CS_DEVICE_TARGET"] == target
        assert values["CS_TORCH_BACKEND"] == backend
        assert values["CS_TEST_SOURCED"] == env_script + " "
        assert values["HCCL_IF_IP"] == (addr if env_script == "env_npu.sh" else "")
    launch = (out / "node2" / "launch.sh").read_text()
    assert '"$CS_PYTHON" -m torch.distributed.run' in launch and f"--nproc_per_node={ranks}" in launch
    assert f"(10.10.0.1, {KINDS[kind][0][:3]}, {target.lower()})" in stdout


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("job", ["msrun", "dynamic"])
def test_mindspore_examples_get_their_nodes_device_target(tmp_path, kind, job):
    _, _, target, _, env_script, ranks = KINDS[kind]
    out, stdout = render(tmp_path, kind, job)
    for host in HOSTS:
        values = sourced(out / host / "job.env", ["CS_DEVICE_TARGET", "CS_TORCH_BACKEND", "CS_TEST_SOURCED"])
        assert values == {"CS_DEVICE_TARGET": target, "CS_TORCH_BACKEND": "", "CS_TEST_SOURCED": env_script + " "}
        subprocess.run(["bash", "-n", str(out / host / "launch.sh")], check=True)
    launch = (out / "node1" / "launch.sh").read_text()
    assert "allgather_train.py" in launch
    assert f"node rank 1, {ranks} worker(s)" in stdout


def test_the_examples_read_what_job_env_sets():
    """The scripts take the device target and backend from the variables job.env exports, and the
    torch example brings in torch_npu for hccl (Ascend's PyTorch multi-node training guide)."""
    with open(os.path.join(ROOT, "jobs/examples/mindspore/allgather_train.py"), encoding="utf-8") as handle:
        mindspore_example = handle.read()
    with open(os.path.join(ROOT, "jobs/examples/torch/allreduce.py"), encoding="utf-8") as handle:
        torch_example = handle.read()
    assert 'os.environ.get("CS_DEVICE_TARGET")' in mindspore_example
    assert 'os.environ.get("CS_TORCH_BACKEND", "gloo")' in torch_example
    hccl_branch = torch_example.split('if backend == "hccl":', 1)[1].split("elif", 1)[0]
    assert "import torch_npu" in hccl_branch and "torch.npu.set_device" in hccl_branch
    nccl_branch = torch_example.split('elif backend == "nccl":', 1)[1].split("else", 1)[0]
    assert "torch.cuda.set_device" in nccl_branch
