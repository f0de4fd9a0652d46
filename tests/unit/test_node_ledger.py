"""The node ledger (plugins/plugin_utils/fleet/ledger.py) and the action node_ledger over it."""
import datetime
import json
import multiprocessing
import os

import pytest

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.fleet import ledger as node_ledger
from ansible_collections.cluster_suite.hpc.plugins.action.node_ledger import apply
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.controller_action import ActionError

NODES = {"node1": "10.0.0.1", "node2": "10.0.0.2", "node3": "10.0.0.3"}
T0 = datetime.datetime(2026, 11, 26, 6, 0, tzinfo=datetime.timezone.utc)


def args(tmp_path, **kwargs):
    base = dict(ledger_dir=str(tmp_path / "ledger"), inventory=str(tmp_path / "inv" / "hosts.yml"), nodes=NODES,
                action="read", findings={}, names=[], reason="", force=False, max_age=7 * 24 * 3600)
    return dict(base, **kwargs)


def fail(source, reason):
    return {"source": source, "result": "fail", "reason": reason, "evidence": f"logs/{source}/report.json"}


def passed(source):
    return {"source": source, "result": "pass", "reason": "", "evidence": f"logs/{source}/report.json"}


def test_a_node_the_ledger_does_not_know_is_in_service(tmp_path):
    result = apply(args(tmp_path), False, T0)
    assert result["in_service"] == ["node1", "node2", "node3"] and not result["changed"]
    assert not os.path.exists(result["ledger"])


def test_a_failed_verdict_quarantines_with_reason_time_and_evidence(tmp_path):
    result = apply(args(tmp_path, action="record", findings={"node3": fail("doctor", "ssh_login: refused"),
                                                             "node1": passed("doctor")}), False, T0)
    assert result["nodes_changed"] == ["node3"] and result["in_service"] == ["node1", "node2"]
    assert result["quarantined"] == {
        "node3": "ssh_login: refused (quarantined since 2026-11-26T06:00:00Z; evidence logs/doctor/report.json)"}
    stored = json.loads(open(result["ledger"], encoding="utf-8").read())
    assert stored["nodes"]["node3"]["source"] == "doctor" and stored["inventory"] == str(tmp_path / "inv/hosts.yml")
    assert oct(os.stat(result["ledger"]).st_mode & 0o777) == "0o600"
    assert result["table"][0].split() == ["node", "state", "reason", "since", "evidence"]
    # A later failure keeps the first reason and time; a pass does not return the node.
    later = T0 + datetime.timedelta(hours=1)
    again = apply(args(tmp_path, action="record", findings={"node3": fail("acceptance", "slow"),
                                                            "node2": passed("doctor")}), False, later)
    assert again["quarantined"]["node3"].startswith("ssh_login: refused (quarantined since 2026-11-26T06:00:00Z")
    assert apply(args(tmp_path, action="record", findings={"node3": passed("doctor")}), False, later)[
        "quarantined"].keys() == {"node3"}


def test_return_needs_doctor_and_acceptance_passes_after_the_quarantine_unless_forced(tmp_path):
    apply(args(tmp_path, action="record", findings={"node2": fail("acceptance", "slow: 0.25 of the median")}),
          False, T0)
    with pytest.raises(ActionError, match=r"node2: not passed by the doctor since it was quarantined at "
                                          r"2026-11-26T06:00:00Z \(no doctor verdict\)"):
        apply(args(tmp_path, action="return", names=["node2"]), False, T0)
    later = T0 + datetime.timedelta(hours=1)
    apply(args(tmp_path, action="record", findings={"node2": passed("doctor")}), False, later)
    with pytest.raises(ActionError, match=r"node2: not passed by the acceptance since .*\(its last acceptance "
                                          r"verdict is fail at 2026-11-26T06:00:00Z\)"):
        apply(args(tmp_path, action="return", names=["node2"]), False, later)
    apply(args(tmp_path, action="record", findings={"node2": passed("acceptance")}), False, later)
    returned = apply(args(tmp_path, action="return", names=["node2"]), False, later)
    assert returned["nodes_changed"] == ["node2"] and "node2" in returned["in_service"]
    # Forced: the reason is recorded.
    apply(args(tmp_path, action="quarantine", names=["node1"], reason="fan noise"), False, later)
    forced = apply(args(tmp_path, action="return", names=["node1"], force=True, reason="fan replaced"), False, later)
    row = [row for row in forced["rows"] if row["node"] == "node1"][0]
    assert row["reason"] == "returned by the operator, forced: fan replaced" and row["source"] == "operator"


