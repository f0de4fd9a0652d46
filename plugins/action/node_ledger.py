"""Action node_ledger: read or update the node ledger of an inventory, on the controller.

Options and results are documented in plugins/modules/node_ledger.py; the ledger itself in
plugins/plugin_utils/fleet/ledger.py.
"""
import datetime

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.fleet import carry_on
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.fleet import ledger as node_ledger
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.fleet import ledger_view
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.controller_action import ActionError, ControllerAction

OPERATIONS = ("read", "record", "quarantine", "retire", "return", "add", "host_key", "upgraded")


def apply(args, check_mode, now):
    """The result of one operation; writes the ledger unless in check mode or nothing changed."""
    nodes = {str(name): (str(address) if address is not None else None) for name, address in args["nodes"].items()}
    operation, names = args["action"], [str(name) for name in args["names"]]
    strangers = sorted(set(names) - set(nodes)) + sorted(set(args["findings"]) - set(nodes))
    if strangers:
        raise ActionError("node_ledger: %s: not a node of the inventory; nothing was changed" % ", ".join(strangers))
    if operation in ("quarantine", "retire") and not args["reason"]:
        raise ActionError("node_ledger: %s needs a reason (the operator's words are recorded)" % operation)
    if operation in ("quarantine", "retire", "return", "add", "host_key") and not names:
        raise ActionError("node_ledger: %s needs the nodes to act on" % operation)
    path = node_ledger.ledger_path(args["ledger_dir"], args["inventory"])
    when = node_ledger.now_text(now)
    try:
        with node_ledger.locked(path):
            ledger = node_ledger.read(path, args["inventory"], nodes)
            if operation == "record" and args.get("max_fail_percentage") is not None:
                states = {name: entry.get("state") for name, entry in ledger["nodes"].items()}
                limit = carry_on.verdict_limit(args["findings"], states, args["max_fail_percentage"])
                if limit["stopped"]:
                    raise ActionError("node_ledger: " + carry_on.limit_message(limit, args["max_fail_percentage"]))
            if operation == "record":
                changed = node_ledger.record(ledger, nodes, args["findings"], when)
            elif operation == "quarantine":
                changed = node_ledger.quarantine(ledger, nodes, names, args["reason"], when)
            elif operation == "retire":
                changed = node_ledger.retire(ledger, nodes, names, args["reason"], when)
            elif operation == "return":
                changed = node_ledger.return_to_service(ledger, nodes, names, when,
                                                        args["reason"] if args["force"] else None)
            elif operation == "add":
                changed = node_ledger.add(ledger, nodes, names, when, args["reason"] if args["force"] else None)
            elif operation == "upgraded":
                changed = node_ledger.upgraded(ledger, nodes, names, when)
            elif operation == "host_key":
                fingerprints = [str(item) for item in args.get("fingerprints") or []]
                changed = node_ledger.host_key(ledger, nodes, names, fingerprints,
                                               args.get("accepted_by") or "fingerprint", args["reason"], when)
            else:
                changed = []
            written = operation != "read" and not check_mode
            if written:
                node_ledger.write(path, ledger)
    except (node_ledger.LedgerError, OSError) as error:
        raise ActionError("node_ledger: %s; nothing was changed" % error) from error
    result = ledger_view.view(ledger, sorted(nodes), args["max_age"], now)
    return dict(result, changed=bool(changed), nodes_changed=changed, ledger=path,
                table=ledger_view.table(result["rows"]))


class ActionModule(ControllerAction):
    ARGUMENT_SPEC = dict(
        ledger_dir=dict(type="path", required=True),
        inventory=dict(type="str", required=True),
        nodes=dict(type="dict", required=True),
        action=dict(type="str", default="read", choices=list(OPERATIONS)),
        findings=dict(type="dict", default={}),
        names=dict(type="list", elements="str", default=[]),
        reason=dict(type="str", default=""),
        force=dict(type="bool", default=False),
        fingerprints=dict(type="list", elements="str", default=[]),
        accepted_by=dict(type="str", default="fingerprint", choices=["fingerprint", "trust_on_first_use"]),
        max_age=dict(type="int", default=7 * 24 * 3600),
        max_fail_percentage=dict(type="int"),
    )

    def act(self, args, check_mode):
        percent = args.get("max_fail_percentage")
        if percent is not None and not 0 <= percent <= 100:
            raise ActionError("node_ledger: max_fail_percentage (cluster_max_fail_percentage): %s is not a whole "
                              "number from 0 to 100; nothing was changed" % percent)
        for name, finding in args["findings"].items():
            if not isinstance(finding, dict) or finding.get("source") not in node_ledger.SOURCES \
                    or finding.get("result") not in node_ledger.RESULTS:
                raise ActionError("node_ledger: finding of %s needs source (%s) and result (pass or fail)"
                                  % (name, ", ".join(node_ledger.SOURCES)))
        return apply(args, check_mode, datetime.datetime.now(datetime.timezone.utc))
