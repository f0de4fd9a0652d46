"""The OS vars each role reads for a node, from the file chosen as geerlingguy's roles choose it
(plugins/plugin_utils/provision/os_vars.py), against the roles' real vars/ directories."""
import pathlib

import pytest
import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.cluster_suite.hpc.plugins.filter.os_vars import os_vars, os_vars_file
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.provision.os_vars import DEFAULT, candidates, first_found

ROLES = pathlib.Path(__file__).resolve().parents[2] / "roles"
OS_VARS_ROLES = ["firewall", "openmpi", "ssh_trust"]


def facts(distribution, version, family, major=None):
    return {"distribution": distribution, "distribution_version": version,
            "distribution_major_version": major or version.split(".")[0], "os_family": family}


def test_most_specific_first():
    assert candidates(facts("Rocky", "9.3", "RedHat")) == [
        "Rocky-9.3.yml", "Rocky-9.yml", "Rocky.yml", "RedHat.yml", DEFAULT]


def test_version_equal_to_major_is_tried_once():
    assert candidates(facts("Debian", "12", "Debian")) == ["Debian-12.yml", "Debian.yml", DEFAULT]


def test_spaces_in_a_distribution_name_become_underscores():
    names = candidates(facts("Kylin Linux Advanced Server", "V10", "RedHat"))
    assert names == ["Kylin_Linux_Advanced_Server-V10.yml", "Kylin_Linux_Advanced_Server.yml",
                     "RedHat.yml", DEFAULT]


def test_missing_facts_fall_back_to_default():
    assert candidates({}) == [DEFAULT]
    assert candidates(None) == [DEFAULT]
    assert candidates({"os_family": "Suse"}) == ["Suse.yml", DEFAULT]


def test_first_found_prefers_the_distribution_file():
    available = ["Debian.yml", "Ubuntu-22.yml", DEFAULT]
    assert first_found(facts("Ubuntu", "22.04", "Debian"), available) == "Ubuntu-22.yml"
    assert first_found(facts("Ubuntu", "24.04", "Debian"), available) == "Debian.yml"
    assert first_found(facts("Gentoo", "2.15", "Gentoo"), available) == DEFAULT
    assert first_found(facts("Gentoo", "2.15", "Gentoo"), ["Debian.yml"]) is None


FIELD = [
    # (facts as Ansible reports them, the vars file each role must load)
    (facts("Debian", "12.5", "Debian"), "Debian.yml"),
    (facts("Ubuntu", "22.04", "Debian"), "Debian.yml"),
    (facts("openEuler", "22.03", "RedHat"), "RedHat.yml"),
    (facts("EulerOS", "2.0", "RedHat"), "RedHat.yml"),
    (facts("Kylin Linux Advanced Server", "V10", "RedHat"), "RedHat.yml"),
    (facts("CentOS", "7.9.2009", "RedHat"), "RedHat.yml"),
    (facts("Rocky", "9.3", "RedHat"), "RedHat.yml"),
    (facts("Archlinux", "rolling", "Archlinux"), DEFAULT),
]


@pytest.mark.parametrize("role", OS_VARS_ROLES)
@pytest.mark.parametrize("node,expected", FIELD, ids=[f[0]["distribution"] for f in FIELD])
def test_each_role_loads_its_family_file(role, node, expected):
    available = [p.name for p in (ROLES / role / "vars").glob("*.yml")]
    assert first_found(node, available) == expected


@pytest.mark.parametrize("role", OS_VARS_ROLES)
def test_every_os_file_sets_the_same_names(role):
    """A variable only one family's file sets would be undefined on the others."""
    files = [p for p in (ROLES / role / "vars").glob("*.yml") if p.name != "main.yml"]
    assert {p.name for p in files} >= {"Debian.yml", "RedHat.yml", DEFAULT}
    names = {p.name: set(yaml.safe_load(p.read_text())) for p in files}
    assert all(keys == names[DEFAULT] for keys in names.values()), names


@pytest.mark.parametrize("role", OS_VARS_ROLES)
def test_the_role_reads_its_os_vars_through_the_filter(role):
    """No include_vars task (a task result per node): vars/main.yml reads each name of the OS files."""
    assert not [path for path in (ROLES / role / "tasks").glob("*.yml")
                for task in yaml.safe_load(path.read_text()) or [] if "ansible.builtin.include_vars" in task]
    role_vars = yaml.safe_load((ROLES / role / "vars" / "main.yml").read_text())
    assert role_vars[f"_{role}_os"] == "{{ ansible_facts | cluster_suite.hpc.os_vars(role_path) }}"
    names = set(yaml.safe_load((ROLES / role / "vars" / DEFAULT).read_text()))
    assert {name: role_vars.get(name) for name in names} == {name: f"{{{{ _{role}_os.{name} }}}}" for name in names}


@pytest.mark.parametrize("role", OS_VARS_ROLES)
@pytest.mark.parametrize("node,expected", FIELD, ids=[f[0]["distribution"] for f in FIELD])
def test_the_filter_gives_the_variables_of_the_roles_file(role, node, expected):
    assert os_vars_file(node, ROLES / role) == str(ROLES / role / "vars" / expected)
    assert os_vars(node, ROLES / role) == yaml.safe_load((ROLES / role / "vars" / expected).read_text())


def test_the_filter_refuses_a_node_without_its_facts():
    with pytest.raises(AnsibleFilterError, match="the node's facts have no distribution, os_family: gather them first"):
        os_vars({}, ROLES / "firewall")
    with pytest.raises(AnsibleFilterError, match="have no os_family"):
        os_vars({"distribution": "Debian"}, ROLES / "firewall")


def test_the_filter_refuses_a_role_without_vars(tmp_path):
    with pytest.raises(AnsibleFilterError, match="cannot list"):
        os_vars_file({}, tmp_path)
    (tmp_path / "vars").mkdir()
    (tmp_path / "vars" / "main.yml").write_text("---\n")
    with pytest.raises(AnsibleFilterError, match="has no default.yml"):
        os_vars_file({}, tmp_path)
    (tmp_path / "vars" / "default.yml").write_text("- a list\n")
    with pytest.raises(AnsibleFilterError, match="is not a mapping of variables"):
        os_vars(facts("Debian", "12", "Debian"), tmp_path)