def test_a_node_returned_by_force_is_ungated_until_the_doctor_and_acceptance_pass_it(tmp_path):
    apply(args(tmp_path, action="record", findings={"node2": fail("doctor", "ssh_mesh: no key of node1"),
                                                    "node1": passed("doctor"), "node3": passed("doctor")}),
          False, T0)
    assert apply(args(tmp_path), False, T0)["ungated"] == []
    later = T0 + datetime.timedelta(hours=1)
    forced = apply(args(tmp_path, action="return", names=["node2"], force=True, reason="known_hosts restored"),
                   False, later)
    assert forced["ungated"] == ["node2"] and "node2" in forced["in_service"]
    assert apply(args(tmp_path, action="record", findings={"node2": passed("doctor")}), False, later)["ungated"] \
        == ["node2"]
    gated = apply(args(tmp_path, action="record", findings={"node2": passed("acceptance")}), False, later)
    assert gated["ungated"] == [] and "node2" in gated["in_service"]
    # Quarantined again, the mark goes with the state.
    apply(args(tmp_path, action="quarantine", names=["node2"], reason="fan noise"), False, later)
    with open(gated["ledger"], encoding="utf-8") as handle:
        assert "forced" not in json.load(handle)["nodes"]["node2"]
    # A return after passing both is not forced, so not ungated.
    apply(args(tmp_path, action="record", findings={"node3": fail("acceptance", "slow")}), False, T0)
    apply(args(tmp_path, action="record", findings={"node3": passed("doctor")}), False, later)
    apply(args(tmp_path, action="record", findings={"node3": passed("acceptance")}), False, later)
    assert apply(args(tmp_path, action="return", names=["node3"]), False, later)["ungated"] == []


def test_an_upgraded_node_is_ungated_until_the_doctor_and_acceptance_pass_it_after_the_upgrade(tmp_path):
    # node1 and node2 passed both before the upgrade; a batch of node1, node2 and node3 is upgraded.
    for source in ("doctor", "acceptance"):
        apply(args(tmp_path, action="record", findings={"node1": passed(source), "node2": passed(source)}), False, T0)
    later = T0 + datetime.timedelta(hours=1)
    marked = apply(args(tmp_path, action="upgraded", names=["node1", "node2"]), False, later)
    assert marked["changed"] and marked["ungated"] == ["node1", "node2"]
    # The gate stopped at node3's doctor failure: node1 passed the doctor, acceptance never ran.
    apply(args(tmp_path, action="record", findings={"node1": passed("doctor"), "node3": fail("doctor", "ssh_mesh")}),
          False, later)
    view = apply(args(tmp_path), False, later)
    assert view["ungated"] == ["node1", "node2"] and view["in_service"] == ["node1", "node2"]
    # The next run's gate passes node1 with both: it is no longer ungated; node2 still is.
    gated = apply(args(tmp_path, action="record", findings={"node1": passed("acceptance")}),
                  False, later + datetime.timedelta(minutes=5))
    assert gated["ungated"] == ["node2"]
    # A failed verdict after the upgrade quarantines node2: out of service, so not ungated.
    failed = apply(args(tmp_path, action="record", findings={"node2": fail("acceptance", "slow")}), False, later)
    assert failed["ungated"] == [] and "node2" in failed["quarantined"]


def test_a_node_first_known_to_the_ledger_by_its_upgrade_reads_back(tmp_path):
    marked = apply(args(tmp_path, action="upgraded", names=["node3"]), False, T0)
    assert marked["ungated"] == ["node3"]
    assert apply(args(tmp_path), False, T0)["ungated"] == ["node3"]


def test_an_upgraded_mark_that_is_not_a_time_is_refused(tmp_path):
    path = tmp_path / "ledger.json"
    ledger = node_ledger.empty(str(tmp_path / "hosts.yml"))
    ledger["nodes"]["node1"] = {"state": "in_service", "since": "2026-11-26T06:00:00Z", "upgraded": "yesterday",
                                "verdicts": {}}
    problems = node_ledger.problems(ledger, str(path))
    assert len(problems) == 1 and problems[0].startswith(f"{path}: node node1: upgraded")


def test_a_forced_mark_on_a_node_out_of_service_is_refused(tmp_path):
    path = tmp_path / "ledger.json"
    ledger = node_ledger.empty(str(tmp_path / "hosts.yml"))
    ledger["nodes"]["node2"] = {"state": "quarantined", "since": "2026-11-26T06:00:00Z", "reason": "x",
                                "source": "operator", "forced": True, "verdicts": {}}
    assert node_ledger.problems(ledger, str(path)) == [
        f"{path}: node node2: forced is True: only true, on a node in service"]


