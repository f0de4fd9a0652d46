"""Action job_node_check: a launch's checks of one node in one task (module job_preflight, then
module job_interfaces), before anything is copied or started. Options and results are documented
in plugins/modules/job_node_check.py."""
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.node_action import NodeAction


class ActionModule(NodeAction):
    ARGUMENT_SPEC = dict(
        preflight=dict(type="dict", required=True),
        interfaces=dict(type="dict", required=True),
    )

    def act(self, args):
        preflight = self.module("cluster_suite.hpc.job_preflight", args["preflight"])
        interfaces = self.module("cluster_suite.hpc.job_interfaces", args["interfaces"])
        return dict(changed=False, problems=preflight["problems"], interface_problems=interfaces["problems"],
                    preflight=preflight, interfaces=interfaces)
