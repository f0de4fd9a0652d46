"""Tests for plugins/plugin_utils/jobs/spec.py and jobs/checks.py: the job description and its plan."""

import pytest

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs import spec as job_spec

GROUPS = {
    "cluster": ["node1", "node2"],
    "cluster_master": ["node1"],
    "npu_nodes": ["node1", "node2"],
    "gpu_nodes": [],
    "cpu_nodes": [],
}
HOSTVARS = {
    "node1": {"ansible_host": "10.0.0.1", "npu_device_count": 8, "openmpi_prefix": "/usr/local/openmpi-4.1.4",
              "cluster_network_cidr": "10.0.0.0/24"},
    "node2": {"ansible_host": "10.0.0.2", "npu_device_count": 8},
}


@pytest.fixture
def code(tmp_path):
    (tmp_path / "train.py").write_text("print('hi')\n")
    return tmp_path


def job(code, **extra):
    base = {"job_name": "demo", "job_launcher": "msrun", "job_script": "train.py", "job_code_dir": str(code)}
    base.update(extra)
    return base


def errors_of(spec, groups=GROUPS, hostvars=HOSTVARS):
    with pytest.raises(job_spec.JobSpecError) as info:
        job_spec.build_plan(spec, groups, hostvars)
    return info.value.errors


def test_defaults_use_device_counts_and_master_first(code):
    plan = job_spec.build_plan(job(code), GROUPS, HOSTVARS, launch_python="/opt/ml/bin/python")
    assert plan["hosts"] == ["node1", "node2"]
    assert plan["worker_num"] == 16
    assert [n["ranks"][0] for n in plan["nodes"]] == [0, 8]
    assert plan["master_addr"] == "10.0.0.1"
    assert plan["port"] == 8118
    assert plan["job_dir"] == "jobs/demo"
    assert plan["log_dir"] == "logs"
    assert plan["python"] == "/opt/ml/bin/python"
    assert plan["python_module"] == "mindspore"
    assert plan["nodes"][0]["kind"] == "npu"


def test_master_is_node_rank_zero_whatever_the_order(code):
    groups = dict(GROUPS, cluster_master=["node2"])
    plan = job_spec.build_plan(job(code, job_workers_per_node=2), groups, HOSTVARS)
    assert [n["host"] for n in plan["nodes"]] == ["node2", "node1"]
    assert plan["master_addr"] == "10.0.0.2"
    assert job_spec.rank_hosts(plan) == {0: "node2", 1: "node2", 2: "node1", 3: "node1"}


def test_workers_per_node_mapping_and_total(code):
    plan = job_spec.build_plan(job(code, job_workers_per_node={"node1": 2, "node2": 3}, job_worker_num=5),
                               GROUPS, HOSTVARS)
    assert [n["workers"] for n in plan["nodes"]] == [2, 3]
    assert plan["nodes"][1]["ranks"] == [2, 3, 4]


def test_total_must_equal_the_sum(code):
    errors = errors_of(job(code, job_workers_per_node=2, job_worker_num=8))
    assert errors == ["node1: job_worker_num: 8 is not the sum of the workers per node (node1=2, node2=2: 4)"]


def test_every_problem_at_once_naming_node_and_variable(code):
    errors = errors_of(job(code, job_name="bad name", job_launcher="srun", job_port=80,
                           job_workers_per_node={"node2": 0, "node9": 1}, job_env={"1X": "a", "RANK": 1},
                           job_timeot=5, job_master_addr="node1"))
    assert "node1: job_name: must be 1-64 letters, digits, '.', '_' or '-' starting with a letter or digit, got 'bad name'" in errors
    assert "node1: job_launcher: 'srun' is not one of msrun, mpirun, dynamic, torchrun" in errors
    assert "node1: job_port: 80 is not an integer from 1024 to 65535" in errors
    assert "node2: job_workers_per_node: 0 is not an integer from 1 to 1024" in errors
    assert "node9: job_workers_per_node: not one of job_hosts" in errors
    assert "node1: job_env: '1X' is not an environment variable name" in errors
    assert "node1: job_env: RANK is set by the launcher, not by the job" in errors
    assert any(e.startswith("node1: job_timeot: not a job variable (known: job_timeout") for e in errors)
    assert any(e.startswith("node1: job_master_addr: 'node1' is not an IPv4 address") for e in errors)


def test_master_must_be_a_cluster_node_in_the_job(code):
    errors = errors_of(job(code, job_master="node3"))
    assert "node3: job_master: the master is not a node of group 'cluster'" in errors
    errors = errors_of(job(code, job_hosts=["node2"], job_master="node1"))
    assert "node1: job_master: the master is not one of job_hosts (node2)" in errors


def test_hosts_must_be_cluster_nodes_and_unique(code):
    errors = errors_of(job(code, job_hosts=["node1", "node1", "nodeX"]))
    assert "node1: job_hosts: listed twice" in errors
    assert "nodeX: job_hosts: not a node of group 'cluster'" in errors


