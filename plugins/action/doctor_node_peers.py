"""Action doctor_node_peers: the doctor's checks from one node toward the others in one task (module
ssh_mesh_check, module tcp_port_check), then the training user's probe collected (async_status
until it finished, then its job file removed). Options and results are documented in
plugins/modules/doctor_node_peers.py."""
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.node_action import NodeAction


class ActionModule(NodeAction):
    ARGUMENT_SPEC = dict(
        mesh=dict(type="dict", required=True),
        port_check=dict(type="dict", required=True),
        probe_job=dict(type="str", required=True),
        probe_wait=dict(type="int", default=300),
    )

    def act(self, args):
        mesh = self.module("cluster_suite.hpc.ssh_mesh_check", args["mesh"])
        port = self.module("cluster_suite.hpc.tcp_port_check", args["port_check"])
        user = self.collected(args["probe_job"], args["probe_wait"], "doctor_node_peers: the training user's probe")
        return dict(changed=False, mesh=mesh, port_connect=port, user=user)
