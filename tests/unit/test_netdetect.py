"""Tests for plugins/module_utils/netdetect.py: input checks, rounds, the polling loop, check mode."""

import re

import pytest

from netdetect import (
    PENDING_STATUSES,
    describe,
    is_ipv4,
    is_pending,
    observe,
    parse_pairs,
    plan_rounds,
    run_tests,
    summarize,
)

STATUS_CODES = {"Success": 0, "Receive timeout": 2, "Unreachable": 3, "Fault": 5, "Init": 6}


class FakeClock:
    def __init__(self):
        self.now = 100.0
        self.sleeps = []

    def __call__(self):
        return self.now

    def sleep(self, seconds):
        assert seconds >= 0
        self.sleeps.append(seconds)
        self.now += seconds


class FakeTool:
    """hccn_tool as the netdetect functions see it: Init for ``init_for`` seconds after a
    set, then Success for reachable targets and Receive timeout for the others."""

    def __init__(self, clock, reachable=(), init_for=2.0, addresses=None, detect=None, broken=()):
        self.clock = clock
        self.reachable = set(reachable)
        self.init_for = init_for
        self.addresses = addresses or {}
        self.detects = dict(detect or {})
        self.set_at = {}
        self.broken = set(broken)
        self.calls = []

    def _check(self, device):
        if device in self.broken:
            raise RuntimeError(f"hccn_tool -i {device} failed: Invalid device id: {device}")

    def address(self, device):
        self.calls.append(("address", device))
        return self.addresses.get(device)

    def detect(self, device):
        self.calls.append(("detect", device))
        return self.detects.get(device)

    def set_detect(self, device, target):
        self._check(device)
        self.calls.append(("set", device, target))
        self.detects[device] = target
        self.set_at[device] = self.clock()

    def health(self, device):
        self._check(device)
        self.calls.append(("health", device))
        target = self.detects.get(device)
        if target is None or self.clock() - self.set_at.get(device, -1e9) < self.init_for:
            status = "Init"
        else:
            status = "Success" if target in self.reachable else "Receive timeout"
        return {"code": STATUS_CODES[status], "status": status, "text": status}

    def link(self, device):
        self.calls.append(("link", device))
        return "UP"

    def sets(self):
        return [call for call in self.calls if call[0] == "set"]


@pytest.fixture
def clock():
    return FakeClock()


def run(pairs, tool, clock, **kwargs):
    return run_tests(pairs, tool, clock=clock, sleep=clock.sleep, **kwargs)


# --- input -----------------------------------------------------------------------------


def test_is_ipv4():
    assert is_ipv4("192.168.100.111")
    for text in ("192.168.100", "192.168.100.256", "192.168.01.1", "a.b.c.d", None, 1):
        assert not is_ipv4(text)


def test_parse_pairs_sorts_by_device_and_accepts_filter_output():
    items = [
        {"device": 1, "targets": ["192.168.101.111"]},
        {"device": "0", "targets": "192.168.100.111"},
        {"device": 2, "targets": []},
    ]
    assert parse_pairs(items) == [(0, ["192.168.100.111"]), (1, ["192.168.101.111"]), (2, [])]


def test_parse_pairs_reports_every_problem():
    items = [
        {"device": -1, "targets": []},
        {"device": True, "targets": []},
        "device 3",
        {"device": 4, "targets": ["192.168.100.300"]},
        {"device": 5, "targets": {"a": 1}},
        {"device": 6, "targets": ["192.168.100.1", "192.168.100.1"]},
        {"device": 7, "targets": [], "detect": "x"},
        {"device": 7, "targets": []},
    ]
    with pytest.raises(ValueError) as error:
        parse_pairs(items)
    message = str(error.value)
    for part in (
        "entry 0: device -1 is not a device index",
        "entry 1: device True is not a device index",
        "entry 2: 'device 3' is not a mapping",
        "device 4: target 192.168.100.300 is not a valid dotted IPv4 address",
        "device 5: targets {'a': 1} must be a list",
        "device 6: target 192.168.100.1 is listed more than once",
        "entry 6: unknown key detect",
        "device 7: listed more than once",
    ):
        assert part in message


@pytest.mark.parametrize("items", ["0:1.2.3.4", {"device": 0}, None])
def test_parse_pairs_needs_a_list(items):
    with pytest.raises(ValueError, match="targets must be a list"):
        parse_pairs(items)


def test_rounds_test_each_devices_targets_in_turn():
    pairs = [(0, ["a0", "b0"]), (1, ["a1"]), (2, []), (3, ["a3", "b3", "c3"])]
    assert plan_rounds(pairs) == [
        [(0, "a0"), (1, "a1"), (3, "a3")],
        [(0, "b0"), (3, "b3")],
        [(3, "c3")],
    ]


def test_is_pending():
    for status in PENDING_STATUSES:
        assert is_pending({"status": status})
    assert not is_pending({"status": "Success"})


# --- run_tests -------------------------------------------------------------------------


def test_ascend_pytorch_guide_eight_tests_one_per_device(clock):
    """Two servers: device i of server 0 checks device i of server 1, all at once."""
    peer = {i: f"192.168.10{i % 4}.{111 if i < 4 else 110}" for i in range(8)}
    own = {i: f"192.168.10{i % 4}.{101 if i < 4 else 100}" for i in range(8)}
    tool = FakeTool(clock, reachable=peer.values(), addresses=own)
    results = run([(i, [peer[i]]) for i in range(8)], tool, clock, labels={peer[3]: "node2 device 3"})
    assert [(r["device"], r["target"], r["status"], r["code"]) for r in results] == [
        (i, peer[i], "Success", 0) for i in range(8)
    ]
    assert all(r["success"] and r["tested"] and r["link"] == "UP" for r in results)
    assert all(r["attempts"] == 1 and not r["timed_out"] for r in results)
    assert results[3]["address"] == "192.168.103.101"
    assert results[3]["target_label"] == "node2 device 3"
    assert results[0]["target_label"] is None
    assert results[0]["detect_address"] == peer[0]
    # One round: every device set, one wait of `delay`, then one reading each.
    assert len(tool.sets()) == 8 and clock.sleeps == [2.0]


