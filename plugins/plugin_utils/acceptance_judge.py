"""Judge the acceptance tests: every node, pair and the whole cluster is ok, slow or broken,
with the reason and the numbers, and the healthy nodes a job can use.

A test record (one mpirun of a bandwidth tool, made by role acceptance) is
{"stage": "intra"|"pair"|"cluster", "hosts": [...], "round": int or None, "tool": "probe"|
"nccl_tests"|"hccl_test", "ranks": int, "rc": int, "stdout": str, "stderr": str, "seconds": float}.

Thresholds are relative to the cluster's own median, so they hold on any hardware:
- intra-node: a node is slow when its figure is under intra_slow_ratio x the median of all nodes';
- pairs: each node's figure is the best of its pairs (a node whose every link is slow is the
  slow one; a single slow link spoils one pair, not the node), the reference is the median of
  those node figures (one slow node spoils N-1 pairs but not this median); a node under
  slow_ratio x reference is slow, a pair under it is slow (explained by its slow node, or a slow
  link when both nodes are fine elsewhere);
- the whole cluster: a ring of many nodes reaches less than one pair does, so it is compared
  with the pair reference at the laxer cluster_slow_ratio.
Optionally `expected` gives a floor per hardware model and message size ({model: {size: GB/s}},
the nodes' models in `models`): a pair under the floor of its nodes' model is slow too.
A test that did not finish in time (rc 124 or 137 from `timeout`), failed or printed no row at
the judged size is broken. A node is broken when its own test broke or when more than half
of its pairs broke (then the node, not a link, is the likely fault).
"""
import statistics

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils import acceptance_parsers

TIMEOUT_CODES = (124, 137)
DEFAULTS = {"slow_ratio": 0.6, "intra_slow_ratio": 0.5, "cluster_slow_ratio": 0.25, "size": 0, "timeout": 60,
            "expected": {}, "models": {}}


def measure(record, size=0):
    """One test record read: {"status": "ran"|"broken", "busbw", "size", "rows", "reason"}."""
    tool = record.get("tool", "probe")
    rows = acceptance_parsers.parse(tool, record.get("stdout", ""), record.get("ranks", 2))
    rc = int(record.get("rc", 1))
    where = " on " + ",".join(record.get("hosts", []))
    if rc in TIMEOUT_CODES:
        return {"status": "broken", "busbw": None, "size": None, "rows": rows,
                "reason": f"no result within {record.get('timeout', '?')} s (killed){where}"}
    if rc != 0:
        tail = (record.get("stderr", "") or record.get("stdout", "")).strip().splitlines()[-1:]
        return {"status": "broken", "busbw": None, "size": None, "rows": rows,
                "reason": f"{tool} exited {rc}{where}" + (f": {tail[0][:160]}" if tail else "")}
    if not rows:
        return {"status": "broken", "busbw": None, "size": None, "rows": rows,
                "reason": f"{tool} printed no result row{where}"}
    wanted = int(size) if size else max(row["size"] for row in rows)
    row = next((row for row in rows if row["size"] == wanted), None)
    if row is None:
        return {"status": "broken", "busbw": None, "size": wanted, "rows": rows,
                "reason": f"{tool} printed no row for {wanted} bytes{where}"}
    if row["check"] == "wrong":
        return {"status": "broken", "busbw": row["busbw"], "size": wanted, "rows": rows,
                "reason": f"wrong allreduce result at {wanted} bytes{where}"}
    return {"status": "ran", "busbw": row["busbw"], "size": wanted, "rows": rows, "reason": ""}


def _median(values):
    values = [value for value in values if value is not None]
    return statistics.median(values) if values else None


