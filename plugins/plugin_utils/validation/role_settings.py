"""Every role's settings, checked one way: the one validation path of the collection.

For each role:
  - its options, with their types and choices, read from roles/<role>/meta/argument_specs.yml
    (every entry point);
  - its defaults, read from roles/<role>/defaults/main.yml (never copied);
  - its own rules (RULES: role -> function(settings, host, groups=None) -> [problems]), which
    call the role's rule module (firewall_settings, openmpi_build, python_env, npu_env_settings,
    doctor_settings, acceptance_settings, inventory_checks);
  - one typo check: unknown <role>_* names the inventory (or -e) sets, with the nearest known name.

Run by the action plugin validate_settings (plugins/action/validate_settings.py) from
playbooks/validate.yml, which every playbook imports first, and from each role's first task when
the role runs on its own. Each problem names the host and the variable.
"""
import difflib
import functools
import os
import re

import yaml

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import acceptance as acceptance_settings
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import doctor as doctor_settings
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import firewall as firewall_settings
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import inventory as inventory_checks
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import inventory_settings
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation.text import host_text
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs import launchers as job_launchers
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import npu_env as npu_env_settings
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.provision import openmpi_build
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.acceptance import peer_sample
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.provision import python_env
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.fleet import rolling_upgrade

ROLES_DIR = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "roles"))
# Settings of role cluster a role's rules read beyond its own options (their defaults are role
# cluster's): role -> (variable, ...).
SHARED = {"ssh_trust": ("cluster_allow_root",), "python_env": ("cluster_backend",),
          "doctor": peer_sample.SETTINGS, "acceptance": peer_sample.SETTINGS}
# Variables of the playbook a role's rules read (set as play variables, never in the inventory):
# role -> (variable, ...). _fleet_playbook: the fleet playbook running (add, retire, replace,
# upgrade; fleet.yml sets none).
PLAY_SETTINGS = {"fleet": ("_fleet_playbook",)}
# Roles whose settings are those of one host of the cluster (the controller's tasks use them):
# role -> which host ("master": groups.cluster_master[0], "first": groups.cluster[0]).
ONE_HOST = {"doctor": "master", "acceptance": "first", "fleet": "first"}


class SettingsError(Exception):
    """A role's settings files cannot be read."""


def _load(path):
    try:
        with open(path, encoding="utf-8") as handle:
            return yaml.safe_load(handle) or {}
    except FileNotFoundError:
        return {}
    except (OSError, yaml.YAMLError) as error:
        raise SettingsError(f"cannot read {path}: {error}") from error


def roles(roles_dir=ROLES_DIR):
    """Every role with an argument specs file."""
    return sorted(name for name in os.listdir(roles_dir)
                  if os.path.isfile(os.path.join(roles_dir, name, "meta", "argument_specs.yml")))


@functools.lru_cache(maxsize=None)
def argument_specs(role, roles_dir=ROLES_DIR):
    """{option: its spec} of every entry point of the role (the first entry naming it wins)."""
    data = _load(os.path.join(roles_dir, role, "meta", "argument_specs.yml"))
    options = {}
    for entry in (data.get("argument_specs") or {}).values():
        for name, option in ((entry or {}).get("options") or {}).items():
            options.setdefault(name, option or {})
    return options


@functools.lru_cache(maxsize=None)
def defaults(role, roles_dir=ROLES_DIR):
    """The role's defaults/main.yml, as written (templates are left for Ansible to evaluate)."""
    return dict(_load(os.path.join(roles_dir, role, "defaults", "main.yml")))


@functools.lru_cache(maxsize=None)
def role_vars(role, roles_dir=ROLES_DIR):
    """The role's vars/main.yml, as written: its internals (defaults may use them)."""
    return dict(_load(os.path.join(roles_dir, role, "vars", "main.yml")))


def internal_names(role, roles_dir=ROLES_DIR):
    """The names of roles/<role>/vars/main.yml: the role's internals, never typos."""
    return frozenset(role_vars(role, roles_dir))


