"""Doctor checks ssh_login and ssh_mesh: SSH between every pair of nodes by every name
(module ssh_mesh_check); a failure is reported on the node that has to be fixed."""

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.doctor.checks import (
    join_items, not_checked_reason, shorten)

# ssh_mesh_check statuses: whose side has to be fixed.
SSH_TARGET_SIDE = ("unreachable", "timeout", "auth_refused", "error")
SSH_HINTS = {
    "host_key_unknown": "its host key is not in known_hosts here: run site.yml --tags ssh "
                        "(role ssh_trust writes /etc/ssh/ssh_known_hosts)",
    "host_key_changed": "known_hosts here holds another key for it (reinstalled node, or a wrong "
                        "address): verify the new key, then run site.yml --tags ssh",
    "unresolved": "the name does not resolve here: check /etc/hosts (site.yml --tags ssh manages it)",
    "auth_refused": "login refused: the cluster key is missing from the training user's "
                    "authorized_keys there, or ~/.ssh/id_ed25519 is missing here: run site.yml --tags ssh",
    "unreachable": "connection refused or no route: is sshd running there, and port 22 open?",
    "timeout": "no answer: a firewall dropping port 22, or a wrong address?",
    "error": "see the ssh message",
}


def check_ssh(nodes, hosts, results, out_of_service=()):
    """ssh_login (this node accepts logins) and ssh_mesh (this node logs in to every node).

    A node the node ledger holds out of service is not in the in-service nodes' known_hosts and
    /etc/hosts once site.yml ran without it: their logins to it may fail until it returns."""
    tested = {host: [] for host in hosts}
    for source in hosts:
        mesh = nodes[source].get("mesh")
        for item in (mesh or {}).get("results") or []:
            if item.get("peer") in tested:
                tested[item["peer"]].append((source, item))
    down = set()
    for target in hosts:
        node = nodes[target]
        by_source = {}
        for source, item in tested[target]:
            by_source.setdefault(source, []).append(item)
        refusing = {source: items for source, items in by_source.items()
                    if all(item.get("status") in SSH_TARGET_SIDE for item in items)}
        accepted = sorted(source for source, items in by_source.items()
                          if any(item.get("status") == "ok" for item in items))
        why = "; ".join("%s: %s (%s)" % (source, items[0].get("status"), shorten(items[0].get("message"), 90))
                        for source, items in sorted(refusing.items()))
        if not node.get("reached", True):
            down.add(target)
            message = "Ansible cannot reach %s: %s" % (target, shorten(node.get("unreachable"), 140))
            if refusing:
                message += "; nodes cannot log in either: %s" % why
            if accepted:
                message += ("; %s can log in to it, so check the controller's way in (ansible_host, "
                            "ansible_user, the controller's known_hosts)" % join_items(accepted))
            else:
                message += "; is sshd running on %s and port 22 open?" % target
            results.set("ssh_login", target, "fail", message)
        elif by_source and len(refusing) == len(by_source):
            down.add(target)
            results.set("ssh_login", target, "fail",
                        "no node can log in to %s as the training user: %s; %s" % (
                            target, why, SSH_HINTS.get(next(iter(refusing.values()))[0].get("status"),
                                                       SSH_HINTS["error"])))
        elif not by_source:
            results.set("ssh_login", target, "warn", "not checked: no node tested logins to %s" % target)
        else:
            results.set("ssh_login", target, "ok",
                        "accepts SSH logins from %d node(s) (Ansible too)" % len(by_source))
    for source in hosts:
        node = nodes[source]
        reason = not_checked_reason(source, node)
        mesh = node.get("mesh")
        if reason or mesh is None:
            results.set("ssh_mesh", source, "warn", reason or "not checked: the SSH mesh did not run")
            continue
        items = mesh.get("results") or []
        held_out = set(out_of_service) - {source} if source not in out_of_service else set()
        own = [item for item in items if item.get("status") != "ok" and item.get("peer") not in down
               and item.get("peer") not in held_out]
        derived = sorted({item.get("peer") for item in items
                          if item.get("status") != "ok" and item.get("peer") in down})
        if own:
            lines = []
            for item in own:
                name = item.get("address") or item.get("peer")
                label = name if name == item.get("peer") else "%s as %s" % (item.get("peer"), name)
                lines.append("%s: %s (%s)" % (label, item.get("status"), shorten(item.get("message"), 90)))
            statuses = []
            for item in own:
                if item.get("status") not in statuses:
                    statuses.append(item.get("status"))
            results.set("ssh_mesh", source, "fail",
                        "cannot log in to %d of %d peer name(s): %s. Fix: %s" % (
                            len(own), len(items), "; ".join(lines),
                            " / ".join(SSH_HINTS.get(status, SSH_HINTS["error"]) for status in statuses)))
        elif derived:
            results.set("ssh_mesh", source, "warn",
                        "cannot log in to %s (see its ssh_login); every other peer name works" % join_items(derived))
        else:
            skipped = sorted({item.get("peer") for item in items
                              if item.get("status") != "ok" and item.get("peer") in held_out})
            results.set("ssh_mesh", source, "ok",
                        "logs in to every node by every name in batch mode (%d logins)%s" % (
                            len(items) - len([item for item in items if item.get("peer") in skipped]),
                            "; not to %s, held out of service by the node ledger" % join_items(skipped)
                            if skipped else ""))
    return down
