"""plugins/plugin_utils/validation/role_settings.py: every role's settings checked one way (the specs and
defaults read from the roles, one typo check, each role's own rules), and validation/npu_env.py."""
import os

import pytest
import yaml

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import inventory_settings
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import npu_env as npu_env_settings
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import role_settings

ROLES = role_settings.ROLES_DIR


def _yaml(*parts):
    with open(os.path.join(ROLES, *parts), encoding="utf-8") as handle:
        return yaml.safe_load(handle) or {}


def test_defaults_are_read_from_defaults_main_yml():
    for role in role_settings.roles():
        path = os.path.join(ROLES, role, "defaults", "main.yml")
        expected = _yaml(role, "defaults", "main.yml") if os.path.exists(path) else {}
        assert role_settings.defaults(role) == expected, role


def test_every_default_is_an_option_of_the_role():
    for role in role_settings.roles():
        unknown = set(role_settings.defaults(role)) - set(role_settings.argument_specs(role))
        assert not unknown, f"{role}: defaults without an argument spec: {sorted(unknown)}"


def test_options_of_every_entry_point_are_read(tmp_path):
    meta = tmp_path / "demo" / "meta"
    meta.mkdir(parents=True)
    (meta / "argument_specs.yml").write_text(yaml.safe_dump({"argument_specs": {
        "main": {"options": {"demo_a": {"type": "int"}}},
        "other": {"options": {"demo_b": {"type": "bool"}, "demo_a": {"type": "str"}}}}}))
    options = role_settings.argument_specs("demo", str(tmp_path))
    assert options == {"demo_a": {"type": "int"}, "demo_b": {"type": "bool"}}
    assert role_settings.all_specs(str(tmp_path))["demo_b"]["role"] == "demo"


def test_all_specs_holds_every_role_setting():
    specs = role_settings.all_specs()
    assert specs["firewall_mode"]["role"] == "firewall"
    assert specs["firewall_mode"]["choices"] == ["disabled", "open_ports"]
    assert specs["job_name"]["role"] == "job"


def test_a_typo_is_named_with_the_nearest_setting():
    names = ["firewall_mode", "firewall_modee", "openmpi_verion", "npu_env_extra", "inventory_hostname"]
    assert role_settings.typo_problems("n1", names, ["firewall", "npu_env"]) == [
        "n1: firewall_modee: unknown variable (not a setting of role firewall; did you mean firewall_mode?)"]
    assert role_settings.typo_problems("n1", names, ["openmpi"]) == [
        "n1: openmpi_verion: unknown variable (not a setting of role openmpi; did you mean openmpi_version?)"]


def test_internals_and_renamed_settings_are_not_typos():
    internal = sorted(role_settings.internal_names("doctor"))
    names = internal + ["doctor_master_port", "_doctor_anything", "npu_env_path"]
    assert role_settings.typo_problems("n1", names, inventory_settings.TYPO_ROLES) == []


def test_internals_of_vars_main_yml_are_not_typos(tmp_path, monkeypatch):
    for role, text in (("demo", "demo_a: 1\n"),):
        (tmp_path / role / "meta").mkdir(parents=True)
        (tmp_path / role / "vars").mkdir()
        (tmp_path / role / "meta" / "argument_specs.yml").write_text(
            "argument_specs:\n  main:\n    options:\n      demo_a: {type: int}\n")
        (tmp_path / role / "vars" / "main.yml").write_text("demo_table: {}\n" + text)
    monkeypatch.setattr(inventory_settings, "TYPO_ROLES", ("demo",))
    found = role_settings.typo_problems("n1", ["demo_a", "demo_table", "demo_b"], ["demo"], str(tmp_path))
    assert found == ["n1: demo_b: unknown variable (not a setting of role demo; did you mean demo_a?)"]


def test_a_bool_given_as_text_is_refused_with_the_json_form():
    assert role_settings.problems("firewall", _firewall(), "n1") == []
    problems = role_settings.bool_problems("openmpi", {"openmpi_verify": "true"}, "n1")
    assert problems == ["n1: openmpi_verify: must be true or false, got str 'true'; on the command line pass it "
                        "as JSON: -e '{\"openmpi_verify\": true}'"]


def _firewall(**changes):
    settings = {name: value for name, value in role_settings.defaults("firewall").items()
                if not (isinstance(value, str) and "{{" in value)}
    settings.update(firewall_ssh_port=22, firewall_master_ports=[8118], **changes)
    return settings


