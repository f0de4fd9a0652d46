"""plugins/plugin_utils/jobs/defaults.py: the job variables' defaults come from role job's defaults file."""

import os

import pytest
import yaml

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs import checks as job_checks
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs import defaults as job_defaults

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROLE_DEFAULTS = os.path.join(ROOT, "roles", "job", "defaults", "main.yml")


def test_defaults_are_role_jobs_defaults_file():
    assert os.path.samefile(job_defaults.DEFAULTS_FILE, ROLE_DEFAULTS)
    with open(ROLE_DEFAULTS, encoding="utf-8") as handle:
        role = yaml.safe_load(handle)
    job_variables = {name for name in role if name not in job_defaults.RUN_OPTIONS}
    assert set(job_defaults.DEFAULTS) == job_variables | set(job_defaults.REQUIRED)
    for name in job_defaults.REQUIRED:
        assert job_defaults.DEFAULTS[name] is None and name not in role
    for name in job_defaults.TEMPLATED:
        assert "{{" in role[name] and job_defaults.DEFAULTS[name] is None
    for name in job_variables - set(job_defaults.TEMPLATED):
        assert job_defaults.DEFAULTS[name] == role[name], name
    assert job_defaults.DEFAULTS["job_timeout"] == 3600 and job_defaults.DEFAULTS["job_args"] == []


def test_an_unknown_templated_default_is_refused(tmp_path):
    path = tmp_path / "main.yml"
    path.write_text("job_timeout: \"{{ cluster_timeout }}\"\njob_port: \"{{ cluster_master_port }}\"\n")
    with pytest.raises(ValueError, match="job_timeout: a templated default"):
        job_defaults._load_defaults(str(path))  # pylint: disable=protected-access
    path.write_text("job_port: \"{{ cluster_master_port }}\"\njob_wait: \"{{ x }}\"\njob_args: []\n")
    assert job_defaults._load_defaults(str(path)) == {  # pylint: disable=protected-access
        "job_name": None, "job_launcher": None, "job_script": None, "job_port": None, "job_args": []}


def test_check_job_returns_the_checked_values():
    groups = {"cluster": ["node1", "node2"], "cluster_master": ["node2"]}
    hostvars = {"node1": {"ansible_host": "10.0.0.1"}, "node2": {"ansible_host": "10.0.0.2"}}
    job = {"job_name": "demo", "job_launcher": "torchrun", "job_script": "/opt/train.py",
           "job_port": "29501", "job_workers_per_node": 2}
    checked = job_checks.check_job(job, groups, hostvars)
    assert checked["hosts"] == ["node2", "node1"] and checked["master_addr"] == "10.0.0.2"
    assert checked["workers"] == {"node1": 2, "node2": 2} and checked["worker_num"] == 4
    assert checked["port"] == 29501 and checked["python"] == "python3"
    assert checked["options"]["timeout"] == 3600 and checked["options"]["torch_launcher"] == "torchrun"
    with pytest.raises(job_checks.JobSpecError) as info:
        job_checks.check_job(dict(job, job_port="80", job_tiemout=5), groups, hostvars)
    assert info.value.errors == ["node2: job_tiemout: not a job variable (known: job_timeout)",
                                 "node2: job_port: 80 is not an integer from 1024 to 65535"]
