"""The conventions docs/architecture.md states for roles, checked on the roles themselves: a role
that reads a value of role cluster (cluster_*) lists cluster under dependencies in meta/main.yml,
so that the value has its home and its default wherever the role runs; every playbook validates
first; what a role sets for itself is named _<role>_*, apart from its settings and the values it
publishes."""
import functools
import os
import re
import sys

import yaml

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import inventory_settings

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROLES = os.path.join(ROOT, "roles")
# A value of role cluster: cluster_<name>, not the collection's name (cluster_suite) nor a name
# after a dot (a plugin of the collection).
SHARED = re.compile(r"(?<![\w.])cluster_(?!suite\b)[a-z_]+")
# Role validate_inventory reads the inventory as it is, before any role's defaults apply.
NOT_READERS = {"cluster", "validate_inventory"}


def role_text(role):
    """Tasks, templates, defaults, vars and handlers of a role, without YAML comment lines."""
    text = []
    for folder in ("tasks", "templates", "defaults", "vars", "handlers"):
        path = os.path.join(ROLES, role, folder)
        for name in sorted(os.listdir(path)) if os.path.isdir(path) else []:
            with open(os.path.join(path, name), encoding="utf-8") as handle:
                lines = handle.read().splitlines()
            if name.endswith(".yml"):
                lines = [line for line in lines if not line.lstrip().startswith("#")]
            text.extend(lines)
    return "\n".join(text)


def dependencies(role):
    with open(os.path.join(ROLES, role, "meta", "main.yml"), encoding="utf-8") as handle:
        meta = yaml.safe_load(handle) or {}
    return [item["role"] if isinstance(item, dict) else item for item in meta.get("dependencies") or []]


def readers_without_dependency():
    return sorted(role for role in os.listdir(ROLES) if role not in NOT_READERS and SHARED.search(role_text(role))
                  and "cluster_suite.hpc.cluster" not in dependencies(role))


def test_every_reader_of_a_shared_value_depends_on_cluster():
    assert readers_without_dependency() == []
    # The rule has something to hold for: most roles read a shared value.
    assert sum(1 for role in os.listdir(ROLES) if SHARED.search(role_text(role))) >= 8


def test_a_reader_without_the_dependency_is_caught(monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "dependencies", lambda role: [])
    assert "openmpi" in readers_without_dependency() and "ssh_trust" in readers_without_dependency()


# The roles Molecule also runs on their own, which check their settings from their first task.
SELF_CHECKING = ("firewall", "openmpi", "python_env")


def test_roles_run_on_their_own_check_their_settings_first_with_the_one_action():
    for role in SELF_CHECKING:
        with open(os.path.join(ROLES, role, "tasks", "main.yml"), encoding="utf-8") as handle:
            first = yaml.safe_load(handle)[0]
        # every node of the play in one task result, on the controller
        assert first["cluster_suite.hpc.validate_settings"] == {
            "roles": [role], "hosts": "{{ ansible_play_batch }}", "typos": False}, role
        assert first["run_once"] is True, role
    # one action: no role keeps a validation task file of its own
    assert [role for role in os.listdir(ROLES) if os.path.exists(os.path.join(ROLES, role, "tasks", "validate.yml"))] == []


def test_every_playbook_validates_before_anything_else():
    """Each playbook's first entry imports playbooks/validate.yml (the bad-input corpus relies on
    it: an inventory case runs through one playbook, not through each)."""
    playbooks = os.path.join(ROOT, "playbooks")
    names = sorted(name for name in os.listdir(playbooks) if name.endswith(".yml") and name != "validate.yml")
    assert "site.yml" in names and "launch.yml" in names
    for name in names:
        with open(os.path.join(playbooks, name), encoding="utf-8") as handle:
            first = yaml.safe_load(handle)[0]
        assert first.get("ansible.builtin.import_playbook") == "validate.yml", name


