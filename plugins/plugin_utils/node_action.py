"""The shared frame of the suite's action plugins that run several modules on a node in one task.

ansible-playbook handles every task result in its own process, on one core: at 1024 nodes that
process, not the nodes, sets how long a run takes (docs/large-fleet.md). A step of a launch that
is one task per node instead of five costs it a fifth. A NodeAction runs the modules of its step
one after another on the task's connection, with the task's become, stops at the first that
fails and returns one result.

A subclass sets ARGUMENT_SPEC (the options its module stub in plugins/modules documents) and
implements act(args) -> result dict, calling self.module(name, args) for each module.
"""
import time

from ansible.plugins.action import ActionBase


class StepFailed(Exception):
    """A module of the step failed; ``result`` is what the task reports."""

    def __init__(self, result):
        super().__init__(result.get("msg"))
        self.result = result


class NodeAction(ActionBase):
    TRANSFERS_FILES = False
    _supports_check_mode = True
    ARGUMENT_SPEC = {}

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        _, args = self.validate_argument_spec(argument_spec=self.ARGUMENT_SPEC)
        self._step_vars = task_vars
        try:
            result.update(self.act(args))
        except StepFailed as failed:
            result.update(failed.result, failed=True)
        finally:
            self._remove_tmp_path(self._connection._shell.tmpdir)  # pylint: disable=protected-access
        return result

    def act(self, args):
        raise NotImplementedError

    def module(self, name, args):
        """The result of module ``name`` run with ``args`` on the node; StepFailed when it failed."""
        return _checked(name, self._execute_module(module_name=name, module_args=args, task_vars=self._step_vars))

    def collected(self, job, wait, what):
        """The result of async job ``job`` once it finished (async_status once a second for up to
        ``wait`` seconds), its job file removed; StepFailed naming ``what`` when it did not finish.
        Ansible's own polling (a task's until/retries) sends every try to ansible-playbook's process
        as a result of its own."""
        for _ in range(max(int(wait), 1)):
            status = self.action("ansible.builtin.async_status", dict(jid=job))
            if status.get("finished"):
                self.action("ansible.builtin.async_status", dict(jid=job, mode="cleanup"))
                return status
            time.sleep(1)
        raise StepFailed(dict(msg="%s (async job %s) did not finish within %d s" % (what, job, int(wait))))

    def action(self, name, args):
        """The result of action ``name`` (for example ansible.builtin.copy) run with ``args``."""
        task = self._task.copy()
        task.args = dict(args)
        runner = self._shared_loader_obj.action_loader.get(
            name, task=task, connection=self._connection, play_context=self._play_context, loader=self._loader,
            templar=self._templar, shared_loader_obj=self._shared_loader_obj)
        return _checked(name, runner.run(task_vars=self._step_vars))


def _checked(name, out):
    """``out`` (a module's or action's result) without its invocation; StepFailed when it failed."""
    out.pop("invocation", None)
    if out.get("failed") or out.get("unreachable"):
        raise StepFailed(dict(out, msg=out.get("msg") or "%s failed" % name, step=name))
    return out
