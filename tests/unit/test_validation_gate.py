"""plugins/plugin_utils/validation/gate.py, the checks action validate_settings runs: the role
argument specs are read from the real roles, the inventory problems come back as messages (never a
raised template error), and a render needs its directory."""
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import gate, role_settings


class HostVars(dict):
    """hostvars[host] as Ansible hands it to a filter; a value may fail to template."""


class Broken(dict):
    def __getitem__(self, name):
        if name == "openmpi_prefix":
            raise RuntimeError("'undefined_thing' is undefined\nmore")
        return super().__getitem__(name)


def test_specs_come_from_every_role():
    specs = role_settings.all_specs()
    assert specs["firewall_master_ports"]["type"] == "list"
    assert specs["firewall_master_ports"]["elements"] == "int"
    assert specs["firewall_mode"]["choices"] == ["disabled", "open_ports"]
    assert specs["openmpi_ring_slots"]["role"] == "openmpi"  # entry points other than main too
    assert specs["npu_network_host_start"]["type"] == "int"
    assert specs["job_port"] == {"type": "int", "elements": None, "choices": None, "role": "job"}


def test_job_settings_are_left_to_role_job():
    # -e job_* values reach every host's hostvars; role job checks them (job_spec), naming the variable.
    groups = {"all": ["n1"], "cluster": ["n1"], "cpu_nodes": ["n1"], "cluster_master": ["n1"]}
    hostvars = {"n1": HostVars(ansible_host="127.0.0.21", cluster_user="trainer", job_port="8118",
                               job_args=["a\nb"], job_render_only="true")}
    assert gate.inventory_problems(groups, hostvars) == []


def test_problems_of_a_whole_inventory():
    groups = {"all": ["n1", "n2"], "cluster": ["n1", "n2"], "npu_nodes": ["n1", "n2"], "cluster_master": ["n1"]}
    base = {"ansible_host": "127.0.0.21", "npu_device_count": 8, "cluster_user": "trainer", "npu_model": "atlas800"}
    hostvars = {"n1": HostVars(base, firewall_master_ports="8118"),
                "n2": Broken(base, ansible_host="127.0.0.22", openmpi_prefix="{{ undefined_thing }}")}
    problems = gate.inventory_problems(groups, hostvars)
    assert "n2: openmpi_prefix: cannot be evaluated: 'undefined_thing' is undefined" in problems
    assert "n1: firewall_master_ports: must be a list, got str '8118'" in problems
    assert len(problems) == 2


def test_empty_inventory():
    problems = gate.inventory_problems({"all": [], "ungrouped": []}, {})
    assert any("group 'cluster' is empty" in p for p in problems)


def test_a_render_needs_its_directory_and_a_stop_only_its_control_plan():
    groups = {"all": ["n1"], "cluster": ["n1"], "cpu_nodes": ["n1"], "cluster_master": ["n1"]}
    hostvars = {"n1": {"ansible_host": "127.0.0.21", "cluster_user": "trainer"}}
    job = {"job_name": "demo", "job_render_dir": ""}
    assert gate.job_problems(job, groups, hostvars, playbook="render", full=False) == [gate.RENDER_DIR_PROBLEM]
    assert gate.job_problems(dict(job, job_render_dir="/tmp/out"), groups, hostvars, playbook="stop",
                             full=False) == []
    assert gate.job_problems(dict(job, job_name="a b"), groups, hostvars, playbook="stop", full=False) != []


def test_a_run_that_leaves_out_nodes_names_the_first_ten_and_counts_the_rest():
    assert gate.partial_run_problem("node1,localhost", [], "the doctor") == ""
    assert gate.partial_run_problem("node1,localhost", ["node2"], "the doctor").startswith(
        "--limit node1,localhost: leaves out node2 of group cluster; the doctor judges every node against the others")
    many = gate.partial_run_problem("localhost:cluster[0:3]", [f"node{i}" for i in range(4, 20)], "acceptance")
    assert many.startswith("--limit localhost:cluster[0:3]: leaves out node4, node5, node6, node7, node8, node9, "
                           "node10, node11, node12, node13 and 6 more of group cluster; acceptance judges")
