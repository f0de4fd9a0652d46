"""Action doctor_node_system: the doctor's look at one node's system in one task (module
doctor_probe with what=system, then action node_clock). Options and results are documented in
plugins/modules/doctor_node_system.py."""
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.node_action import NodeAction


class ActionModule(NodeAction):
    ARGUMENT_SPEC = dict(
        probe=dict(type="dict", required=True),
        clock_reads=dict(type="int", default=5),
    )

    def act(self, args):
        system = self.module("cluster_suite.hpc.doctor_probe", dict(args["probe"], what="system"))
        clock = self.action("cluster_suite.hpc.node_clock", dict(reads=args["clock_reads"]))
        return dict(changed=False, system=system, clock=clock)