def test_script_must_exist(code):
    assert errors_of(job(code, job_script="missing.py")) == [f"node1: job_script: missing.py does not exist in {code}"]
    assert errors_of(job(code, job_script="../x.py"))[0].endswith("must be a path inside job_code_dir")
    assert errors_of(job(code, job_code_dir=str(code / "nope")))[0] == \
        f"node1: job_code_dir: {code / 'nope'} is not a directory on the controller"
    assert errors_of(job(code, job_code_dir="", job_script="train.py"))[0].endswith(
        "without job_code_dir the script must be an absolute path on the nodes")


def test_relative_code_dir_is_under_the_project(code):
    plan = job_spec.build_plan(job(code, job_code_dir=code.name), GROUPS, HOSTVARS, project_dir=str(code.parent))
    assert plan["code_dir"] == str(code)


def test_script_built_by_setup_need_not_exist(code):
    plan = job_spec.build_plan(job(code, job_launcher="mpirun", job_script="ring", job_setup="mpicc -o ring ring.c"),
                               GROUPS, HOSTVARS)
    assert plan["port"] is None
    assert plan["mpirun_prefix"] == "/usr/local/openmpi-4.1.4"
    assert plan["mpirun_if_include"] == "10.0.0.0/24"
    assert plan["python_module"] == ""


def test_cpu_nodes_default_to_one_worker_and_torch_port(code):
    groups = dict(GROUPS, npu_nodes=[], cpu_nodes=["node1", "node2"])
    plan = job_spec.build_plan(job(code, job_launcher="torchrun"), groups, HOSTVARS)
    assert [n["workers"] for n in plan["nodes"]] == [1, 1]
    assert [n["kind"] for n in plan["nodes"]] == ["cpu", "cpu"]
    assert plan["port"] == 29500
    assert plan["python_module"] == "torch"


def test_master_addr_must_be_on_the_master_when_facts_are_known(code):
    hostvars = {**HOSTVARS, "node1": dict(HOSTVARS["node1"], ansible_facts={"all_ipv4_addresses": ["10.0.0.1"]})}
    assert errors_of(job(code, job_master_addr="10.0.0.9"), hostvars=hostvars) == [
        "node1: job_master_addr: 10.0.0.9 is not an address of node1 (10.0.0.1)"]


def test_types_are_checked(code):
    errors = errors_of(job(code, job_args="--steps 3", job_msrun_bind_core="yes", job_timeout="sixty",
                           job_mpirun_if_include="10.0.0.0/33", job_torch_launcher="launch"))
    assert "node1: job_args: must be a list of strings or numbers, got '--steps 3'" in errors
    assert "node1: job_msrun_bind_core: must be true or false, got 'yes'" in errors
    assert "node1: job_timeout: 'sixty' is not an integer from 10 to 604800" in errors
    assert "node1: job_mpirun_if_include: 10.0.0.0/33 is not an IPv4 CIDR" in errors
    assert "node1: job_torch_launcher: 'launch' is not torchrun or distributed_launch" in errors


def test_tls_needs_certificates_and_passwords_and_keeps_them_out_of_the_plan(code):
    errors = errors_of(job(code, job_launcher="dynamic", job_dynamic_tls={"server_cert_path": "s.p12", "colour": 1}))
    assert any("job_dynamic_tls: colour is not a field" in e for e in errors)
    assert "node1: job_dynamic_tls: client_password is required when TLS is on" in errors
    tls = {"server_cert_path": "s.p12", "client_cert_path": "c.p12", "ca_cert_path": "ca.crt",
           "client_password": "secret1", "server_password": "secret2"}
    plan = job_spec.build_plan(job(code, job_launcher="dynamic", job_dynamic_tls=tls), GROUPS, HOSTVARS)
    assert plan["dynamic_tls"]["enabled"] is True
    assert plan["dynamic_tls"]["config"]["cert_expire_warning_time_in_day"] == 90
    assert "secret1" not in repr(plan) and "secret2" not in repr(plan)


def test_dynamic_recovery_path_defaults_under_the_job(code):
    plan = job_spec.build_plan(job(code, job_launcher="dynamic", job_dynamic_recovery=True), GROUPS, HOSTVARS)
    assert plan["dynamic_recovery_path"] == "recovery"
    assert plan["dynamic_recovery_wait"] == 30


def test_control_plan_needs_only_the_name():
    plan = job_spec.control_plan({"job_name": "demo"}, GROUPS)
    assert plan == {"name": "demo", "hosts": ["node1", "node2"], "master": "node1",
                    "job_dir": "jobs/demo", "log_dir": "logs"}
    with pytest.raises(job_spec.JobSpecError):
        job_spec.control_plan({}, GROUPS)


def test_hostfile(code):
    plan = job_spec.build_plan(job(code, job_workers_per_node=2), GROUPS, HOSTVARS)
    assert job_spec.mpirun_hostfile(plan) == "10.0.0.1 slots=2\n10.0.0.2 slots=2\n"


def test_extra_vars_given_as_key_value_strings(code):
    plan = job_spec.build_plan(job(code, job_port="9000", job_workers_per_node="2", job_worker_num="4",
                                   job_timeout="60", job_msrun_bind_core="true"), GROUPS, HOSTVARS)
    assert (plan["port"], plan["worker_num"], plan["timeout"], plan["msrun_bind_core"]) == (9000, 4, 60, True)
    assert errors_of(job(code, job_port="80")) == ["node1: job_port: 80 is not an integer from 1024 to 65535"]