def test_retired_nodes_stay_retired_and_operator_actions_need_a_reason(tmp_path):
    apply(args(tmp_path, action="retire", names=["node3"], reason="decommissioned"), False, T0)
    result = apply(args(tmp_path, action="record", findings={"node3": fail("doctor", "x")}), False, T0)
    assert result["retired"] == ["node3"] and result["quarantined"] == {}
    with pytest.raises(ActionError, match="quarantine needs a reason"):
        apply(args(tmp_path, action="quarantine", names=["node1"]), False, T0)
    with pytest.raises(ActionError, match="node9: not a node of the inventory; nothing was changed"):
        apply(args(tmp_path, action="quarantine", names=["node9"], reason="x"), False, T0)


def test_check_mode_writes_nothing(tmp_path):
    result = apply(args(tmp_path, action="quarantine", names=["node1"], reason="x"), True, T0)
    assert result["quarantined"].keys() == {"node1"} and not os.path.exists(result["ledger"])


def test_another_inventorys_ledger_or_another_address_is_refused(tmp_path):
    first = apply(args(tmp_path, action="quarantine", names=["node1"], reason="x"), False, T0)
    other = dict(NODES, node1="10.9.9.9")
    with pytest.raises(ActionError, match="node1: the ledger knows it at 10.0.0.1, the inventory at 10.9.9.9"):
        apply(args(tmp_path, nodes=other), False, T0)
    stored = json.loads(open(first["ledger"], encoding="utf-8").read())
    stored["inventory"] = "/elsewhere/hosts.yml"
    with open(first["ledger"], "w", encoding="utf-8") as handle:
        json.dump(stored, handle)
    with pytest.raises(ActionError, match="the ledger of inventory /elsewhere/hosts.yml"):
        apply(args(tmp_path), False, T0)


@pytest.mark.parametrize("edit, message", [
    (lambda n: n["node1"].update(state="broken"), "node node1: state 'broken' is not one of"),
    (lambda n: n["node1"].update(reason=""), "node node1: a quarantined node needs a reason"),
    (lambda n: n["node1"].update(since="yesterday"), "node node1: since: 'yesterday' is not a time"),
    (lambda n: n.update({"bad name!": {}}), "node bad name!: not a node name"),
])
def test_a_ledger_edited_into_an_invalid_state_is_refused_and_left_alone(tmp_path, edit, message):
    path = apply(args(tmp_path, action="quarantine", names=["node1"], reason="x"), False, T0)["ledger"]
    stored = json.loads(open(path, encoding="utf-8").read())
    edit(stored["nodes"])
    text = json.dumps(stored)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    with pytest.raises(ActionError, match=message):
        apply(args(tmp_path, action="quarantine", names=["node2"], reason="y"), False, T0)
    assert open(path, encoding="utf-8").read() == text


def test_stale_verdicts_say_so(tmp_path):
    apply(args(tmp_path, action="record", findings={"node1": fail("doctor", "x")}), False, T0)
    fresh = apply(args(tmp_path), False, T0 + datetime.timedelta(days=1))
    old = apply(args(tmp_path), False, T0 + datetime.timedelta(days=8))
    assert "stale" not in fresh["quarantined"]["node1"]
    assert old["quarantined"]["node1"].endswith("; stale: older than cluster_verdict_max_age)")
    assert "quarantined (stale)" in old["table"][1]


def _quarantine_many(ledger_dir, inventory, node, count):
    for index in range(count):
        apply(dict(ledger_dir=ledger_dir, inventory=inventory, nodes=NODES, action="record",
                   findings={node: {"source": "doctor", "result": "pass" if index % 2 else "fail", "reason": "r"}},
                   names=[], reason="", force=False, max_age=3600), False, T0)


def test_two_runs_at_once_lose_none_of_each_others_writes(tmp_path):
    common = (str(tmp_path / "ledger"), str(tmp_path / "hosts.yml"))
    workers = [multiprocessing.Process(target=_quarantine_many, args=common + (node, 30))
               for node in ("node1", "node2", "node3")]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert [worker.exitcode for worker in workers] == [0, 0, 0]
    result = apply(dict(args(tmp_path), ledger_dir=common[0], inventory=common[1]), False, T0)
    assert sorted(result["quarantined"]) == ["node1", "node2", "node3"]
    assert not [name for name in os.listdir(common[0]) if name.startswith(".ledger.")]


def test_the_file_name_says_which_inventory(tmp_path):
    path = node_ledger.ledger_path("/x", "/srv/clusters/prod/hosts.yml")
    assert os.path.basename(path).startswith("prod-") and path.endswith(".json")
    assert path != node_ledger.ledger_path("/x", "/srv/clusters/test/hosts.yml")


