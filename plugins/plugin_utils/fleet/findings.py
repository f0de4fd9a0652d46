"""What the doctor, acceptance and a launch's preflight tell the node ledger.

Each function turns one report into findings for node_ledger.record
({node: {"source", "result" (pass or fail), "reason", "evidence"}}, plugins/plugin_utils/fleet/ledger.py),
and ``changes`` says in one line per node what the ledger made of them. Plain Python, no Ansible
imports; used by plugins/filter/ledger.py and tested in tests/unit/test_ledger_findings.py.
"""
import re

REASON_LIMIT = 160


def shorten(text, limit=REASON_LIMIT):
    text = " ".join(str(text or "").split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def doctor_findings(report, states, evidence):
    """Findings of the doctor's report (plugins/plugin_utils/doctor/report.py build_report).

    ``states``: {node: {"ran": bool, "reached": bool, "unreachable": str, "error": str}} from the
    node play (plugins/filter/ledger.py reads it from hostvars). A node the node play did not run
    on (``--limit``) gets no finding; a node Ansible could not reach fails with source
    ``unreachable``; a node whose probes failed, or with a failed check, fails with source
    ``doctor`` and its first failed check as the reason; every other node passes.
    """
    findings = {}
    for node in report.get("nodes", []):
        state = states.get(node) or {}
        if not state.get("ran", False):
            continue
        if not state.get("reached", True):
            findings[node] = {"source": "unreachable", "result": "fail", "evidence": evidence,
                              "reason": shorten("unreachable: Ansible cannot reach %s: %s"
                                                % (node, state.get("unreachable") or "no answer"))}
            continue
        failed = [entry for entry in report.get("entries", []) if entry.get("node") == node
                  and entry.get("status") == "fail"]
        if failed:
            reason = "doctor: %s: %s" % (failed[0]["check"], failed[0].get("message", ""))
            if len(failed) > 1:
                reason = shorten(reason, REASON_LIMIT - 20) + " (+%d more)" % (len(failed) - 1)
            findings[node] = {"source": "doctor", "result": "fail", "reason": shorten(reason), "evidence": evidence}
        elif state.get("error"):
            findings[node] = {"source": "doctor", "result": "fail", "evidence": evidence,
                              "reason": shorten("doctor: collecting the node's data failed: %s" % state["error"])}
        else:
            findings[node] = {"source": "doctor", "result": "pass", "reason": "", "evidence": evidence}
    return findings


def acceptance_findings(report, evidence):
    """Findings of acceptance's report (plugins/plugin_utils/acceptance/judge.py): the nodes it left
    out of the healthy ones (slow, broken, or the worse node of a bad pair) fail with the verdict as
    the reason, the healthy ones pass. Nodes the run did not test get no finding, nor do the ones
    whose verdict is inconclusive (their samples too noisy to tell): neither quarantined nor passed."""
    healthy = list(report.get("healthy") or [])
    excluded = dict(report.get("excluded") or {})
    tested = [item.get("node") if isinstance(item, dict) else item for item in report.get("nodes") or []]
    undecided = set((report.get("summary") or {}).get("inconclusive_nodes") or [])
    findings = {}
    for node in [node for node in tested if node] or healthy + sorted(excluded):
        if node in undecided and node not in excluded:
            continue
        if node in excluded:
            findings[node] = {"source": "acceptance", "result": "fail", "evidence": evidence,
                              "reason": shorten("acceptance: %s" % excluded[node])}
        elif node in healthy:
            findings[node] = {"source": "acceptance", "result": "pass", "reason": "", "evidence": evidence}
    return findings


# The launch checks that find a fault of the node itself: its Python missing, the framework not
# importable, role npu_env's environment script or OpenMPI missing. Every other check is about
# what the job asked for (its paths, name, port, master address, interfaces): the launch is
# refused naming the variable and the node, and nobody is quarantined for it.
NODE_FAULT_VARIABLES = ("job_python", "job_launcher", "job_source_env", "job_mpirun_prefix")


def problem_kind(problem):
    """"node" when a launch check's ``problem`` ("variable: what is wrong") is a fault of the node,
    "job" when it is about the job's own input."""
    variable = re.match(r"\s*(job_[a-z_]+)", str(problem))
    return "node" if variable and variable.group(1) in NODE_FAULT_VARIABLES else "job"


def preflight_findings(problems, evidence):
    """Findings of a launch's node checks: ``problems`` is {node: [problem, ...]} of every node of
    the job. Only faults of the node count (problem_kind). A node with such problems fails with
    source ``launch`` only when another node passed the same checks: when every node fails, the
    job description (or something they share) is the likely fault, and nobody is quarantined.
    Passing nodes get no finding (a launch is no verdict)."""
    problems = {node: [item for item in items or [] if problem_kind(item) == "node"] for node, items in problems.items()}
    failing = {node: items for node, items in problems.items() if items}
    if not failing or len(failing) == len(problems):
        return {}
    return {node: {"source": "launch", "result": "fail", "evidence": evidence,
                   "reason": shorten("launch check: %s" % items[0]
                                     + (" (+%d more)" % (len(items) - 1) if len(items) > 1 else ""))}
            for node, items in sorted(failing.items())}


def changes(ledger_result):
    """One line per node whose state changed, from node_ledger's result ("node3 quarantined: why")."""
    lines = []
    quarantined = ledger_result.get("quarantined") or {}
    retired = ledger_result.get("retired") or []
    for node in ledger_result.get("nodes_changed") or []:
        if node in quarantined:
            lines.append("%s quarantined: %s" % (node, quarantined[node]))
        elif node in retired:
            lines.append("%s retired" % node)
        else:
            lines.append("%s in service" % node)
    return lines
