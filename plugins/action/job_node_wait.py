"""Action job_node_wait: wait for the job on one node (module job_processes, state wait) and,
when asked, once every rank of the node recorded its exit and nothing of the job is left there,
gather its logs at once (action job_node_gather), in one task. Options and results are
documented in plugins/modules/job_node_wait.py."""
import time

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.node_action import NodeAction, StepFailed


class ActionModule(NodeAction):
    ARGUMENT_SPEC = dict(
        wait=dict(type="dict", required=True),
        gather=dict(type="dict"),
        ranks=dict(type="list", elements="int", default=[]),
    )

    def act(self, args):
        # In check mode nothing was started: no rank will record an exit.
        ranks = [] if self._task.check_mode else args["ranks"]
        waited = self.module("cluster_suite.hpc.job_processes", dict(args["wait"], state="wait", ranks=ranks))
        if "activity" in waited:
            # The controller's clock at the reading: a later round's hang verdict ages the reading
            # of a node that has ended (and is no longer waited for) by the time since.
            waited["activity"]["at"] = time.time()
        # A node whose every rank recorded its exit and with no process of the job left has written
        # all it will: its logs are final. (No process alone may mean none started yet.)
        exited = set(waited["finished_ranks"]) | set(waited["failed_ranks"])
        if args["gather"] and waited["count"] == 0 and set(ranks) <= exited:
            try:
                waited["gathered"] = self.action("cluster_suite.hpc.job_node_gather", args["gather"])
                waited["changed"] = waited["gathered"]["changed"]
            except StepFailed as failed:
                # Not this task's failure: the launch's own gather tries again after the wait and
                # fails there, as a gather, when it fails again.
                waited["gather_failed"] = failed.result.get("msg")
        return waited
