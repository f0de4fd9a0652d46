"""Action job_node_gather: a job's logs from one node to the controller in one task: the node's
clock (action node_clock), the logs packed on the node (module job_workspace), fetched (action
fetch) into a private folder this action makes and removes, and unpacked under
logs/<job>/<host>/ (action job_summary's unpack). Options and results are documented in
plugins/modules/job_node_gather.py."""
import os
import shutil
import tempfile

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.node_action import NodeAction


class ActionModule(NodeAction):
    ARGUMENT_SPEC = dict(
        workspace=dict(type="dict", required=True),
        archive=dict(type="path", required=True),
        log_root=dict(type="path", required=True),
        job=dict(type="str", required=True),
    )

    def act(self, args):
        clock = self.action("cluster_suite.hpc.node_clock", {})
        clock = {"offset": clock["offset"], "uncertainty": clock["uncertainty"]}
        self.module("cluster_suite.hpc.job_workspace", dict(args["workspace"], state="packed"))
        if self._task.check_mode:
            # Nothing is fetched in check mode.
            return dict(changed=False, clock=clock, not_copied=[])
        host = self._step_vars["inventory_hostname"]
        # The archive is data written by the job: it lands in a folder of this action's own (mode
        # 0700, never the project, where a planted link could redirect the fetch), removed after.
        private = tempfile.mkdtemp(prefix="cluster-suite-logs.")
        try:
            local = os.path.join(private, "logs.tar.gz")
            self.action("ansible.builtin.fetch", dict(src=args["archive"], dest=local, flat=True))
            unpacked = self.action("cluster_suite.hpc.job_summary", dict(
                log_root=args["log_root"], job=args["job"], host=host, archive=local))
        finally:
            shutil.rmtree(private, ignore_errors=True)
        return dict(changed=True, clock=clock, files=unpacked.get("files"), not_copied=unpacked.get("not_copied", []),
                    warnings=unpacked.get("warnings", []))
