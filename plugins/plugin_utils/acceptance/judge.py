"""Judge the acceptance tests: every node, pair and the whole cluster is ok, slow, broken or
inconclusive, with the reason and the numbers, and the healthy nodes a job can use.

A test record (one mpirun of a bandwidth tool, made by role acceptance) is
{"stage": "intra"|"pair"|"cluster", "hosts": [...], "round": int or None, "tool": "probe"|
"nccl_tests"|"hccl_test", "ranks": int, "rc": int, "stdout": str, "stderr": str, "seconds": float,
"sample": int (1 for the first measurement of a test, 2... for its measurements again)}. The
pairs of one round ran at once: the first pass's rounds are numbered, a round measured again is
"again-N", its samples run side by side.

Confirm before condemning: a node or pair that the first samples would judge slow or broken is a
suspect (the report's "remeasure" lists its tests), measured again until it has `samples`
samples, and judged on their median: one noisy sample either way decides nothing, and a node is
condemned only when most of its samples are slow. Samples on both sides of the slow line that
spread wider than `spread_limit` (the largest over the smallest), or of which some broke and
some ran, make the verdict inconclusive: named in the report with its samples, never slow,
nobody left out for it. Samples all under the line agree, however far apart.

With each round of suspect pairs measured again go control pairs (up to CONTROL_PAIRS pairs
of nodes judged ok, in none of the round's pairs), measured one pair at a time (role acceptance):
every sample of a pair then has pairs beside it (its first-pass round-mates, then the controls'
samples of the same number), and a pair whose every sample has them is judged on its samples
over the median of those ("beside" in the report), on the best of them against the same ratio
(interference only slows a test down: a pair that kept up once is not slow). What slows every
pair alike (a busy machine, shared cores, a congested switch) then condemns nobody; what slows
one pair or node does.

Thresholds are relative to the cluster's own median, so they hold on any hardware:
- intra-node: a node is slow when its figure is under intra_slow_ratio x the median of all nodes';
- pairs: each node's figure is the best of its pairs (a node whose every link is slow is the
  slow one; a single slow link spoils one pair, not the node), the reference is the median of
  those node figures (one slow node spoils N-1 pairs but not this median); a node under
  slow_ratio x reference is slow, and so is a pair of it (explained by its slow node). A pair of
  nodes fine elsewhere is a slow link only under slow_ratio x the median of every pair's first
  sample: one pair is compared with the typical pair, not with the nodes' best pairs (the best
  of N-1 noisy pairs is above the typical one wherever pairs vary);
- the whole cluster: a ring of many nodes reaches less than one pair does, so it is compared
  with the pair reference at the laxer cluster_slow_ratio.
Optionally `expected` gives a floor per hardware model and message size ({model: {size: GB/s}},
the nodes' models in `models`): a pair under the floor of its nodes' model is slow too.
A test that did not finish in time (rc 124 or 137 from `timeout`), failed or printed no row at
the judged size is broken. A node is broken when its own test broke or when more than half
of its pairs broke (then the node, not a link, is the likely fault).
"""

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.acceptance.samples import measure
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.acceptance.samples import beside as _beside
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.acceptance.samples import confirm as _confirm
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.acceptance.samples import median as _median
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.acceptance.samples import ratio as _ratio
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.acceptance.samples import sampled as _sampled

# The verdicts that leave a node out (and quarantine it); ok and inconclusive ones do not.
CONDEMNED = ("slow", "broken")
DEFAULTS = {"slow_ratio": 0.6, "intra_slow_ratio": 0.5, "cluster_slow_ratio": 0.25, "size": 0, "timeout": 60,
            "expected": {}, "models": {}, "samples": 3, "spread_limit": 2.0}
# Control pairs measured beside each round of suspect pairs (see above).
CONTROL_PAIRS = 3


def _floor(pair, settings, size):
    """The expected floor (GB/s) of a pair at `size`: the lower of its nodes' models' floors."""
    floors = []
    for node in pair:
        model = settings["models"].get(node)
        table = settings["expected"].get(model, {}) if model is not None else {}
        value = table.get(size, table.get(str(size)))
        if value is not None:
            floors.append(float(value))
    return min(floors) if floors else None


