"""Action python_env_node_read: read a node for role python_env (module python_env_facts) and judge
what it read against the settings and the compatibility table on the controller, in one task.
Options and results are documented in plugins/modules/python_env_node_read.py; the judgement is
plugins/plugin_utils/provision/python_env.py."""
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.ansible_values import plain
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.node_action import NodeAction, StepFailed
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.provision import python_env


class ActionModule(NodeAction):
    ARGUMENT_SPEC = dict(
        read=dict(type="dict", required=True),
        settings=dict(type="dict", required=True),
        compat=dict(type="dict", required=True),
        backend=dict(type="str", required=True),
        host=dict(type="str", required=True),
    )

    def act(self, args):
        node = self.module("cluster_suite.hpc.python_env_facts", args["read"])
        host = args["host"]
        errors, warnings = python_env.combination_problems(
            host, plain(args["settings"]), plain(args["compat"]), (node.get("cann") or {}).get("version") or None,
            args["backend"])
        if "error" in node["python"]:
            errors = ["%s: python_env_base_python: %s" % (host, node["python"]["error"])] + errors
        if errors:
            raise StepFailed(dict(node, msg=["The training environment does not fit %s; nothing was changed:" % host]
                                  + errors))
        return dict(node, changed=False, warnings=warnings) if warnings else dict(node, changed=False)
