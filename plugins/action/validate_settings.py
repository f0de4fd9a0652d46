"""Action validate_settings: the inventory, every role's settings of the hosts given and the job
description, checked on the controller: the one action of playbooks/validate.yml.

Options and results are documented in plugins/modules/validate_settings.py; the checks are
plugins/plugin_utils/validation/gate.py and role_settings.py.
"""
from ansible.errors import AnsibleError

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import gate, role_settings
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.ansible_values import plain
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.controller_action import ActionError, ControllerAction

try:  # ansible-core 2.19: text read from a file is evaluated only once trusted
    from ansible.template import trust_as_template
except ImportError:  # pragma: no cover - older ansible-core
    def trust_as_template(value):
        return value


def _trusted(value):
    """A default as written in defaults/main.yml, its templates trusted (it is the role's own file)."""
    if isinstance(value, str):
        return trust_as_template(value)
    if isinstance(value, dict):
        return {key: _trusted(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_trusted(item) for item in value]
    return value


# Variables of the play (not of one host): another host's settings are evaluated with the
# current play's, as they would be when the role runs there.
PLAY_VARS = ("ansible_play_hosts", "ansible_play_hosts_all", "ansible_play_batch", "play_hosts", "ansible_play_name",
             "playbook_dir", "ansible_check_mode", "ansible_diff_mode", "ansible_run_tags", "ansible_skip_tags",
             "ansible_forks", "ansible_config_file", "ansible_playbook_python", "ansible_version", "omit",
             *(name for names in role_settings.PLAY_SETTINGS.values() for name in names))


class ActionModule(ControllerAction):
    ARGUMENT_SPEC = {
        "inventory": {"type": "bool", "default": False},
        "roles": {"type": "list", "elements": "str", "default": []},
        "hosts": {"type": "list", "elements": "str"},
        "typos": {"type": "bool", "default": True},
        "job": {"type": "dict"},
        "job_playbook": {"type": "str", "default": "launch"},
        "job_full": {"type": "bool", "default": True},
        "job_project_dir": {"type": "str", "default": "."},
        "job_launch_python": {"type": "str", "default": "python3"},
        "controller_in_run": {"type": "bool", "default": True},
        "limit": {"type": "str", "default": ""},
        "whole_group": {"type": "str", "default": ""},
        "fail": {"type": "bool", "default": True},
    }

    def run(self, tmp=None, task_vars=None):
        self._vars = task_vars or {}
        return super().run(tmp, task_vars)

    def _host_vars(self, host):
        """A host's variables as written: the task's own for this host (include_role vars
        count), the inventory's (and -e) for the others."""
        if host == self._vars.get("inventory_hostname"):
            return self._vars
        found = {name: self._vars[name] for name in PLAY_VARS if name in self._vars}
        found.update(self._vars.get("hostvars", {}).raw_get(host))
        return found

    def _settings(self, role, host, host_vars, problems):
        """{variable: value} of the role's settings as the host has them, else the role's
        defaults, evaluated as Ansible would for the role on that host."""
        own = set(host_vars.keys())
        available = {name: _trusted(value) for name, value in role_settings.layers(role, {}).items()}
        available.update({name: host_vars[name] for name in own})
        available.update({name: _trusted(value) for name, value in role_settings.role_vars(role).items()})
        templar = self._templar.copy_with_new_env(available_variables=available)
        found = {}
        for name in role_settings.setting_names(role):
            if name not in available:
                continue
            try:
                found[name] = plain(templar.template(available[name]), scalars=True)
            except AnsibleError as error:
                problems.append(f"{host}: {name}: cannot be evaluated: {str(error).splitlines()[0]}")
        return found

    def act(self, args, check_mode):
        sections, facts = [], {}  # (heading of the failure message, problems); facts to set
        groups = plain(self._vars.get("groups", {}), scalars=True)
        run_problems = [] if args["controller_in_run"] else [gate.limit_problem(args["limit"])]
        if args["whole_group"]:
            in_run = self._vars.get("ansible_play_hosts_all", [])
            run_problems.append(gate.partial_run_problem(
                args["limit"], [host for host in groups.get("cluster", []) if host not in in_run], args["whole_group"]))
        if any(run_problems):
            sections.append(("The run has {} problem(s); nothing was changed:", [text for text in run_problems if text]))
        if args["inventory"]:
            try:
                found = gate.inventory_problems(groups, self._vars.get("hostvars", {}))
            except role_settings.SettingsError as error:
                raise ActionError(f"validate_settings: {error}") from error
            sections.append(("The inventory has {} problem(s); nothing was changed:", found))
            # The plays on the nodes ask whether this one ran (a --limit can leave it out).
            facts = {} if found else {"_validate_inventory_checked": True}
        if args["roles"]:
            sections.append(("The settings have {} problem(s); nothing was changed:",
                             self._role_problems(args, groups)))
        if args["job"] is not None:
            found = gate.job_problems(args["job"], self._vars.get("groups", {}), self._vars.get("hostvars", {}),
                                      args["job_project_dir"], args["job_launch_python"], args["job_playbook"],
                                      args["job_full"])
            sections.append(("job description: {} problem(s):", found))
        problems = [problem for _, found in sections for problem in found]
        if problems and args["fail"]:
            msg = [line for heading, found in sections if found
                   for line in [heading.format(len(found))] + found]
            return {"failed": True, "changed": False, "problems": problems, "msg": msg}
        return {"changed": False, "problems": problems, "ansible_facts": facts}

    def _role_problems(self, args, groups):
        known = role_settings.roles()
        unknown = [role for role in args["roles"] if role not in known]
        if unknown:
            raise ActionError(f"validate_settings: roles: unknown role(s) {', '.join(unknown)} (known: {', '.join(known)})")
        hosts = args["hosts"] or [self._vars.get("inventory_hostname")]
        problems = []
        checked = {}
        for role in args["roles"]:
            for host in role_settings.hosts_for(role, hosts, groups):
                checked.setdefault(host, []).append(role)
                settings = self._settings(role, host, self._host_vars(host), problems)
                problems += role_settings.problems(role, settings, host, groups)
        if args["typos"]:
            for host, roles in checked.items():
                problems += role_settings.typo_problems(host, list(self._host_vars(host).keys()), roles)
        return list(dict.fromkeys(problems))