def judge_nodes(nodes, intra_records, pair_records, settings=None):
    """Report of the intra-node and pair stages: nodes, pairs, references, healthy nodes, and the
    tests to measure again ("remeasure": the suspects' own tests and pairs, in rounds of disjoint pairs).

    A record's "sample" (1 when absent) numbers the measurements of the same test. The references
    are the medians of the first samples (every node measured alike, at once); a test is judged on
    the median of its samples, and is condemned (slow, broken) only with `samples` samples that
    spread no wider than `spread_limit`."""
    settings = {**DEFAULTS, **(settings or {})}
    ratio = float(settings["slow_ratio"])
    intra_ratio = float(settings["intra_slow_ratio"])
    size = int(settings["size"] or 0)
    grouped = {}
    for record in intra_records:
        grouped.setdefault(record["hosts"][0], []).append(record)
    intra = {node: _sampled(records, settings, size) for node, records in grouped.items()}
    intra_reference = _median(result["first"] for result in intra.values())

    grouped = {}
    for record in pair_records:
        grouped.setdefault(tuple(record["hosts"]), []).append(record)
    beside = _beside(pair_records, settings, size)
    pairs = []
    for hosts, records in grouped.items():
        result = _sampled(records, settings, size, beside)
        first = min(records, key=lambda record: int(record.get("sample") or 1))
        pairs.append({"pair": list(hosts), "round": first.get("round"),
                      "status": {"mixed": "inconclusive"}.get(result["status"], result["status"]),
                      "measured": result, "reason": result["reason"], "busbw": result["busbw"],
                      "size": result["size"], "seconds": result["seconds"], "samples": result["samples"],
                      "spread": result["spread"], "beside": result["beside"]})
    per_node = {node: [pair for pair in pairs if node in pair["pair"]] for node in nodes}
    pair_reference = _median(max((pair["measured"]["first"] for pair in members
                                  if pair["measured"]["first"] is not None), default=None)
                             for members in per_node.values())
    link_reference = _median(pair["measured"]["first"] for pair in pairs)
    # A node's figure is its best pair; a slow one, once measured again, the best of those measured again.
    required = int(settings["samples"])
    best_pair = {}
    for node, members in per_node.items():
        ran = [pair for pair in members if pair["busbw"] is not None]
        best = max(ran, key=lambda pair: pair["busbw"], default=None)
        again = [pair for pair in ran if len(pair["samples"]) >= required]
        if best is not None and pair_reference and best["busbw"] < ratio * pair_reference and again:
            best = max(again, key=lambda pair: pair["busbw"])
        best_pair[node] = best

    node_rows, remeasure_intra, remeasure_pairs = [], [], []
    for node in nodes:
        own, best = intra.get(node), best_pair[node]
        figure = best["busbw"] if best else None
        row = {"node": node, "status": "ok", "verdicts": [], "reasons": [],
               "intra_busbw": own["busbw"] if own else None,
               "intra_ratio": _ratio(own["busbw"] if own else None, intra_reference),
               "intra_samples": own["samples"] if own else [], "intra_spread": own["spread"] if own else None,
               "pair_busbw": figure, "pair_ratio": _ratio(figure, pair_reference),
               "best_pair": best["pair"] if best else None, "pair_samples": best["samples"] if best else [],
               "pair_spread": best["spread"] if best else None}
        if own is not None and own["status"] != "ran":
            verdict, tail = _confirm(own, settings, "broken")
            row["verdicts"].append(verdict)
            row["reasons"].append("own test: " + (own["reason"] if verdict == "broken" else tail))
        elif own is not None and intra_reference and own["busbw"] < intra_ratio * intra_reference:
            verdict, tail = _confirm(own, settings, "slow", intra_ratio * intra_reference)
            row["verdicts"].append(verdict)
            row["reasons"].append(f"own test {own['busbw']:.4g} GB/s is {row['intra_ratio']} of the nodes' "
                                  f"median {intra_reference:.4g} GB/s (slow under {intra_ratio}); {tail}")
        if row["verdicts"] and row["verdicts"][-1] == "suspect":
            remeasure_intra.append(node)
        broken = [pair for pair in per_node[node] if pair["status"] == "broken"]
        if per_node[node] and len(broken) * 2 > len(per_node[node]):
            confirmed = [pair for pair in broken if len(pair["samples"]) >= required]
            row["verdicts"].append("broken" if confirmed else "suspect")
            row["reasons"].append(f"{len(broken)} of its {len(per_node[node])} pair tests broke"
                                  + (f" ({'-'.join(confirmed[0]['pair'])} in all {len(confirmed[0]['samples'])} samples)"
                                     if confirmed else "; measured again before any verdict"))
            if not confirmed:
                remeasure_pairs.append(broken[0]["pair"])
        elif figure is not None and pair_reference and figure < ratio * pair_reference:
            verdict, tail = _confirm(best["measured"], settings, "slow", ratio * pair_reference, ratio)
            if verdict != "ok":
                row["verdicts"].append(verdict)
            row["reasons"].append(f"its best pair {figure:.4g} GB/s is {row['pair_ratio']} of the "
                                  f"cluster's {pair_reference:.4g} GB/s (slow under {ratio}); {tail}")
            if verdict == "suspect":
                remeasure_pairs.append(best["pair"])
        for verdict in ("broken", "slow", "suspect", "inconclusive"):
            if verdict in row["verdicts"]:
                row["status"] = verdict
                break
        node_rows.append(row)
    status_of = {row["node"]: row["status"] for row in node_rows}
    rows_of = {row["node"]: row for row in node_rows}

    for pair in pairs:
        measured = pair.pop("measured")
        pair["ratio"] = _ratio(pair["busbw"], pair_reference)
        if pair["status"] == "inconclusive":
            continue
        floor = _floor(pair["pair"], settings, pair["size"])
        bad_nodes = [node for node in pair["pair"] if status_of[node] in ("slow", "broken")]
        suspects = [node for node in pair["pair"] if status_of[node] == "suspect"]
        line = against = None
        if pair["status"] == "broken":
            what, why = "broken", pair["reason"]
        elif bad_nodes and pair_reference and pair["busbw"] < ratio * pair_reference:
            what, why, line = "slow", f"{pair['busbw']:.4g} GB/s is {pair['ratio']} of the cluster's {pair_reference:.4g} GB/s", \
                ratio * pair_reference
        elif link_reference and pair["busbw"] < ratio * link_reference:
            what, why, line = "slow", (f"{pair['busbw']:.4g} GB/s is {_ratio(pair['busbw'], link_reference)} of the pairs' "
                                       f"median {link_reference:.4g} GB/s"), ratio * link_reference
            against = ratio
        elif floor is not None and pair["busbw"] < floor:
            what, why, line = "slow", f"{pair['busbw']:.4g} GB/s is under the expected {floor:.4g} GB/s at {pair['size']} bytes", \
                floor
        else:
            pair["status"] = "ok"
            continue
        # A pair of a condemned node is explained by it; of a suspect node it waits for the
        # node's verdict; of nodes fine elsewhere it is a link, measured again itself.
        if bad_nodes:
            pair["status"] = what
            pair["reason"] = f"{why}; explained by {' and '.join(bad_nodes)} ({status_of[bad_nodes[0]]})"
            continue
        verdict, tail = _confirm(measured, settings, what, line, against)
        # Measured again already: its node, not the pair, was the suspect and is not condemned.
        waited = [node for node in pair["pair"] if len(rows_of[node]["pair_samples"]) > 1
                  or len(rows_of[node]["intra_samples"]) > 1]
        if verdict == "suspect" and suspects:
            pair["status"], pair["reason"] = "suspect", f"{why}; waits for {' and '.join(suspects)}'s verdict"
        elif verdict == "suspect" and waited:
            pair["status"] = "inconclusive"
            pair["reason"] = f"{why}; one sample, and {' and '.join(waited)} measured again was not condemned"
        else:
            pair["status"] = verdict
            parts = [why, "slow link: both nodes are fine elsewhere" if what == "slow" and verdict != "ok" else "", tail]
            pair["reason"] = "; ".join(part for part in parts if part)
            if verdict == "suspect":
                remeasure_pairs.append(pair["pair"])
    for row in node_rows:
        row["reason"] = "; ".join(row.pop("reasons"))
        row.pop("verdicts")

    healthy, excluded = healthy_nodes(nodes, node_rows, pairs)
    first_pairs = [pair for pair in pairs if isinstance(pair["round"], int)]
    rounds = disjoint_rounds(remeasure_pairs)
    controls = control_pairs(rounds, first_pairs, status_of)
    return {
        "size": next((pair["size"] for pair in pairs if pair["size"]), None)
        or next((result["size"] for result in intra.values() if result["size"]), None),
        "reference": {"intra_busbw": intra_reference, "pair_busbw": pair_reference, "link_busbw": link_reference},
        "settings": {"slow_ratio": ratio, "intra_slow_ratio": intra_ratio, "cluster_slow_ratio": float(settings["cluster_slow_ratio"]),
                     "timeout": settings["timeout"], "samples": int(settings["samples"]),
                     "spread_limit": float(settings["spread_limit"])},
        "nodes": node_rows,
        "pairs": pairs,
        "rounds": len({pair["round"] for pair in first_pairs}),
        "healthy": healthy,
        "excluded": excluded,
        "remeasure": {"intra": remeasure_intra, "rounds": [members + extra for members, extra in zip(rounds, controls)],
                      "controls": [pair for extra in controls for pair in extra]},
    }