def test_host_key_is_recorded_once_and_checked(tmp_path):
    fingerprint = "SHA256:wMILQInLg4JwujAp0ccW3z6ctPZkf09m7p5W8C/0bfc"
    first = apply(args(tmp_path, action="host_key", names=["node3"], fingerprints=[fingerprint],
                       accepted_by="fingerprint", reason="reinstalled, ticket 7"), False, T0)
    assert first["nodes_changed"] == ["node3"]
    ledger = json.loads(open(first["ledger"], encoding="utf-8").read())
    assert ledger["nodes"]["node3"]["host_key"] == {"fingerprints": [fingerprint], "accepted_by": "fingerprint",
                                                    "reason": "reinstalled, ticket 7",
                                                    "time": "2026-11-26T06:00:00Z"}
    assert ledger["nodes"]["node3"]["state"] == "in_service"
    again = apply(args(tmp_path, action="host_key", names=["node3"], fingerprints=[fingerprint],
                       accepted_by="fingerprint", reason="reinstalled, ticket 7"), False, T0)
    assert again["changed"] is False
    with pytest.raises(ActionError, match="trusted on first use needs the operator's reason"):
        apply(args(tmp_path, action="host_key", names=["node3"], fingerprints=[fingerprint],
                   accepted_by="trust_on_first_use"), False, T0)
    ledger["nodes"]["node3"]["host_key"] = "garbage"
    with open(first["ledger"], "w", encoding="utf-8") as handle:
        json.dump(ledger, handle)
    with pytest.raises(ActionError, match="host_key is not a mapping"):
        apply(args(tmp_path), False, T0)


def test_host_key_of_a_retired_node_is_refused_and_check_mode_writes_nothing(tmp_path):
    apply(args(tmp_path, action="retire", names=["node2"], reason="gone"), False, T0)
    with pytest.raises(ActionError, match="node2: retired; add it again"):
        apply(args(tmp_path, action="host_key", names=["node2"], fingerprints=["SHA256:x"]), False, T0)
    checked = apply(args(tmp_path, action="host_key", names=["node3"], fingerprints=["SHA256:x"]), True, T0)
    assert checked["nodes_changed"] == ["node3"]
    ledger = json.loads(open(checked["ledger"], encoding="utf-8").read())
    assert "node3" not in ledger["nodes"]


def test_add_refuses_quarantined_and_retired_nodes_unless_forced(tmp_path):
    assert apply(args(tmp_path, action="add", names=["node1"]), False, T0)["changed"] is False
    apply(args(tmp_path, action="quarantine", names=["node2"], reason="fan"), False, T0)
    apply(args(tmp_path, action="retire", names=["node3"], reason="board"), False, T0)
    with pytest.raises(ActionError) as refused:
        apply(args(tmp_path, action="add", names=["node2", "node3"]), False, T0)
    assert "node2: quarantined; return it" in str(refused.value)
    assert "node3: retired; to add it again pass fleet_force with fleet_reason" in str(refused.value)
    added = apply(args(tmp_path, action="add", names=["node3"], force=True, reason="board repaired"), False, T0)
    assert added["nodes_changed"] == ["node3"] and "node3" in added["in_service"]
    ledger = json.loads(open(added["ledger"], encoding="utf-8").read())
    assert ledger["nodes"]["node3"]["reason"] == "added again by the operator: board repaired"


def test_record_above_the_fail_limit_writes_nothing_and_names_the_share(tmp_path):
    apply(args(tmp_path, action="record", findings={"node3": fail("doctor", "ssh_login: refused")}), False, T0)
    before = open(node_ledger.ledger_path(str(tmp_path / "ledger"), str(tmp_path / "inv" / "hosts.yml")),
                  encoding="utf-8").read()
    findings = {"node1": fail("unreachable", "unreachable: no route"), "node2": fail("doctor", "ssh_login: refused"),
                "node3": fail("doctor", "ssh_login: refused")}
    # node3 is quarantined already: 2 of the 2 in-service nodes judged failed.
    with pytest.raises(ActionError, match=r"stopped: 2 of the 2 in-service nodes judged failed \(100 %\), more than "
                                          r"cluster_max_fail_percentage 50 % allows.*node1: unreachable: no route"):
        apply(args(tmp_path, action="record", findings=findings, max_fail_percentage=50), False, T0)
    result = apply(args(tmp_path), False, T0)
    assert open(result["ledger"], encoding="utf-8").read() == before and result["in_service"] == ["node1", "node2"]
    # Within the limit (1 of 2 is 50 %, not above it) every finding is recorded.
    result = apply(args(tmp_path, action="record", findings={"node1": passed("doctor"), "node2": findings["node2"]},
                        max_fail_percentage=50), False, T0)
    assert result["nodes_changed"] == ["node2"] and result["in_service"] == ["node1"]
