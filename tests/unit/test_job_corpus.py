"""The summary scored on the corpus of real runs (tests/data/corpus/, recorded on the sandbox by
tests/corpus/record.sh): each run's gathered logs exactly as the run wrote them, summarised again
by the summary action's own code, must give the verdict written by hand in expected.yml from the
fault the job was told to make: the outcome, the first failure (rank or component, host), its
known cause, the rank that held the others up and the warning of a job that completed."""
import json
import os
import pathlib
import shutil

import pytest
import yaml

from ansible_collections.cluster_suite.hpc.plugins.action.job_summary import summary_of

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "data" / "corpus"
CATALOGUE = yaml.safe_load((ROOT / "roles" / "job" / "files" / "failure_catalogue.yml").read_text())
EXPECTED = yaml.safe_load((CORPUS / "expected.yml").read_text())["runs"]


def restored(name, work):
    """A copy of run ``name`` under ``work`` with its files' modification times as the run left
    them (file_times.json: git keeps none, and a rank without a record is timed by its log)."""
    copy = work / name
    shutil.copytree(CORPUS / name, copy)
    times = json.loads((copy / "file_times.json").read_text())
    for relative, mtime in times.items():
        os.utime(copy / relative, (mtime, mtime), follow_symlinks=False)
    return copy


def summarise(name, work):
    run = restored(name, work)
    with open(run / "summary_inputs.json", encoding="utf-8") as handle:
        args = json.load(handle)
    args.update(log_root=str(run), catalogue=CATALOGUE)
    return summary_of(args)[0]


def verdict(summary):
    """What expected.yml states of a run, as the summary gives it."""
    first = summary.get("first_failure")
    warning = (summary.get("after_success") or [None])[0]
    return {
        "result": summary["result"],
        "first": None if first is None else {"kind": first["kind"], "rank": first["rank"], "host": first["host"]},
        "cause": ((first or {}).get("diagnosis") or {}).get("id"),
        "held_up_by": sorted([item["rank"], item["host"], item["where"].split("`")[1]]
                             for item in summary.get("held_up_by") or []),
        "warning": None if warning is None else {"kind": warning["kind"], "host": warning["host"],
                                                 "cause": (warning.get("diagnosis") or {}).get("id")},
    }


def expected_verdict(run):
    return {"result": run["result"], "first": run.get("first"), "cause": run.get("cause"),
            "held_up_by": sorted(run.get("held_up_by") or []), "warning": run.get("warning")}


def test_the_corpus_is_whole():
    recorded = sorted(path.name for path in CORPUS.iterdir() if path.is_dir())
    assert recorded == sorted(EXPECTED), "every recorded run has a verdict and every verdict a run"
    assert len(EXPECTED) >= 15
    launchers = {run["launcher"] for run in EXPECTED.values()}
    assert launchers == {"msrun", "dynamic", "mpirun", "torchrun"}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_run_gets_its_verdict(name, tmp_path):
    summary = summarise(name, tmp_path)
    assert verdict(summary) == expected_verdict(EXPECTED[name]), summary["text"]
    if summary["result"] == "succeeded":
        assert "error:" not in summary["text"] and "first failure" not in summary["text"]


def test_score(tmp_path):
    right = sum(verdict(summarise(name, tmp_path / name)) == expected_verdict(run) for name, run in EXPECTED.items())
    print(f"corpus score: {right}/{len(EXPECTED)}")
    assert right == len(EXPECTED)
