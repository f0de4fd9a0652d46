"""Action job_summary: unpack a node's log archive, or summarise a job, on the controller.

Options and results are documented in plugins/modules/job_summary.py.
"""
import json
import os

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.controller_action import ActionError, ControllerAction
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs.failures import (
    CatalogueError, diagnose, hang_lines, load_catalogue)
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs.log_summary import (
    diagnosis_logs, render, summarize)
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs.log_unpack import UnpackError, unpack_logs
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs.flight import flight_records, with_flight_records
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs.stacks import analyse, render as render_stacks, write_stacks


SUMMARY_INPUTS = "summary_inputs.json"
SUMMARY_INPUT_NAMES = ("job", "launcher", "expected", "running_hosts", "extra", "hosts", "not_copied", "clocks",
                       "stacks")


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
    stacks = job_stacks(args, summary, expected)
    if stacks:
        summary["stacks"] = analyse(stacks, expected, *_rank_exits(summary))
        summary["stacks"]["folder"] = os.path.join(args["log_root"], "stacks")
        summary["stacks"]["text"] = "\n".join(render_stacks(summary["stacks"], summary["stacks"]["folder"]))
        # Held up by names the others than the rank that failed first, never a rank whose own
        # failure says it was waiting for another (a collective that gave up).
        first = (summary.get("first_failure") or {}).get("rank")
        waited = {row["rank"] for row in summary["ranks"] if (row.get("diagnosis") or {}).get("waited")}
        summary["held_up_by"] = [item for item in summary["stacks"]["likely_cause"]
                                 if item["rank"] != first and item["rank"] not in waited]
    summary["text"] = render(summary)
    summary["text"] += "".join("\n" + line for line in hang_lines(summary.get("hang")))
    if summary.get("timed_out") and summary["result"] != "succeeded":
        summary["text"] += "\n  the job did not finish within job_timeout and was stopped"
    if stacks:
        summary["text"] += "\n" + summary["stacks"]["text"]
    return summary, stacks


def _rank_exits(summary):
    """({rank: exit} of the ranks' records, [ranks that started]) for job_stacks.analyse."""
    exits = {row["rank"]: row["exit"] for row in summary["ranks"] if row.get("exit") is not None}
    started = [row["rank"] for row in summary["ranks"] if row.get("logs") or row.get("exit") is not None]
    return exits, started


def job_stacks(args, summary, expected):
    """The stacks to analyse: py-spy's dumps of the ranks alive (args["stacks"]) and, when the job
    did not succeed, the flight records of the ranks that did not return 0."""
    if summary["result"] in ("succeeded", "running"):
        return args["stacks"]
    exits, _started = _rank_exits(summary)
    hosts = args["hosts"] if args["hosts"] is not None else sorted(set(expected.values()))
    ended = {row["rank"]: row["time"] for row in summary["ranks"] if row.get("time") is not None}
    flight = flight_records(args["log_root"], hosts, exits, ended)
    return with_flight_records(args["stacks"], flight) if flight else args["stacks"]


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
        summary, stacks = summary_of(args)
        dest = args["dest"] or os.path.join(args["log_root"], "summary.json")
        if not check_mode:
            if stacks:
                try:
                    write_stacks(args["log_root"], stacks, summary["stacks"], summary["stacks"]["text"])
                except (OSError, ValueError) as exc:
                    raise ActionError("the stacks of job %s were not written: %s" % (args["job"], exc)) from exc
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, "w", encoding="utf-8") as handle:
                json.dump(summary, handle, indent=2, sort_keys=True)
                handle.write("\n")
            # What the summary was made from besides the logs, so that it can be made again
            # (summary_of) with a newer catalogue or summariser.
            with open(os.path.join(os.path.dirname(dest), SUMMARY_INPUTS), "w", encoding="utf-8") as handle:
                json.dump({name: args[name] for name in SUMMARY_INPUT_NAMES}, handle, indent=1, sort_keys=True)
                handle.write("\n")
        return dict(changed=not check_mode, summary=summary, result=summary["result"], text=summary["text"])
