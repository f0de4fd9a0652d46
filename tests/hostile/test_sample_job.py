"""tests/hostile/sample_job.py and echo_job/echo.py: the job a real launch uses to check that every
rank receives the hostile values byte-exact. Here: the job is fixed, accepted and varied enough,
and echo.py, run through the suite's own cs_rank.py, reports exactly the expected argv and env."""
import json
import os
import subprocess
import sys

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import gate
import sample_job
from hostile_corpus import ROOT

KINDS = (" ", "'", '"', "$(", "`", ";", "&&", "..", "/", "~")


def test_the_sample_is_fixed_accepted_and_hostile(tmp_path):
    first = sample_job.write(str(tmp_path / "a"))
    second = sample_job.write(str(tmp_path / "b"))
    texts = [[open(p, encoding="ascii").read() for p in paths] for paths in (first, second)]
    assert texts[0] == texts[1]
    job, expected = (json.loads(t) for t in texts[0])
    assert gate.job_problems(job, sample_job.GROUPS, sample_job.HOSTVARS, ROOT, "python3") == []
    values = job["job_args"] + [v for k, v in job["job_env"].items() if k.startswith("HOSTILE_V")]
    names = [k for k in job["job_env"] if not k.startswith("HOSTILE_")]
    assert 28 <= len(values) + len(names) <= 32 and names
    for kind in KINDS:
        assert any(kind in v for v in values), kind
    assert any(len(v) >= 4096 for v in values) and any(not v.isascii() for v in values)
    assert expected == {"argv": job["job_args"], "env": job["job_env"]}
    assert set(job["job_env"]["HOSTILE_ENV_NAMES"].split(",")) == set(job["job_env"])


def test_echo_reports_argv_and_env_byte_exact(tmp_path):
    job, expected = sample_job.sample(count=30, seed=3)
    env = dict(expected["env"], PATH=os.environ.get("PATH", "/usr/bin:/bin"), CS_LOG_DIR=str(tmp_path), RANK="4",
               CS_HOST="n1")
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "roles", "job", "files", "cs_rank.py"),
                           os.path.join(ROOT, sample_job.CODE_DIR, "echo.py")] + job["job_args"],
                          env=env, capture_output=True, text=True, check=True, timeout=60)
    record = json.loads(proc.stdout.strip().splitlines()[-1])
    assert record["argv"] == expected["argv"]
    assert record["env"] == expected["env"]
    with open(tmp_path / "echo" / "rank_4.json", encoding="ascii") as handle:
        assert json.load(handle) == record
    assert json.loads((tmp_path / "status" / "rank_4.json").read_text())["exit"] == 0


def test_only_a_dynamic_cluster_job_with_recovery_on_is_recovered(tmp_path):
    job, _ = (json.loads(open(path, encoding="ascii").read()) for path in sample_job.write(str(tmp_path)))
    assert gate.job_problems(job, sample_job.GROUPS, sample_job.HOSTVARS, ROOT, "python3", playbook="recover") == [
        "n1: job_launcher/job_dynamic_recovery: job hostile-echo is torchrun with recovery off; recover.yml "
        "restarts dynamic-cluster processes with MS_ENABLE_RECOVERY=1 only"]