def layers(role, host_vars, roles_dir=ROLES_DIR):
    """The variables a role's settings are evaluated with, as Ansible layers them for the role:
    role cluster's defaults (every role reads its shared values), the role's defaults, the
    host's variables, the role's vars/main.yml."""
    found = {}
    for name in ("cluster", role):
        found.update(defaults(name, roles_dir))
    found.update(host_vars)
    found.update(role_vars(role, roles_dir))
    return found


def all_specs(roles_dir=ROLES_DIR):
    """variable -> {"type", "elements", "choices", "role"} of every role (inventory_checks' form)."""
    specs = {}
    for role in roles(roles_dir):
        for name, option in argument_specs(role, roles_dir).items():
            specs.setdefault(name, {"type": option.get("type", "str"), "elements": option.get("elements"),
                                    "choices": option.get("choices"), "role": role})
    return specs


def setting_names(role, roles_dir=ROLES_DIR):
    """The variables a role's rules read: its options, the shared settings and the playbook's
    variables it uses."""
    return list(argument_specs(role, roles_dir)) + list(SHARED.get(role, ())) + list(PLAY_SETTINGS.get(role, ()))


def setting_defaults(role, roles_dir=ROLES_DIR):
    """{variable: default} of setting_names (the role's defaults/main.yml, then role cluster's for SHARED)."""
    found = dict(defaults(role, roles_dir))
    for name in SHARED.get(role, ()):
        found.setdefault(name, defaults("cluster", roles_dir).get(name))
    return found


def hosts_for(role, hosts, groups):
    """The hosts whose settings of ``role`` are checked (ONE_HOST roles: one host of the cluster)."""
    which = ONE_HOST.get(role)
    groups = groups or {}
    if which == "master" and groups.get("cluster_master"):
        return [groups["cluster_master"][0]]
    if which == "first" and groups.get("cluster"):
        return [groups["cluster"][0]]
    return list(hosts)


def typo_problems(host, names, check_roles, roles_dir=ROLES_DIR):
    """Unknown <role>_* names among ``names`` (the variables a host has), for the typo roles
    (inventory_settings.TYPO_ROLES) of ``check_roles``, each with the nearest known name."""
    problems = []
    typo_roles = inventory_settings.TYPO_ROLES
    for role in (role for role in typo_roles if role in check_roles):
        prefix = role + "_"
        known = setting_names(role, roles_dir)
        internal = internal_names(role, roles_dir)
        longer = [other + "_" for other in typo_roles if other != role and other.startswith(prefix)]
        for name in sorted(names):
            if not name.startswith(prefix) or name.startswith(tuple(longer)) or name in known or name in internal \
                    or name in inventory_settings.RENAMED or name in inventory_settings.PUBLISHED:
                continue
            problems.append(f"{host_text(host)}: {name}: {inventory_settings.typo_text(name, role, known)}")
    return problems


def bool_problems(role, settings, host, roles_dir=ROLES_DIR):
    """A bool setting given as text (`-e name=true` arrives as the string "true") is refused, with
    the way to pass a boolean on the command line."""
    problems = []
    for name, option in argument_specs(role, roles_dir).items():
        value = settings.get(name)
        if option.get("type") == "bool" and isinstance(value, str):
            problems.append(f"{host}: {name}: must be true or false, got str {value!r}; on the command line "
                            f"pass it as JSON: -e '{{\"{name}\": true}}'")
    return problems


def choice_problems(role, settings, host, roles_dir=ROLES_DIR):
    """A setting outside the choices of the role's argument spec (the one place they are written)."""
    problems = []
    for name, option in argument_specs(role, roles_dir).items():
        choices = option.get("choices")
        if choices and name in settings and settings[name] not in choices:
            problems.append(f"{host}: {name}: {settings[name]} is not one of {', '.join(map(str, choices))}")
    return problems


# --- the roles' own rules ---------------------------------------------------------------------

def _firewall(settings, host, groups=None):
    return firewall_settings.settings_errors(settings, host)


def _openmpi(settings, host, groups=None):
    settings = dict(settings)
    path = settings.get("openmpi_source_file") or ""
    settings["openmpi_source_file_exists"] = bool(path) and os.path.isfile(path)
    names = ("openmpi_version", "openmpi_source_url", "openmpi_source_file", "openmpi_source_file_exists",
             "openmpi_source_sha256", "openmpi_prefix", "openmpi_configure_flags", "openmpi_build_strategy",
             "openmpi_build_dir", "openmpi_ring_dir")
    return openmpi_build.settings_errors({name: settings.get(name) for name in names}, host)


