import pytest

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation.inventory import inventory_errors


def good_inventory():
    groups = {"all": ["n1", "n2"], "cluster": ["n1", "n2"], "npu_nodes": ["n1", "n2"],
              "cluster_master": ["n1"]}
    hostvars = {h: {"ansible_host": f"10.0.0.{i}", "npu_device_count": 8, "npu_model": "atlas800",
                    "cluster_user": "trainer"} for i, h in enumerate(["n1", "n2"], 1)}
    return groups, hostvars


def test_good_inventory_has_no_errors():
    assert inventory_errors(*good_inventory()) == []


@pytest.mark.parametrize("change, expected", [
    (lambda g, h: g.update(cluster=[], npu_nodes=[]), "group 'cluster' is empty"),
    (lambda g, h: g.update(cluster_master=[]), "'cluster_master' must hold exactly one host"),
    (lambda g, h: g.update(cluster_master=["n1", "n2"]), "it holds 2: n1, n2"),
    (lambda g, h: g.update(cluster_master=["x9"]), "x9: group 'cluster_master': the master is not"),
    (lambda g, h: g.update(gpu_nodes=["n2"]), "n2: in both groups 'npu_nodes' and 'gpu_nodes'"),
    (lambda g, h: h["n2"].update(ansible_host="10.0.0.300"), "n2: ansible_host: 10.0.0.300 is not a valid"),
    (lambda g, h: h["n2"].update(ansible_host="10.0.0.1"), "n2: ansible_host: 10.0.0.1 is already the address of n1"),
    (lambda g, h: h["n2"].update(npu_device_count="8"), "n2: npu_device_count: must be an integer, got str '8'"),
    (lambda g, h: h["n2"].update(npu_device_count=True), "n2: npu_device_count: must be an integer, got bool"),
    (lambda g, h: h["n2"].update(npu_device_count=6), "n2: npu_device_count: 6 is not a device count"),
    (lambda g, h: h["n2"].pop("npu_device_count"), "n2: npu_device_count: missing"),
    (lambda g, h: h["n1"].update(npu_model="atlas300"), "n1: npu_model: unknown hardware model 'atlas300'"),
    (lambda g, h: h["n1"].update(cluster_user="Bad User"), "n1: cluster_user: 'Bad User' is not a valid"),
    (lambda g, h: [h[x].update(cluster_user="root") for x in h], "n1: cluster_user: root is refused"),
    (lambda g, h: h["n2"].update(cluster_user="other"), "the training user must be the same on every node"),
    (lambda g, h: h["n1"].update(cluster_allow_root="yes"), "n1: cluster_allow_root: must be true or false, got str"),
])
def test_each_problem_is_named(change, expected):
    groups, hostvars = good_inventory()
    change(groups, hostvars)
    errors = inventory_errors(groups, hostvars)
    assert any(expected in e for e in errors), errors


def test_root_allowed_when_asked():
    groups, hostvars = good_inventory()
    for h in hostvars.values():
        h.update(cluster_user="root", cluster_allow_root=True)
    assert inventory_errors(groups, hostvars) == []


def test_duplicate_short_names():
    groups, hostvars = good_inventory()
    groups.update(cluster=["n1.a", "n1.b"], npu_nodes=[], cluster_master=["n1.a"])
    hostvars = {"n1.a": {"ansible_host": "10.0.0.1", "cluster_user": "t"},
                "n1.b": {"ansible_host": "10.0.0.2", "cluster_user": "t"}}
    assert any("short name 'n1'" in e for e in inventory_errors(groups, hostvars))


def test_all_problems_reported_at_once():
    groups, hostvars = good_inventory()
    hostvars["n1"]["ansible_host"] = "1.2.3.999"
    hostvars["n2"]["npu_device_count"] = 3
    errors = inventory_errors(groups, hostvars)
    assert len(errors) == 2, errors


# --- ansible_port, cluster_network_cidr, role settings against their argument specs ----------

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation.inventory_settings import check_settings  # noqa: E402
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation.text import type_name  # noqa: E402


SPECS = {
    "firewall_mode": {"type": "str", "choices": ["disabled", "open_ports"]},
    "firewall_master_ports": {"type": "list", "elements": "int"},
    "firewall_extra_ports": {"type": "list", "elements": "raw"},
    "openmpi_verify": {"type": "bool"},
    "openmpi_build_timeout": {"type": "int"},
    "python_env_torch_version": {"type": "str"},
    "npu_env_extra": {"type": "dict"},
    "npu_network_base": {"type": "raw"},
    "cluster_max_fail_percentage": {"type": "int"},
    "fleet_reason": {"type": "str"},
}