RULE_CASES = [
    ("firewall", _firewall(firewall_hccl_port_range="60015:60000"),
     "n1: firewall_hccl_port_range: 60015:60000 is not a port range low:high with 1 <= low <= high <= 65535"),
    ("openmpi", {"openmpi_version": "4.1.4", "openmpi_source_url": "https://example.org/openmpi-4.1.4.tar.gz",
                 "openmpi_source_sha256": "abc", "openmpi_prefix": "/opt/openmpi", "openmpi_configure_flags": [],
                 "openmpi_build_strategy": "once"},
     "n1: openmpi_source_sha256: 'abc' is not a sha256 (64 hexadecimal characters)"),
    ("python_env", {"python_env_torch_version": "", "python_env_torch_npu_version": "2.1.0",
                    "cluster_backend": "auto"},
     "n1: python_env_torch_npu_version: torch_npu needs torch: set python_env_torch_version too"),
    ("npu_env", {"npu_env_hccl_connect_timeout": 7201},
     "n1: npu_env_hccl_connect_timeout 7201 is not an integer from 120 to 7200"),
    ("ssh_trust", {"ssh_trust_user": "root", "ssh_trust_cluster_name": "lab", "cluster_allow_root": False},
     "n1: ssh_trust_user: root is refused unless cluster_allow_root is true"),
    ("doctor", dict(role_settings.defaults("doctor"), doctor_master_port=80),
     "n1: doctor_master_port: int 80 is not an integer from 1024 to 65535"),
    ("acceptance", dict(role_settings.defaults("acceptance"), acceptance_iters=0),
     "n1: acceptance_iters: must be an integer from 1 to 100000, got 0"),
]


@pytest.mark.parametrize("role,settings,message", RULE_CASES, ids=[case[0] for case in RULE_CASES])
def test_each_role_has_its_rules(role, settings, message):
    problems = role_settings.problems(role, settings, "n1", {"cluster": ["n1"], "cluster_master": ["n1"]})
    assert any(problem.startswith(message) for problem in problems), problems


def test_every_rule_is_of_a_role_with_settings():
    assert set(role_settings.RULES) <= set(role_settings.roles())


def test_every_name_a_rule_table_holds_is_a_setting():
    specs = role_settings.all_specs()
    named = (list(inventory_settings.RANGES) + list(inventory_settings.OWN_CHECKED)
             + [name for names in role_settings.SHARED.values() for name in names]
             + [new for new, _ in inventory_settings.RENAMED.values()])
    assert [name for name in named if name not in specs] == []
    assert set(inventory_settings.TYPO_ROLES) <= set(role_settings.roles())
    # Every option with choices is checked against them, in the one place they are written.
    with_choices = [(role, name) for role in role_settings.roles()
                    for name, option in role_settings.argument_specs(role).items() if option.get("choices")]
    assert len(with_choices) >= 10
    for role, name in with_choices:
        assert role_settings.choice_problems(role, {name: "not-a-choice"}, "n1") != [], name


def test_ssh_trust_runs_on_the_hosts_of_its_group():
    ok = {"ssh_trust_user": "train", "ssh_trust_cluster_name": "lab", "ssh_trust_group": "cluster"}
    groups = {"cluster": ["n1", "n2"], "gpu_nodes": ["n2"]}
    assert role_settings.problems("ssh_trust", ok, "n1", groups) == []
    assert role_settings.problems("ssh_trust", dict(ok, ssh_trust_group="gpu_nodes"), "n1", groups) == [
        "n1: ssh_trust_group: this host is not in group 'gpu_nodes'; run the role on that group's nodes"]
    assert role_settings.problems("ssh_trust", dict(ok, ssh_trust_group="nodes"), "n1", groups) == [
        "n1: ssh_trust_group: this host is not in group 'nodes'; run the role on that group's nodes"]


def test_ssh_trust_user_follows_the_cluster_user_rule():
    ok = {"ssh_trust_user": "root", "ssh_trust_cluster_name": "lab", "cluster_allow_root": True}
    assert role_settings.problems("ssh_trust", ok, "n1") == []
    assert role_settings.problems("ssh_trust", dict(ok, ssh_trust_user="Bad User"), "n1") == [
        "n1: ssh_trust_user: Bad User is not a valid user name"]
    assert role_settings.problems("ssh_trust", dict(ok, ssh_trust_npu_group="HwHiAiUser"), "n1") == []
    assert role_settings.problems("ssh_trust", dict(ok, ssh_trust_npu_group=""), "n1") == []
    assert role_settings.problems("ssh_trust", dict(ok, ssh_trust_npu_group="a b;rm"), "n1") == [
        "n1: ssh_trust_npu_group: a b;rm is not a valid group name"]


