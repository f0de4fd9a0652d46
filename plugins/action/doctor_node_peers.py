"""Action doctor_node_peers: the doctor's checks from one node toward the others in one task (module
ssh_mesh_check, module tcp_port_check), then the training user's probe collected (async_status
until it finished, then its job file removed). Options and results are documented in
plugins/modules/doctor_node_peers.py."""
import time

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.node_action import NodeAction, StepFailed


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
        return dict(changed=False, mesh=mesh, port_connect=port, user=self.collected(args["probe_job"], args["probe_wait"]))

    def collected(self, job, wait):
        """The result of async job ``job`` once it finished (polled once a second for up to
        ``wait`` seconds), its job file removed."""
        for _ in range(max(wait, 1)):
            status = self.action("ansible.builtin.async_status", dict(jid=job))
            if status.get("finished"):
                self.action("ansible.builtin.async_status", dict(jid=job, mode="cleanup"))
                return status
            time.sleep(1)
        raise StepFailed(dict(msg="doctor_node_peers: the training user's probe (async job %s) did not finish within "
                                  "%d s" % (job, wait)))
