"""stop.yml tells the truth: a node where the job never ran (no <job_dir>/run/, no tagged process)
is not reported as "stopped 0, none left". job_procs.job_trace, then playbooks/stop.yml on two
local "nodes" (this machine, local connection)."""

import os
import pwd
import shutil
import subprocess
import sys
import time

import job_procs

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_trace_of_a_job(tmp_path):
    job = tmp_path / "jobs" / "demo"
    assert job_procs.job_trace(str(job)) == {"job_dir_exists": False, "run_dir_exists": False, "job_found": False}
    job.mkdir(parents=True)
    assert job_procs.job_trace(str(job)) == {"job_dir_exists": True, "run_dir_exists": False, "job_found": False}
    # A tagged process is a trace even without run/ (a job started by hand with CS_JOB_DIR).
    assert job_procs.job_trace(str(job), [{"pid": 42}])["job_found"] is True
    (job / "run").mkdir()
    assert job_procs.job_trace(str(job) + "/") == {"job_dir_exists": True, "run_dir_exists": True, "job_found": True}
    (tmp_path / "jobs" / "file").write_text("")
    assert job_procs.job_trace(str(tmp_path / "jobs" / "file"))["job_dir_exists"] is False


def ansible_playbook():
    beside = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")
    return beside if os.path.exists(beside) else shutil.which("ansible-playbook")


def run_stop(tmp_path, base, *args):
    user = os.environ.get("USER") or subprocess.run(["id", "-un"], capture_output=True, text=True,
                                                    check=True).stdout.strip()
    hosts = "".join(f"        {host}:\n          ansible_connection: local\n          ansible_user: {user}\n"
                    f"          ansible_python_interpreter: {sys.executable}\n" for host in ("node1", "node2"))
    (tmp_path / "hosts.yml").write_text(
        f"all:\n  vars:\n    cluster_user: {user}\n    cluster_allow_root: {str(user == 'root').lower()}\n  children:\n    cluster:\n      hosts:\n{hosts}"
        "    cluster_master:\n      hosts:\n        node1:\n")
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_LOCAL_TEMP=str(tmp_path / "tmp"), ANSIBLE_REMOTE_TEMP=str(tmp_path / "rtmp"))
    proc = subprocess.run([ansible_playbook(), "-i", str(tmp_path / "hosts.yml"),
                           os.path.join(ROOT, "playbooks", "stop.yml"), "-e", f"job_base_dir={base}",
                           *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    return proc.returncode, " ".join((proc.stdout + proc.stderr).split())


def test_stop_fails_where_the_job_never_ran_and_stops_it_where_it_did(tmp_path):
    # The job directory must lie under the user's home (job_spec refuses /tmp): a unique folder
    # there, removed at the end.
    base = f"cs-unit-stop-{os.getpid()}-{time.time_ns()}"
    top = os.path.join(pwd.getpwuid(os.getuid()).pw_dir, base)
    job = os.path.join(top, "demo")
    try:
        check_stop(tmp_path, base, job)
    finally:
        shutil.rmtree(top, ignore_errors=True)


def check_stop(tmp_path, base, job):
    rc, out = run_stop(tmp_path, base, "-e", "job_name=demo")
    assert rc == 2, out[-3000:]
    for node in ("node1", "node2"):
        assert (f"{node}: job demo was never started here: {job} does not exist and no process carries "
                f"the job's tag, so nothing was stopped on {node}. Check job_name (demo) and job_base_dir "
                f"({base})") in out, out[-3000:]
    assert "of job demo; none left" not in out

    # The job ran here (run/ exists) and one of its processes is still alive: stopped, none left.
    os.makedirs(os.path.join(job, "run"))
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"],
                            env=dict(os.environ, CS_JOB_DIR=job))
    try:
        time.sleep(0.2)
        rc, out = run_stop(tmp_path, base, "-e", "job_name=demo", "-e", "job_stop_grace=5")
        assert rc == 0, out[-3000:]
        assert proc.wait(timeout=10) is not None
        # Both local "nodes" see the same process and both signal it.
        assert "stopped 1 process(es) of job demo; none left" in out, out[-3000:]
        assert "never started" not in out
    finally:
        proc.kill()
        proc.wait()
