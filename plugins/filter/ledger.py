"""Filters over plugins/plugin_utils/fleet/findings.py: what the doctor, acceptance and a
launch's node checks tell the node ledger (role cluster's tasks/ledger_record.yml records them).

    findings: "{{ _doctor_report | cluster_suite.hpc.ledger_doctor_findings(hostvars, report_path) }}"
    findings: "{{ _acceptance_report | cluster_suite.hpc.ledger_acceptance_findings(report_path) }}"
    findings: "{{ {node: [problem, ...]} | cluster_suite.hpc.ledger_preflight_findings(evidence) }}"
    lines: "{{ cluster_ledger | cluster_suite.hpc.ledger_changes }}"
"""
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.doctor import report as doctor_report
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.fleet import findings as logic


def ledger_doctor_findings(report, hostvars, evidence):
    """The doctor's findings; whether the node play ran on a node, reached it and collected its
    data comes from the node's variables (as the report's own doctor_report filter reads them)."""
    states = {}
    for node in report.get("nodes", []):
        host_vars = hostvars[node]
        ping = host_vars.get("_doctor_ping") if "_doctor_ping" in host_vars else None
        seen = doctor_report.node_from_vars({"_doctor_ping": ping, "_doctor_error": host_vars.get("_doctor_error")
                                             if "_doctor_error" in host_vars else None})
        states[node] = {"ran": isinstance(ping, dict), "reached": seen["reached"],
                        "unreachable": seen.get("unreachable"), "error": seen.get("error")}
    return logic.doctor_findings(dict(report), states, str(evidence))


def ledger_acceptance_findings(report, evidence):
    return logic.acceptance_findings(dict(report), str(evidence))


def ledger_preflight_findings(problems, evidence):
    return logic.preflight_findings({str(node): list(items or []) for node, items in dict(problems).items()},
                                    str(evidence))


def ledger_changes(ledger_result):
    return logic.changes(dict(ledger_result))


class FilterModule:
    def filters(self):
        return {
            "ledger_doctor_findings": ledger_doctor_findings,
            "ledger_acceptance_findings": ledger_acceptance_findings,
            "ledger_preflight_findings": ledger_preflight_findings,
            "ledger_changes": ledger_changes,
        }