def test_doctor_and_acceptance_are_checked_on_one_host():
    groups = {"cluster": ["a", "b"], "cluster_master": ["b"]}
    assert role_settings.hosts_for("doctor", ["a", "b"], groups) == ["b"]
    assert role_settings.hosts_for("acceptance", ["a", "b"], groups) == ["a"]
    assert role_settings.hosts_for("firewall", ["a", "b"], groups) == ["a", "b"]


def test_cluster_backend_comes_from_the_group():
    groups = {"npu_nodes": ["a"], "gpu_nodes": ["b"]}
    assert role_settings.cluster_backend({"cluster_backend": "auto"}, "a", groups) == "ascend"
    assert role_settings.cluster_backend({"cluster_backend": "auto"}, "b", groups) == "gpu"
    assert role_settings.cluster_backend({"cluster_backend": "cpu"}, "a", groups) == "cpu"


NPU_VARS = _yaml("npu_env", "vars", "main.yml")


def _node(**changes):
    node = {"npu": True, "gpu": False, "addresses": ["10.0.0.1"], "interfaces": ["eth0", "lo"],
            "host_ip": "10.0.0.1", "host_ifname": "eth0", "layout": {"name": "ascend-toolkit"},
            "layouts": NPU_VARS["_npu_env_layouts"], "layout_order": NPU_VARS["_npu_env_layout_order"]}
    node.update(changes)
    return node


def _npu_settings(**changes):
    settings = dict(role_settings.defaults("npu_env"), npu_env_hccl_if_ip="10.0.0.1")
    settings.update(changes)
    return settings


def test_npu_env_node_problems_as_the_npu_scenario_reads_them():
    problems = npu_env_settings.node_problems(_npu_settings(
        npu_env_hccl_if_ip="10.255.255.1", npu_env_hccl_connect_timeout=7201, npu_env_hccl_if_base_port=65520,
        npu_env_hccl_socket_ifname="=nosuch0"), _node())
    assert problems == [
        "npu_env_hccl_connect_timeout 7201 is not an integer from 120 to 7200",
        "npu_env_hccl_if_base_port 65520 is not an integer from 1024 to 65519",
        "npu_env_hccl_if_ip 10.255.255.1 (HCCL_IF_IP, default ansible_host) is not an address of this node; "
        "its addresses: 10.0.0.1",
        "npu_env_hccl_socket_ifname =nosuch0: interface nosuch0 does not exist on this node (interfaces: eth0, lo)"]


def test_npu_env_without_cann_names_what_was_looked_for():
    problems = npu_env_settings.node_problems(_npu_settings(npu_env_install_path="/x"), _node(layout={}))
    assert problems == ["no CANN installation under /x (npu_env_install_path): looked for "
                        "ascend-toolkit/set_env.sh, ascend-toolkit/latest/set_env.sh, nnae/set_env.sh, "
                        "nnae/latest/set_env.sh, toolkit/set_env.sh and the directories ascend-toolkit/latest, "
                        "nnae/latest, toolkit"]


def test_npu_env_interface_prefixes_and_gpu_nodes():
    node = _node(npu=False, gpu=True, host_ifname="")
    assert npu_env_settings.node_problems(_npu_settings(npu_env_nccl_socket_ifname="^docker,lo"), node) == []
    assert npu_env_settings.node_problems(_npu_settings(npu_env_nccl_socket_ifname="ib"), node) == [
        "npu_env_nccl_socket_ifname ib: no interface of this node starts with ib (interfaces: eth0, lo)"]
    assert npu_env_settings.node_problems(_npu_settings(), node) == [
        "no interface of this node holds its host IP 10.0.0.1 (ansible_host), so NCCL_SOCKET_IFNAME cannot be "
        "chosen; set npu_env_nccl_socket_ifname (interfaces: eth0, lo)"]
    assert npu_env_settings.settings_problems({"npu_env_device_log_level": "loud", "npu_env_extra": {"1A": "x"},
                                               "npu_env_global_log_level": True}) == [
        "npu_env_global_log_level True is not an integer from 0 to 3",
        "npu_env_device_log_level loud is not one of debug, info, warning, error (or empty)",
        "npu_env_extra: 1A is not an environment variable name"]
