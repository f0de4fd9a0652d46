"""Tests for the pure functions of bench/scenarios/site_rerun.py."""

import datetime
import os
import sys

import pytest

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "bench"))

from scenarios import site_rerun  # noqa: E402  (bench/ is found through the path entry above)

T0 = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc).replace(tzinfo=None)


def task_event(task, host, duration, uuid, kind="runner_on_ok"):
    return {"event": kind, "created": T0.isoformat(),
            "event_data": {"task": task, "host": host, "duration": duration, "task_uuid": uuid, "res": {}}}


def rerun(series, nodes, index, wall, changed=0, gathers=1, gather_seconds=1.0):
    return {"series": series, "nodes": nodes, "round": index, "wall_seconds": wall, "changed": changed,
            "gathers": gathers, "gather_seconds": gather_seconds}


def test_gathers_counts_each_play_once_at_its_slowest_host():
    events = [task_event("Gathering Facts", "node1", 1.5, "a"), task_event("Gathering Facts", "node2", 2.0, "a"),
              task_event("Install things", "node1", 9.0, "b"),
              task_event("Gathering Facts", "node1", 0.5, "c"), task_event("Gathering Facts", "node2", 0.25, "c")]
    assert site_rerun.gathers(events) == (2, 2.5)


def test_gathers_ignores_starts_and_events_without_duration():
    events = [{"event": "runner_on_start", "event_data": {"task": "Gathering Facts", "task_uuid": "a"}},
              task_event("Gathering Facts", "node1", None, "a")]
    assert site_rerun.gathers(events) == (0, 0)


def test_gathers_counts_failed_and_unreachable_hosts_too():
    events = [task_event("Gathering Facts", "node1", 3.0, "a", "runner_on_unreachable")]
    assert site_rerun.gathers(events) == (1, 3.0)


@pytest.mark.parametrize("index, expected", [(0, ["a", "b", "c"]), (1, ["b", "c", "a"]), (2, ["c", "a", "b"]),
                                             (3, ["a", "b", "c"])])
def test_round_order_rotates(index, expected):
    assert site_rerun.round_order(("a", "b", "c"), index) == expected


def test_round_order_of_nothing_is_empty():
    assert site_rerun.round_order([], 3) == []


def test_mitogen_envvars_prepend_the_directory_and_pick_the_strategy():
    env = site_rerun.mitogen_envvars("/opt/mitogen", "/already/there")
    assert env["PYTHONPATH"] == os.pathsep.join(["/opt/mitogen", "/already/there"])
    assert env["ANSIBLE_STRATEGY_PLUGINS"] == "/opt/mitogen/ansible_mitogen/plugins/strategy"
    assert env["ANSIBLE_STRATEGY"] == "mitogen_linear"
    assert site_rerun.mitogen_envvars("/opt/mitogen")["PYTHONPATH"] == "/opt/mitogen"


SUMMARY = {"ours": {"2": {"median": 30.0}, "8": {"median": 40.0}},
           "defaults": {"2": {"median": 50.0}, "8": {"median": 100.0}}}


def test_series_ratios_per_size_with_none_where_unmeasured():
    assert site_rerun.series_ratios(SUMMARY, "ours", "defaults", [2, 8, 16]) == {"2": 0.6, "8": 0.4, "16": None}


def test_paired_ratios_pair_the_runs_of_each_round():
    runs = [rerun("ours", 2, 0, 30.0), rerun("defaults", 2, 0, 60.0), rerun("ours", 2, 1, 20.0),
            rerun("defaults", 2, 1, 80.0), rerun("ours", 8, 0, 10.0), rerun("provision", 2, None, 99.0)]
    assert site_rerun.paired_ratios(runs, "ours", "defaults", [2, 8]) == {"2": [0.5, 0.25], "8": []}