@pytest.mark.parametrize("change, expected", [
    (lambda g, h: h["n1"].update(ansible_port=70000), "n1: ansible_port: int 70000 is not a TCP port"),
    (lambda g, h: h["n1"].update(ansible_port="22"), "n1: ansible_port: str '22' is not a TCP port"),
    (lambda g, h: h["n2"].update(cluster_network_cidr="10.0.0.0/33"),
     "n2: cluster_network_cidr: '10.0.0.0/33' is not an IPv4 network"),
    (lambda g, h: h["n2"].update(cluster_network_cidr="10.0.0.5/24"), "(did you mean 10.0.0.0/24?)"),
    (lambda g, h: h["n2"].update(cluster_network_cidr="10.0.0.0"), "n2: cluster_network_cidr: '10.0.0.0' is not"),
    (lambda g, h: h["n2"].update(cluster_network_cidr="10.9.0.0/16"),
     "n2: ansible_host: 10.0.0.2 is not in cluster_network_cidr 10.9.0.0/16"),
])
def test_connection_and_network(change, expected):
    groups, hostvars = good_inventory()
    change(groups, hostvars)
    errors = inventory_errors(groups, hostvars)
    assert any(expected in e for e in errors), errors


def test_network_that_holds_every_node_is_fine():
    groups, hostvars = good_inventory()
    for h in hostvars.values():
        h.update(cluster_network_cidr="10.0.0.0/24", ansible_port=22)
    assert inventory_errors(groups, hostvars) == []


@pytest.mark.parametrize("variable, value, expected", [
    ("firewall_mode", "off", "n1, n2: firewall_mode: 'off' is not one of disabled, open_ports"),
    ("firewall_mode", 0, "firewall_mode: must be a string (quote it in YAML), got int 0"),
    ("firewall_master_ports", "8118", "firewall_master_ports: must be a list, got str '8118'"),
    ("firewall_master_ports", ["8118"], "firewall_master_ports: every item must be an integer, got str '8118'"),
    ("openmpi_verify", "yes", "openmpi_verify: must be true or false, got str 'yes'"),
    ("openmpi_build_timeout", "7200", "openmpi_build_timeout: must be an integer, got str '7200'"),
    ("openmpi_build_timeout", True, "openmpi_build_timeout: must be an integer, got bool True"),
    ("npu_env_extra", ["A=1"], "npu_env_extra: must be a mapping, got list"),
    ("firewall_mod", "disabled", "firewall_mod: unknown variable (not a setting of role firewall; did you mean "
                                 "firewall_mode?)"),
    ("openmpi_verison", "4.1.4", "not a setting of role openmpi"),
    ("python_env_torch_versoin", "2.1.0", "not a setting of role python_env; did you mean python_env_torch_version?"),
    ("python_env_torch_version", 2.1, "python_env_torch_version: must be a string (quote it in YAML), got float 2.1"),
    ("cluster_max_fail_percentage", 101, "cluster_max_fail_percentage: 101 is not a whole number from 0 to 100"),
    ("cluster_max_fail_percentage", -1, "cluster_max_fail_percentage: -1 is not a whole number from 0 to 100"),
    ("cluster_max_fail_percentage", "20", "cluster_max_fail_percentage: must be an integer, got str '20'"),
    ("doctor_ports", [8118], "not a setting of role doctor"),
    ("fleet_reaso", "x", "not a setting of role fleet; did you mean fleet_reason?"),
    ("npu_network_bsae", ["10.0.0.0"], "not a setting of role npu_network; did you mean npu_network_base?"),
])
def test_role_settings_against_their_specs(variable, value, expected):
    groups, hostvars = good_inventory()
    for h in hostvars.values():
        h[variable] = value
    errors = inventory_errors(groups, hostvars, SPECS)
    assert len(errors) == 1 and expected in errors[0], errors
    assert errors[0].startswith("n1, n2: ")


def test_published_facts_are_not_typos():
    # add.yml validates again when it imports site.yml, after validate.yml's first run has set the plan.
    groups, hostvars = good_inventory()
    for h in hostvars.values():
        h.update(npu_network_device_plan={}, fleet_upgrade_serial=[1])
    assert inventory_errors(groups, hostvars, SPECS) == []


def test_good_role_settings_and_nulls_pass():
    groups, hostvars = good_inventory()
    hostvars["n1"].update(firewall_mode="open_ports", firewall_master_ports=[8118], firewall_extra_ports=["1:2", 3],
                          openmpi_verify=False, npu_env_extra={"A": 1}, npu_network_base=["10.0.0.0"],
                          openmpi_build_timeout=None, cluster_name="x", other_var="y")
    assert inventory_errors(groups, hostvars, SPECS) == []