def disjoint_rounds(pairs):
    """The pairs (each once) in rounds in which no node takes part twice, first fit."""
    rounds, seen = [], set()
    for pair in pairs:
        if tuple(pair) in seen:
            continue
        seen.add(tuple(pair))
        for members in rounds:
            if not any(node in member for member in members for node in pair):
                members.append(list(pair))
                break
        else:
            rounds.append([list(pair)])
    return rounds


def control_pairs(rounds, pairs, status_of):
    """For each round of suspect pairs, up to CONTROL_PAIRS pairs measured beside them: pairs of
    the first pass judged ok, of nodes judged ok and in none of the round's pairs, each pair in
    one round at most."""
    used, controls = set(), []
    for members in rounds:
        busy = {node for pair in members for node in pair}
        extra = []
        for pair in pairs:
            hosts = tuple(pair["pair"])
            if len(extra) == CONTROL_PAIRS:
                break
            if (pair["status"] == "ok" and hosts not in used and not busy & set(hosts)
                    and all(status_of[node] == "ok" for node in hosts)):
                extra.append(list(hosts))
                used.add(hosts)
                busy |= set(hosts)
        controls.append(extra)
    return controls


def healthy_nodes(nodes, node_rows, pairs):
    """Nodes not condemned (ok or inconclusive), less one node of every slow or broken pair left among them (the one in
    most such pairs, the later one on a tie): no two healthy nodes share a bad pair."""
    status = {row["node"]: row for row in node_rows}
    excluded = {node: f"{status[node]['status']}: {status[node]['reason']}"
                for node in nodes if status[node]["status"] in CONDEMNED}
    healthy = [node for node in nodes if node not in excluded]
    while True:
        bad = [pair for pair in pairs if pair["status"] in CONDEMNED and all(node in healthy for node in pair["pair"])]
        if not bad:
            return healthy, excluded
        counts = {node: sum(node in pair["pair"] for pair in bad) for node in healthy}
        worst = max(reversed(healthy), key=lambda node: counts[node])
        pair = next(pair for pair in bad if worst in pair["pair"])
        other = next(node for node in pair["pair"] if node != worst)
        excluded[worst] = f"pair {worst}-{other} {pair['status']}: {pair['reason']}"
        healthy.remove(worst)