def test_pending_status_is_read_again_until_it_settles(clock):
    tool = FakeTool(clock, reachable={"192.168.100.111"}, init_for=4.5)
    [result] = run([(0, ["192.168.100.111"])], tool, clock, delay=2, interval=1, timeout=30)
    assert result["status"] == "Success" and result["success"]
    # Read at +2 (Init), +3 (Init), +4 (Init), +5 (Success).
    assert result["attempts"] == 4
    assert result["seconds"] == 5.0
    assert clock.sleeps == [2, 1, 1, 1]


def test_pending_at_the_timeout_is_reported_as_timed_out(clock):
    tool = FakeTool(clock, reachable={"192.168.100.111"}, init_for=1000)
    [result] = run([(0, ["192.168.100.111"])], tool, clock, delay=1, interval=2, timeout=6)
    assert result["status"] == "Init" and result["code"] == 6
    assert result["timed_out"] and not result["success"]
    # Reads at +1, +3, +5, +6 (the last sleep is cut to the timeout).
    assert result["attempts"] == 4
    assert clock.sleeps == [1, 2, 2, 1]
    assert "still pending at the timeout" in describe(result)


def test_several_peers_are_tested_one_after_the_other(clock):
    targets = ["192.168.100.111", "192.168.100.121", "192.168.100.131"]
    tool = FakeTool(clock, reachable={targets[0], targets[2]})
    results = run([(0, targets), (4, targets[:1])], tool, clock)
    assert [(r["device"], r["target"], r["status"]) for r in results] == [
        (0, targets[0], "Success"),
        (4, targets[0], "Success"),
        (0, targets[1], "Receive timeout"),
        (0, targets[2], "Success"),
    ]
    # Each set is followed by its own reading before the device's next set.
    device0 = [call for call in tool.calls if call[0] in ("set", "health") and call[1] == 0]
    assert device0 == [
        ("set", 0, targets[0]),
        ("health", 0),
        ("set", 0, targets[1]),
        ("health", 0),
        ("set", 0, targets[2]),
        ("health", 0),
    ]


def test_a_tool_failure_is_reported_and_the_other_tests_go_on(clock):
    tool = FakeTool(clock, reachable={"192.168.100.111"}, broken={1})
    results = run([(0, ["192.168.100.111"]), (1, ["192.168.101.111"])], tool, clock)
    assert results[0]["success"]
    failed = results[1]
    assert (failed["status"], failed["code"], failed["tested"], failed["success"]) == ("Unknown", -1, False, False)
    assert "Invalid device id: 1" in failed["error"]
    assert "Unknown: hccn_tool -i 1 failed" in describe(failed)


def test_devices_without_targets_are_not_tested(clock):
    tool = FakeTool(clock)
    pairs = [(0, []), (1, [])]
    results = run(pairs, tool, clock)
    assert results == [] and tool.sets() == [] and clock.sleeps == []
    assert summarize(results, pairs)["untested_devices"] == [0, 1]


# --- check mode ------------------------------------------------------------------------


def test_observe_sets_nothing_and_reports_the_current_state(clock):
    tool = FakeTool(
        clock,
        reachable={"192.168.100.111"},
        addresses={0: "192.168.100.101", 1: "192.168.101.101"},
        detect={0: "192.168.100.111"},
    )
    tool.set_at[0] = clock() - 60
    results = observe([(0, ["192.168.100.111", "192.168.100.121"]), (1, ["192.168.101.111"])], tool)
    assert tool.sets() == []
    assert [
        (r["device"], r["target"], r["detect_address"], r["status"], r["success"], r["tested"]) for r in results
    ] == [
        (0, "192.168.100.111", "192.168.100.111", "Success", True, False),
        (0, "192.168.100.121", "192.168.100.111", "Success", False, False),
        (1, "192.168.101.111", None, "Init", False, False),
    ]
    assert "not tested: check mode, current detect address unset" in describe(results[2])


# --- summary and text ------------------------------------------------------------------


def test_summarize_counts_failures(clock):
    tool = FakeTool(clock, reachable={"192.168.100.111"})
    results = run([(0, ["192.168.100.111"]), (1, ["192.168.101.111"])], tool, clock)
    summary = summarize(results, [(0, ["192.168.100.111"]), (1, ["192.168.101.111"])])
    assert (summary["total"], summary["succeeded"], summary["failed"]) == (2, 1, 1)
    assert [r["device"] for r in summary["failures"]] == [1]
    assert summary["untested_devices"] == []


def test_describe(clock):
    tool = FakeTool(clock, addresses={3: "192.168.103.101"})
    [result] = run([(3, ["192.168.103.111"])], tool, clock, labels={"192.168.103.111": "node2 device 3"})
    assert re.fullmatch(
        r"device 3 \(192\.168\.103\.101\) -> 192\.168\.103\.111 \(node2 device 3\): Receive timeout "
        r"\(code 2\), link UP, 1 attempt in 2\.0 s",
        describe(result),
    )
