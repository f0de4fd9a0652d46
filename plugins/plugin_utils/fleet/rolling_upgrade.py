"""The rolling upgrade of playbooks/upgrade.yml: its batch size, whether a node needs the
upgrade, the gate's verdict on a batch and the message of a stopped upgrade.

Plain Python, no Ansible imports; used by plugins/filter/rolling_upgrade.py and
plugins/plugin_utils/validation/role_settings.py, tested in tests/unit/test_rolling_upgrade.py.
"""
import re

PERCENT = re.compile(r"([0-9]{1,3})%")


def batch_size_problems(value, host):
    """Problems of fleet_batch_size: a whole number of nodes from 1, or a percentage of the nodes
    to upgrade from 1% to 100% (Ansible's ``serial``)."""
    where = f"{host}: fleet_batch_size"
    if isinstance(value, bool):
        return [f"{where}: {value!r} is not a number of nodes (1 or more) or a percentage (1% to 100%)"]
    if isinstance(value, int):
        return [] if value >= 1 else [f"{where}: {value} nodes per batch: give 1 or more"]
    text = str(value).strip()
    if text.isdigit():
        return [] if int(text) >= 1 else [f"{where}: {text} nodes per batch: give 1 or more"]
    match = PERCENT.fullmatch(text)
    if match and 1 <= int(match.group(1)) <= 100:
        return []
    return [f"{where}: {value!r} is not a number of nodes (1 or more) or a percentage (1% to 100%)"]


def needs_upgrade(pins, installed, env_exists, openmpi_needs_install):
    """Whether a node did not hold what the settings ask for before the upgrade ran on it: a pin
    (``[{"name", "version"}]``) whose installed version (``{name: version or None}``, read before
    the install) differs, no environment yet, or OpenMPI to (re)install. A provided environment
    (nothing pinned, nothing read) needs nothing of role python_env."""
    if openmpi_needs_install:
        return True
    if pins and not env_exists:
        return True
    installed = installed or {}
    return any(str(installed.get(pin["name"])) != str(pin["version"]) or installed.get(pin["name"]) is None
               for pin in pins or [])


def gate_failures(batch, doctor_report, acceptance_report, quarantined):
    """{node: why} for the nodes of ``batch`` the gate failed: a failed doctor check on the node, a
    node acceptance left out of the healthy ones, or a node the node ledger now holds quarantined
    (``quarantined``: {node: the ledger's note}). Empty when the batch passed."""
    failures = {}
    for entry in (doctor_report or {}).get("entries", []):
        node = entry.get("node")
        if node in batch and entry.get("status") == "fail" and node not in failures:
            failures[node] = f"doctor: {entry.get('check')}: {entry.get('message', '')}"
    excluded = dict((acceptance_report or {}).get("excluded") or {})
    for node in batch:
        if node in excluded and node not in failures:
            failures[node] = f"acceptance: {excluded[node]}"
    for node in batch:
        if node in (quarantined or {}) and node not in failures:
            failures[node] = f"node ledger: quarantined: {quarantined[node]}"
    if acceptance_report and not acceptance_report.get("passed", True) and not failures:
        failures = {node: "acceptance: the batch did not pass as a whole" for node in batch}
    return {node: failures[node] for node in batch if node in failures}


def untouched(nodes, passed, batch):
    """The nodes of the upgrade neither in a batch that passed nor in the stopped batch, in order."""
    return [node for node in nodes if node not in passed and node not in batch]


def stop_message(batch, why, quarantined, passed, left):
    """The lines that end a stopped upgrade: the batch and why it stopped ({node: why}), the nodes
    the ledger holds quarantined ({node: note}), the nodes upgraded and gated, and those left on
    the previous environment."""
    lines = [f"The upgrade stopped at the batch {', '.join(batch)}:"]
    lines += [f"  {node}: {why[node]}" for node in batch if node in why]
    lines.append("Quarantined in the node ledger (no launch gives them a rank; return them with "
                 "playbooks/fleet.yml -e fleet_action=return once repaired):")
    lines += [f"  {node}: {quarantined[node]}" for node in sorted(quarantined)] or ["  none"]
    lines.append(f"Upgraded and gated: {', '.join(passed) or 'none'}")
    lines.append(f"Not upgraded, still on the previous environment: {', '.join(left) or 'none'}")
    lines.append("Jobs must not span both sets (a launch's version check refuses mixed versions); "
                 "run playbooks/upgrade.yml again to go on.")
    return lines
