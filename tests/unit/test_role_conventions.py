"""The conventions docs/architecture.md states for roles, checked on the roles themselves: a role
that reads a value of role cluster (cluster_*) lists cluster under dependencies in meta/main.yml,
so that the value has its home and its default wherever the role runs; every playbook validates
first."""
import os
import re
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROLES = os.path.join(ROOT, "roles")
# A value of role cluster: cluster_<name>, not the collection's name (cluster_suite) nor a filter or
# module of it (cluster_suite.hpc.cluster_inventory_problems).
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


def test_roles_run_on_their_own_check_their_settings_first_through_one_entry():
    for role in SELF_CHECKING:
        with open(os.path.join(ROLES, role, "tasks", "main.yml"), encoding="utf-8") as handle:
            first = yaml.safe_load(handle)[0]
        assert first["ansible.builtin.include_role"] == {"name": "cluster_suite.hpc.cluster",
                                                         "tasks_from": "check_settings"}, role
        assert first["vars"] == {"cluster_checked_role": role}
    with open(os.path.join(ROLES, "cluster", "tasks", "check_settings.yml"), encoding="utf-8") as handle:
        entry = yaml.safe_load(handle)
    assert entry[0]["cluster_suite.hpc.validate_settings"]["roles"] == ["{{ cluster_checked_role }}"]
    # one entry: no role keeps a validation task file of its own
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
    assert include[0]["ansible.builtin.include_role"]["apply"] == {"tags": "{{ cluster_carry_role.tags }}"}
    assert all(task["tags"] == ["always"] for task in block["block"] + block["rescue"])
