"""Action carry_reach: a site.yml play's first contact with a node, in one task.

Options and results are documented in plugins/modules/carry_reach.py. It runs the setup module
for the facts the roles use; a node that cannot be reached fails the task instead of being
unreachable (marked ``node_unreachable``), so that the play's rescue keeps it as unreachable and
it counts against max_fail_percentage (Ansible counts only failed nodes there).
"""
from ansible.errors import AnsibleConnectionFailure
from ansible.plugins.action import ActionBase


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _supports_check_mode = True

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        _, args = self.validate_argument_spec(argument_spec=dict(
            gather_subset=dict(type="list", elements="str", default=["min", "network"])))
        try:
            facts = self._execute_module(module_name="ansible.builtin.setup",
                                         module_args=dict(gather_subset=args["gather_subset"]), task_vars=task_vars)
        except AnsibleConnectionFailure as error:
            return unreachable(result, task_vars.get("inventory_hostname"), str(error))
        facts.pop("invocation", None)
        result.update(facts)
        result["changed"] = False
        return result


def unreachable(result, host, message):
    """The failed result of a node the first contact could not reach."""
    message = message.strip()
    return dict(result, failed=True, changed=False, node_unreachable=True, reach_msg=message,
                msg=f"{host}: unreachable: {message}")
