"""Action job_summary: unpack a node's log archive, or summarise a job, on the controller.

Options and results are documented in plugins/modules/job_summary.py.
"""
import json
import os

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.controller_action import ActionError, ControllerAction
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.job_failures import (
    CatalogueError, diagnose, hang_lines, load_catalogue)
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.job_log_summary import (
    diagnosis_logs, render, summarize)
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.job_log_unpack import UnpackError, unpack_logs
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.job_stacks import (
    analyse, render as render_stacks, write_stacks)


def unpack(args, check_mode):
    """Unpack one node's archive under <log_root>/<host>/ and remove the archive."""
    host, archive = args["host"], args["archive"]
    if not host:
        raise ActionError("job_summary: archive %s is given without host (the node it comes from)" % archive)
    if check_mode and not os.path.exists(archive):
        return dict(changed=False, files=0, bytes=0, not_copied=[])
    try:
        result = unpack_logs(archive, args["log_root"], host, check=check_mode)
    except UnpackError as exc:
        raise ActionError("%s: the logs of job %s were not unpacked: %s" % (host, args["job"], exc)) from exc
    if not check_mode:
        os.unlink(archive)
    warnings = ["%s: %s in the logs of job %s was not copied: %s" % (host, item["member"], args["job"], item["reason"])
                for item in result["not_copied"]]
    return dict(result, changed=not check_mode, warnings=warnings)


def summary_of(args):
    """The summary dict of the job from its gathered logs."""
    try:
        expected = {int(rank): host for rank, host in args["expected"].items()}
    except (TypeError, ValueError) as exc:
        raise ActionError("expected: keys must be ranks (integers)") from exc
    summary = summarize(args["log_root"], args["job"], args["launcher"], expected,
                        args["running_hosts"], args["not_copied"], args["hosts"])
    summary.update(args["extra"])
    if args["catalogue"]:
        try:
            catalogue = load_catalogue(args["catalogue"])
        except CatalogueError as exc:
            raise ActionError("catalogue: %s" % exc) from exc
        if (summary.get("hang") or {}).get("hung"):
            summary["result"] = "hung"
        diagnose(summary, diagnosis_logs(args["log_root"], args["hosts"]), catalogue, args["clocks"])
        summary["text"] = render(summary)
    summary["text"] += "".join("\n" + line for line in hang_lines(summary.get("hang")))
    if summary.get("timed_out") and summary["result"] != "succeeded":
        summary["text"] += "\n  the job did not finish within job_timeout and was stopped"
    if args["stacks"]:
        exits = {row["rank"]: row["exit"] for row in summary["ranks"] if row.get("exit") is not None}
        started = [row["rank"] for row in summary["ranks"] if row.get("logs") or row.get("exit") is not None]
        summary["stacks"] = analyse(args["stacks"], expected, exits, started)
        summary["stacks"]["folder"] = os.path.join(args["log_root"], "stacks")
        summary["stacks"]["text"] = "\n".join(render_stacks(summary["stacks"], summary["stacks"]["folder"]))
        summary["text"] += "\n" + summary["stacks"]["text"]
    return summary


class ActionModule(ControllerAction):
    ARGUMENT_SPEC = dict(
        log_root=dict(type="path", required=True),
        job=dict(type="str", required=True),
        launcher=dict(type="str"),
        expected=dict(type="dict", default={}),
        running_hosts=dict(type="list", elements="str", default=[]),
        extra=dict(type="dict", default={}),
        hosts=dict(type="list", elements="str"),
        dest=dict(type="path"),
        not_copied=dict(type="dict", default={}),
        catalogue=dict(type="dict", default={}),
        clocks=dict(type="dict", default={}),
        stacks=dict(type="dict", default={}),
        archive=dict(type="path"),
        host=dict(type="str"),
    )

    def act(self, args, check_mode):
        if args["archive"]:
            return unpack(args, check_mode)
        summary = summary_of(args)
        dest = args["dest"] or os.path.join(args["log_root"], "summary.json")
        if not check_mode:
            if args["stacks"]:
                try:
                    write_stacks(args["log_root"], args["stacks"], summary["stacks"], summary["stacks"]["text"])
                except (OSError, ValueError) as exc:
                    raise ActionError("the stacks of job %s were not written: %s" % (args["job"], exc)) from exc
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, "w", encoding="utf-8") as handle:
                json.dump(summary, handle, indent=2, sort_keys=True)
                handle.write("\n")
        return dict(changed=not check_mode, summary=summary, result=summary["result"], text=summary["text"])