def test_site_plays_run_their_roles_through_carry_on_with_no_tag_above_the_include():
    """Each provisioning play of site.yml is one untagged task importing role cluster's
    tasks/carry_on.yml; there the include of the roles sits under no tagged block. An included
    role's tasks inherit the tags above its include: `always` there would run every role under
    any --tags (docs/architecture.md, Roles)."""
    with open(os.path.join(ROOT, "playbooks", "site.yml"), encoding="utf-8") as handle:
        plays = yaml.safe_load(handle)
    carrying = [play for play in plays if "max_fail_percentage" in play]
    roles = []
    for play in carrying:
        (task,) = play["tasks"]
        assert task["ansible.builtin.import_role"] == {"name": "cluster_suite.hpc.cluster", "tasks_from": "carry_on"}
        assert "tags" not in task, play["name"]
        roles += [(entry["role"], entry["tags"]) for entry in task["vars"]["cluster_carry_roles"]]
    assert [name.rsplit(".", 1)[1] for name, _ in roles] == [
        "firewall", "ssh_trust", "openmpi", "npu_network", "npu_env", "python_env"]
    assert [tags for _, tags in roles] == [["firewall"], ["ssh"], ["openmpi"], ["npu_network"], ["npu_env"],
                                          ["python_env"]]
    with open(os.path.join(ROLES, "cluster", "tasks", "carry_on.yml"), encoding="utf-8") as handle:
        (block, check) = yaml.safe_load(handle)
    assert "tags" not in block and check["tags"] == ["always"]
    include = [task for task in block["block"] if "ansible.builtin.include_role" in task]
    assert len(include) == 1 and include[0]["tags"] == ["always"]
    assert include[0]["ansible.builtin.include_role"]["apply"] == {"tags": "{{ _cluster_carry_role.tags }}"}
    assert all(task["tags"] == ["always"] for task in block["block"] + block["rescue"])


# --- internal names ---------------------------------------------------------------------------

# The names a role sets for others to read (docs/architecture.md, "Published values"), with who
# reads them; everything else a role sets is _<role>_<name>.
PUBLISHED = {
    "cluster": {
        "cluster_ledger",  # roles acceptance, doctor, fleet, job; filters ledger.py, carry_on.py
        "cluster_peer_plan",  # roles doctor, acceptance, npu_network: the pairs of nodes tested
        "cluster_carry_percentage",  # playbooks/site.yml: the plays' max_fail_percentage
    },
    "npu_network": {  # the role's README, "Published facts"
        "npu_network_device_plan",  # role doctor (tasks/expect.yml, tasks/main.yml)
        "npu_network_netdetect_result",  # plugin_utils/doctor/report.py
        "npu_network_applied",  # molecule/npu/verify.yml
        "npu_network_netdetect_report",  # molecule/npu/verify.yml
        "npu_network_netdetect_failures",  # a playbook after tasks/netdetect.yml
    },
    "openmpi": {
        "openmpi_host_state",  # role fleet, tasks/upgrade_gate.yml
        "openmpi_plan",  # molecule/openmpi/verify.yml
    },
    "fleet": {
        "fleet_upgrade_serial",  # playbooks/upgrade.yml: serial
    },
    "firewall": {
        "firewall_firewalld_ports",  # molecule/firewall/verify.yml, after tasks/rules.yml
        "firewall_firewalld_rich_rules",  # molecule/firewall/verify.yml, after tasks/rules.yml
    },
}
# Values other roles pass to role cluster's task files (its inputs, not its internals).
CLUSTER_INPUTS = {"cluster_ledger_findings", "cluster_ledger_fail_limit", "cluster_peer_nodes",
                  "cluster_peer_exhaustive_max_nodes", "cluster_carry_roles",
                  "cluster_carry_reach"}
SET_FACT = ("ansible.builtin.set_fact", "set_fact")


def load_yaml(path):
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def settings_of(role):
    """A role's settings: the names of its defaults/main.yml and meta/argument_specs.yml."""
    names = set()
    defaults = os.path.join(ROLES, role, "defaults", "main.yml")
    if os.path.exists(defaults):
        names |= set(load_yaml(defaults) or {})
    specs = os.path.join(ROLES, role, "meta", "argument_specs.yml")
    if os.path.exists(specs):
        for entry in (load_yaml(specs) or {}).get("argument_specs", {}).values():
            names |= set((entry or {}).get("options") or {})
    return names


def names_set_by_tasks(tasks, where):
    """(kind, name, where) of every set_fact key, register, loop_var and task-level vars name."""
    for task in tasks or []:
        if not isinstance(task, dict):
            continue
        for key in ("block", "rescue", "always"):
            yield from names_set_by_tasks(task.get(key), where)
        for key in SET_FACT:
            if isinstance(task.get(key), dict):
                yield from (("set_fact", name, where) for name in task[key] if name != "cacheable")
        if "register" in task:
            yield "register", task["register"], where
        if "loop_var" in (task.get("loop_control") or {}):
            yield "loop_var", task["loop_control"]["loop_var"], where
        if isinstance(task.get("vars"), dict):
            yield from (("vars", name, where) for name in task["vars"])


def names_set_by(role):
    """(kind, name, file) of what role sets: in tasks/ and handlers/, and the names of vars/*.yml."""
    for folder in ("tasks", "handlers"):
        path = os.path.join(ROLES, role, folder)
        for name in sorted(os.listdir(path)) if os.path.isdir(path) else []:
            if name.endswith(".yml"):
                yield from names_set_by_tasks(load_yaml(os.path.join(path, name)), f"{folder}/{name}")
    path = os.path.join(ROLES, role, "vars")
    for name in sorted(os.listdir(path)) if os.path.isdir(path) else []:
        if name.endswith(".yml"):
            yield from (("vars/", key, f"vars/{name}") for key in load_yaml(os.path.join(path, name)) or {})


