"""The job description's safety rules (plugins/plugin_utils/jobs/checks.py): paths stay inside the job
directory, strings are matched whole, control characters are refused, values that reach a shell
are restricted, the suite's own variables are reserved and secrets stay out of the plan."""

import subprocess

import pytest

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs import spec as job_spec

GROUPS = {"cluster": ["node1", "node2"], "cluster_master": ["node1"], "cpu_nodes": ["node1", "node2"]}
HOSTVARS = {"node1": {"ansible_host": "10.0.0.1"}, "node2": {"ansible_host": "10.0.0.2"}}


@pytest.fixture
def code(tmp_path):
    (tmp_path / "train.py").write_text("print('hi')\n")
    return tmp_path


def job(code, **extra):
    base = {"job_name": "t", "job_launcher": "torchrun", "job_script": "train.py", "job_code_dir": str(code)}
    base.update(extra)
    return base


def errors_of(spec):
    with pytest.raises(job_spec.JobSpecError) as info:
        job_spec.build_plan(spec, GROUPS, HOSTVARS)
    return info.value.errors


@pytest.mark.parametrize("variable, value, resolved", [
    ("job_log_dir", "../../.ssh", "~/.ssh"),
    ("job_log_dir", "..", "~/jobs"),
    ("job_log_dir", "/data/logs", "/data/logs"),
    ("job_log_dir", "~", "~/"),
    ("job_log_dir", "~/jobs/t-old/logs", "~/jobs/t-old/logs"),
    ("job_log_dir", "jobs/t", "resolves to ~/jobs/t:"),
    ("job_log_dir", ".hidden", "~/jobs/t/.hidden"),
    ("job_dynamic_recovery_path", "/data/recovery", "/data/recovery"),
    ("job_dynamic_recovery_path", "../..", "~/"),
    ("job_base_dir", "..", "~/.."),
    ("job_base_dir", "~/.ssh", "~/.ssh"),
    ("job_base_dir", "/tmp", "/tmp"),
    ("job_base_dir", "/etc/cron.d", "/etc/cron.d"),
    ("job_base_dir", "/home", "/home"),
    ("job_base_dir", "/", "the home or root directory itself"),
])
def test_paths_outside_the_job_directory_are_refused(code, variable, value, resolved):
    errors = errors_of(job(code, **{variable: value}))
    mine = [error for error in errors if error.startswith(f"node1: {variable}: ")]
    assert mine, errors
    assert resolved in mine[0]


def test_prefixes_compare_components_not_strings(code):
    # jobs/t-old is not inside jobs/t, and jobs/t/logs given from the home is.
    assert errors_of(job(code, job_log_dir="~/jobs/t-old"))
    plan = job_spec.build_plan(job(code, job_log_dir="jobs/t/logs2"), GROUPS, HOSTVARS)
    assert plan["log_dir"] == "logs2"


@pytest.mark.parametrize("variable, value, expected", [
    ("job_log_dir", "", "logs"),
    ("job_log_dir", "trace/run-1", "trace/run-1"),
    ("job_log_dir", "~/jobs/t/out", "out"),
    ("job_dynamic_recovery_path", "ckpt", "ckpt"),
])
def test_paths_inside_the_job_directory_are_kept_relative_to_it(code, variable, value, expected):
    plan = job_spec.build_plan(job(code, job_launcher="dynamic", **{variable: value}), GROUPS, HOSTVARS)
    key = "log_dir" if variable == "job_log_dir" else "dynamic_recovery_path"
    assert plan[key] == expected


@pytest.mark.parametrize("value", ["run", "bin/x", "tls", "code/logs"])
def test_the_suites_own_directories_are_not_log_directories(code, value):
    assert any("inside the suite's own" in error for error in errors_of(job(code, job_log_dir=value)))


def test_absolute_base_outside_the_system_is_accepted(code):
    plan = job_spec.build_plan(job(code, job_base_dir="/data/jobs"), GROUPS, HOSTVARS)
    assert plan["job_dir"] == "/data/jobs/t"
    assert job_spec.control_plan({"job_name": "t", "job_base_dir": "~/work"}, GROUPS)["job_dir"] == "work/t"


