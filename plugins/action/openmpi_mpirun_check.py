"""Action openmpi_mpirun_check: `mpirun --version` on the node, checked, in one task.

Options and results are documented in plugins/modules/openmpi_mpirun_check.py.
"""
from ansible.plugins.action import ActionBase


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _supports_check_mode = True

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        _, args = self.validate_argument_spec(argument_spec=dict(version=dict(type="str", required=True)))
        if self._task.check_mode:
            return dict(result, skipped=True, changed=False, msg="check mode: mpirun is not run")
        run = self._execute_module(module_name="ansible.builtin.command",
                                   module_args=dict(argv=["mpirun", "--version"]), task_vars=task_vars)
        result.update(changed=False, rc=run.get("rc"), stdout=run.get("stdout", ""), stderr=run.get("stderr", ""))
        message = version_error(task_vars.get("inventory_hostname"), args["version"], result)
        if message:
            result.update(failed=True, msg=message)
        return result


def version_error(host, version, run):
    """Why ``run`` (rc, stdout, stderr of `mpirun --version`) is not OpenMPI ``version``; "" when it is."""
    if run["rc"] == 0 and f"(Open MPI) {version}" in run["stdout"]:
        return ""
    if run["rc"] != 0:
        found = f"failed (rc {run['rc']}): {(run['stderr'] or run['stdout']).strip()}"
    else:
        found = "reports " + (run["stdout"].splitlines() or [""])[0]
    return f"{host}: `mpirun --version` in a non-interactive SSH shell {found}; expected Open MPI {version}"
