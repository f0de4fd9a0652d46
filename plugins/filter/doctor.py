"""Filters of role doctor over plugins/plugin_utils/doctor/report.py (the report).

    report: "{{ groups['cluster'] | cluster_suite.hpc.doctor_report(hostvars, {'hosts': ..., 'master': ..., 'master_port': ..., 'clock_warn_ms': ..., 'clock_fail_ms': ...}) }}"
    lines: "{{ report | cluster_suite.hpc.doctor_table }}"
"""
from ansible.errors import AnsibleFilterError
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.doctor import report as report_logic

NODE_VARS = ("_doctor_expect", "_doctor_ping", "_doctor_listener", "_doctor_error") + tuple(
    dict.fromkeys(name for name, _part in report_logic.REGISTERED.values()))


def doctor_report(hosts, hostvars, settings):
    """The doctor's report (see plugins/plugin_utils/doctor/report.py build_report)."""
    nodes = {}
    for host in hosts:
        host_vars = hostvars[host]
        nodes[host] = report_logic.node_from_vars({name: host_vars[name] for name in NODE_VARS if name in host_vars})
    try:
        return report_logic.build_report(nodes, dict(settings))
    except (KeyError, TypeError, ValueError) as error:
        raise AnsibleFilterError(f"doctor_report: cannot build the report: {error!r}") from error


def doctor_table(report, max_columns=8):
    """The report as lines for people."""
    return report_logic.format_table(report, max_columns=max_columns)


class FilterModule:
    def filters(self):
        return {
            "doctor_report": doctor_report,
            "doctor_table": doctor_table,
        }
