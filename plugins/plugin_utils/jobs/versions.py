"""Before a launch: the versions a job needs the same on every node, judged as the doctor judges
them (doctor_checks_versions), so that a launch refuses what the doctor fails and warns of what
it warns of.

What a job needs the same: the Python when the ranks run Python (another MAJOR.MINOR fails, another
patch level warns), the launcher's framework, and OpenMPI under mpirun (its version, then the
build the openmpi role recorded: another prefix or architecture fails, another OS release or
configure flags warns).
"""

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.doctor.versions import (
    compare_versions, openmpi_verdicts, python_verdicts)


def runs_python(plan):
    """Whether the job's ranks run the job's Python (a framework launcher, or a .py script)."""
    return bool(plan.get("python_module")) or str(plan.get("script") or "").endswith(".py")


def version_verdicts(plan, versions):
    """{"fail": [line], "warn": [line]}, each line naming the node, what differs and the fix.

    plan: the job plan (hosts, master, launcher, script, python_module); versions: host -> the
    C(versions) job_preflight returned on it.
    """
    hosts = list(plan["hosts"])
    master = plan.get("master")
    found = {host: versions.get(host) or {} for host in hosts}
    judged = []
    if runs_python(plan):
        values = {host: ({"version": item["python"]} if item.get("python")
                         else {"path": plan.get("python"), "error": "no version read"})
                  for host, item in found.items()}
        judged.append(python_verdicts(values, hosts, master, variable="job_python"))
    module = plan.get("python_module")
    if module:
        values = {host: ({"version": item["framework"]} if item.get("framework") else {"absent": True})
                  for host, item in found.items()}
        judged.append(compare_versions(module, values, hosts, master,
                                       fix="install the same %s on every node (role python_env)" % module))
    if plan.get("launcher") == "mpirun":
        values = {host: item.get("openmpi") or {"absent": True, "error": "no OpenMPI under job_mpirun_prefix"}
                  for host, item in found.items()}
        judged.append(openmpi_verdicts(values, hosts, master))
    result = {"fail": [], "warn": []}
    for verdicts in judged:
        for host in hosts:
            status, message = verdicts.get(host, ("ok", ""))
            if status in result:
                result[status].append("%s: %s" % (host, message))
    return result
