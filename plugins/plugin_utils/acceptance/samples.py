"""One acceptance test's records read and its samples judged together: a record's bus
bandwidth at the judged size or why it broke (measure), the median of a test's samples with each
over the tests measured beside it (sampled), and the verdict of a test that would condemn a node
or pair, given its samples (confirm: suspect until measured again, inconclusive when too noisy)."""
import statistics

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.acceptance import parsers as acceptance_parsers

TIMEOUT_CODES = (124, 137)


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


def median(values):
    values = [value for value in values if value is not None]
    return statistics.median(values) if values else None


def ratio(value, reference):
    return round(value / reference, 3) if value is not None and reference else None


def sampled(records, settings, size, beside=None):
    """One test's samples (its records, first sample first) as one result: "ran" with the median
    of the samples, "broken" when every sample broke, "mixed" when some broke and some ran;
    "beside": each sample over the median of the pairs of the same round and sample (None where
    none was), from `beside` ({(round, sample): [(hosts, busbw)]})."""
    records = sorted(records, key=lambda record: int(record.get("sample") or 1))
    results = [measure({**record, "timeout": settings["timeout"]}, size) for record in records]
    relative = []
    for record, result in zip(records, results):
        others = median(busbw for hosts, busbw in (beside or {}).get(moment(record), [])
                         if hosts != tuple(record["hosts"]))
        relative.append(round(result["busbw"] / others, 3) if result["status"] == "ran" and others else None)
    values = [result["busbw"] for result in results if result["status"] == "ran"]
    broken = [result for result in results if result["status"] == "broken"]
    spread = round(max(values) / min(values), 2) if len(values) > 1 and min(values) > 0 else None
    sampled = {"samples": [result["busbw"] if result["status"] == "ran" else None for result in results],
               "first": results[0]["busbw"] if results[0]["status"] == "ran" else None,
               "spread": spread, "size": next((r["size"] for r in results if r["size"]), None),
               "seconds": records[0].get("seconds"), "busbw": median(values), "reason": "",
               "beside": relative}
    if not broken:
        sampled["status"] = "ran"
    elif not values:
        sampled.update(status="broken", reason=broken[0]["reason"]
                       + (f" (all {len(results)} samples)" if len(results) > 1 else ""))
    else:
        sampled.update(status="mixed", reason=f"{len(broken)} of {len(results)} samples broke: {broken[0]['reason']}")
    return sampled


def moment(record):
    """The round and sample of a test: the tests of one moment are compared with each other."""
    return (record.get("round"), int(record.get("sample") or 1))


def beside(records, settings, size):
    """{(round, sample): [(hosts, busbw)]} of the pair tests that ran."""
    moments = {}
    for record in records:
        result = measure({**record, "timeout": settings["timeout"]}, size)
        if result["status"] == "ran":
            moments.setdefault(moment(record), []).append((tuple(record["hosts"]), result["busbw"]))
    return moments


def samples_text(values):
    return "[" + ", ".join("broke" if value is None else f"{value:.4g}" for value in values) + "]"


def confirm(sampled, settings, what, line=None, ratio=None):
    """The verdict of a test that would be judged slow (its median under `line` GB/s) or broken:
    "suspect" before it has `samples` samples (it is measured again); "inconclusive" when some
    broke and some ran, or when some sample reached `line` and the samples spread wider than
    `spread_limit` (samples all under the line agree it is slow, however far apart); else `what`
    ("slow" or "broken"); with the reason's tail. Given `ratio`, a slow test whose every sample
    had pairs beside it is judged on its best sample over theirs: "ok" (cleared) when it reached
    `ratio` once, as interference only ever slows a test down and a slow link or node never runs
    at full speed by chance; slow when every sample stayed under it."""
    count = len(sampled["samples"])
    if count < int(settings["samples"]):
        return "suspect", f"{count} sample(s), measured again before any verdict"
    if sampled["status"] == "mixed":
        return "inconclusive", sampled["reason"]
    limit = float(settings["spread_limit"])
    beside = sampled.get("beside") or []
    if what == "slow" and ratio is not None and beside and None not in beside:
        best = max(beside)
        text = (f"samples {samples_text(sampled['samples'])} GB/s, {samples_text(beside)} of the pairs measured "
                f"beside them (best {best:.3g}")
        if best >= ratio:
            return "ok", f"{text}, not under {ratio}): like the pairs beside it"
        return "slow", f"{text}, every one under {ratio})"
    reached = line is not None and any(value is not None and value >= line for value in sampled["samples"])
    if what == "slow" and reached and sampled["spread"] is not None and sampled["spread"] > limit:
        return "inconclusive", (f"samples {samples_text(sampled['samples'])} GB/s spread {sampled['spread']}x, "
                                f"wider than {limit}x: too noisy to tell")
    return what, (f"samples {samples_text(sampled['samples'])} GB/s" if what == "slow" else "")