def test_max_changed_over_the_named_series_only():
    runs = [rerun("ours", 2, 0, 1.0, changed=0), rerun("defaults", 2, 0, 1.0, changed=2),
            rerun("provision", 2, None, 1.0, changed=30), rerun("mitogen", 2, 0, 1.0, changed=5)]
    assert site_rerun.max_changed(runs, ("ours", "defaults")) == 2
    assert site_rerun.max_changed(runs, ("nothing",)) is None


def test_median_gather():
    runs = [rerun("ours", 8, index, 1.0, gather_seconds=value) for index, value in enumerate((3.0, 1.0, 2.0))]
    assert site_rerun.median_gather(runs, "ours", 8) == 2.0
    assert site_rerun.median_gather(runs, "ours", 2) is None


def test_make_result_aims_ratios_and_chart():
    runs = [rerun("provision", 2, None, 90.0, changed=30, gathers=2),
            rerun("ours", 2, 0, 30.0), rerun("defaults", 2, 0, 50.0, gathers=2),
            rerun("ours", 8, 0, 40.0, gather_seconds=4.0), rerun("defaults", 8, 0, 100.0, gathers=2)]
    result, chart = site_rerun.make_result(SUMMARY, runs, [2, 8], 1, {"2": 90.0, "8": 200.0}, "", 2)
    assert result["ratios"]["ours_vs_defaults"] == {"2": 0.6, "8": 0.4}
    assert result["ratios"]["ours_vs_defaults_per_round"] == {"2": [0.6], "8": [0.4]}
    assert "mitogen_vs_defaults" not in result["ratios"]
    changed, speed = result["aims"]
    assert (changed["value"], changed["met"]) == (0, True)
    assert (speed["value"], speed["limit"], speed["met"]) == (0.4, 0.5, True)
    assert "8 nodes" in speed["aim"]
    assert set(result["labels"]) == {"ours", "defaults"}
    assert chart["summary"] is SUMMARY and chart["xlabel"] == "nodes"
    assert "" not in result["notes"]
    assert any("4 s of ours' 40 s on 8 nodes (10%)" in note for note in result["notes"])
    assert any("1 gathering per run against 2" in note for note in result["notes"])


def test_make_result_a_changing_rerun_misses_the_aim():
    runs = [rerun("ours", 2, 0, 30.0, changed=1), rerun("defaults", 2, 0, 50.0)]
    summary = {"ours": {"2": {"median": 30.0}}, "defaults": {"2": {"median": 50.0}}}
    result, _ = site_rerun.make_result(summary, runs, [2], 1, {}, "mitogen not measured.", 2)
    assert result["aims"][0]["met"] is False
    assert result["aims"][1]["met"] is False  # 0.6 > 0.5
    assert "mitogen not measured." in result["notes"]


def test_make_result_with_mitogen():
    summary = dict(SUMMARY, mitogen={"2": {"median": 15.0}, "8": {"median": 20.0}})
    result, _ = site_rerun.make_result(summary, [rerun("mitogen", 2, 0, 15.0)], [2, 8], 1, {}, "m", 2)
    assert result["ratios"]["mitogen_vs_defaults"] == {"2": 0.3, "8": 0.2}
    assert result["ratios"]["mitogen_vs_ours"] == {"2": 0.5, "8": 0.5}
    assert list(result["labels"]) == ["ours", "defaults", "mitogen"]
    assert "m On 8 nodes mitogen/defaults 0.2 (wall), - (CPU); mitogen/ours 0.5 (wall)." in result["notes"]


def test_the_defaults_config_says_nothing_about_speed():
    with open(site_rerun.DEFAULTS_CFG, encoding="utf-8") as handle:
        settings = [line.split("=")[0].strip() for line in handle
                    if "=" in line and not line.lstrip().startswith("#")]
    assert settings == ["collections_path", "interpreter_python"]