def test_renamed_setting_names_its_new_name():
    groups, hostvars = good_inventory()
    for host in ("n1", "n2"):
        hostvars[host]["npu_network_hccn_tool"] = "/opt/hccn_tool"
    assert inventory_errors(groups, hostvars, SPECS) == [
        "n1, n2: npu_network_hccn_tool: renamed to cluster_hccn_tool (role cluster): set that instead"]


def test_connectivity_test_settings_name_their_new_role():
    groups, hostvars = good_inventory()
    hostvars["n2"]["npu_netdetect_timeout"] = 60
    assert inventory_errors(groups, hostvars, SPECS) == [
        "n2: npu_netdetect_timeout: renamed to npu_network_netdetect_timeout (role npu_network): set that instead"]


def test_per_run_role_settings_are_left_to_their_role():
    # -e job_port=8118 arrives as a string; role job converts and checks it itself.
    groups, hostvars = good_inventory()
    hostvars["n1"].update(job_port="8118", doctor_import_timeout="60")
    specs = dict(SPECS, job_port={"type": "int", "role": "job"},
                 doctor_import_timeout={"type": "int", "role": "doctor"})
    assert inventory_errors(groups, hostvars, specs) == []


def test_setting_wrong_on_one_host_names_that_host():
    groups, hostvars = good_inventory()
    hostvars["n2"]["openmpi_verify"] = "no"
    assert check_settings(hostvars, ["n1", "n2"], SPECS) == [
        "n2: openmpi_verify: must be true or false, got str 'no'"]


def test_many_hosts_are_listed_briefly():
    hostvars = {f"n{i}": {"openmpi_verify": "no"} for i in range(9)}
    (error,) = check_settings(hostvars, list(hostvars), SPECS)
    assert error.startswith("n0, n1, n2, n3, n4 (and 4 more): openmpi_verify")


def test_type_name_hides_subclasses():
    class TaggedStr(str):
        pass
    assert type_name(TaggedStr("8")) == "str"
    assert type_name(True) == "bool" and type_name(None) == "null"
    groups, hostvars = good_inventory()
    hostvars["n2"]["npu_device_count"] = TaggedStr("8")
    assert "n2: npu_device_count: must be an integer, got str '8'" in inventory_errors(groups, hostvars)


# --- whole values, no control characters (item 5) ---------------------------------------------

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation.text import control_text  # noqa: E402


@pytest.mark.parametrize("value", ["root\n", "trainer\n", "trainer\t", "train\x00er", "\ttrainer", "trainer\r",
                                   "trainer\x1b[0m", "trainer\x7f", "trainer ", "tr ainer", "trainer;id",
                                   "$(id)", "Trainer"])
def test_cluster_user_is_matched_whole(value):
    groups, hostvars = good_inventory()
    for h in hostvars.values():
        h["cluster_user"] = value
    errors = inventory_errors(groups, hostvars)
    assert any(e.startswith("n1: cluster_user: ") for e in errors), errors
    assert all("\n" not in e and "\x00" not in e for e in errors), errors


def test_root_with_a_trailing_newline_is_refused_even_when_root_is_allowed():
    groups, hostvars = good_inventory()
    for h in hostvars.values():
        h.update(cluster_user="root\n", cluster_allow_root=True)
    assert "n1: cluster_user: 'root\\n' contains a newline (\\n) at offset 4: control characters are refused" \
        in inventory_errors(groups, hostvars)


@pytest.mark.parametrize("value, expected", [
    ("10.0.0.2\n", "n2: ansible_host: '10.0.0.2\\n' contains a newline (\\n) at offset 8"),
    ("10.0.0.2\t", "n2: ansible_host: '10.0.0.2\\t' contains a tab (\\t)"),
    ("10.0.0.\x002", "n2: ansible_host: '10.0.0.\\x002' contains NUL (\\x00)"),
    ("10.0.0.2 ", "n2: ansible_host: '10.0.0.2 ' is neither an IPv4 address nor a host name"),
    ("node2;id", "n2: ansible_host: 'node2;id' is neither an IPv4 address nor a host name"),
    ("$(id)", "n2: ansible_host: '$(id)' is neither an IPv4 address nor a host name"),
    ("-oProxyCommand=id", "n2: ansible_host: '-oProxyCommand=id' is neither"),
    ("node..x", "is neither an IPv4 address nor a host name"),
])
def test_ansible_host_is_matched_whole(value, expected):
    groups, hostvars = good_inventory()
    hostvars["n2"]["ansible_host"] = value
    errors = inventory_errors(groups, hostvars)
    assert any(expected in e for e in errors), errors


