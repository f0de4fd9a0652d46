"""Action job_node_start: on one node, wait until the master's port answers from it (module
tcp_port_check) when asked, then start the node's launcher (its start.sh) when given, in one
task. Options and results are documented in plugins/modules/job_node_start.py."""
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.node_action import NodeAction


class ActionModule(NodeAction):
    ARGUMENT_SPEC = dict(
        port_check=dict(type="dict"),
        start=dict(type="list", elements="str"),
    )

    def act(self, args):
        port = None
        if args["port_check"]:
            port = self.module("cluster_suite.hpc.tcp_port_check", dict(args["port_check"], fail_on_unreachable=True))
        if not args["start"] or self._task.check_mode:
            return dict(changed=False, port=port, started=False)
        self.module("ansible.builtin.command", dict(argv=args["start"]))
        return dict(changed=True, port=port, started=True)