PYTHON_ENV_COMPAT = os.path.join(ROLES_DIR, "python_env", "files", "compat.yml")


def cluster_backend(settings, host, groups=None):
    """cluster_backend with auto resolved from the host's group (as role python_env's vars do)."""
    return job_launchers.node_backend(host, groups or {}, settings)


def _python_env(settings, host, groups=None):
    names = ("python_env_mindspore_version", "python_env_torch_version", "python_env_torch_npu_version",
             "python_env_apex_version", "python_env_extra_requirements", "python_env_cann_version",
             "cluster_backend", "python_env_py_spy_version")
    errors, _ = python_env.combination_problems(host, {name: settings.get(name) for name in names},
                                                _load(PYTHON_ENV_COMPAT), None,
                                                cluster_backend(settings, host, groups))
    return errors


def _npu_env(settings, host, groups=None):
    return [f"{host}: {problem}" for problem in npu_env_settings.settings_problems(settings)]


def _ssh_trust(settings, host, groups=None):
    problems = []
    group = settings.get("ssh_trust_group")
    if groups is not None and host not in (groups.get(group) or []):
        problems.append(f"{host}: ssh_trust_group: this host is not in group '{group}'; run the role on that "
                        "group's nodes")
    user = settings.get("ssh_trust_user")
    allow_root = settings.get("cluster_allow_root") in (True, "true", "True", "yes", "1", 1)
    found = inventory_checks.user_name_problem(user, allow_root)
    if found in ("control", "invalid"):
        problems.append(f"{host}: ssh_trust_user: {user} is not a valid user name")
    elif found == "root":
        problems.append(f"{host}: ssh_trust_user: root is refused unless cluster_allow_root is true (MindSpore's "
                        f"mpirun and GPU guides recommend a non-root training user; mpirun would also need "
                        f"--allow-run-as-root)")
    group = settings.get("ssh_trust_npu_group")
    if group not in ("", None) and not (isinstance(group, str) and GROUP_NAME.fullmatch(group)):
        problems.append(f"{host}: ssh_trust_npu_group: {group} is not a valid group name")
    name = settings.get("ssh_trust_cluster_name")
    if not isinstance(name, str) or not inventory_checks.CLUSTER_NAME.fullmatch(name):
        problems.append(f"{host}: ssh_trust_cluster_name: {name} may only hold letters, digits, '.', '_' and '-' "
                        f"(it names a directory and the key comment)")
    return problems


def _doctor(settings, host, groups=None):
    return (doctor_settings.settings_errors({name: settings.get(name) for name in doctor_settings.SETTINGS}, host)
            + peer_sample.settings_errors(settings, host))


def _acceptance(settings, host, groups=None):
    return acceptance_settings.settings_errors(dict(settings), host) + peer_sample.settings_errors(settings, host)


# A group name as groupadd takes it on Debian and RHEL (mixed case allowed: the driver's HwHiAiUser).
GROUP_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,31}")
FINGERPRINT = re.compile(r"SHA256:[A-Za-z0-9+/]{43}")
# What playbooks/fleet.yml does; the other actions have a playbook each (add.yml, ...).
FLEET_PLAYBOOK_ACTIONS = ("list", "quarantine", "retire", "return")


