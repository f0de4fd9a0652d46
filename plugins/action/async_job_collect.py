"""Action async_job_collect: the result of an async job Ansible started on this node, polled on
the node until it finished and its job file removed, in one task. Options and results are
documented in plugins/modules/async_job_collect.py."""
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.node_action import NodeAction


class ActionModule(NodeAction):
    ARGUMENT_SPEC = dict(
        jid=dict(type="str", required=True),
        wait=dict(type="int", default=600),
        what=dict(type="str", default="the job"),
    )

    def act(self, args):
        # A job that finished failed fails here too: NodeAction.action raises on a failed result.
        return self.collected(args["jid"], args["wait"], args["what"])
