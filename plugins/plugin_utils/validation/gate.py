"""The three checks of playbooks/validate.yml, which action validate_settings runs: the inventory
as a whole, every role's settings (role_settings.problems, called by the action per host and role)
and the job description against the inventory. Each returns every problem at once, each naming
the host (or the job) and the variable."""
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.ansible_values import plain
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs import spec as job_spec
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import inventory as inventory_checks
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import inventory_settings
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import role_settings

def limit_problem(limit):
    """What is said of a --limit that leaves out localhost, where every playbook checks the
    inventory and the job and makes its plans, reports and ledger records."""
    return (f"--limit {limit}: add localhost (--limit '{limit},localhost'): the inventory is checked there before "
            "any node is contacted, and the plans, the reports and the node ledger are made there")


def partial_run_problem(limit, left_out, playbook):
    """What is said of a --limit that leaves out nodes of group cluster for a playbook that judges
    every node against the others; "" when none is left out."""
    if not left_out:
        return ""
    shown = ", ".join(left_out[:10]) + (f" and {len(left_out) - 10} more" if len(left_out) > 10 else "")
    return (f"--limit {limit}: leaves out {shown} of group cluster; {playbook} judges every node against the "
            "others (the versions most nodes have, the SSH and link peers, the master's port), so a part of the "
            "group would be judged wrongly: run it on the whole group")


RENDER_DIR_PROBLEM = "render_dir: required, e.g. -e render_dir=/tmp/rendered (<render_dir>/<host>/ per node)"


def _plain_vars(host, host_vars, names, errors):
    """{name: value} of the names a host has; a value that cannot be templated is a problem."""
    found = {}
    for name in names:
        if name not in host_vars:
            continue
        try:
            found[name] = host_vars[name]
        except Exception as error:  # pylint: disable=broad-except
            # An inventory value templating an undefined variable: named, not raised.
            errors.append(f"{host}: {name}: cannot be evaluated: {str(error).splitlines()[0]}")
    return found


def inventory_problems(groups, hostvars, roles_dir=role_settings.ROLES_DIR):
    """Every problem of the inventory and of the role settings it sets (empty when fine).

    Raises role_settings.SettingsError when a role's argument specs cannot be read.
    """
    specs = role_settings.all_specs(roles_dir)
    errors, plain_hostvars = [], {}
    for host in groups.get("all", []):
        host_vars = hostvars[host]
        # The settings of roles job and doctor come with each run (-e) and are checked by those
        # roles' rules, with their own messages: not read here.
        names = [name for name in host_vars.keys()
                 if name in inventory_checks.CHECKED_VARS or name in inventory_settings.RENAMED
                 or (name in specs and specs[name]["role"] not in inventory_settings.RUN_ROLES)
                 or name.startswith(inventory_settings.TYPO_PREFIXES)]
        # Without ansible_host the checks take the inventory name as the address.
        plain_hostvars[host] = _plain_vars(host, host_vars, names, errors)
    return errors + inventory_checks.inventory_errors(dict(groups), plain_hostvars, specs)


def job_plain(value):
    """A job value as plain data, keys as they are: the job's checks report a key that is not a string."""
    return plain(value, str_keys=False)


def job_hostvars(groups, hostvars):
    """{host: its variables as plain data} of every host of ``groups``."""
    hosts = set()
    for members in groups.values():
        hosts.update(members or [])
    return {host: job_plain(hostvars[host]) for host in hosts if host in hostvars}


def job_problems(job, groups, hostvars, project_dir=".", launch_python="python3", playbook="launch", full=True):
    """Every problem of ``job`` (the job_* variables) as a list, empty when it is good.

    full: the whole launch plan (launch, render, recover); otherwise only what stop.yml and
    logs.yml need (name, nodes, directories). playbook "render" also needs job_render_dir, "recover" a
    dynamic-cluster job with recovery on.
    """
    job = job_plain(job)
    found = [RENDER_DIR_PROBLEM] if playbook == "render" and not str(job.get("job_render_dir") or "") else []
    try:
        if full:
            plan = job_spec.build_plan(job, job_plain(groups), job_hostvars(groups, hostvars), project_dir,
                                       launch_python)
            if playbook == "recover" and not (plan["launcher"] == "dynamic" and plan.get("dynamic_recovery")):
                found.append(f"{plan['master']}: job_launcher/job_dynamic_recovery: job {plan['name']} is "
                             f"{plan['launcher']} with recovery {'on' if plan.get('dynamic_recovery') else 'off'}; "
                             "recover.yml restarts dynamic-cluster processes with MS_ENABLE_RECOVERY=1 only")
        else:
            job_spec.control_plan(job, job_plain(groups))
    except job_spec.JobSpecError as error:
        found += error.errors
    return found
