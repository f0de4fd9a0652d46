"""plugins/plugin_utils/acceptance/judge.py, acceptance/report.py, validation/acceptance.py and the
heat map of a judged report (plugins/plugin_utils/acceptance/heat_map.py, its PNG decoded pixel by pixel):
verdicts, reasons, healthy nodes, report, cells."""
import random

import pytest

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.acceptance import heat_map
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.acceptance import judge
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.acceptance import report as report_text
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.acceptance import peer_sample
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import acceptance as acceptance_settings
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import role_settings
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.fleet import findings as ledger_findings
from test_acceptance_heat_map import Image, cell_centre

NODES = ["node1", "node2", "node3", "node4"]
FAST = 0.025


def probe_output(busbw, sizes=(1048576, 4194304), check="ok"):
    lines = ["# cs_allreduce_bw ranks 2 iters 5 warmup 1"]
    lines += [f"{size:10d} {size / busbw / 1e3:12.1f} {busbw:12.6f} {busbw:12.6f}  {check}" for size in sizes]
    return "\n".join(lines) + "\n"


def run(nodes=NODES, speed=None, broken=(), link=None, intra=None, timeout=30, settings=None, noise=None):
    """Records as role acceptance makes them, for node speeds, broken pairs and one slow link, judged
    as the role does: the first samples of every test, then the suspects' tests measured again
    (report["remeasure"]) up to the settings' samples, then judged again. ``noise`` maps a test
    ((node,) or (a, b)) to a factor per sample, e.g. {("node2",): [0.2, 1.0, 0.9]}."""
    speed, intra, noise = speed or {}, intra or {}, noise or {}
    settings = {"timeout": timeout, **(settings or {})}

    def intra_record(node, sample):
        value = intra.get(node, 1.0) * noise.get((node,), [1.0] * 9)[sample - 1]
        return {"stage": "intra", "hosts": [node], "rc": 0, "ranks": 2, "tool": "probe", "sample": sample,
                "stdout": probe_output(value), "seconds": 1.0}

    def pair_record(a, b, number, sample):
        record = {"stage": "pair", "hosts": [a, b], "round": number, "ranks": 2, "tool": "probe", "seconds": 2.0,
                  "sample": sample}
        if {a, b} in [set(pair) for pair in broken]:
            record.update(rc=124, stdout="", stderr="", seconds=float(timeout))
        else:
            value = min(speed.get(a, 1.0), speed.get(b, 1.0)) * FAST * noise.get((a, b), [1.0] * 9)[sample - 1]
            if link and {a, b} == set(link):
                value *= 0.3
            record.update(rc=0, stdout=probe_output(value))
        return record

    intra_records = [intra_record(n, 1) for n in nodes]
    pairs = [pair_record(a, b, number, 1)
             for number, members in enumerate(peer_sample.exhaustive_rounds(nodes), start=1) for a, b in members]
    report = judge.judge_nodes(nodes, intra_records, pairs, settings)
    again = report["remeasure"]
    for sample in range(2, int(settings.get("samples", 3)) + 1):
        intra_records += [intra_record(n, sample) for n in again["intra"]]
        pairs += [pair_record(a, b, f"again-{number}", sample)
                  for number, members in enumerate(again["rounds"], start=1) for a, b in members]
    if again["intra"] or again["rounds"]:
        report = judge.judge_nodes(nodes, intra_records, pairs, settings)
        report["measured_again"] = again
    return report


def finish(report, busbw=FAST, rc=0, samples=None):
    """The full report; the whole-cluster test's samples at `busbw` (a list: one per sample)."""
    samples = samples or [busbw]
    cluster = [{"stage": "cluster", "hosts": report["healthy"], "rc": rc, "ranks": len(report["healthy"]),
                "tool": "probe", "stdout": probe_output(value) if rc == 0 else "", "seconds": 3.0, "sample": number}
               for number, value in enumerate(samples, start=1)]
    return judge.finish_report(report, cluster if len(report["healthy"]) >= 2 else None, {})


