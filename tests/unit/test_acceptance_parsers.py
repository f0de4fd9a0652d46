"""plugins/plugin_utils/acceptance/parsers.py against the tools' published output (tests/data/acceptance,
sources in its README.md)."""
from pathlib import Path

import pytest

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.acceptance import parsers

DATA = Path(__file__).resolve().parent.parent / "data" / "acceptance"


def test_nccl_tests_all_reduce_perf():
    # The published run: all_reduce_perf -b 8 -e 8G -f 2 -g 1 on 16 H100s, 8 B to 8 GiB.
    rows = parsers.parse_nccl_tests((DATA / "nccl_tests_all_reduce_perf.txt").read_text())
    assert [row["size"] for row in rows] == [2 ** power for power in range(3, 34)]
    assert rows[0] == {"size": 8, "time_us": 135.8, "algbw": 0.0, "busbw": 0.0, "check": "ok"}
    assert rows[19] == {"size": 4194304, "time_us": 364.6, "algbw": 11.5, "busbw": 21.57, "check": "ok"}
    # A time printed without decimals (12646 us at 2 GiB) and the largest size.
    assert rows[-3] == {"size": 2147483648, "time_us": 12646.0, "algbw": 169.81, "busbw": 318.4, "check": "ok"}
    assert rows[-1] == {"size": 8589934592, "time_us": 47535.0, "algbw": 180.71, "busbw": 338.82, "check": "ok"}
    assert {row["check"] for row in rows} == {"ok"}


def test_nccl_tests_wrong_results_and_no_check():
    # The published 1 MiB row with a #wrong count, and with the "N/A" nccl-tests prints in its
    # place when results are not checked (src/util.cu, -c 0).
    published = next(line for line in (DATA / "nccl_tests_all_reduce_perf.txt").read_text().splitlines()
                     if line.lstrip().startswith("1048576 "))
    assert published.endswith("      0    207.2    5.06    9.49      0")
    out_of_place, in_place = published[:-32], published[-32:]
    wrong = out_of_place[:-7] + "      3" + in_place
    unchecked = out_of_place[:-7] + "    N/A" + in_place[:-7] + "    N/A"
    assert len(wrong) == len(unchecked) == len(published)
    assert parsers.parse_nccl_tests(published)[0]["check"] == "ok"
    assert parsers.parse_nccl_tests(wrong)[0]["check"] == "wrong"
    assert parsers.parse_nccl_tests(unchecked)[0]["check"] == "unchecked"
    assert parsers.parse_nccl_tests("# only comments\nnot a row\n") == []


def test_hccl_test_all_reduce():
    # The published run: mpirun -n 8 ./bin/all_reduce_test -b 8K -e 64M -f 2 -d fp32 -o sum -p 8,
    # whose header reads avg_time(us) where the tool's source prints aveg_time(us).
    text = (DATA / "hccl_test_all_reduce.txt").read_text()
    assert "|   avg_time(us): |" in text
    rows = parsers.parse_hccl_test(text, ranks=8)
    assert [row["size"] for row in rows] == [8192 * 2 ** power for power in range(14)]
    assert rows[0] == {"size": 8192, "time_us": 764.55, "algbw": 0.00998,
                       "busbw": pytest.approx(0.00998 * 2 * 7 / 8), "check": "ok"}
    assert rows[-1]["size"] == 67108864 and rows[-1]["time_us"] == 2630.2
    assert rows[-1]["algbw"] == 23.76245
    assert rows[-1]["busbw"] == pytest.approx(23.76245 * 2 * 7 / 8)
    assert {row["check"] for row in rows} == {"ok"}
    assert parsers.parse("hccl_test", text, 8) == rows


def test_hccl_test_header_as_the_tool_prints_it():
    # The printf formats of print_execution_time() in hccl_test's hccl_opbase_rootinfo_base.cc
    # (header "%-15s | %-12s | %-18s | %s", rows "%-17llu | %-14.2f | %-20.5f | success"),
    # filled with the published run's first row.
    header = "%-15s | %-12s | %-18s | %s\n" % ("data_size(Bytes):", "aveg_time(us):", "alg_bandwidth(GB/s):",
                                             "check_result:")
    row = "%-17d | %-14.2f | %-20.5f | success\n" % (8192, 764.55, 0.00998)
    rows = parsers.parse_hccl_test(header + row, 2)
    assert rows == [{"size": 8192, "time_us": 764.55, "algbw": 0.00998, "busbw": 0.00998, "check": "ok"}]


def test_hccl_test_rows_need_the_header_and_map_the_check():
    published = (DATA / "hccl_test_all_reduce.txt").read_text().splitlines()
    assert parsers.parse_hccl_test("\n".join(published[2:]), 2) == []
    # The tool's failed and NULL rows (print_execution_time(), hccl_opbase_rootinfo_base.cc) under the
    # published header, with the published run's first two sizes.
    failed = "%-17d | %-14.2f | %-20.5f | failed" % (8192, 764.55, 0.00998)
    null = "%-17d | %-14.2f | %-20.5f | NULL" % (16384, 858.80, 0.01777)
    rows = parsers.parse_hccl_test("\n".join([published[1], failed, null]), 2)
    assert [row["check"] for row in rows] == ["wrong", "unchecked"]
    assert rows[0]["busbw"] == rows[0]["algbw"] == 0.00998


def test_probe_output():
    text = ("# cs_allreduce_bw ranks 2 iters 5 warmup 1\n#  size(B)  time(us)  algbw(GB/s)  busbw(GB/s)  check\n"
            "   1048576     83886.1     0.012500     0.012500  ok\n   2097152    167772.2     0.012500     0.012500  wrong\n")
    rows = parsers.parse("probe", text)
    assert rows == [
        {"size": 1048576, "time_us": 83886.1, "algbw": 0.0125, "busbw": 0.0125, "check": "ok"},
        {"size": 2097152, "time_us": 167772.2, "algbw": 0.0125, "busbw": 0.0125, "check": "wrong"}]
    with pytest.raises(ValueError, match="unknown tool"):
        parsers.parse("iperf", text)


def test_bus_factor_is_nccl_tests_allreduce_formula():
    assert parsers.bus_factor(2) == 1.0
    assert parsers.bus_factor(8) == pytest.approx(1.75)
    assert parsers.bus_factor(1) == 1.0
