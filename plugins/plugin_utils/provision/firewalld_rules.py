"""firewalld rules of the firewall role: what it wants, and what to add and remove to get there.

Plain functions over plain data (no Ansible imports), used by plugins/filter/firewalld_rules.py
and unit tested in tests/unit/test_firewalld_rules.py.

firewalld cannot label a rule with its owner (ufw rules carry a comment), so the role keeps a
*record* of the rules it added on the node (a JSON list). A rule is the role's own when the
record has it; a wanted rule that was already there before the role added it (an
administrator's) is never recorded, so it is never removed either. Each run: add the wanted
rules that are missing, remove the recorded rules that are no longer wanted and still present,
never remove an SSH rule, and record the wanted rules that are the role's own.

A rule: {"kind": "port" | "rich_rule", "rule": "8118/tcp" or 'rule family="ipv4" ...',
"purpose": "ssh" | "master" | "hccl" | "mpi" | "extra"}.
"""
import json
import re

KINDS = ("port", "rich_rule")


def wanted_rules(ssh_port, ports, sources):
    """The rules the role wants, in the order to add them: SSH to any source first, then every
    training port to any source (``sources`` empty) or as a rich rule per allowed source.

    ``ports``: [{"name": purpose, "port": "8118" or "60000:60015"}]; ``sources``: IPv4 CIDRs.
    """
    rules = [{"kind": "port", "rule": f"{ssh_port}/tcp", "purpose": "ssh"}]
    for entry in ports:
        port = str(entry["port"]).replace(":", "-")
        if not sources:
            rules.append({"kind": "port", "rule": f"{port}/tcp", "purpose": entry["name"]})
        for source in sources or []:
            rules.append({"kind": "rich_rule", "purpose": entry["name"],
                          "rule": f'rule family="ipv4" source address="{source}" port '
                                  f'port="{port}" protocol="tcp" accept'})
    unique, seen = [], set()
    for rule in rules:
        if _key(rule) not in seen:
            seen.add(_key(rule))
            unique.append(rule)
    return unique


def _norm(text):
    return re.sub(r"\s+", " ", str(text)).strip()


def _key(rule):
    return (rule["kind"], _norm(rule["rule"]))


def parse_present(stdout):
    """The rules firewalld has, from the role's listing: a line "ports: 22/tcp 8118/tcp" (the
    output of --list-ports), then one rich rule per line (--list-rich-rules)."""
    present = []
    for line in (stdout or "").splitlines():
        line = line.strip()
        if line.startswith("ports:"):
            present += [{"kind": "port", "rule": p} for p in line[len("ports:"):].split()]
        elif line:
            present.append({"kind": "rich_rule", "rule": line})
    return present


def parse_record(text):
    """The record of the rules the role added ([] when missing or unreadable)."""
    try:
        data = json.loads(text) if text else []
    except (TypeError, ValueError):
        return []
    if not isinstance(data, list):
        return []
    return [r for r in data if isinstance(r, dict) and r.get("kind") in KINDS
            and isinstance(r.get("rule"), str)]


def plan(wanted, present, recorded, ssh_port=None):
    """What to change: {"add": [...], "remove": [...], "record": [...], "record_before": [...]}.

    add: wanted rules firewalld does not have, in the wanted order. remove: recorded rules that
    are no longer wanted and firewalld still has, except SSH (the rule of ``ssh_port`` or any
    rule recorded as SSH). record: the wanted rules that are the role's own (recorded before, or
    added now). record_before: what to record before changing anything (record + remove), so
    that a run that stops half-way still knows which rules are its own.
    """
    present_keys = {_key(r) for r in present}
    recorded_keys = {_key(r) for r in recorded}
    wanted_keys = {_key(r) for r in wanted}
    ssh_keys = {("port", f"{ssh_port}/tcp")} if ssh_port not in (None, "") else set()
    ssh_keys |= {_key(r) for r in wanted + recorded if r.get("purpose") == "ssh"}

    add = [r for r in wanted if _key(r) not in present_keys]
    remove, seen = [], set()
    for rule in recorded:
        key = _key(rule)
        if key in wanted_keys or key in ssh_keys or key not in present_keys or key in seen:
            continue
        seen.add(key)
        remove.append(dict(rule))
    record = [_entry(r) for r in wanted
              if _key(r) in recorded_keys or _key(r) not in present_keys]
    # An SSH rule the role once added stays recorded as its own, though never removed.
    record += [_entry(r) for r in recorded
               if _key(r) in ssh_keys and _key(r) not in wanted_keys and _key(r) in present_keys]
    return {"add": add, "remove": remove, "record": _dedup(record),
            "record_before": _dedup(record + [_entry(r) for r in remove])}


def _entry(rule):
    return {"kind": rule["kind"], "rule": _norm(rule["rule"]), "purpose": rule.get("purpose", "")}


def _dedup(rules):
    out, seen = [], set()
    for rule in rules:
        if _key(rule) not in seen:
            seen.add(_key(rule))
            out.append(rule)
    return out