def test_all_fast_passes():
    report = finish(run())
    assert report["passed"]
    assert report["healthy"] == NODES and report["excluded"] == {}
    assert {row["status"] for row in report["nodes"]} == {"ok"}
    assert report["rounds"] == 3 and len(report["pairs"]) == 6
    assert report["reference"]["pair_busbw"] == pytest.approx(FAST)
    assert report["size"] == 4194304


def test_a_quarter_speed_node_is_named_slow_and_no_other():
    report = finish(run(speed={"node3": 0.25}))
    assert report["summary"]["slow_nodes"] == ["node3"]
    assert report["summary"]["broken_nodes"] == []
    node3 = next(row for row in report["nodes"] if row["node"] == "node3")
    assert node3["pair_ratio"] == 0.25 and "0.25 of the cluster's" in node3["reason"]
    slow_pairs = [pair for pair in report["pairs"] if pair["status"] == "slow"]
    assert sorted("-".join(p["pair"]) for p in slow_pairs) == ["node1-node3", "node2-node3", "node3-node4"]
    assert all("explained by node3 (slow)" in pair["reason"] for pair in slow_pairs)
    assert report["healthy"] == ["node1", "node2", "node4"]
    assert not report["passed"]


def test_slow_node_and_broken_pair_together():
    report = finish(run(speed={"node1": 0.25}, broken=[("node2", "node3")]))
    assert report["summary"]["slow_nodes"] == ["node1"]
    assert report["summary"]["broken_pairs"] == ["node2-node3"]
    assert report["summary"]["broken_nodes"] == []
    pair = next(p for p in report["pairs"] if p["status"] == "broken")
    assert pair["reason"] == "no result within 30 s (killed) on node2,node3 (all 3 samples)"
    assert pair["samples"] == [None, None, None]
    # node1 is slow; of node2 and node3 (one broken pair each) the later one is left out
    assert report["healthy"] == ["node2", "node4"]
    assert report["excluded"]["node3"].startswith("pair node3-node2 broken")
    assert report["excluded"]["node1"].startswith("slow: its best pair")
    assert report["cluster"]["status"] == "ok" and report["cluster"]["hosts"] == ["node2", "node4"]


def test_a_slow_link_spoils_one_pair_not_the_nodes():
    report = finish(run(link=("node2", "node4")))
    assert report["summary"]["slow_nodes"] == []
    assert report["summary"]["slow_pairs"] == ["node2-node4"]
    pair = next(p for p in report["pairs"] if p["status"] == "slow")
    assert "slow link: both nodes are fine elsewhere" in pair["reason"]
    assert report["healthy"] == ["node1", "node2", "node3"]


def test_noisy_pairs_of_healthy_nodes_are_compared_with_the_typical_pair_not_the_best():
    # 8 healthy sandbox nodes on 2 shared cores (bench/results/acceptance_confirm_healthy_8_nodes.txt):
    # most pair samples 0.2-0.45 GB/s, some about 1.2 GB/s, whichever pairs share the cores. Each
    # node's best pair is a fast one, so a typical pair is under 0.6 of the nodes' best pairs
    # without being a slow link.
    nodes = ["node%d" % number for number in range(1, 9)]
    fast = {frozenset((nodes[index], nodes[(index + 1) % 8])) for index in range(8)}
    draw = random.Random(7)
    noise = {(a, b): [1.25 if frozenset((a, b)) in fast else draw.uniform(0.25, 0.55) for _ in range(3)]
             for a in nodes for b in nodes if a < b}
    noise.update({(b, a): value for (a, b), value in list(noise.items())})
    report = finish(run(nodes=nodes, noise=noise), busbw=FAST * 0.4)
    assert report["reference"]["link_busbw"] < 0.6 * report["reference"]["pair_busbw"]
    assert report["summary"]["slow_pairs"] == [] and report["summary"]["slow_nodes"] == []
    assert report["excluded"] == {} and report["passed"]
    # the same cluster with one link at a tenth of its first sample is still a slow link
    noise[("node2", "node5")] = noise[("node5", "node2")] = [0.02, 0.03, 0.025]
    report = finish(run(nodes=nodes, noise=noise), busbw=FAST * 0.4)
    assert report["summary"]["slow_pairs"] == ["node2-node5"]
    assert "of the pairs' median" in next(p for p in report["pairs"] if p["status"] == "slow")["reason"]


