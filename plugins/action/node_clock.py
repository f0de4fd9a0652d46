"""Action node_clock: a node's clock against the controller's, and its time service.

Options and results are documented in plugins/modules/node_clock.py; the arithmetic in
plugins/plugin_utils/fleet/clock.py. Each read is one shell command on the node's connection
(`date +%s.%N`, no module transferred) between two controller timestamps, so the round trip and
with it the uncertainty stay small; the read with the shortest round trip counts.
"""
import time

from ansible.plugins.action import ActionBase

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.fleet import clock as node_clock

# The names of the node's processes (for the time service), one per line.
PROCESS_NAMES = "cat /proc/[0-9]*/comm 2>/dev/null; true"


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _supports_check_mode = True

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        _, args = self.validate_argument_spec(argument_spec=dict(reads=dict(type="int", default=5)))
        if not 1 <= args["reads"] <= 50:
            return dict(result, failed=True, msg="node_clock: reads must be from 1 to 50, got %s" % args["reads"])
        reads = []
        try:
            for _ in range(args["reads"]):
                before = time.time()
                out = self._low_level_execute_command("date +%s.%N", sudoable=False)
                after = time.time()
                if out.get("rc") != 0:
                    return dict(result, failed=True, msg="node_clock: `date +%%s.%%N` failed on the node: %s"
                                % (out.get("stderr") or out.get("stdout") or "rc %s" % out.get("rc")).strip())
                reads.append(node_clock.read_offset(before, out.get("stdout", ""), after))
            best = node_clock.best_read(reads)
        except node_clock.ClockError as error:
            return dict(result, failed=True, msg="node_clock: %s" % error)
        names = self._low_level_execute_command(PROCESS_NAMES, sudoable=False)
        best["sync_service"] = node_clock.sync_service(names.get("stdout", "").splitlines())
        result.update(best, changed=False)
        return result