@functools.lru_cache(maxsize=None)
def passed_on():
    """What a task's vars may hand to another role's task file (include_role ... tasks_from): that
    role's settings, its inputs, its internals."""
    roles = os.listdir(ROLES)
    return set(CLUSTER_INPUTS).union(*(settings_of(role) for role in roles)), tuple(f"_{role}_" for role in roles)


def misnamed(role, found=None):
    """What role sets under a name other than _<role>_*, its settings and its published values."""
    allowed = settings_of(role) | PUBLISHED.get(role, set()) | (CLUSTER_INPUTS if role == "cluster" else set())
    other_names, other_internals = passed_on()
    problems = []
    for kind, name, where in names_set_by(role) if found is None else found:
        if name.startswith(f"_{role}_") or name in allowed:
            continue
        if kind == "vars" and (name in other_names or name.startswith(other_internals)):
            continue
        problems.append(f"roles/{role}/{where}: {kind} {name}")
    return problems


def test_what_a_role_sets_for_itself_is_named_underscore_role():
    roles = sorted(os.listdir(ROLES))
    assert [problem for role in roles for problem in misnamed(role)] == []
    # the rule has something to hold for: every kind occurs, in most roles
    kinds = {kind for role in roles for kind, _, _ in names_set_by(role)}
    assert kinds == {"set_fact", "register", "loop_var", "vars", "vars/"}
    assert sum(1 for role in roles if any(name.startswith(f"_{role}_") for _, name, _ in names_set_by(role))) >= 10


def test_published_values_are_set_by_their_role_and_named_in_the_architecture_doc():
    with open(os.path.join(ROOT, "docs", "architecture.md"), encoding="utf-8") as handle:
        doc = handle.read()
    for role, names in PUBLISHED.items():
        set_here = {name for _, name, _ in names_set_by(role)}
        for name in sorted(names):
            assert name in set_here, (role, name)
            assert f"`{name}`" in doc, name
    for name in sorted(CLUSTER_INPUTS):
        assert f"`{name}`" in doc, name
    # The typo checks know them as well (the roles of inventory_settings.TYPO_ROLES).
    assert inventory_settings.PUBLISHED == {name for role, names in PUBLISHED.items()
                                            if role in inventory_settings.TYPO_ROLES for name in names}


def test_a_misnamed_fact_register_loop_var_or_vars_name_is_caught(monkeypatch):
    fed = [("set_fact", "firewall_active", "tasks/main.yml"), ("register", "openmpi_private_stat", "tasks/x.yml"),
           ("loop_var", "openmpi_item", "tasks/x.yml"), ("vars/", "ssh_trust_key_comment", "vars/main.yml"),
           ("vars", "__npu_env_names", "tasks/main.yml"), ("set_fact", "results", "tasks/main.yml"),
           ("vars", "problems", "tasks/main.yml")]
    assert misnamed("firewall", fed[:1]) == ["roles/firewall/tasks/main.yml: set_fact firewall_active"]
    assert len(misnamed("openmpi", fed[1:3])) == 2
    assert misnamed("ssh_trust", fed[3:4]) == ["roles/ssh_trust/vars/main.yml: vars/ ssh_trust_key_comment"]
    assert misnamed("npu_env", fed[4:5]) == ["roles/npu_env/tasks/main.yml: vars __npu_env_names"]
    assert misnamed("job", fed[5:]) == ["roles/job/tasks/main.yml: set_fact results",
                                        "roles/job/tasks/main.yml: vars problems"]
    # settings, published values and _<role>_ names pass
    assert misnamed("firewall", [("vars", "firewall_allowed_sources", "t"), ("set_fact", "firewall_firewalld_ports", "t"),
                                 ("register", "_firewall_active", "t")]) == []
    # a task's vars may hand another role's task file its settings, inputs and internals
    assert misnamed("acceptance", [("vars", "cluster_ledger_findings", "t"), ("vars", "_openmpi_private_path", "t"),
                                   ("vars", "acceptance_fail", "t")]) == []
    # and the walk over the role's files finds a misnamed fact in a block's rescue
    tasks = [{"block": [{"ansible.builtin.debug": {}}], "rescue": [{"ansible.builtin.set_fact": {"doctor_seen": 1}}]}]
    real = load_yaml
    doctor_main = os.path.join("doctor", "tasks", "main.yml")
    monkeypatch.setattr(sys.modules[__name__], "load_yaml",
                        lambda path: tasks if path.endswith(doctor_main) else real(path))
    assert misnamed("doctor") == ["roles/doctor/tasks/main.yml: set_fact doctor_seen"]