@pytest.mark.parametrize("v1, v2, expected", [
    ("2500000000\n", None, 2.5),
    (None, "usage_usec 1500000\nuser_usec 1000000\nsystem_usec 500000\n", 1.5),
    (None, None, None), ("", "nothing here", None), ("garbage", None, None),
])
def test_cgroup_cpu_seconds(v1, v2, expected):
    assert site_rerun.cgroup_cpu_seconds(v1, v2) == expected


def test_cpu_summary_skips_provisioning_and_unmeasured_runs():
    runs = [dict(rerun("ours", 2, 0, 1.0), cpu_seconds={"controller": 5.0, "nodes": 5.0, "total": 10.0}),
            dict(rerun("ours", 2, 1, 1.0), cpu_seconds={"controller": 6.0, "nodes": None, "total": None}),
            dict(rerun("provision", 2, None, 1.0), cpu_seconds={"controller": 50.0, "nodes": 50.0, "total": 100.0}),
            rerun("defaults", 2, 0, 1.0)]
    assert site_rerun.cpu_summary(runs) == {"ours": {"2": {"median": 10.0, "min": 10.0, "max": 10.0,
                                                           "samples": [10.0]}}}


def test_make_result_reports_cpu_ratios():
    cpu = {"controller": 10.0, "nodes": 10.0}
    runs = [dict(rerun("ours", 2, 0, 30.0), cpu_seconds=dict(cpu, total=20.0)),
            dict(rerun("defaults", 2, 0, 50.0), cpu_seconds=dict(cpu, total=80.0))]
    summary = {"ours": {"2": {"median": 30.0}}, "defaults": {"2": {"median": 50.0}}}
    result, _ = site_rerun.make_result(summary, runs, [2], 1, {}, "", 2)
    assert result["ratios"]["ours_vs_defaults_cpu"] == {"2": 0.25}
    assert result["cpu_summary"]["ours"]["2"]["median"] == 20.0
    assert any("ours/defaults 0.25" in note for note in result["notes"])


def test_cpu_medians_per_part():
    runs = [dict(rerun("ours", 8, index, 1.0), cpu_seconds={"controller": c, "nodes": n, "total": None})
            for index, (c, n) in enumerate(((10.0, 20.0), (30.0, None), (20.0, 40.0)))]
    assert site_rerun.cpu_medians(runs, "ours", 8) == {"controller": 20.0, "nodes": 30.0}
    assert site_rerun.cpu_medians(runs, "defaults", 8) == {"controller": None, "nodes": None}


def test_make_result_says_where_the_cpu_goes():
    runs = [dict(rerun("ours", 8, 0, 40.0), cpu_seconds={"controller": 30.0, "nodes": 50.0, "total": 80.0}),
            dict(rerun("defaults", 8, 0, 100.0), cpu_seconds={"controller": 40.0, "nodes": 60.0, "total": 100.0})]
    summary = {"ours": {"8": {"median": 40.0}}, "defaults": {"8": {"median": 100.0}}}
    result, _ = site_rerun.make_result(summary, runs, [8], 1, {}, "", 2)
    where = [note for note in result["notes"] if note.startswith("Where the time goes")]
    assert where == ["Where the time goes: the re-run is CPU-bound here (ours on 8 nodes: 80 CPU-s in 40 s on 2 "
                     "cores), and most of that work is the same under both configurations: a fresh Python for "
                     "every task on every node (the nodes' CPU: ours 50 s, defaults 60 s) and ansible's per-task "
                     "work on the controller (ours 30 s, defaults 40 s). Pipelining, the forks and one gathering "
                     "fewer save the rest."]


def test_make_result_not_cpu_bound_on_a_big_machine():
    runs = [dict(rerun("ours", 8, 0, 40.0), cpu_seconds={"controller": 30.0, "nodes": 50.0, "total": 80.0})]
    summary = {"ours": {"8": {"median": 40.0}}}
    result, _ = site_rerun.make_result(summary, runs, [8], 1, {}, "", 64)
    assert any(note.startswith("Where the time goes: the re-run is not CPU-bound here") for note in result["notes"])
