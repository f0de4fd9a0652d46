#!/usr/bin/env python3
"""Turn bench/results/*.json into Markdown: bench/results/README.md (docs/benchmarks.md says how they
are measured).

    bench/report.py        # after editing a result by hand
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402

ORDER = ("openmpi", "site_rerun", "launch_fanout", "doctor", "planning", "acceptance", "fleet_faults", "scale", "forks_memory")


def load_results(results_dir=harness.RESULTS_DIR):
    results = []
    for name in ORDER:
        path = os.path.join(results_dir, name + ".json")
        if os.path.exists(path):
            with open(path, encoding="utf-8") as handle:
                results.append(json.load(handle))
    return results


def _seconds(value):
    if value is None:
        return "-"
    return "%.3g s" % value if value < 10 else "%.0f s" % value


def _number(value):
    if value is None:
        return "-"
    return "%.3g" % value if value < 1000 else "%.0f" % value


UNITS = {"seconds": _seconds, "number": _number}


def _table(summary, labels, size_word, order=(), unit="seconds"):
    """A Markdown table of medians (min-max) per series and size, and a blank line; the series
    named in `order` first, in that order (the JSON's mappings are sorted by name); `unit` seconds
    (the default) or number."""
    show = UNITS[unit]
    sizes = sorted({int(size) for series in summary.values() for size in series})
    lines = ["| series | " + " | ".join("%d %s" % (size, size_word) for size in sizes) + " |",
             "|---|" + "---|" * len(sizes)]
    ranked = [name for name in order if name in summary] + [name for name in summary if name not in order]
    for series, per_size in ((name, summary[name]) for name in ranked):
        cells = []
        for size in sizes:
            stats = per_size.get(str(size))
            if not stats:
                cells.append("not measured")
            elif len(stats["samples"]) == 1:
                cells.append(show(stats["median"]))
            else:
                cells.append("%s (%s-%s)" % (show(stats["median"]), show(stats["min"]), show(stats["max"])))
        lines.append("| %s | %s |" % (labels.get(series, series), " | ".join(cells)))
    return lines + [""]


def scenario_markdown(result, image_prefix):
    """One scenario: a table of medians (min-max) per series and size, its further tables
    (result["tables"]: a caption, a summary and a unit each), its aims and notes; result["series_order"]
    orders the rows; result["unit"] is the first table's unit (seconds by default)."""
    lines = ["#### %s" % result.get("title", result["scenario"]), "",
             "%s. Measured %s on %s CPUs (commit %s), %s run(s) per point." % (
                 result.get("metric", ""), result.get("measured", "?"), result.get("machine", {}).get("cpus", "?"),
                 result.get("versions", {}).get("commit", "?"), result.get("repeat", "?")), ""]
    order = result.get("series_order", ())
    lines += _table(result.get("summary", {}), result.get("labels", {}), result.get("size_label", "nodes"), order,
                    result.get("unit", "seconds"))
    for table in result.get("tables", []):
        lines += [table["caption"], ""] + _table(table["summary"], result.get("labels", {}),
                                                  result.get("size_label", "nodes"), order, table.get("unit", "seconds"))
    for entry in result.get("aims", []):
        verdict = {True: "met", False: "NOT met", None: "not measured"}[entry["met"]]
        lines.append("- Aim: %s. Measured %s (limit %s %s): **%s**." % (
            entry["aim"], "-" if entry["value"] is None else entry["value"], entry["comparison"], entry["limit"], verdict))
    for note in result.get("notes", []):
        lines.append("- %s" % note)
    if os.path.exists(os.path.join(harness.RESULTS_DIR, result["scenario"] + ".png")):
        lines += ["", "![%s](%s%s.png)" % (result["scenario"], image_prefix, result["scenario"])]
    return "\n".join(lines) + "\n"


def results_markdown(results, image_prefix):
    if not results:
        return "No benchmark results yet: run `make bench`.\n"
    return "\n".join(scenario_markdown(result, image_prefix) for result in results)


def write_reports():
    results = load_results()
    with open(os.path.join(harness.RESULTS_DIR, "README.md"), "w", encoding="utf-8") as handle:
        handle.write("# Benchmark results\n\nWritten by `bench/run.py` from the JSON files here; "
                     "docs/benchmarks.md says how they are measured and what each aim is.\n\n")
        handle.write(results_markdown(results, ""))


if __name__ == "__main__":
    write_reports()
