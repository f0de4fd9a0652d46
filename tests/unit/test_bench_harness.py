"""The benchmark harness's pure parts: event timing, statistics, aims and the Markdown report."""

import pytest

import harness
import report


def event(kind, created, **data):
    return {"event": kind, "created": created, "event_data": data}


EVENTS = [
    event("playbook_on_start", "2026-11-21T10:00:00.000000"),
    event("playbook_on_play_start", "2026-11-21T10:00:00.500000", play="validate"),
    event("runner_on_ok", "2026-11-21T10:00:01.000000", task="check", host="node1", duration=0.25,
          res={"changed": False}),
    event("playbook_on_play_start", "2026-11-21T10:00:02.000000", play="build"),
    event("runner_on_ok", "2026-11-21T10:00:09.000000", task="compile", host="node1", duration=6.5,
          res={"changed": True}),
    event("runner_on_ok", "2026-11-21T10:00:09.100000", task="compile", host="node2", duration=0.1,
          res={"changed": False}),
    event("runner_on_failed", "2026-11-21T10:00:09.200000", task="verify", host="node2", duration=1.0, res={}),
    event("runner_on_skipped", "2026-11-21T10:00:09.300000", task="verify", host="node1", duration=None),
    event("playbook_on_stats", "2026-11-21T10:00:10.000000", ok={"node1": 2, "node2": 1},
          changed={"node1": 1, "node2": 0}, failures={"node2": 1}),
]


def test_event_time_reads_created_as_utc():
    assert harness.event_time(EVENTS[1]) - harness.event_time(EVENTS[0]) == pytest.approx(0.5)
    assert harness.event_time({"event": "x"}) is None


def test_play_durations_run_from_each_play_start_to_the_next_or_the_stats():
    assert harness.play_durations(EVENTS) == [("validate", 1.5), ("build", 8.0)]


def test_task_host_durations_keep_finished_results_with_a_duration():
    results = harness.task_host_durations(EVENTS)
    assert [(r["task"], r["host"], r["status"]) for r in results] == [
        ("check", "node1", "ok"), ("compile", "node1", "ok"), ("compile", "node2", "ok"), ("verify", "node2", "failed")]
    assert results[1]["changed"] and not results[2]["changed"]


def test_slowest_tasks_rank_by_the_longest_host():
    assert list(harness.slowest_tasks(EVENTS, count=2).items()) == [("compile", 6.5), ("verify", 1.0)]


def test_changed_hosts_counts_builds():
    assert harness.changed_hosts(EVENTS, "compile") == ["node1"]
    assert harness.changed_hosts(EVENTS, "check") == []


def test_recap_totals():
    stats = harness.recap(EVENTS)
    assert stats["totals"]["changed"] == 1
    assert stats["totals"]["failures"] == 1
    assert stats["changed"] == {"node1": 1, "node2": 0}


def test_summarize_and_refuse_nothing():
    assert harness.summarize([3.0, 1.0, 2.0]) == {"median": 2.0, "min": 1.0, "max": 3.0, "samples": [3.0, 1.0, 2.0]}
    with pytest.raises(ValueError):
        harness.summarize([])


def test_samples_summary_orders_sizes_numerically():
    samples = harness.Samples()
    for size, value in ((8, 4.0), (2, 1.0), (16, 9.0), (2, 3.0)):
        samples.add("ours", size, value)
    summary = samples.summary()
    assert list(summary["ours"]) == ["2", "8", "16"]
    assert summary["ours"]["2"]["median"] == 2.0
    assert harness.median_of(summary, "ours", 8) == 4.0
    assert harness.median_of(summary, "baseline", 8) is None


def test_ratio_and_aims():
    assert harness.ratio(3.0, 2.0) == 1.5
    assert harness.ratio(None, 2.0) is None and harness.ratio(1.0, 0) is None
    assert harness.aim("fast", 1.2, 1.3)["met"] is True
    assert harness.aim("fast", 1.4, 1.3)["met"] is False
    assert harness.aim("one build", 2, 1, "==")["met"] is False
    assert harness.aim("unmeasured", None, 1.3)["met"] is None


RESULT = {
    "scenario": "doctor", "title": "Doctor", "metric": "Wall time", "repeat": 3, "measured": "2026-11-21",
    "machine": {"cpus": 2}, "versions": {"commit": "abc1234"}, "labels": {"ours": "ours"},
    "summary": {"ours": {"2": harness.summarize([10.0, 12.0, 11.0]), "8": harness.summarize([20.0])}},
    "aims": [harness.aim("8 within 2x of 2", 1.818, 2.0), harness.aim("unmeasured", None, 1.0)],
    "notes": ["a note"],
}


def test_scenario_markdown_lists_medians_aims_and_notes():
    text = report.scenario_markdown(RESULT, "bench/results/")
    assert "| series | 2 nodes | 8 nodes |" in text
    assert "| ours | 11 s (10 s-12 s) | 20 s |" in text
    assert "1.818 (limit <= 2.0): **met**" in text
    assert "**not measured**" in text
    assert "- a note" in text