def test_a_node_whose_pairs_all_break_is_broken():
    report = finish(run(broken=[("node4", other) for other in NODES[:3]]))
    assert report["summary"]["broken_nodes"] == ["node4"]
    assert "3 of its 3 pair tests broke" in next(r for r in report["nodes"] if r["node"] == "node4")["reason"]
    assert report["healthy"] == ["node1", "node2", "node3"]


def test_one_noisy_own_test_is_measured_again_and_clears_the_node():
    report = finish(run(noise={("node2",): [0.2, 1.0, 0.9]}))
    assert report["measured_again"] == {"intra": ["node2"], "rounds": [], "controls": []}
    node2 = report["nodes"][1]
    assert node2["status"] == "ok" and node2["intra_samples"] == pytest.approx([0.2, 1.0, 0.9])
    assert node2["intra_busbw"] == pytest.approx(0.9)
    assert report["passed"] and report["healthy"] == NODES


def test_a_node_slow_in_one_pair_round_is_measured_again_on_its_best_pair_only():
    # node2's first pair samples all came in slow (the machine was busy); again they are fast.
    noise = {pair: [0.3, 1.0, 0.95] for pair in [("node1", "node2"), ("node2", "node3"), ("node2", "node4"),
                                                 ("node4", "node2"), ("node3", "node2"), ("node2", "node1")]}
    report = finish(run(noise=noise))
    again = report["measured_again"]
    # its best pair, and beside it the pair of the two other nodes as a control
    assert again["intra"] == [] and len(again["rounds"]) == 1 and len(again["rounds"][0]) == 2
    assert "node2" in again["rounds"][0][0] and again["controls"] == [again["rounds"][0][1]]
    assert not set(again["rounds"][0][0]) & set(again["rounds"][0][1])
    node2 = report["nodes"][1]
    assert node2["status"] == "ok" and node2["pair_samples"] == pytest.approx([FAST * 0.3, FAST, FAST * 0.95])
    # its other pairs have one slow sample each, and node2 was cleared: inconclusive, nobody left out
    assert len(report["summary"]["inconclusive_pairs"]) == 2
    assert report["excluded"] == {} and report["healthy"] == NODES and report["passed"]


def test_a_node_as_fast_as_the_control_pairs_beside_it_is_cleared():
    # bench/results/acceptance_confirm_healthy_8_nodes.txt: on shared cores a healthy node's pairs
    # can all come in slow, and stay slow when measured again; the pairs measured beside them
    # were as slow: the machine, not the node.
    nodes = ["node%d" % number for number in range(1, 9)]
    noise = {(a, b): [0.3, 0.3, 0.3] if "node3" in (a, b) else [1.0, 0.3, 0.35]
             for a in nodes for b in nodes if a != b}
    report = finish(run(nodes=nodes, noise=noise))
    again = report["measured_again"]
    assert len(again["rounds"]) == 1 and len(again["controls"]) == 3
    assert again["rounds"][0][1:] == again["controls"]
    node3 = report["nodes"][2]
    assert node3["status"] == "ok" and node3["pair_samples"] == pytest.approx([FAST * 0.3] * 3)
    assert "of the pairs measured beside them (best 1, not under 0.6): like the pairs beside it" in node3["reason"]
    assert report["summary"]["slow_nodes"] == report["summary"]["slow_pairs"] == []
    assert report["excluded"] == {} and report["passed"]
    # the controls, measured three times, are judged too and condemn nobody
    controls = [p for p in report["pairs"] if p["pair"] in again["controls"]]
    assert {p["status"] for p in controls} == {"ok"} and all(len(p["beside"]) == 3 for p in controls)
    assert not [p["reason"] for p in controls if "slow link" in p["reason"]]
    # without control pairs (no node left beside the suspects) the same samples condemn node3
    judge.CONTROL_PAIRS, saved = 0, judge.CONTROL_PAIRS
    try:
        alone = finish(run(nodes=nodes, noise=noise))
    finally:
        judge.CONTROL_PAIRS = saved
    assert alone["summary"]["slow_nodes"] == ["node3"]