def _ratio(value, reference):
    return round(value / reference, 3) if value is not None and reference else None


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
    """Report of the intra-node and pair stages: nodes, pairs, references, healthy nodes."""
    settings = {**DEFAULTS, **(settings or {})}
    ratio = float(settings["slow_ratio"])
    intra_ratio = float(settings["intra_slow_ratio"])
    size = int(settings["size"] or 0)
    intra = {}
    for record in intra_records:
        intra[record["hosts"][0]] = {**measure({**record, "timeout": settings["timeout"]}, size),
                                     "seconds": record.get("seconds")}
    intra_reference = _median(result["busbw"] for result in intra.values() if result["status"] == "ran")

    pairs = []
    for record in pair_records:
        result = measure({**record, "timeout": settings["timeout"]}, size)
        pairs.append({"pair": list(record["hosts"]), "round": record.get("round"), "status": result["status"],
                      "reason": result["reason"], "busbw": result["busbw"], "size": result["size"],
                      "seconds": record.get("seconds")})
    per_node = {node: [pair for pair in pairs if node in pair["pair"]] for node in nodes}
    node_figure = {node: max((pair["busbw"] for pair in members if pair["status"] == "ran"), default=None)
                   for node, members in per_node.items()}
    pair_reference = _median(node_figure.values())

    node_rows = []
    for node in nodes:
        row = {"node": node, "status": "ok", "reasons": [],
               "intra_busbw": intra.get(node, {}).get("busbw"),
               "intra_ratio": _ratio(intra.get(node, {}).get("busbw"), intra_reference),
               "pair_busbw": node_figure[node], "pair_ratio": _ratio(node_figure[node], pair_reference)}
        own = intra.get(node)
        if own is not None and own["status"] == "broken":
            row["reasons"].append("own test: " + own["reason"])
        elif own is not None and intra_reference and own["busbw"] < intra_ratio * intra_reference:
            row["reasons"].append(f"own test {own['busbw']:.4g} GB/s is {row['intra_ratio']} of the nodes' "
                                  f"median {intra_reference:.4g} GB/s (slow under {intra_ratio})")
        broken = [pair for pair in per_node[node] if pair["status"] == "broken"]
        if per_node[node] and len(broken) * 2 > len(per_node[node]):
            row["reasons"].append(f"{len(broken)} of its {len(per_node[node])} pair tests broke")
        elif node_figure[node] is not None and pair_reference and node_figure[node] < ratio * pair_reference:
            row["reasons"].append(f"its best pair {node_figure[node]:.4g} GB/s is {row['pair_ratio']} of the "
                                  f"cluster's {pair_reference:.4g} GB/s (slow under {ratio})")
        if row["reasons"]:
            hard = (own is not None and own["status"] == "broken") or \
                (per_node[node] and len(broken) * 2 > len(per_node[node]))
            row["status"] = "broken" if hard else "slow"
        node_rows.append(row)
    status_of = {row["node"]: row["status"] for row in node_rows}

    for pair in pairs:
        pair["ratio"] = _ratio(pair["busbw"], pair_reference)
        if pair["status"] == "broken":
            continue
        floor = _floor(pair["pair"], settings, pair["size"])
        bad_nodes = [node for node in pair["pair"] if status_of[node] != "ok"]
        if pair_reference and pair["busbw"] < ratio * pair_reference:
            pair["status"] = "slow"
            pair["reason"] = (f"{pair['busbw']:.4g} GB/s is {pair['ratio']} of the cluster's {pair_reference:.4g} GB/s; "
                              + (f"explained by {' and '.join(bad_nodes)} ({status_of[bad_nodes[0]]})"
                                 if bad_nodes else "slow link: both nodes are fine elsewhere"))
        elif floor is not None and pair["busbw"] < floor:
            pair["status"] = "slow"
            pair["reason"] = f"{pair['busbw']:.4g} GB/s is under the expected {floor:.4g} GB/s at {pair['size']} bytes"
        else:
            pair["status"] = "ok"
    for row in node_rows:
        row["reason"] = "; ".join(row.pop("reasons"))

    healthy, excluded = healthy_nodes(nodes, node_rows, pairs)
    return {
        "size": next((pair["size"] for pair in pairs if pair["size"]), None)
        or next((result["size"] for result in intra.values() if result["size"]), None),
        "reference": {"intra_busbw": intra_reference, "pair_busbw": pair_reference},
        "settings": {"slow_ratio": ratio, "intra_slow_ratio": intra_ratio, "cluster_slow_ratio": float(settings["cluster_slow_ratio"]),
                     "timeout": settings["timeout"]},
        "nodes": node_rows,
        "pairs": pairs,
        "rounds": len({pair["round"] for pair in pairs}),
        "healthy": healthy,
        "excluded": excluded,
    }