def _fleet(settings, host, groups=None):
    """The input of playbooks/fleet.yml, add.yml, retire.yml, replace.yml and upgrade.yml, refused before the
    ledger is read or any node changes: the nodes must be the inventory's, the operator's reason
    is required where it is recorded, and a replaced node's new host key needs its fingerprint or
    an explicit trust on first use."""
    action, nodes = settings.get("fleet_action"), settings.get("fleet_nodes")
    reason, force = str(settings.get("fleet_reason") or "").strip(), settings.get("fleet_force") is True
    fingerprint = str(settings.get("fleet_host_key_fingerprint") or "").strip()
    first_use = settings.get("fleet_trust_on_first_use") is True
    cluster = list((groups or {}).get("cluster") or [])
    playbook = settings.get("_fleet_playbook") or "fleet"
    if not (action == playbook or (playbook == "fleet" and action in FLEET_PLAYBOOK_ACTIONS)):
        why = ("add and replace are playbooks/add.yml and replace.yml, which also provision the nodes"
               if playbook == "fleet" else "it sets fleet_action itself: leave it out of -e")
        return [f"{host}: fleet_action: {action} is not what playbooks/{playbook}.yml does ({why}); "
                "nothing was changed"]
    if not isinstance(nodes, list):
        return [f"{host}: fleet_nodes: must be a list of node names, got {nodes!r}; on the command line pass "
                "it as JSON: -e '{\"fleet_nodes\": [\"node3\"]}'"]
    found = []
    if action in ("quarantine", "retire", "return", "add", "replace") and not nodes:
        found.append(f"{host}: fleet_nodes: {action} needs the nodes to act on")
    strangers = [str(node) for node in nodes if node not in cluster]
    if strangers:
        found.append(f"{host}: fleet_nodes: {', '.join(strangers)}: not a node of the inventory (group cluster: "
                     f"{', '.join(cluster) or 'empty'}); nothing was changed")
    if action in ("quarantine", "retire") and not reason:
        found.append(f"{host}: fleet_reason: {action} needs a reason (the operator's words are recorded)")
    if action in ("return", "add") and force and not reason:
        found.append(f"{host}: fleet_reason: a forced {action} (fleet_force) needs a reason, which is recorded")
    if action == "replace":
        found += _fleet_replace(host, nodes, reason, fingerprint, first_use)
    found += rolling_upgrade.batch_size_problems(settings.get("fleet_batch_size", 1), host)
    if reason and any(ord(char) < 32 for char in reason):
        found.append(f"{host}: fleet_reason: one line of text, no control characters")
    return found


def _fleet_replace(host, nodes, reason, fingerprint, first_use):
    """replace.yml: one node at a time, and its new host key accepted one explicit way."""
    found = []
    if len(nodes) > 1:
        found.append(f"{host}: fleet_nodes: replace takes one node at a time (its host key fingerprint is "
                     f"given), got {', '.join(str(node) for node in nodes)}")
    if fingerprint and first_use:
        found.append(f"{host}: fleet_trust_on_first_use: give either fleet_host_key_fingerprint or "
                     "fleet_trust_on_first_use, not both")
    elif fingerprint and not FINGERPRINT.fullmatch(fingerprint):
        found.append(f"{host}: fleet_host_key_fingerprint: {fingerprint!r} is not an OpenSSH SHA256 fingerprint "
                     "(SHA256: and 43 characters, as `ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub` prints "
                     "it on the node's console)")
    elif not fingerprint and not first_use:
        found.append(f"{host}: fleet_host_key_fingerprint: replace needs the fingerprint of "
                     f"{', '.join(str(node) for node in nodes) or 'the node'}'s new host key (or "
                     "fleet_trust_on_first_use with fleet_reason, which is recorded); a new key is never "
                     "accepted silently")
    if first_use and not reason:
        found.append(f"{host}: fleet_reason: trusting a host key on first use (fleet_trust_on_first_use) needs "
                     "a reason, which is recorded")
    return found


RULES = {
    "firewall": _firewall,
    "openmpi": _openmpi,
    "python_env": _python_env,
    "npu_env": _npu_env,
    "ssh_trust": _ssh_trust,
    "doctor": _doctor,
    "acceptance": _acceptance,
    "fleet": _fleet,
}


def problems(role, settings, host, groups=None, roles_dir=ROLES_DIR):
    """Every problem of one host's settings of ``role`` (its options, valued as the host has
    them, else the role's defaults): text given for a bool, a value outside the spec's choices,
    then the role's own rules."""
    found = [] if role in inventory_settings.RUN_ROLES else bool_problems(role, settings, host, roles_dir)
    found += choice_problems(role, settings, host, roles_dir)
    rule = RULES.get(role)
    return found + (rule(settings, host, groups) if rule else [])