@pytest.mark.parametrize("samples, beside, verdict", [
    # bench/results/acceptance_confirm_healthy_8_nodes.txt as recorded in commit 9f1308b, run 4: healthy pairs
    # whose median over the pairs beside them fell under 0.6, each keeping up with them once
    ([0.1691, 0.1662, 0.2305], [0.518, 0.592, 0.782], "ok"),
    ([0.1782, 0.163, 0.41], [0.476, 0.446, 0.874], "ok"),
    # bench/results/acceptance_confirm_slow_node_4_nodes.txt as recorded in commit 9f1308b, run 3: node3 at a quarter
    ([0.000976, 0.000977, 0.000976], [0.322, 0.369, 0.322], "slow"),
])
def test_a_suspect_beside_control_pairs_is_judged_on_its_best_sample(samples, beside, verdict):
    """Interference only slows a test down: a pair that kept up with those beside it once is not
    slow, one under the line in every sample is."""
    sampled = {"samples": samples, "status": "ran", "beside": beside,
               "spread": round(max(samples) / min(samples), 2)}
    status, reason = judge._confirm(sampled, {"samples": 3, "spread_limit": 2.0},  # pylint: disable=protected-access
                                    "slow", line=0.3, ratio=0.6)
    assert status == verdict and f"(best {max(beside):.3g}" in reason


def test_a_slow_node_stays_slow_when_measured_again_with_real_noise():
    noise = {pair: [1.0, 0.9, 1.1] for pair in [("node1", "node3"), ("node3", "node1"), ("node2", "node3"),
                                                ("node3", "node2"), ("node3", "node4"), ("node4", "node3")]}
    report = finish(run(speed={"node3": 0.25}, noise=noise))
    assert report["summary"]["slow_nodes"] == ["node3"] and report["summary"]["inconclusive_nodes"] == []
    assert report["measured_again"]["intra"] == [] and len(report["measured_again"]["rounds"]) == 1
    node3 = report["nodes"][2]
    assert len(node3["pair_samples"]) == 3 and node3["pair_spread"] <= 2.0
    assert "samples [" in node3["reason"]
    assert report["healthy"] == ["node1", "node2", "node4"]


def test_samples_spread_too_widely_are_inconclusive_never_slow():
    report = finish(run(noise={("node3",): [0.2, 0.3, 0.9]}))
    node3 = report["nodes"][2]
    assert node3["status"] == "inconclusive" and node3["intra_spread"] == 4.5
    assert "spread 4.5x, wider than 2.0x: too noisy to tell" in node3["reason"]
    assert report["summary"]["inconclusive_nodes"] == ["node3"] and report["summary"]["slow_nodes"] == []
    assert report["healthy"] == NODES and report["excluded"] == {} and report["passed"]
    text = "\n".join(report_text.format_table(report))
    assert "measured again (suspects only): own tests of node3; pairs none" in text
    assert "  node3 own test: [0.2, 0.3, 0.9] GB/s (spread 4.5x) -> inconclusive" in text
    assert "warning: node3 inconclusive (not left out, not quarantined): own test 0.3 GB/s" in text
    findings = ledger_findings.acceptance_findings(report, "r")
    assert "node3" not in findings and {f["result"] for f in findings.values()} == {"pass"}
    # the same samples under a wider limit: the median condemns it
    lax = finish(run(noise={("node3",): [0.2, 0.3, 0.9]}, settings={"spread_limit": 5.0}))
    assert lax["summary"]["slow_nodes"] == ["node3"]
    assert ledger_findings.acceptance_findings(lax, "r")["node3"]["result"] == "fail"


def test_samples_all_under_the_slow_line_agree_however_far_apart():
    # node3's egress at a quarter; one of its samples dipped further still (a busy machine)
    noise = {pair: [1.0, 0.3, 1.1] for pair in [("node1", "node3"), ("node3", "node1"), ("node2", "node3"),
                                                ("node3", "node2"), ("node3", "node4"), ("node4", "node3")]}
    report = finish(run(speed={"node3": 0.25}, noise=noise))
    node3 = report["nodes"][2]
    assert node3["status"] == "slow" and node3["pair_spread"] > 2.0
    assert report["summary"]["slow_nodes"] == ["node3"] and report["summary"]["inconclusive_nodes"] == []


