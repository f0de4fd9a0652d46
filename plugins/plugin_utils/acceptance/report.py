"""The acceptance report for people: a table, as lines (the heat map PNG is written by module
acceptance_heat_map, plugins/plugin_utils/acceptance/heat_map.py)."""


def _gbps(value):
    return "-" if value is None else f"{value:.4g}"


def _ratio(value):
    return "-" if value is None else f"{value:.2f}"


def tool_warnings(notes):
    """One warning per distinct note ({node: note, '' for none}), naming its nodes in order."""
    grouped = {}
    for node, note in notes.items():
        if note:
            grouped.setdefault(note, []).append(node)
    return [f"{', '.join(nodes)}: {note}" for note, nodes in grouped.items()]


def _samples(values, spread):
    text = ", ".join("broke" if value is None else f"{value:.4g}" for value in values)
    return f"[{text}] GB/s" + (f" (spread {spread}x)" if spread is not None else "")


def _beside(values):
    return "[" + ", ".join("-" if value is None else f"{value:.3g}" for value in values) + "]"


def format_table(report):
    """Lines: verdict, nodes, every sample of the tests measured again, pairs that are not ok (all
    pairs when few), the whole cluster, the inconclusive verdicts."""
    reference = report["reference"]
    lines = [
        f"acceptance: {'PASSED' if report['passed'] else 'FAILED'} - {report['summary']['nodes']} nodes"
        + (f", tool {report['tool']}" if report.get("tool") else "")
        + (f" with {report['ranks_per_node']} rank(s) per node" if report.get("ranks_per_node") else "") + ", "
        f"{len(report['pairs'])} pairs in {report['rounds']} round(s), judged at {report['size']} bytes; "
        f"reference: pairs {_gbps(reference['pair_busbw'])} GB/s, own tests {_gbps(reference['intra_busbw'])} GB/s "
        f"(busbw)",
        *[f"warning: {warning}" for warning in report.get("warnings") or []],
        "",
        f"{'node':<16} {'status':<7} {'own GB/s':>10} {'ratio':>6} {'best pair':>11} {'ratio':>6}  reason",
    ]
    for row in report["nodes"]:
        lines.append(f"{row['node']:<16} {row['status']:<7} {_gbps(row['intra_busbw']):>10} {_ratio(row['intra_ratio']):>6} "
                     f"{_gbps(row['pair_busbw']):>11} {_ratio(row['pair_ratio']):>6}  {row['reason']}")
    again = report.get("measured_again") or {}
    if again.get("intra") or again.get("rounds"):
        controls = again.get("controls") or []
        pairs_again = ["-".join(pair) for members in again.get("rounds", []) for pair in members if pair not in controls]
        lines += ["", f"measured again (suspects only): own tests of {', '.join(again.get('intra', [])) or 'none'}; "
                      f"pairs {', '.join(pairs_again) or 'none'}"
                      + (f"; beside them the control pairs {', '.join('-'.join(pair) for pair in controls)}"
                         if controls else "")]
        for row in report["nodes"]:
            if len(row.get("intra_samples") or []) > 1:
                lines.append(f"  {row['node']} own test: {_samples(row['intra_samples'], row.get('intra_spread'))} "
                             f"-> {row['status']}")
        for pair in report["pairs"]:
            if len(pair.get("samples") or []) > 1:
                beside = pair.get("beside") or []
                lines.append(f"  pair {'-'.join(pair['pair'])}: {_samples(pair['samples'], pair.get('spread'))} "
                             + (f"= {_beside(beside)} of the pairs beside them " if any(v is not None for v in beside) else "")
                             + f"-> {pair['status']}")
    lines += ["", f"{'pair':<33} {'round':>5} {'status':<7} {'GB/s':>10} {'ratio':>6} {'s':>6}  reason"]
    shown = report["pairs"] if len(report["pairs"]) <= 28 else [p for p in report["pairs"] if p["status"] != "ok"]
    for pair in shown:
        seconds = "-" if pair.get("seconds") is None else f"{pair['seconds']:.1f}"
        lines.append(f"{'-'.join(pair['pair']):<33} {pair['round'] if pair['round'] is not None else '-':>5} "
                     f"{pair['status']:<7} {_gbps(pair['busbw']):>10} {_ratio(pair['ratio']):>6} {seconds:>6}  "
                     f"{pair['reason']}")
    if len(shown) < len(report["pairs"]):
        lines.append(f"({len(report['pairs']) - len(shown)} pairs ok, not listed; all in the JSON report)")
    cluster = report["cluster"]
    lines += ["", f"whole cluster ({len(cluster['hosts'])} healthy nodes): {cluster['status']} "
                  f"{_gbps(cluster['busbw'])} GB/s ratio {_ratio(cluster['ratio'])} {cluster['reason']}".rstrip(),
              f"healthy: {', '.join(report['healthy']) or 'none'}"]
    for node, reason in report["excluded"].items():
        lines.append(f"excluded {node}: {reason}")
    for row in report["nodes"]:
        if row["status"] == "inconclusive":
            lines.append(f"warning: {row['node']} inconclusive (not left out, not quarantined): {row['reason']}")
    return [line.rstrip() for line in lines]
