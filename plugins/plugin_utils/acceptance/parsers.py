"""Parsers of collective bandwidth tools' output, each to rows of
{"size": bytes, "time_us": float, "algbw": GB/s, "busbw": GB/s, "check": "ok"|"wrong"|"unchecked"}.

- nccl-tests (NVIDIA): the table its src/common.cu prints, `size count type redop root` then
  out-of-place `time algbw busbw #wrong` and in-place `time algbw busbw #wrong`; comment lines
  start with `#`. The out-of-place figures are used; a row is wrong when either #wrong is not 0.
- hccl_test (Ascend CANN, "HCCL Performance Tester", Result Description): a header
  `data_size(Bytes): | aveg_time(us): | alg_bandwidth(GB/s): | check_result:` (the tool's
  source spells `aveg_time`, its published example run `avg_time`) then one row per size;
  alg_bandwidth is the algorithm bandwidth, so the bus bandwidth of an allreduce over n ranks
  is alg_bandwidth * 2(n-1)/n, as nccl-tests defines it.
- the suite's probe (roles/acceptance/files/cs_allreduce_bw.c): `size(B) time(us) algbw(GB/s)
  busbw(GB/s) check` rows after `#` comment lines.
"""
import re

_NUMBER = r"[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?"
_NCCL_ROW = re.compile(
    rf"^\s*(?P<size>[0-9]+)\s+(?P<count>[0-9]+)\s+\S+\s+\S+\s+-?[0-9]+\s+"
    rf"(?P<time>{_NUMBER}|N/A)\s+(?P<algbw>{_NUMBER}|N/A)\s+(?P<busbw>{_NUMBER}|N/A)\s+(?P<wrong>\S+)"
    rf"(?:\s+(?:{_NUMBER}|N/A)\s+(?:{_NUMBER}|N/A)\s+(?:{_NUMBER}|N/A)\s+(?P<wrong_in>\S+))?\s*$")
_HCCL_HEADER = re.compile(r"data_size\s*\(Bytes\).*\bave?g_time.*alg_bandwidth.*check_result", re.IGNORECASE)
_HCCL_ROW = re.compile(
    rf"^\s*(?P<size>[0-9]+)\s*\|?\s*(?P<time>{_NUMBER})\s*\|?\s*(?P<algbw>{_NUMBER})\s*\|?\s*(?P<check>\S+)\s*$")
_PROBE_ROW = re.compile(
    rf"^\s*(?P<size>[0-9]+)\s+(?P<time>{_NUMBER})\s+(?P<algbw>{_NUMBER})\s+(?P<busbw>{_NUMBER})\s+(?P<check>ok|wrong)\s*$")

TOOLS = ("probe", "nccl_tests", "hccl_test")


def bus_factor(ranks):
    """nccl-tests' allreduce bus bandwidth factor 2(n-1)/n (1 for 2 ranks)."""
    ranks = int(ranks)
    return 2.0 * (ranks - 1) / ranks if ranks > 1 else 1.0


def parse_nccl_tests(text):
    """Rows of an nccl-tests *_perf output (out-of-place figures)."""
    rows = []
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            continue
        match = _NCCL_ROW.match(line)
        if not match or "N/A" in (match["time"], match["algbw"], match["busbw"]):
            continue
        wrong = [value for value in (match["wrong"], match["wrong_in"]) if value is not None]
        rows.append({
            "size": int(match["size"]),
            "time_us": float(match["time"]),
            "algbw": float(match["algbw"]),
            "busbw": float(match["busbw"]),
            "check": "unchecked" if all(value == "N/A" for value in wrong)
            else ("ok" if all(value in ("0", "N/A") for value in wrong) else "wrong"),
        })
    return rows


def parse_hccl_test(text, ranks):
    """Rows of an hccl_test (all_reduce_test) output; busbw from alg_bandwidth over `ranks` ranks."""
    rows = []
    seen_header = False
    for line in text.splitlines():
        if _HCCL_HEADER.search(line):
            seen_header = True
            continue
        match = _HCCL_ROW.match(line) if seen_header else None
        if not match:
            continue
        algbw = float(match["algbw"])
        check = match["check"].lower()
        rows.append({
            "size": int(match["size"]),
            "time_us": float(match["time"]),
            "algbw": algbw,
            "busbw": algbw * bus_factor(ranks),
            "check": {"success": "ok", "failed": "wrong"}.get(check, "unchecked"),
        })
    return rows


def parse_probe(text):
    """Rows of the suite's own MPI allreduce probe."""
    rows = []
    for line in text.splitlines():
        match = _PROBE_ROW.match(line)
        if match:
            rows.append({
                "size": int(match["size"]),
                "time_us": float(match["time"]),
                "algbw": float(match["algbw"]),
                "busbw": float(match["busbw"]),
                "check": match["check"],
            })
    return rows


def parse(tool, text, ranks=2):
    """Rows of `tool`'s output (one of TOOLS)."""
    if tool == "probe":
        return parse_probe(text)
    if tool == "nccl_tests":
        return parse_nccl_tests(text)
    if tool == "hccl_test":
        return parse_hccl_test(text, ranks)
    raise ValueError(f"unknown tool {tool!r} (known: {', '.join(TOOLS)})")