def test_host_names_are_fine_as_addresses():
    groups, hostvars = good_inventory()
    hostvars["n1"]["ansible_host"] = "node-1.rack_2.example.com"
    hostvars["n2"]["ansible_host"] = "N2"
    assert inventory_errors(groups, hostvars) == []


@pytest.mark.parametrize("value, expected", [
    ("10.0.0.0/24\n", "n1, n2: cluster_network_cidr: '10.0.0.0/24\\n' contains a newline"),
    ("10.0.0.0/24 ", "'10.0.0.0/24 ' is not an IPv4 network"),
    ("10.0.0.0/24;id", "is not an IPv4 network"),
    ("\t10.0.0.0/24", "contains a tab"),
])
def test_cluster_network_cidr_is_matched_whole(value, expected):
    groups, hostvars = good_inventory()
    for h in hostvars.values():
        h["cluster_network_cidr"] = value
    errors = inventory_errors(groups, hostvars)
    assert any(expected.split(": ", 1)[-1] in e and "cluster_network_cidr" in e for e in errors), errors
    assert any(e.startswith("n1") for e in errors), errors


@pytest.mark.parametrize("variable, value, expected", [
    ("launch_python", "python3\n", "launch_python: 'python3\\n' contains a newline"),
    ("launch_python", "/opt/venv/bin/python 3", "launch_python: '/opt/venv/bin/python 3' is not a command name"),
    ("launch_python", "python3;id", "is not a command name"),
    ("launch_python", "~/venv/bin/python", "is not a command name"),
    ("launch_python", 3, "launch_python: must be a string, got int 3"),
    ("openmpi_prefix", "/usr/local/openmpi\n", "openmpi_prefix: '/usr/local/openmpi\\n' contains a newline"),
    ("openmpi_prefix", "usr/local/openmpi", "openmpi_prefix: 'usr/local/openmpi' is not an absolute path"),
    ("openmpi_prefix", "/opt/a b", "is not an absolute path"),
    ("openmpi_prefix", "/opt/$(id)", "is not an absolute path"),
    ("openmpi_prefix", "/opt/../etc", "without '..'"),
    ("openmpi_prefix", "/opt/o=x", "is not an absolute path"),
    ("launch_python", "/opt/py:thon", "is not a command name"),
    ("npu_env_install_path", "/usr/local/Ascend\x00", "npu_env_install_path: '/usr/local/Ascend\\x00' contains NUL"),
    ("cluster_env_npu_path", "/etc/env npu.sh", "cluster_env_npu_path: '/etc/env npu.sh' is not an absolute path"),
    ("cluster_python_env_path", "/opt/../venv", "cluster_python_env_path: '/opt/../venv' is not an absolute path"),
    ("cluster_python_provided", "python3", "cluster_python_provided: 'python3' is not an absolute path"),
    ("render_user_home", "/home/trainer\n", "render_user_home: '/home/trainer\\n' contains a newline"),
    ("render_iface", "eth0\n", "render_iface: 'eth0\\n' contains a newline"),
    ("render_iface", "eth0;id", "render_iface: 'eth0;id' is not an interface name"),
    ("render_iface", "averyveryverylongname", "is not an interface name"),
    ("npu_env_hccl_socket_ifname", "eth0\n", "npu_env_hccl_socket_ifname: 'eth0\\n' contains a newline"),
    ("npu_env_hccl_socket_ifname", "eth0 eth1", "is not interface names separated by ','"),
    ("npu_env_nccl_socket_ifname", "^=eth0,", "npu_env_nccl_socket_ifname: '^=eth0,' is not interface names"),
    ("npu_env_nccl_socket_ifname", "en5\t", "contains a tab"),
    ("npu_env_hccl_if_ip", "10.0.0.1\n", "npu_env_hccl_if_ip: '10.0.0.1\\n' contains a newline"),
    ("npu_env_hccl_if_ip", "10.0.0.1 ", "npu_env_hccl_if_ip: '10.0.0.1 ' is not an IPv4 address"),
    ("npu_env_extra", {"A B": "1"}, "npu_env_extra: 'A B' is not an environment variable name"),
    ("npu_env_extra", {"A\n": "1"}, "npu_env_extra: key 'A\\n' contains a newline"),
    ("npu_env_extra", {"A": "1\n"}, "npu_env_extra: npu_env_extra.A: '1\\n' contains a newline"),
    ("npu_env_extra", {"UID": "1"}, "npu_env_extra: UID is a variable the shell sets or reads itself"),
    ("npu_env_extra", {"_": "1"}, "npu_env_extra: _ is a variable the shell sets or reads itself"),
    ("ssh_trust_user", "trainer\n", "ssh_trust_user: 'trainer\\n' contains a newline"),
    ("ansible_user", "trainer\n", "ansible_user: 'trainer\\n' contains a newline"),
    ("firewall_allowed_sources", ["10.0.0.0/24", "10.0.0.1\n"],
     "firewall_allowed_sources[1]: '10.0.0.1\\n' contains a newline"),
    ("openmpi_configure_flags", ["--enable-x\x1b"], "openmpi_configure_flags[0]: '--enable-x\\x1b' contains an escape"),
    ("openmpi_source_file", "/srv/openmpi.tar.bz2\r",
     "openmpi_source_file: '/srv/openmpi.tar.bz2\\r' contains a carriage return"),
])
def test_values_that_reach_scripts(variable, value, expected):
    groups, hostvars = good_inventory()
    for h in hostvars.values():
        h[variable] = value
    errors = inventory_errors(groups, hostvars)
    assert len(errors) == 1, errors
    assert errors[0].startswith("n1, n2: ") and expected in errors[0], errors


