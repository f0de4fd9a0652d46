"""plugins/plugin_utils/jobs/healthy.py: job_exclude_unhealthy and job_min_nodes."""
import json

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs import healthy as job_healthy

GROUPS = {"cluster": ["node1", "node2", "node3", "node4"], "cluster_master": ["node1"]}
RESULT = json.dumps({"healthy": ["node2", "node4"], "passed": False,
                     "excluded": {"node1": "slow: its best pair 0.003 GB/s is 0.25 of the cluster's",
                                  "node3": "pair node3-node2 broken: no result within 30 s (killed)"}})


def test_off_changes_nothing():
    assert job_healthy.healthy_job({}, GROUPS, "") == {"updates": {}, "notes": [], "errors": []}


def test_exclusion_keeps_the_healthy_nodes_and_moves_the_master():
    out = job_healthy.healthy_job({"job_exclude_unhealthy": True, "job_workers_per_node": {"node1": 2, "node2": 2}},
                                  GROUPS, RESULT)
    assert out["errors"] == []
    assert out["updates"] == {"job_hosts": ["node2", "node4"], "job_master": "node2",
                              "job_workers_per_node": {"node2": 2}}
    assert "node1: left out (job_exclude_unhealthy): slow: its best pair" in out["notes"][0]
    assert "node1: master moved to node2 (node1 is left out)" in out["notes"]


def test_exclusion_within_job_hosts_and_a_healthy_master_stays():
    out = job_healthy.healthy_job({"job_exclude_unhealthy": "true", "job_hosts": ["node3", "node4"],
                                   "job_master": "node4"}, GROUPS, RESULT)
    assert out["updates"] == {"job_hosts": ["node4"]}
    assert out["notes"] == ["node3: left out (job_exclude_unhealthy): pair node3-node2 broken: no result within 30 s (killed)"]


def test_min_nodes_refuses_with_the_reason():
    out = job_healthy.healthy_job({"job_exclude_unhealthy": True, "job_min_nodes": 3}, GROUPS, RESULT)
    assert out["errors"] == [
        "node1: job_min_nodes: 2 node(s) left (node2, node4), fewer than job_min_nodes 3; left out: "
        "node1: slow: its best pair 0.003 GB/s is 0.25 of the cluster's; "
        "node3: pair node3-node2 broken: no result within 30 s (killed)"]
    assert job_healthy.healthy_job({"job_min_nodes": 5}, GROUPS, "")["errors"][0].startswith(
        "node1: job_min_nodes: 4 node(s) left (node1, node2, node3, node4), fewer than job_min_nodes 5")


def test_missing_or_bad_result_and_bad_values():
    missing = job_healthy.healthy_job({"job_exclude_unhealthy": True}, GROUPS, "", "/p/healthy.json")
    assert missing["errors"] == ["node1: job_exclude_unhealthy: no acceptance result at /p/healthy.json; "
                                 "run playbooks/acceptance.yml first (or set job_acceptance_result)"]
    assert "is not JSON" in job_healthy.healthy_job({"job_exclude_unhealthy": True}, GROUPS, "{")["errors"][0]
    assert "is not an acceptance result" in job_healthy.healthy_job(
        {"job_exclude_unhealthy": True}, GROUPS, "[]")["errors"][0]
    bad = job_healthy.healthy_job({"job_exclude_unhealthy": "maybe", "job_min_nodes": 0}, GROUPS, "")
    assert bad["errors"] == ["node1: job_exclude_unhealthy: must be true or false, got 'maybe'",
                             "node1: job_min_nodes: must be an integer from 1 to 100000, got 0"]


def test_master_address_of_a_left_out_master_is_refused():
    out = job_healthy.healthy_job({"job_exclude_unhealthy": True, "job_master_addr": "10.0.0.1"}, GROUPS, RESULT)
    assert out["errors"] == ["node1: job_master_addr: set for master node1, which the acceptance run left out; "
                             "unset it or give node2's address"]


LEDGER = {"in_service": ["node1", "node4"], "quarantined": {"node2": "doctor: ssh_login: refused (quarantined since "
                                                                      "2026-11-26T05:40:00Z)"},
          "retired": ["node3"], "rows": [{"node": "node3", "state": "retired", "reason": "PSU dead"}]}


def test_the_ledger_leaves_out_quarantined_and_retired_nodes_by_default():
    out = job_healthy.healthy_job({"job_master": "node2"}, GROUPS, "", ledger=LEDGER)
    assert out["errors"] == []
    assert out["updates"] == {"job_hosts": ["node1", "node4"], "job_master": "node1"}
    assert out["notes"] == ["node2: left out (job_use_ledger): quarantined in the node ledger: doctor: ssh_login: "
                            "refused (quarantined since 2026-11-26T05:40:00Z)",
                            "node3: left out (job_use_ledger): retired in the node ledger: PSU dead",
                            "node2: master moved to node1 (node2 is left out)"]


def test_the_ledger_off_or_unread_changes_nothing():
    assert job_healthy.healthy_job({"job_use_ledger": "false"}, GROUPS, "", ledger=LEDGER)["updates"] == {}
    assert job_healthy.healthy_job({}, GROUPS, "", ledger=None)["updates"] == {}
    assert job_healthy.healthy_job({"job_use_ledger": "maybe"}, GROUPS, "")["errors"] == [
        "node1: job_use_ledger: must be true or false, got 'maybe'"]


def test_min_nodes_names_every_node_left_out_by_the_ledger_and_acceptance():
    out = job_healthy.healthy_job({"job_exclude_unhealthy": True, "job_min_nodes": 2}, GROUPS, RESULT, ledger=LEDGER)
    error = out["errors"][0]
    assert error.startswith("node1: job_min_nodes: 1 node(s) left (node4), fewer than job_min_nodes 2; left out: ")
    assert "node1: slow: its best pair" in error  # acceptance's own words when it left the node out
    assert "node2: quarantined in the node ledger: doctor: ssh_login: refused" in error
    assert "node3: pair node3-node2 broken" in error


def test_master_address_of_a_master_the_ledger_leaves_out_is_refused():
    out = job_healthy.healthy_job({"job_master_addr": "10.0.0.1", "job_master": "node2"}, GROUPS, "", ledger=LEDGER)
    assert out["errors"] == ["node2: job_master_addr: set for master node2, which the node ledger left out; "
                             "unset it or give node1's address"]
