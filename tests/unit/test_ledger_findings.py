"""plugins/plugin_utils/fleet/findings.py: the doctor's, acceptance's and a launch's findings for the ledger."""
import job_preflight
import job_workspace
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.fleet import findings as ledger_findings

EVIDENCE = "/p/logs/doctor/report.json"
REPORT = {"nodes": ["node1", "node2", "node3", "node4"], "entries": [
    {"check": "ssh_login", "node": "node1", "status": "ok", "message": ""},
    {"check": "ssh_login", "node": "node2", "status": "fail", "message": "Ansible cannot reach node2: refused"},
    {"check": "ssh_login", "node": "node3", "status": "ok", "message": ""},
    {"check": "hostname", "node": "node3", "status": "fail", "message": "node3 is called other"},
    {"check": "etc_hosts", "node": "node3", "status": "fail", "message": "no line for node1"},
    {"check": "hostname", "node": "node1", "status": "warn", "message": "odd"},
]}
STATES = {"node1": {"ran": True, "reached": True}, "node2": {"ran": True, "reached": False, "unreachable": "refused"},
          "node3": {"ran": True, "reached": True}, "node4": {"ran": False, "reached": False}}


def test_doctor_findings_pass_fail_unreachable_and_not_run():
    found = ledger_findings.doctor_findings(REPORT, STATES, EVIDENCE)
    assert sorted(found) == ["node1", "node2", "node3"]  # node4: the node play did not run on it (--limit)
    assert found["node1"] == {"source": "doctor", "result": "pass", "reason": "", "evidence": EVIDENCE}
    assert found["node2"]["source"] == "unreachable" and found["node2"]["result"] == "fail"
    assert found["node2"]["reason"] == "unreachable: Ansible cannot reach node2: refused"
    assert found["node3"]["reason"] == "doctor: hostname: node3 is called other (+1 more)"
    assert found["node3"]["evidence"] == EVIDENCE


def test_doctor_findings_probe_error_fails_and_reasons_are_short():
    report = {"nodes": ["node1"], "entries": [{"check": "hostname", "node": "node1", "status": "fail",
                                               "message": "x" * 500}]}
    long = ledger_findings.doctor_findings(report, {"node1": {"ran": True, "reached": True}}, EVIDENCE)
    assert len(long["node1"]["reason"]) <= ledger_findings.REASON_LIMIT
    error = ledger_findings.doctor_findings({"nodes": ["node1"], "entries": []},
                                            {"node1": {"ran": True, "reached": True, "error": "probe: boom"}}, EVIDENCE)
    assert error["node1"]["result"] == "fail"
    assert error["node1"]["reason"] == "doctor: collecting the node's data failed: probe: boom"


def test_acceptance_findings():
    report = {"nodes": [{"node": "node1"}, {"node": "node2"}, {"node": "node3"}, {"node": "node4"}],
              "healthy": ["node2", "node4"],
              "excluded": {"node1": "slow: its best pair 0.003 GB/s is 0.25 of the pair reference",
                           "node3": "pair node3-node2 broken: no result within 30 s (killed)"}}
    found = ledger_findings.acceptance_findings(report, "/p/logs/acceptance/report.json")
    assert found["node1"] == {"source": "acceptance", "result": "fail", "evidence": "/p/logs/acceptance/report.json",
                              "reason": "acceptance: slow: its best pair 0.003 GB/s is 0.25 of the pair reference"}
    assert found["node3"]["reason"].startswith("acceptance: pair node3-node2 broken")
    assert found["node2"]["result"] == found["node4"]["result"] == "pass"
    assert ledger_findings.acceptance_findings({"healthy": ["node1"], "excluded": {}}, "r")["node1"]["result"] == "pass"


