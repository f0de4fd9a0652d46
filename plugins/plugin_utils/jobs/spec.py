"""The job description of a training launch, turned into a per-node plan.

``build_plan`` checks the ``job_*`` variables against the inventory (jobs/checks.py, check_job: every
problem at once, before anything is copied or started) and returns the plan the templates render:
per node its address, node rank, worker count and global ranks, plus the launcher's settings.

Plain Python (no Ansible), so it is unit tested directly; the filters in plugins/filter/job.py
call it.
"""
# Re-exported: the job's names and checks, for the filters and the tests.
# pylint: disable=unused-import
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs.checks import (  # noqa: F401
    DEFAULTS,
    SECRET_ENV,
    JobSpecError,
    check_control,
    check_job,
)
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs.launchers import (  # noqa: F401
    DEVICE_TARGETS,
    LAUNCHER_MODULES,
    LAUNCHERS,
    TORCH_BACKENDS,
    default_workers,
    node_backend,
    node_kind,
)
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs.tls import TLS_SECRETS  # noqa: F401


def control_plan(job, groups):
    """What stop.yml and logs.yml need: the job's name, nodes, directories and master."""
    return check_control(job, groups)


def build_plan(job, groups, hostvars, project_dir=".", launch_python="python3"):
    """Check ``job`` (the job_* variables) against the inventory; return the launch plan.

    Raises JobSpecError with every problem at once.
    """
    checked = check_job(job, groups, hostvars, project_dir, launch_python)
    hosts, workers, env = checked["hosts"], checked["workers"], checked["env"]
    nodes, first = [], 0
    for rank, host in enumerate(hosts):
        variables = hostvars.get(host, {})
        count = workers[host]
        backend = node_backend(host, groups, variables)
        nodes.append({
            "host": host,
            "addr": variables.get("ansible_host", host),
            "kind": node_kind(host, groups),
            "backend": backend,
            "device_target": DEVICE_TARGETS.get(backend, "CPU"),
            "torch_backend": TORCH_BACKENDS.get(backend, "gloo"),
            "node_rank": rank,
            "workers": count,
            "first_rank": first,
            "ranks": list(range(first, first + count)),
        })
        first += count
    plan = {
        "name": checked["name"],
        "launcher": checked["launcher"],
        "script": checked["script"],
        "args": checked["args"],
        "code_dir": checked["code_dir"],
        "hosts": hosts,
        "master": checked["master"],
        "master_addr": checked["master_addr"],
        "port": checked["port"],
        "worker_num": checked["worker_num"],
        "nodes": nodes,
        "job_dir": checked["job_dir"],
        "log_dir": checked["log_dir"],
        "env": {key: value for key, value in env.items() if not SECRET_ENV.fullmatch(key)},
        "secret_env": sorted(key for key in env if SECRET_ENV.fullmatch(key)),
        "python": checked["python"],
        "python_module": LAUNCHER_MODULES[checked["launcher"]],
        "setup": checked["setup"],
    }
    plan.update(checked["options"])
    return plan


def _shell_quote(value):
    return "'" + value.replace("'", "'\"'\"'") + "'"


def secret_env_text(job_env):
    """The 0600 secrets.env of a job: `export NAME='value'` for each secret job_env entry.

    The values never enter the plan (a fact that -v shows); the playbook writes this text
    straight from job_env with no_log.
    """
    lines = [f"export {name}={_shell_quote(str(value))}\n"
             for name, value in sorted((job_env or {}).items())
             if isinstance(name, str) and SECRET_ENV.fullmatch(name)]
    return "# Secret job_env values of this job (names with PASSWORD, TOKEN, SECRET or KEY).\n" + "".join(lines)


def node_of(plan, host):
    """The plan entry of ``host``."""
    for node in plan["nodes"]:
        if node["host"] == host:
            return node
    raise KeyError(host)


def rank_hosts(plan):
    """{global rank: host} of the plan."""
    return {rank: node["host"] for node in plan["nodes"] for rank in node["ranks"]}


def mpirun_hostfile(plan):
    """The hostfile text: one ``address slots=N`` line per node, master first."""
    return "".join(f"{node['addr']} slots={node['workers']}\n" for node in plan["nodes"])