def test_a_pair_that_broke_once_and_ran_twice_is_inconclusive():
    flaky = judge.judge_nodes(["node1", "node2"], [], [
        {"stage": "pair", "hosts": ["node1", "node2"], "round": 1, "ranks": 2, "tool": "probe", "sample": 1,
         "rc": 124, "stdout": "", "seconds": 30.0},
        {"stage": "pair", "hosts": ["node1", "node2"], "round": None, "ranks": 2, "tool": "probe", "sample": 2,
         "rc": 0, "stdout": probe_output(FAST), "seconds": 2.0},
        {"stage": "pair", "hosts": ["node1", "node2"], "round": None, "ranks": 2, "tool": "probe", "sample": 3,
         "rc": 0, "stdout": probe_output(FAST), "seconds": 2.0}], {"timeout": 30})
    assert flaky["pairs"][0]["status"] == "inconclusive"
    assert flaky["pairs"][0]["reason"].startswith("1 of 3 samples broke: no result within 30 s")
    assert flaky["healthy"] == ["node1", "node2"] and flaky["excluded"] == {}


def test_suspects_are_measured_again_in_rounds_of_disjoint_pairs():
    assert judge.disjoint_rounds([["a", "b"], ["c", "d"], ["a", "c"], ["a", "b"], ["b", "d"]]) == \
        [[["a", "b"], ["c", "d"]], [["a", "c"], ["b", "d"]]]
    report = run(nodes=NODES, link=("node2", "node4"), broken=[("node1", "node3")])
    again = report["measured_again"]
    assert sorted(sorted(pair) for members in again["rounds"] for pair in members) == \
        [["node1", "node3"], ["node2", "node4"]]
    assert len(again["rounds"]) == 1
    final = finish(report)
    assert final["summary"]["broken_pairs"] == ["node1-node3"] and final["summary"]["slow_pairs"] == ["node2-node4"]
    assert final["summary"]["slow_nodes"] == final["summary"]["broken_nodes"] == []


def test_own_test_slow_and_failed():
    report = run(intra={"node2": 0.1})
    assert [row["status"] for row in report["nodes"]] == ["ok", "slow", "ok", "ok"]
    assert "own test" in report["nodes"][1]["reason"]
    lax = run(intra={"node2": 0.3}, settings={"intra_slow_ratio": 0.2})
    assert [row["status"] for row in lax["nodes"]] == ["ok"] * 4


def test_measure_reasons():
    assert judge.measure({"rc": 137, "hosts": ["a", "b"], "timeout": 9})["reason"] == \
        "no result within 9 s (killed) on a,b"
    failed = judge.measure({"rc": 1, "hosts": ["a"], "stderr": "x\nORTE lost contact with b"})
    assert failed["status"] == "broken" and failed["reason"].endswith("probe exited 1 on a: ORTE lost contact with b")
    assert judge.measure({"rc": 0, "hosts": ["a"], "stdout": ""})["reason"] == "probe printed no result row on a"
    assert "no row for 42 bytes" in judge.measure({"rc": 0, "hosts": ["a"], "stdout": probe_output(1.0)}, 42)["reason"]
    wrong = judge.measure({"rc": 0, "hosts": ["a"], "stdout": probe_output(1.0, check="wrong")})
    assert wrong["status"] == "broken" and "wrong allreduce result" in wrong["reason"]


def test_expected_floor_per_model_and_size():
    report = run(settings={"expected": {"atlas800": {4194304: 0.05}}, "models": {n: "atlas800" for n in NODES}})
    assert {pair["status"] for pair in report["pairs"]} == {"slow"}
    assert "under the expected 0.05 GB/s at 4194304 bytes" in report["pairs"][0]["reason"]
    other = run(settings={"expected": {"atlas900": {"4194304": 0.05}}, "models": {n: "atlas800" for n in NODES}})
    assert {pair["status"] for pair in other["pairs"]} == {"ok"}


