"""Filters of playbooks/upgrade.yml (role fleet, tasks/upgrade_*.yml); the logic is
plugins/plugin_utils/fleet/rolling_upgrade.py."""
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.fleet import rolling_upgrade


def upgrade_needed(pins, installed, env_exists, openmpi_needs_install):
    return rolling_upgrade.needs_upgrade(list(pins or []), dict(installed or {}), bool(env_exists),
                                         bool(openmpi_needs_install))


def upgrade_gate_failures(batch, doctor_report, acceptance_report, quarantined):
    return rolling_upgrade.gate_failures(list(batch), dict(doctor_report or {}), dict(acceptance_report or {}),
                                         dict(quarantined or {}))


def upgrade_untouched(nodes, passed, batch):
    return rolling_upgrade.untouched(list(nodes), list(passed or []), list(batch))


def upgrade_stop_message(batch, why, quarantined, passed, left):
    return rolling_upgrade.stop_message(list(batch), dict(why or {}), dict(quarantined or {}), list(passed or []),
                                        list(left or []))


class FilterModule:
    def filters(self):
        return {
            "upgrade_needed": upgrade_needed,
            "upgrade_gate_failures": upgrade_gate_failures,
            "upgrade_untouched": upgrade_untouched,
            "upgrade_stop_message": upgrade_stop_message,
        }
