"""bench/scenarios/forks_memory.py's pure parts: the workers Ansible starts and the figures per worker."""
from scenarios import forks_memory


def record(nodes, pss, ansible_pss):
    return {"play": forks_memory.SERIES, "nodes": nodes, "workers": forks_memory.workers(nodes),
            "controller_peak_pss_mib": pss, "controller_peak_ansible_pss_mib": ansible_pss,
            "controller_peak_ansible_processes": forks_memory.workers(nodes) + 1, "controller_peak_rss_mib": 3 * pss,
            "controller_peak_processes": 3 * forks_memory.workers(nodes), "controller_cpu_seconds": 200.0,
            "nodes_cpu_seconds": 180.0, "ssh_connections": nodes, "module_runs": 19 * nodes, "changed": 0,
            "idle_nodes_memory_mib": 2.0 * nodes}


def test_workers_are_the_hosts_up_to_the_forks():
    assert forks_memory.workers(8) == 8
    assert forks_memory.workers(128) == 128
    assert forks_memory.workers(1024) == 128


def test_assemble_divides_the_memory_by_the_workers_not_the_nodes():
    result, chart = forks_memory.assemble([record(256, 4096.0, 3584.0)])
    assert result["summary"][forks_memory.SERIES]["256"]["median"] == 4096.0
    per_worker = {table["caption"]: table["summary"][forks_memory.SERIES]["256"]["median"] for table in result["tables"]}
    assert per_worker[forks_memory.TABLES[0][1]] == 32.0
    assert per_worker[forks_memory.TABLES[2][1]] == 28.0
    assert per_worker[forks_memory.TABLES[1][1]] == 3584.0
    assert "256 nodes: 128 workers" in result["notes"][0]
    assert chart["summary"] == result["summary"]