@pytest.mark.parametrize("variable, value", [
    ("job_name", "abc\n"),
    ("job_name", "abc\x00"),
    ("job_script", "train.py\n"),
    ("job_args", ["--x", "a\tb"]),
    ("job_env", {"A": "x\ny"}),
    ("job_setup", "true\nid"),
    ("job_python", "python3\n"),
    ("job_mpirun_extra_args", ["--x\r"]),
    ("job_msrun_rank_table_file", "/etc/rank.json\n"),
])
def test_control_characters_are_refused_everywhere(code, variable, value):
    errors = errors_of(job(code, **{variable: value}))
    assert any(error.startswith(f"node1: {variable}") for error in errors), errors


@pytest.mark.parametrize("name", ["A\n", "PATH ", "A=B"])
def test_env_names_match_whole(code, name):
    assert any("job_env" in error for error in errors_of(job(code, job_env={name: "1"})))


def test_forward_env_names_match_whole(code):
    assert any("job_mpirun_forward_env" in e for e in errors_of(job(code, job_mpirun_forward_env=["HOME\n"])))


@pytest.mark.parametrize("name", ["CS_LOG_DIR", "CS_JOB_DIR", "CS_RANK", "CS_PYTHON", "RANK", "OMPI_X"])
def test_the_suites_own_variables_are_reserved(code, name):
    assert any(f"job_env: {name} is set by the launcher" in e for e in errors_of(job(code, job_env={name: "x"})))


@pytest.mark.parametrize("value", ["eth0 --mca x;id", "eth0;id", "$(id)", "eth0 eth1", "10.0.0.0/33"])
def test_mpirun_interfaces_are_names_or_cidrs(code, value):
    errors = errors_of(job(code, job_launcher="mpirun", job_mpirun_if_include=value))
    assert any(error.startswith("node1: job_mpirun_if_include") for error in errors), errors


@pytest.mark.parametrize("value", ["eth0", "eth0,ib0", "10.0.0.0/24", "10.0.0.0/24,192.168.1.0/24"])
def test_mpirun_interfaces_accepted(code, value):
    plan = job_spec.build_plan(job(code, job_launcher="mpirun", job_mpirun_if_include=value), GROUPS, HOSTVARS)
    assert plan["mpirun_if_include"] == value


@pytest.mark.parametrize("variable, value", [
    ("job_mpirun_prefix", "/opt/openmpi x"), ("job_mpirun_prefix", "relative/prefix"),
    ("job_mpirun_prefix", "/opt/$(id)"), ("job_python", "python3; id"), ("job_python", "py thon"),
])
def test_values_that_reach_a_shell_are_restricted(code, variable, value):
    errors = errors_of(job(code, job_launcher="mpirun", **{variable: value}))
    assert any(error.startswith(f"node1: {variable}") for error in errors), errors


def test_secret_env_values_stay_out_of_the_plan_and_errors(code):
    env = {"HF_TOKEN": "hunter2-token", "DB_PASSWORD": "hunter2-pass", "api_key": "hunter2-key", "MODE": "x"}
    plan = job_spec.build_plan(job(code, job_env=env), GROUPS, HOSTVARS)
    assert "hunter2" not in repr(plan)
    assert plan["env"] == {"MODE": "x"}
    assert plan["secret_env"] == ["DB_PASSWORD", "HF_TOKEN", "api_key"]
    errors = errors_of(job(code, job_env={"MY_SECRET": ["hunter2-list"]}))
    assert not any("hunter2" in error for error in errors)


def test_secret_env_text_gives_the_values_back_byte_exact():
    env = {"A_TOKEN": "it's $(id) `x` \\ \"q\" ü", "PLAIN": "not here"}
    text = job_spec.secret_env_text(env)
    assert "not here" not in text
    out = subprocess.run(["bash", "-c", text + 'printf %s "$A_TOKEN"'], capture_output=True, check=True)
    assert out.stdout.decode() == env["A_TOKEN"]
