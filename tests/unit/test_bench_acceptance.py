"""bench/scenarios/acceptance.py's pure parts: seconds per round from events, the result's aims."""
import harness
from scenarios import acceptance


def ok(task, host, start, end):
    return {"event": "runner_on_ok", "event_data": {"task": task, "host": host, "start": start, "end": end}}


def test_round_seconds_spans_every_node_of_the_round():
    events = [
        ok("Run this round's pair test (round 1)", "node1", "2026-11-24T10:00:00.000000", "2026-11-24T10:00:06.000000"),
        ok("Run this round's pair test (round 1)", "node2", "2026-11-24T10:00:00.500000", "2026-11-24T10:00:09.000000"),
        ok("Run this round's pair test (round 2)", "node1", "2026-11-24T10:00:10.000000", "2026-11-24T10:00:12.250000"),
        ok("Keep the result", "node1", "2026-11-24T10:00:12.300000", "2026-11-24T10:00:12.400000"),
    ]
    assert acceptance.round_seconds(events) == {"Run this round's pair test (round 1)": 9.0,
                                                "Run this round's pair test (round 2)": 2.25}


def test_assemble_judges_rounds_and_the_bound():
    walls = harness.Samples()
    walls.add("acceptance", 4, 50.0)
    walls.add("acceptance", 8, 120.0)
    runs = [{"nodes": 4, "rounds": 3}, {"nodes": 8, "rounds": 7}]
    result, chart = acceptance.assemble(walls, runs, [4, 8], 1)
    assert [aim["met"] for aim in result["aims"]] == [True, True]
    assert result["aims"][1]["limit"] == 9 * acceptance.TIMEOUT
    assert chart["xlabel"] == "nodes"
    result, _ = acceptance.assemble(walls, [{"nodes": 8, "rounds": 8}], [4, 8], 1)
    assert result["aims"][0]["met"] is False