def test_cluster_stage_verdicts():
    """A whole cluster is condemned only on its samples, like a node or a pair: one slow or broken
    sample is "suspect" (measured again), inconclusive if nothing more came, and never fails the run."""
    slow = finish(run(), samples=[FAST * 0.2] * 3)
    assert slow["cluster"]["status"] == "slow" and not slow["passed"]
    assert "of the pairs'" in slow["cluster"]["reason"] and len(slow["cluster"]["samples"]) == 3
    broken = finish(run(), rc=124, samples=[FAST] * 3)
    assert broken["cluster"]["status"] == "broken" and not broken["passed"]
    once = finish(run(), busbw=FAST * 0.2)
    assert once["cluster"]["status"] == "inconclusive" and once["passed"]
    assert "not measured again" in once["cluster"]["reason"]
    # a slow first sample that the others do not repeat: the median is fine
    cleared = finish(run(), samples=[FAST * 0.2, FAST, FAST * 0.9])
    assert cleared["cluster"]["status"] == "ok" and cleared["passed"]
    # samples on both sides of the line, spread wider than the limit: too noisy to tell
    noisy = finish(run(), samples=[FAST * 0.1, FAST * 0.15, FAST])
    assert noisy["cluster"]["status"] == "inconclusive" and "too noisy to tell" in noisy["cluster"]["reason"]
    alone = finish(run(nodes=["node1", "node2"], broken=[("node1", "node2")]))
    assert alone["cluster"]["status"] == "skipped" and alone["healthy"] == [] and not alone["passed"]


def test_a_single_node_is_judged_by_its_own_test():
    report = finish(run(nodes=["node1"]))
    assert report["cluster"]["status"] == "skipped" and report["cluster"]["reason"] == "a single node tested"
    assert report["healthy"] == ["node1"] and report["passed"]
    failed = [{"stage": "intra", "hosts": ["node1"], "rc": 124, "ranks": 2, "tool": "probe", "stdout": "",
               "seconds": 30.0, "sample": sample} for sample in (1, 2, 3)]
    first = judge.judge_nodes(["node1"], failed[:1], [], {"timeout": 30})
    assert first["nodes"][0]["status"] == "suspect" and first["remeasure"] == {"intra": ["node1"], "rounds": [], "controls": []}
    # Not measured again (a run that stopped short): nobody is condemned on one sample.
    unconfirmed = finish(first)
    assert unconfirmed["summary"]["inconclusive_nodes"] == ["node1"] and unconfirmed["excluded"] == {}
    assert "not measured again" in unconfirmed["nodes"][0]["reason"]
    broken = finish(judge.judge_nodes(["node1"], failed, [], {"timeout": 30}))
    assert broken["summary"]["broken_nodes"] == ["node1"] and not broken["passed"]
    assert broken["nodes"][0]["reason"] == "own test: no result within 30 s (killed) on node1 (all 3 samples)"


def test_record_from_result():
    record = judge.record_from_result({"rc": 0, "stdout": "x", "stderr": "a\nb", "delta": "0:01:02.500000"},
                                      "pair", ["a", "b"], 2, "hccl_test", 8)
    assert record == {"sample": 1, "stage": "pair", "hosts": ["a", "b"], "round": 2, "tool": "hccl_test", "ranks": 16,
                      "rc": 0, "stdout": "x", "stderr": "a\nb", "seconds": 62.5}


def test_table_names_everything():
    report = finish(run(speed={"node1": 0.25}, broken=[("node2", "node3")]))
    lines = report_text.format_table(report)
    text = "\n".join(lines)
    assert lines[0].startswith("acceptance: FAILED - 4 nodes, 6 pairs in 3 round(s)")
    assert "node2-node3" in text and "no result within 30 s" in text
    assert "healthy: node2, node4" in text
    assert "excluded node1: slow" in text
    assert all(line == line.rstrip() for line in lines)


