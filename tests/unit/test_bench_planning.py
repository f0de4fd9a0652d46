"""bench/scenarios/planning.py: the plan timing, the synthetic inventories, the checks and ratios."""

import ipaddress
import os

import pytest
import yaml

import harness
from scenarios import planning


def test_time_steps_times_every_step_of_a_valid_plan():
    seconds, plan_problems, table_problems = planning.time_steps(4, 8)
    assert plan_problems == [] and table_problems == []
    assert set(seconds) == {"generate_plan", "validate_plan", "build_rank_table", "validate_rank_table", "total"}
    assert seconds["total"] == pytest.approx(sum(value for step, value in seconds.items() if step != "total"))


def test_measure_plan_reports_milliseconds_and_no_problem():
    plan = planning.measure_plan(2, servers=4, devices=8)
    assert plan["addresses"] == 32 and plan["problems"] == 0 and plan["repeat"] == 2
    assert len(plan["milliseconds"]["total"]["samples"]) == 2


def test_measure_plan_stops_on_a_problem(monkeypatch):
    monkeypatch.setattr(planning, "time_steps", lambda servers, devices: ({"total": 0.1}, ["node0: bad"], []))
    with pytest.raises(SystemExit, match="1 problem.*node0: bad"):
        planning.measure_plan(1)


def test_host_addresses_are_unique_and_inside_the_cluster_network():
    addresses = [planning.host_address(number) for number in range(1, 301)]
    assert len(set(addresses)) == 300
    network = ipaddress.IPv4Network(planning.NETWORK_CIDR)
    assert all(ipaddress.IPv4Address(address) in network for address in addresses)
    assert addresses[0] == "10.10.0.1" and addresses[250] == "10.10.1.1"


def test_write_inventory_has_the_shape_of_a_real_one(tmp_path):
    path = planning.write_inventory(str(tmp_path), 3)
    with open(path, encoding="utf-8") as handle:
        hosts = yaml.safe_load(handle)
    cluster = hosts["all"]["children"]["cluster"]["children"]
    assert list(cluster["npu_nodes"]["hosts"]) == ["node1", "node2", "node3"]
    assert cluster["npu_nodes"]["hosts"]["node3"] == {"ansible_host": "10.10.0.3", "npu_device_count": 8}
    assert cluster["gpu_nodes"]["hosts"] == {} and cluster["cpu_nodes"]["hosts"] == {}
    assert list(hosts["all"]["children"]["cluster_master"]["hosts"]) == ["node1"]
    with open(tmp_path / "group_vars/all/cluster.yml", encoding="utf-8") as handle:
        assert yaml.safe_load(handle)["cluster_user"] == "trainer"


@pytest.mark.parametrize("launcher", sorted(planning.JOBS))
def test_job_vars_use_every_device(launcher):
    job = planning.job_vars(launcher)
    assert job["job_launcher"] == launcher
    assert "job_workers_per_node" not in job


def test_expected_and_missing_files(tmp_path):
    assert planning.expected_files("msrun", True) == ["job.env", "start.sh", "launch.sh", "cs_rank.py", "bin/python"]
    assert planning.expected_files("mpirun", True)[-2:] == ["rank.sh", "hostfile"]
    assert "hostfile" not in planning.expected_files("mpirun", False)
    for host, master in (("node1", True), ("node2", False)):
        for name in planning.expected_files("mpirun", master):
            os.makedirs(os.path.dirname(tmp_path / host / name), exist_ok=True)
            (tmp_path / host / name).write_text("x")
    assert planning.missing_files(str(tmp_path), 2, "mpirun") == []
    (tmp_path / "node2/rank.sh").write_text("")
    (tmp_path / "node1/hostfile").unlink()
    assert planning.missing_files(str(tmp_path), 2, "mpirun") == ["node1/hostfile", "node2/rank.sh"]
    assert len(planning.missing_files(str(tmp_path), 3, "mpirun")) == 2 + 6


def test_ratios_per_host_and_per_added_host():
    samples = harness.Samples()
    for size, value in ((8, 4.0), (128, 16.0)):
        samples.add("msrun", size, value)
    summary = samples.summary()
    # 16 s / 128 hosts against 4 s / 8 hosts: a quarter of the time per host.
    assert planning.per_host_ratio(summary, "msrun", 8, 128) == 0.25
    assert planning.seconds_per_added_host(summary, "msrun", 8, 128) == 0.1
    assert planning.per_host_ratio(summary, "mpirun", 8, 128) is None
    assert planning.seconds_per_added_host(summary, "msrun", 8, 8) is None


def test_load_note():
    assert planning.load_note([]) is None
    note = planning.load_note([{"loadavg_before": [4.5, 1, 1]}, {"loadavg_before": [12.25, 1, 1]}, {}])
    assert note.startswith("1-minute load average before the render runs: 4.5 to 12.2")
