"""The shared frame of the suite's action plugins: work done on the controller, in plain Python.

An action plugin subclasses ControllerAction, sets ARGUMENT_SPEC (the options its module stub in
plugins/modules documents) and implements act(args, check_mode) -> result dict; it raises
ActionError for a failure with a message for the operator.
"""
from ansible.plugins.action import ActionBase


class ActionError(Exception):
    """A failure of the action, its message shown as the task's msg."""


class ControllerAction(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    ARGUMENT_SPEC = {}

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        _, args = self.validate_argument_spec(argument_spec=self.ARGUMENT_SPEC)
        try:
            result.update(self.act(args, bool(self._task.check_mode)))
        except ActionError as error:
            result.update(failed=True, msg=str(error))
        return result

    def act(self, args, check_mode):
        raise NotImplementedError
