"""One rule for the environment variable names the suite writes into scripts
(plugins/plugin_utils/validation/shell_names.py), and whole-value matching of the settings' patterns: each
consumer refuses the shell's own names and a value with a trailing newline."""
import pytest

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import doctor as doctor_settings
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs import spec as job_spec
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import npu_env as npu_env_settings
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.provision import openmpi_build
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation.inventory import inventory_errors
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation.shell_names import ENV_NAME, SHELL_NAME
from test_inventory_checks import good_inventory
from test_openmpi_build import good_settings

SHELL_OWNED = ["_", "UID", "BASH_ENV", "ENV", "IFS", "PS4", "PWD", "OLDPWD", "SHLVL", "RANDOM", "LINENO"]


@pytest.mark.parametrize("name", SHELL_OWNED)
def test_the_shells_names_are_one_list(name):
    assert ENV_NAME.fullmatch(name) and SHELL_NAME.fullmatch(name)


@pytest.mark.parametrize("name", ["HCCL_CONNECT_TIMEOUT", "PWDX", "MY_ENV", "XPS4"])
def test_other_names_are_free(name):
    assert ENV_NAME.fullmatch(name) and not SHELL_NAME.fullmatch(name)


@pytest.mark.parametrize("name", ["PS4", "PWD", "ENV"])
def test_a_job_and_the_inventory_refuse_the_same_names(tmp_path, name):
    (tmp_path / "train.py").write_text("print('hi')\n")
    spec = {"job_name": "demo", "job_launcher": "msrun", "job_script": "train.py", "job_code_dir": str(tmp_path),
            "job_env": {name: "1"}}
    groups = {"cluster": ["node1"], "cluster_master": ["node1"], "npu_nodes": ["node1"], "gpu_nodes": [],
              "cpu_nodes": []}
    with pytest.raises(job_spec.JobSpecError) as info:
        job_spec.build_plan(spec, groups, {"node1": {"ansible_host": "10.0.0.1", "npu_device_count": 8}})
    assert f"node1: job_env: {name} is a variable of bash itself (read-only or reset by the shell), " \
           "it cannot reach the job" in info.value.errors
    inventory_groups, hostvars = good_inventory()
    for host in hostvars.values():
        host["npu_env_extra"] = {name: "1"}
    errors = inventory_errors(inventory_groups, hostvars)
    assert len(errors) == 1 and f"npu_env_extra: {name} is a variable the shell sets or reads itself" in errors[0]


def test_a_trailing_newline_is_not_a_whole_value():
    good = good_settings()
    assert openmpi_build.settings_errors(good, "n1") == []
    assert [e for e in openmpi_build.settings_errors(dict(good, openmpi_version="4.1.4\n"), "n1")
            if "openmpi_version: '4.1.4\\n'" in e]
    assert [e for e in openmpi_build.settings_errors(dict(good, openmpi_source_sha256="a" * 64 + "\n"), "n1")
            if "openmpi_source_sha256" in e]
    assert npu_env_settings.settings_problems({"npu_env_global_log_level": "1\n", "npu_env_extra": {"FOO\n": 1}}) == [
        "npu_env_global_log_level 1\n is not an integer from 0 to 3",
        "npu_env_extra: FOO\n is not an environment variable name"]
    assert any("doctor_frameworks: must be a list of Python module names" in e for e in doctor_settings.settings_errors(
        {"doctor_frameworks": ["torch\n"]}, "n1"))