def test_the_heat_map_of_a_judged_report_shows_its_verdicts():
    report = finish(run(speed={"node1": 0.25}, broken=[("node2", "node3")]))
    image, layout = Image(heat_map.heat_map_png(report)), heat_map.heat_map_layout(report)
    assert layout.labels == NODES
    assert sorted(pair["status"] for pair in report["pairs"]) == ["broken", "ok", "ok", "slow", "slow", "slow"]
    scale_y = layout.legend_y + heat_map.LINE
    broken_swatch = image.pixel(heat_map.MARGIN + 1, layout.legend_y + 3 * heat_map.LINE + 1)
    for pair in report["pairs"]:
        first, second = (NODES.index(node) for node in pair["pair"])
        for row, column in ((first, second), (second, first)):
            cell = image.pixel(*cell_centre(layout, row, column))
            where = f"{pair['pair']} {pair['status']} ratio {pair['ratio']}: cell {cell}"
            if pair["status"] == "broken":
                assert cell == broken_swatch == (0, 0, 0), where
                continue
            red, green, _ = cell
            if pair["status"] == "slow":
                assert red > green, where
            else:
                assert green > red, where
            # the legend's scale at the pair's ratio (one pixel a hundredth) shows the same colour
            scale = image.pixel(heat_map.MARGIN + min(100, round(pair["ratio"] * 100)), scale_y)
            assert max(abs(a - b) for a, b in zip(cell, scale)) <= 4, f"{where}, scale {scale}"


SETTINGS = {
    "acceptance_tool": "auto", "acceptance_hccl_test_path": "", "acceptance_nccl_tests_path": "/x/all_reduce_perf",
    "acceptance_hccl_test_source": "/usr/local/Ascend/ascend-toolkit/latest/tools/hccl_test",
    "acceptance_nccl_tests_source": "/opt/nccl-tests", "acceptance_ranks_per_node": 0, "acceptance_intra_ranks": 2,
    "acceptance_min_bytes": 1048576, "acceptance_max_bytes": 4194304, "acceptance_judge_bytes": 0,
    "acceptance_iters": 5, "acceptance_warmup_iters": 1, "acceptance_timeout": 60,
    "acceptance_stages": ["intra", "pairs", "cluster"], "acceptance_schedule": "round_robin",
    "acceptance_slow_ratio": 0.5,
    "acceptance_intra_slow_ratio": 0.5, "acceptance_cluster_slow_ratio": 0.25, "acceptance_expected_busbw": {},
    "acceptance_hardware_model": "", "acceptance_if_include": "10.0.0.0/24", "acceptance_report_dir": "logs/acceptance",
    "acceptance_fail": True, "acceptance_samples": 3, "acceptance_spread_limit": 2.0,
}


def test_settings_defaults_pass():
    assert acceptance_settings.settings_errors(dict(SETTINGS), "node1") == []


@pytest.mark.parametrize("name, value, message", [
    ("acceptance_timeout", 0, "node1: acceptance_timeout: must be an integer from 1 to 86400, got 0"),
    ("acceptance_timeout", "60s", "node1: acceptance_timeout: must be an integer"),
    ("acceptance_max_bytes", 1024, "node1: acceptance_max_bytes: must not be below acceptance_min_bytes (1048576)"),
    ("acceptance_judge_bytes", 3000000, "node1: acceptance_judge_bytes: must be 0 (the largest) or a measured size "
                                        "(1048576, 2097152, 4194304)"),
    ("acceptance_slow_ratio", 1.5, "node1: acceptance_slow_ratio: must be a number above 0 and at most 1"),
    ("acceptance_samples", 1, "node1: acceptance_samples: must be an integer from 3 to 9, got 1"),
    ("acceptance_spread_limit", 0.5, "node1: acceptance_spread_limit: must be a number of at least 1"),
    ("acceptance_spread_limit", "wide", "node1: acceptance_spread_limit: must be a number of at least 1"),
    ("acceptance_stages", ["pairs", "pairs"], "node1: acceptance_stages: must be a non-empty list"),
    ("acceptance_stages", [], "node1: acceptance_stages: must be a non-empty list"),
    ("acceptance_expected_busbw", {"atlas800": {"big": 1}}, "node1: acceptance_expected_busbw: must map"),
    ("acceptance_fail", "yes", "node1: acceptance_fail: must be true or false"),
    ("acceptance_hccl_test_path", "bin/x", "node1: acceptance_hccl_test_path: must be an absolute path or ''"),
    ("acceptance_hccl_test_source", "", "node1: acceptance_hccl_test_source: must be an absolute path, got ''"),
    ("acceptance_ranks_per_node", -1, "node1: acceptance_ranks_per_node: must be an integer from 0 to 1024"),
    ("acceptance_report_dir", "../x", "node1: acceptance_report_dir: must be a directory path without '..'"),
    ("acceptance_if_include", "eth0;reboot", "node1: acceptance_if_include: must be interface names or a CIDR"),
])
def test_settings_errors(name, value, message):
    errors = acceptance_settings.settings_errors({**SETTINGS, name: value}, "node1")
    assert len(errors) == 1 and errors[0].startswith(message), errors


