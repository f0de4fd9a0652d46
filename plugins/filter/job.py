"""Filters over the job description (logic: plugins/plugin_utils/jobs/spec.py, jobs/checks.py).

    plan: "{{ job_vars | cluster_suite.hpc.job_plan(groups, hostvars, project_dir, launch_python) }}"
    control: "{{ job_vars | cluster_suite.hpc.job_control_plan(groups) }}"
    node: "{{ plan | cluster_suite.hpc.job_node(inventory_hostname) }}"
    "{{ plan | cluster_suite.hpc.job_rank_hosts }}"   {rank: host}
    "{{ plan | cluster_suite.hpc.job_hostfile }}"     mpirun hostfile text
    "{{ home | cluster_suite.hpc.job_node_paths(plan.job_dir, plan.log_dir) }}"   [job dir, log dir], absolute
    "{{ job_env | cluster_suite.hpc.job_secret_env_text }}"   secrets.env (the secret job_env values; no_log only)
    "{{ plan | cluster_suite.hpc.job_version_verdicts(versions) }}"   {"fail": [...], "warn": [...]} across the nodes
    "{{ results | cluster_suite.hpc.job_interface_lines(hosts) }}"   each node's interface (job_interfaces results)
    "{{ iface | cluster_suite.hpc.job_interface_env(address, npu, job_env) }}"   the library variables of one interface
"""


from ansible.errors import AnsibleFilterError

from ansible_collections.cluster_suite.hpc.plugins.module_utils import job_ifaces, job_preflight
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs import spec as job_spec
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs import versions as job_versions
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import gate




def job_plan(job, groups, hostvars, project_dir=".", launch_python="python3"):
    """The launch plan of ``job`` (the job_* variables); every problem at once otherwise."""
    try:
        return job_spec.build_plan(gate.job_plain(job), gate.job_plain(groups), gate.job_hostvars(groups, hostvars),
                                   project_dir, launch_python)
    except job_spec.JobSpecError as error:
        raise AnsibleFilterError(str(error)) from error


def job_control_plan(job, groups):
    """Name, nodes and directories of a job, for stop.yml and logs.yml."""
    try:
        return job_spec.control_plan(gate.job_plain(job), gate.job_plain(groups))
    except job_spec.JobSpecError as error:
        raise AnsibleFilterError(str(error)) from error


def job_node(plan, host):
    try:
        return job_spec.node_of(plan, host)
    except KeyError as error:
        raise AnsibleFilterError(f"{host}: not a node of job {plan.get('name')}") from error


def job_rank_hosts(plan):
    return {str(rank): host for rank, host in job_spec.rank_hosts(plan).items()}


def job_hostfile(plan):
    return job_spec.mpirun_hostfile(plan)


def job_node_paths(home, job_dir, log_dir):
    """[absolute job directory, absolute log directory] under the training user's home."""
    return list(job_preflight.node_paths(home, job_dir, log_dir))


def job_secret_env_text(job_env):
    return job_spec.secret_env_text(gate.job_plain(job_env or {}))


def job_interface_lines(results, hosts):
    """Each node's interface for the launch plan (job_interfaces results in ``hosts`` order)."""
    return job_ifaces.plan_lines(list(results), list(hosts))


def job_interface_env(iface, address, npu, job_env=None):
    """Every library's interface variable from one interface, less those ``job_env`` sets."""
    return {name: value for name, value in job_ifaces.library_env(iface, address, bool(npu)).items()
            if name not in (job_env or {})}


def job_version_verdicts(plan, versions):
    """Version differences across the job's nodes, as the doctor judges them (jobs/versions.py)."""
    return job_versions.version_verdicts(gate.job_plain(plan), gate.job_plain(versions))


class FilterModule:
    def filters(self):
        return {
            "job_plan": job_plan,
            "job_control_plan": job_control_plan,
            "job_node": job_node,
            "job_rank_hosts": job_rank_hosts,
            "job_hostfile": job_hostfile,
            "job_node_paths": job_node_paths,
            "job_secret_env_text": job_secret_env_text,
            "job_version_verdicts": job_version_verdicts,
            "job_interface_lines": job_interface_lines,
            "job_interface_env": job_interface_env,
        }