def test_preflight_findings_only_when_another_node_passed():
    assert ledger_findings.preflight_findings({"node1": ["no python"], "node2": ["no python"]}, "job x") == {}
    assert ledger_findings.preflight_findings({"node1": [], "node2": []}, "job x") == {}
    found = ledger_findings.preflight_findings(
        {"node1": [], "node2": ["job_python: /x missing", "job_port: 8118 is not free", "job_mpirun_prefix: y"]}, "job x")
    assert found == {"node2": {"source": "launch", "result": "fail", "evidence": "job x",
                               "reason": "launch check: job_python: /x missing (+1 more)"}}


def launch_check_problems(tmp_path):
    """Every problem the launch's node checks can give, from the checks' own code: the node's
    (job_preflight.problems) and the job directory's (job_workspace.problems)."""
    facts = {"python_path": "", "python_module_ok": None, "processes": [{"pid": 7}], "ipv4_addresses": [("eth0", "10.0.0.2")],
             "missing_files": [{"path": "/etc/cluster-suite/env_npu.sh", "variable": "job_source_env"},
                               {"path": "/usr/local/bin/orted", "variable": "job_mpirun_prefix"}],
             "port": {"free": False, "error_text": "in use", "holder_pid": 9, "holder_name": "python"}}
    request = {"user": "trainer", "python": "python3", "python_module": "mindspore", "launcher": "msrun",
               "name": "demo", "port": 8118, "master_addr": "10.0.0.9"}
    found = job_preflight.problems(facts, request)
    found += job_preflight.problems(dict(facts, python_path="/usr/bin/python3", python_module_ok=False), request)[:1]
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / "jobs").mkdir()
    (home / "jobs" / "demo").symlink_to(home / ".ssh")
    found += job_workspace.problems(str(home), str(home / "jobs" / "demo"), [])
    (home / "stray").mkdir()
    (home / "stray" / "file").write_text("x")
    found += job_workspace.problems(str(home), str(home / "stray"), [])
    (home / "made").mkdir()
    (home / "made" / job_workspace.MARKER).write_text("")
    (home / "made" / "logs").symlink_to(home / ".ssh")
    found += job_workspace.problems(str(home), str(home / "made"), [("logs", "job_log_dir"), ("../up", "job_code_dir")])
    return found


def test_every_launch_check_is_a_fault_of_the_node_or_of_the_job(tmp_path):
    kinds = {problem: ledger_findings.problem_kind(problem) for problem in launch_check_problems(tmp_path)}
    by_variable = {}
    for problem, kind in kinds.items():
        by_variable.setdefault(problem.split(":")[0].split()[0], set()).add(kind)
    assert by_variable == {
        # The node: its Python, its framework, role npu_env's script, OpenMPI.
        "job_python": {"node"}, "job_launcher": {"node"}, "job_source_env": {"node"}, "job_mpirun_prefix": {"node"},
        # The job: its name (a previous run), port, master address and paths.
        "job_name": {"job"}, "job_port": {"job"}, "job_master_addr": {"job"}, "job_base_dir": {"job"},
        "job_log_dir": {"job"}, "job_code_dir": {"job"}}


def test_a_jobs_own_paths_never_quarantine_a_node(tmp_path):
    # node1's job directory resolves into ~/.ssh, node2's does not: refused, and nobody is quarantined.
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / "jobs").mkdir()
    (home / "jobs" / "demo").symlink_to(home / ".ssh")
    node1 = job_workspace.problems(str(home), str(home / "jobs" / "demo"), [])
    assert node1 and node1[0].startswith("job_base_dir: ")
    assert ledger_findings.preflight_findings({"node1": node1, "node2": []}, "job x") == {}


def test_changes():
    result = {"nodes_changed": ["node1", "node2", "node3"], "quarantined": {"node1": "doctor: hostname: x (...)"},
              "retired": ["node2"]}
    assert ledger_findings.changes(result) == ["node1 quarantined: doctor: hostname: x (...)", "node2 retired",
                                               "node3 in service"]
    assert ledger_findings.changes({}) == []