def test_settings_tool_sized_max_bytes():
    """A max of 0 is the tool's own size (1 GiB or 4 MiB): only the largest can be judged then."""
    assert acceptance_settings.settings_errors({**SETTINGS, "acceptance_max_bytes": 0}, "node1") == []
    errors = acceptance_settings.settings_errors(
        {**SETTINGS, "acceptance_max_bytes": 0, "acceptance_judge_bytes": 1048576}, "node1")
    assert errors == ["node1: acceptance_judge_bytes: must be 0 (the largest) while acceptance_max_bytes is 0 "
                      "(the tool's own), got 1048576"]


def test_settings_choices_and_typos_are_the_shared_checks():
    assert role_settings.choice_problems("acceptance", {"acceptance_tool": "iperf", "acceptance_schedule": "star"},
                                         "node1") == [
        "node1: acceptance_tool: iperf is not one of auto, probe, hccl_test, nccl_tests",
        "node1: acceptance_schedule: star is not one of auto, round_robin, ring"]
    assert role_settings.typo_problems("n1", ["acceptance_timout"], ["acceptance"]) == [
        "n1: acceptance_timout: unknown variable (not a setting of role acceptance; did you mean acceptance_timeout?)"]


def test_npu_nodes_measured_with_the_probe_are_a_warning_in_the_report():
    note = ("NPU node measured with the suite's TCP probe over the host network, not its NPU fabric (HCCL): "
            "no executable /usr/local/Ascend/ascend-toolkit/latest/tools/hccl_test/bin/all_reduce_test")
    warnings = report_text.tool_warnings({"node1": note, "node2": note, "node3": ""})
    assert warnings == [f"node1, node2: {note}"]
    report = {**finish(run()), "tool": "probe", "warnings": warnings}
    lines = report_text.format_table(report)
    assert lines[0].startswith("acceptance: PASSED - 4 nodes, tool probe, 6 pairs in 3 round(s)")
    hccl = report_text.format_table({**report, "tool": "hccl_test", "ranks_per_node": 8, "warnings": []})
    assert hccl[0].startswith("acceptance: PASSED - 4 nodes, tool hccl_test with 8 rank(s) per node, 6 pairs")
    assert lines[1] == f"warning: node1, node2: {note}"
    assert report_text.tool_warnings({"node1": "", "node2": ""}) == []


def test_the_report_names_the_control_pairs_and_each_sample_over_those_beside_it():
    nodes = ["node%d" % number for number in range(1, 9)]
    noise = {(a, b): [0.3, 0.3, 0.3] if "node3" in (a, b) else [1.0, 0.3, 0.35]
             for a in nodes for b in nodes if a != b}
    report = finish(run(nodes=nodes, noise=noise))
    text = "\n".join(report_text.format_table(report))
    controls = ", ".join("-".join(pair) for pair in report["measured_again"]["controls"])
    suspect = "-".join(report["measured_again"]["rounds"][0][0])
    assert f"pairs {suspect}; beside them the control pairs {controls}" in text
    assert f"  pair {suspect}: [0.0075, 0.0075, 0.0075] GB/s (spread 1.0x) = [0.3, 1, 0.857] of the pairs beside them -> ok" \
        in text
