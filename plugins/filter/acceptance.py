"""Filters of role acceptance over plugins/plugin_utils/acceptance_*.py.

    record: "{{ registered | cluster_suite.hpc.acceptance_record('pair', [a, b], round, tool, ranks_per_node) }}"
    samples: "{{ registered_loop.results | cluster_suite.hpc.acceptance_samples('pair', [a, b], tool, ranks, 'again-1') }}"
    stage report: "{{ hosts | cluster_suite.hpc.acceptance_judge(hostvars, settings) }}"
    report: "{{ stage_report | cluster_suite.hpc.acceptance_finish(cluster_records, settings) }}"
    lines: "{{ report | cluster_suite.hpc.acceptance_table }}"
    warnings: "{{ hosts | cluster_suite.hpc.acceptance_tool_warnings(hostvars) }}"
"""
from ansible.errors import AnsibleFilterError
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.acceptance import judge as judge_logic
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.acceptance import report as acceptance_report


def acceptance_record(registered, stage, hosts, round_number, tool, ranks_per_node):
    """A test record from a registered command result."""
    return judge_logic.record_from_result(dict(registered), stage, list(hosts), round_number, tool,
                                          int(ranks_per_node))


def acceptance_samples(results, stage, hosts, tool, ranks_per_node, round_name=None):
    """Test records from a registered loop over samples (loop_var _acceptance_sample), skipped ones
    left out; round_name names the round measured again (its pairs ran side by side)."""
    return [judge_logic.record_from_result(dict(result), stage, list(hosts), round_name, tool, int(ranks_per_node),
                                           result["_acceptance_sample"])
            for result in results if not result.get("skipped")]


def acceptance_tool_warnings(hosts, hostvars):
    """The report's warnings about the tool: NPU or GPU nodes measured with the probe, grouped."""
    return acceptance_report.tool_warnings({host: hostvars[host].get("_acceptance_tool_warning", "") for host in hosts})


def _settings(settings, hosts, hostvars):
    settings = dict(settings)
    settings["models"] = {host: hostvars[host].get("acceptance_hardware_model") for host in hosts}
    return settings


def acceptance_judge(hosts, hostvars, settings):
    """The intra-node and pair stages' report from every node's kept records."""
    hosts = list(hosts)
    intra = [hostvars[host]["_acceptance_intra"] for host in hosts if "_acceptance_intra" in hostvars[host]]
    intra += [record for host in hosts for record in hostvars[host].get("_acceptance_intra_again", [])]
    pairs = [record for host in hosts for record in hostvars[host].get("_acceptance_pairs", [])]
    try:
        return judge_logic.judge_nodes(hosts, intra, pairs, _settings(settings, hosts, hostvars))
    except (KeyError, TypeError, ValueError) as error:
        raise AnsibleFilterError(f"acceptance_judge: cannot judge: {error!r}") from error


def acceptance_finish(report, cluster_records, settings):
    """The full report, with the whole-cluster test's records (one per sample; none when it did not run)."""
    return judge_logic.finish_report(dict(report), [dict(record) for record in cluster_records or []],
                                     dict(settings))


def acceptance_table(report):
    """The report as lines for people."""
    return acceptance_report.format_table(report)


class FilterModule:
    def filters(self):
        return {
            "acceptance_record": acceptance_record,
            "acceptance_samples": acceptance_samples,
            "acceptance_tool_warnings": acceptance_tool_warnings,
            "acceptance_judge": acceptance_judge,
            "acceptance_finish": acceptance_finish,
            "acceptance_table": acceptance_table,
        }