def finish_report(report, cluster_records=None, settings=None):
    """The full report: the stages' report plus the whole-cluster test over the healthy nodes
    (its records, one per sample, or one record). A whole cluster that would be slow or broken is
    "suspect" until it has `samples` samples, then judged on their median like any test."""
    settings = {**DEFAULTS, **(settings or {})}
    report = dict(report)
    report.pop("remeasure", None)
    report.setdefault("measured_again", {"intra": [], "rounds": []})
    if isinstance(cluster_records, dict):
        cluster_records = [cluster_records]
    # One node tested (a one-node batch of playbooks/upgrade.yml) has no pair and no whole cluster:
    # its own test decides.
    alone = len(report["nodes"]) == 1
    if not cluster_records:
        reason = "fewer than 2 healthy nodes" if len(report["healthy"]) < 2 else "not run"
        report["cluster"] = {"hosts": report["healthy"], "status": "skipped",
                             "reason": "a single node tested" if alone else reason,
                             "busbw": None, "ratio": None}
    else:
        report["cluster"] = _whole_cluster(cluster_records, report, settings)
    # A test still unconfirmed (the run measured nothing again) condemns nobody.
    for item in report["nodes"] + report["pairs"]:
        if item["status"] == "suspect":
            item["status"] = "inconclusive"
            item["reason"] = item["reason"].replace("measured again before any verdict", "not measured again")
    if report["cluster"]["status"] == "suspect":
        report["cluster"]["status"] = "inconclusive"
        report["cluster"]["reason"] = report["cluster"]["reason"].replace(
            "measured again before any verdict", "not measured again")
    bad_nodes = [row["node"] for row in report["nodes"] if row["status"] in CONDEMNED]
    bad_pairs = [pair for pair in report["pairs"] if pair["status"] in CONDEMNED]
    report["summary"] = {
        "nodes": len(report["nodes"]),
        "slow_nodes": [row["node"] for row in report["nodes"] if row["status"] == "slow"],
        "broken_nodes": [row["node"] for row in report["nodes"] if row["status"] == "broken"],
        "slow_pairs": ["-".join(pair["pair"]) for pair in bad_pairs if pair["status"] == "slow"],
        "broken_pairs": ["-".join(pair["pair"]) for pair in bad_pairs if pair["status"] == "broken"],
        "inconclusive_nodes": [row["node"] for row in report["nodes"] if row["status"] == "inconclusive"],
        "inconclusive_pairs": ["-".join(pair["pair"]) for pair in report["pairs"] if pair["status"] == "inconclusive"],
        "healthy": len(report["healthy"]),
    }
    whole = report["cluster"]["status"] in ("ok", "inconclusive") or (alone and not cluster_records)
    report["passed"] = not bad_nodes and not bad_pairs and whole
    return report