@pytest.mark.parametrize("variable, value", [
    ("launch_python", "python3"), ("launch_python", "/opt/ml/bin/python3.11"), ("launch_python", "python3.11"),
    ("openmpi_prefix", "/usr/local/openmpi-4.1.4"), ("npu_env_install_path", "/usr/local/Ascend"),
    ("cluster_python_provided", ""), ("cluster_python_provided", "/opt/ml/bin/python"),
    ("cluster_python_env_path", "/opt/cluster-suite/python"),
    ("render_user_home", "/home/trainer"), ("render_iface", "eth0"), ("render_iface", "enp3s0f0.100"),
    ("npu_env_hccl_socket_ifname", "^=eth0,eth1"), ("npu_env_hccl_socket_ifname", ""),
    ("npu_env_nccl_socket_ifname", "en5"), ("npu_env_hccl_if_ip", "10.0.0.1"), ("npu_env_extra", {"A_1": "x y $z"}),
    ("ansible_user", "trainer"),
])
def test_good_values_pass(variable, value):
    groups, hostvars = good_inventory()
    hostvars["n1"][variable] = value
    assert inventory_errors(groups, hostvars) == []


@pytest.mark.parametrize("name", ["n1\n", "n1 x", "n1;id", "$(id)", "-n1", "n\x001"])
def test_inventory_names_are_checked(name):
    groups, hostvars = good_inventory()
    groups.update(cluster=["n2", name], npu_nodes=["n2", name], cluster_master=["n2"])
    hostvars[name] = dict(hostvars.pop("n1"))
    errors = inventory_errors(groups, hostvars)
    shown = repr(name) if any(c < " " for c in name) else name
    assert any(e.startswith(shown + ": inventory name: ") and repr(name) in e for e in errors), errors


def test_control_text_names_the_character():
    assert control_text("abc") is None and control_text(5) is None
    assert control_text("a\nb").startswith("contains a newline (\\n) at offset 1")
    assert "\\x01" in control_text("a\x01") and "DEL" in control_text("\x7f")


def test_long_values_are_shown_briefly():
    groups, hostvars = good_inventory()
    for h in hostvars.values():
        h["cluster_user"] = "x" * 4096 + "\n"
    (error,) = [e for e in inventory_errors(groups, hostvars) if e.startswith("n1:")]
    assert len(error) < 300 and "(4097 long)" in error


def test_no_inventory_at_all_says_to_name_one():
    # ansible.cfg names no inventory: `ansible-playbook site.yml` without -i sees no host.
    errors = inventory_errors({"all": [], "ungrouped": []}, {})
    assert errors[0] == ("inventory: no hosts at all: name the cluster's inventory with -i "
                         "(ansible-playbook -i inventory/<cluster>/ ...)")
    assert not [e for e in inventory_errors(*good_inventory()) if "no hosts at all" in e]


def test_a_placeholder_is_named_and_not_checked_further():
    groups, hostvars = good_inventory()
    for host in hostvars:
        hostvars[host]["cluster_network_cidr"] = "FILL-IN"
    assert inventory_errors(groups, hostvars) == [
        "%s: cluster_network_cidr: still FILL-IN: fill in your value (docs/guide.md, step 3)" % ", ".join(sorted(hostvars))]