def healthy_nodes(nodes, node_rows, pairs):
    """Nodes judged ok, less one node of every slow or broken pair left among them (the one in
    most such pairs, the later one on a tie): no two healthy nodes share a bad pair."""
    status = {row["node"]: row for row in node_rows}
    excluded = {node: f"{status[node]['status']}: {status[node]['reason']}"
                for node in nodes if status[node]["status"] != "ok"}
    healthy = [node for node in nodes if node not in excluded]
    while True:
        bad = [pair for pair in pairs if pair["status"] != "ok" and all(node in healthy for node in pair["pair"])]
        if not bad:
            return healthy, excluded
        counts = {node: sum(node in pair["pair"] for pair in bad) for node in healthy}
        worst = max(reversed(healthy), key=lambda node: counts[node])
        pair = next(pair for pair in bad if worst in pair["pair"])
        other = next(node for node in pair["pair"] if node != worst)
        excluded[worst] = f"pair {worst}-{other} {pair['status']}: {pair['reason']}"
        healthy.remove(worst)


def finish_report(report, cluster_record=None, settings=None):
    """The full report: the stages' report plus the whole-cluster test over the healthy nodes."""
    settings = {**DEFAULTS, **(settings or {})}
    report = dict(report)
    # One node tested (a one-node batch of playbooks/upgrade.yml) has no pair and no whole cluster:
    # its own test decides.
    alone = len(report["nodes"]) == 1
    if cluster_record is None:
        reason = "fewer than 2 healthy nodes" if len(report["healthy"]) < 2 else "not run"
        report["cluster"] = {"hosts": report["healthy"], "status": "skipped",
                             "reason": "a single node tested" if alone else reason,
                             "busbw": None, "ratio": None}
    else:
        result = measure({**cluster_record, "timeout": settings["timeout"]}, report.get("size") or 0)
        reference = report["reference"]["pair_busbw"]
        cluster = {"hosts": list(cluster_record["hosts"]), "status": "ok", "reason": result["reason"],
                   "busbw": result["busbw"], "ratio": _ratio(result["busbw"], reference),
                   "seconds": cluster_record.get("seconds")}
        lax = float(settings["cluster_slow_ratio"])
        if result["status"] == "broken":
            cluster["status"] = "broken"
        elif reference and result["busbw"] < lax * reference:
            cluster["status"] = "slow"
            cluster["reason"] = (f"{result['busbw']:.4g} GB/s over {len(cluster['hosts'])} nodes is {cluster['ratio']} "
                                 f"of the pairs' {reference:.4g} GB/s (slow under {lax})")
        report["cluster"] = cluster
    bad_nodes = [row["node"] for row in report["nodes"] if row["status"] != "ok"]
    bad_pairs = [pair for pair in report["pairs"] if pair["status"] != "ok"]
    report["summary"] = {
        "nodes": len(report["nodes"]),
        "slow_nodes": [row["node"] for row in report["nodes"] if row["status"] == "slow"],
        "broken_nodes": [row["node"] for row in report["nodes"] if row["status"] == "broken"],
        "slow_pairs": ["-".join(pair["pair"]) for pair in bad_pairs if pair["status"] == "slow"],
        "broken_pairs": ["-".join(pair["pair"]) for pair in bad_pairs if pair["status"] == "broken"],
        "healthy": len(report["healthy"]),
    }
    whole = report["cluster"]["status"] == "ok" or (alone and cluster_record is None)
    report["passed"] = not bad_nodes and not bad_pairs and whole
    return report


def _seconds(delta):
    """Seconds of a command result's delta, "H:MM:SS.ffffff"."""
    try:
        hours, minutes, seconds = str(delta).split(":")
        return round(int(hours) * 3600 + int(minutes) * 60 + float(seconds), 2)
    except ValueError:
        return None


def record_from_result(result, stage, hosts, round_number, tool, ranks_per_node):
    """A test record from Ansible's result of the command that ran the test."""
    return {
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