def _whole_cluster(records, report, settings):
    """The whole-cluster verdict from its samples, against the pairs' reference at the laxer
    cluster_slow_ratio (a ring of many nodes reaches less than one pair does)."""
    sampled = _sampled(records, settings, report.get("size") or 0)
    reference = report["reference"]["pair_busbw"]
    line = float(settings["cluster_slow_ratio"]) * reference if reference else None
    cluster = {"hosts": list(records[0]["hosts"]), "status": "ok", "reason": sampled["reason"],
               "busbw": sampled["busbw"], "ratio": _ratio(sampled["busbw"], reference),
               "samples": sampled["samples"], "seconds": sampled["seconds"]}
    if sampled["status"] in ("broken", "mixed"):
        status, tail = _confirm(sampled, settings, "broken")
    elif line is not None and sampled["busbw"] < line:
        status, tail = _confirm(sampled, settings, "slow", line)
        if status in ("slow", "suspect"):
            tail = (f"{sampled['busbw']:.4g} GB/s over {len(cluster['hosts'])} nodes is {cluster['ratio']} of the "
                    f"pairs' {reference:.4g} GB/s (slow under {settings['cluster_slow_ratio']})"
                    + (f"; {tail}" if tail else ""))
    else:
        return cluster
    cluster.update(status=status, reason=tail or sampled["reason"])
    return cluster


def _seconds(delta):
    """Seconds of a command result's delta, "H:MM:SS.ffffff"."""
    try:
        hours, minutes, seconds = str(delta).split(":")
        return round(int(hours) * 3600 + int(minutes) * 60 + float(seconds), 2)
    except ValueError:
        return None


def record_from_result(result, stage, hosts, round_number, tool, ranks_per_node, sample=1):
    """A test record from Ansible's result of the command that ran the test (its `sample`-th)."""
    return {
        "sample": int(sample),
        "stage": stage,
        "hosts": list(hosts),
        "round": round_number,
        "tool": tool,
        "ranks": len(hosts) * int(ranks_per_node),
        "rc": int(result.get("rc", 1)),
        "stdout": result.get("stdout", ""),
        "stderr": "\n".join(str(result.get("stderr", "")).splitlines()[-20:]),
        "seconds": _seconds(result.get("delta", "")),
    }
