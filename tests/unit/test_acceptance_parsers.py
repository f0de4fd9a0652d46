"""plugins/plugin_utils/acceptance_parsers.py against the tools' documented output (tests/data/acceptance)."""
from pathlib import Path

import pytest

import acceptance_parsers as parsers

DATA = Path(__file__).resolve().parent.parent / "data" / "acceptance"


def test_nccl_tests_all_reduce_perf():
    rows = parsers.parse_nccl_tests((DATA / "nccl_tests_all_reduce_perf.txt").read_text())
    assert len(rows) == 9
    assert rows[0] == {"size": 8, "time_us": 135.8, "algbw": 0.0, "busbw": 0.0, "check": "ok"}
    assert rows[4] == {"size": 4194304, "time_us": 364.6, "algbw": 11.5, "busbw": 21.57, "check": "ok"}
    assert rows[-1]["size"] == 8589934592 and rows[-1]["busbw"] == 338.82


def test_nccl_tests_wrong_results_and_no_check():
    wrong = "     1048576        262144     float     sum      -1    203.2    5.16    9.68      3    207.2    5.06    9.49      0"
    unchecked = "     1048576        262144     float     sum      -1    203.2    5.16    9.68    N/A    207.2    5.06    9.49    N/A"
    assert parsers.parse_nccl_tests(wrong)[0]["check"] == "wrong"
    assert parsers.parse_nccl_tests(unchecked)[0]["check"] == "unchecked"
    assert parsers.parse_nccl_tests("# only comments\nnot a row\n") == []


def test_hccl_test_all_reduce():
    rows = parsers.parse_hccl_test((DATA / "hccl_test_all_reduce.txt").read_text(), ranks=16)
    assert [row["size"] for row in rows] == [8192, 65536, 1048576, 8388608, 67108864]
    assert rows[-1]["algbw"] == 9.23231
    assert rows[-1]["busbw"] == pytest.approx(9.23231 * 2 * 15 / 16)
    assert {row["check"] for row in rows} == {"ok"}


def test_hccl_test_rows_need_the_header_and_map_the_check():
    text = "8192  92.78  0.08829  success\n"
    assert parsers.parse_hccl_test(text, 2) == []
    header = "data_size(Bytes): | aveg_time(us): | alg_bandwidth(GB/s): | check_result:\n"
    rows = parsers.parse_hccl_test(header + "8192 | 92.78 | 0.08829 | failed\n65536 | 1.0 | 2.0 | NULL\n", 2)
    assert [row["check"] for row in rows] == ["wrong", "unchecked"]
    assert rows[0]["busbw"] == rows[0]["algbw"]


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
