"""Filters for NPU device IP plans and HCCL rank tables (logic: plugins/plugin_utils/npu_plan/plan.py
and plugins/plugin_utils/npu_plan/rank_table.py).

    npu_plan: "{{ groups['npu_nodes'] | cluster_suite.hpc.npu_device_plan(hostvars) }}"
    npu_plan_problems: "{{ npu_plan | cluster_suite.hpc.npu_plan_errors(hostvars) }}"
    rank_table: "{{ npu_plan | cluster_suite.hpc.npu_rank_table(hostvars) }}"
    rank_table_problems: "{{ rank_table | cluster_suite.hpc.npu_rank_table_errors(npu_plan) }}"
    targets: "{{ npu_plan | cluster_suite.hpc.npu_detect_targets(npu_model, inventory_hostname) }}"
"""


from ansible.errors import AnsibleFilterError

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.npu_plan import plan as device_plan
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.npu_plan import rank_table


def npu_device_plan(hosts, hostvars):
    """Device plan {host: [devices]} for ``hosts`` from their npu_model, npu_device_count
    and npu_network_* variables."""
    try:
        model, device_counts = device_plan.hardware_from_hostvars(hosts, hostvars)
        settings = device_plan.settings_from_hostvars(hosts, hostvars)
        return device_plan.generate_plan(hosts, model, settings, device_counts)
    except device_plan.PlanError as error:
        raise AnsibleFilterError(str(error)) from error


def npu_plan_errors(plan, hostvars):
    """Every rule violation of ``plan`` (list of messages; empty when it is good)."""
    try:
        model, device_counts = device_plan.hardware_from_hostvars(list(plan), hostvars)
    except device_plan.PlanError as error:
        raise AnsibleFilterError(str(error)) from error
    return device_plan.validate_plan(plan, model, device_counts)


def npu_rank_table(plan, hostvars):
    """HCCL rank table v1.0 for ``plan``, server_id = each host's ansible_host (host IP)."""
    try:
        servers = [(hostvars[host].get("ansible_host", host), devices) for host, devices in plan.items()]
        return rank_table.build_rank_table(servers)
    except KeyError as error:
        raise AnsibleFilterError(
            f"{error.args[0]}: no variables for this host (not in the inventory?)"
        ) from error
    except rank_table.RankTableError as error:
        raise AnsibleFilterError(str(error)) from error


def npu_rank_table_errors(table, plan=None):
    """Every problem of a rank table, optionally checked against the device plan."""
    try:
        return rank_table.validate_rank_table(table, plan)
    except rank_table.RankTableError as error:
        raise AnsibleFilterError(str(error)) from error


def npu_detect_targets(plan, model, host, device=None, peers=None):
    """Detect addresses of ``host``'s devices: {device: [addresses]}, or one device's list;
    against the servers in ``peers`` only when given."""
    peers = None if peers is None else list(peers)
    try:
        if device is None:
            return device_plan.host_detect_targets(plan, model, host, peers)
        return device_plan.detect_targets(plan, model, host, device, peers)
    except device_plan.PlanError as error:
        raise AnsibleFilterError(str(error)) from error


class FilterModule:
    """NPU device plan filters."""

    def filters(self):
        return {
            "npu_device_plan": npu_device_plan,
            "npu_plan_errors": npu_plan_errors,
            "npu_rank_table": npu_rank_table,
            "npu_rank_table_errors": npu_rank_table_errors,
            "npu_detect_targets": npu_detect_targets,
        }
