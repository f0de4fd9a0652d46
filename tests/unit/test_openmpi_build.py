import json

import pytest

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.provision.openmpi_build import build_key, build_plan, marker_key, ring_errors, settings_errors

SHA = "ddaee7dbdb01eb4fab1fda5b5e03e8bbff026711806c095c1f39bb410f99f263"
FACTS = {"distribution": "Debian", "distribution_major_version": "12",
         "distribution_release": "bookworm", "architecture": "x86_64"}
FLAGS = ["--enable-orterun-prefix-by-default", "--disable-mpi-fortran"]


def good_settings(**changes):
    settings = {"openmpi_version": "4.1.4", "openmpi_source_url": "",
                "openmpi_source_file": "/srv/openmpi_4.1.4.orig.tar.xz",
                "openmpi_source_file_exists": True, "openmpi_source_sha256": SHA,
                "openmpi_prefix": "/usr/local/openmpi-4.1.4", "openmpi_configure_flags": FLAGS,
                "openmpi_build_strategy": "once"}
    settings.update(changes)
    return settings


def test_good_settings_have_no_errors():
    assert settings_errors(good_settings()) == []


@pytest.mark.parametrize("url", ["https://example.invalid/openmpi-4.0.2.tar.bz2",
                                 "file:///srv/openmpi-4.0.3.tar.gz"])
def test_a_url_instead_of_a_file_is_fine(url):
    assert settings_errors(good_settings(openmpi_source_file="", openmpi_source_url=url,
                                         openmpi_version="4.0.2")) == []


@pytest.mark.parametrize("changes, expected", [
    ({"openmpi_version": "5.0.1"}, "node1: openmpi_version: '5.0.1' does not look like an OpenMPI 4.x"),
    ({"openmpi_version": 4.1}, "openmpi_version: 4.1 does not look like"),
    ({"openmpi_version": "4.1"}, "openmpi_version: '4.1' does not look like"),
    ({"openmpi_source_file": ""}, "set exactly one"),
    ({"openmpi_source_url": "https://example.invalid/o.tar.gz"}, "both are set"),
    ({"openmpi_source_file": "relative/o.tar.gz"}, "is not an absolute path on the controller"),
    ({"openmpi_source_file_exists": False}, "does not exist on the controller"),
    ({"openmpi_source_file": "/srv/openmpi.zip"}, "is not a release tarball"),
    ({"openmpi_source_file": "", "openmpi_source_url": "ssh://h/o.tar.gz"}, "is not an http(s), ftp or file URL"),
    ({"openmpi_source_sha256": SHA[:-1]}, "openmpi_source_sha256: '" + SHA[:-1] + "' is not a sha256"),
    ({"openmpi_source_sha256": "z" * 64}, "is not a sha256"),
    ({"openmpi_source_sha256": None}, "is not a sha256"),
    ({"openmpi_prefix": "usr/local/openmpi"}, "openmpi_prefix: 'usr/local/openmpi' is not an absolute path"),
    ({"openmpi_prefix": "/usr/local/"}, "openmpi_prefix: /usr/local/ is a system directory"),
    ({"openmpi_configure_flags": "--disable-mpi-fortran"}, "must be a list of strings"),
    ({"openmpi_configure_flags": ["--prefix=/opt/x"]}, "--prefix=/opt/x: set the prefix with openmpi_prefix"),
])
def test_each_problem_is_named(changes, expected):
    errors = settings_errors(good_settings(**changes), "node1")
    assert any(expected in e for e in errors), errors
    assert all(e.startswith("node1: ") for e in errors)


def test_all_problems_are_reported_at_once():
    errors = settings_errors(good_settings(openmpi_version="3.1.6", openmpi_source_sha256="x",
                                           openmpi_prefix="rel"))
    assert len(errors) == 3


def test_build_key_is_stable_and_readable():
    key = build_key(FACTS, "4.1.4", FLAGS, SHA.upper(), "/usr/local/openmpi-4.1.4/")
    assert key == build_key(FACTS, "4.1.4", FLAGS, SHA, "/usr/local/openmpi-4.1.4")
    assert key["id"].startswith("openmpi-4.1.4-debian12-x86_64-")
    assert len(key["id"].rsplit("-", 1)[1]) == 12
    assert key["fields"]["source_sha256"] == SHA
    json.dumps(key)  # plain data only


@pytest.mark.parametrize("change", [
    {"facts": dict(FACTS, architecture="aarch64")},
    {"facts": dict(FACTS, distribution_major_version="13", distribution_release="trixie")},
    {"facts": dict(FACTS, distribution="Ubuntu")},
    {"version": "4.0.3"},
    {"flags": FLAGS[:1]},
    {"flags": list(reversed(FLAGS))},
    {"sha": "0" * 64},
    {"prefix": "/opt/openmpi"},
])
def test_every_part_of_the_key_matters(change):
    base = build_key(FACTS, "4.1.4", FLAGS, SHA, "/usr/local/openmpi-4.1.4")["id"]
    other = build_key(change.get("facts", FACTS), change.get("version", "4.1.4"),
                      change.get("flags", FLAGS), change.get("sha", SHA),
                      change.get("prefix", "/usr/local/openmpi-4.1.4"))["id"]
    assert other != base


def test_build_key_tolerates_odd_facts():
    key = build_key({"distribution": "Red Hat/Enterprise", "architecture": "x86 64"}, "4.1.4",
                    [], SHA, "/p")
    assert "/" not in key["id"] and " " not in key["id"]


def test_build_key_refuses_a_node_whose_facts_were_not_gathered():
    with pytest.raises(ValueError, match="the node's facts have no distribution, architecture: gather them first"):
        build_key({}, "4.1.4", [], SHA, "/p")
    with pytest.raises(ValueError, match="have no architecture"):
        build_key({"distribution": "Debian"}, "4.1.4", [], SHA, "/p")


@pytest.mark.parametrize("text, expected", [
    ('{"build_key": "openmpi-4.1.4-x"}', "openmpi-4.1.4-x"),
    ("", ""), (None, ""), ("not json", ""), ("[1]", ""), ('{"build_key": 3}', ""), ("{}", ""),
])
def test_marker_key(text, expected):
    assert marker_key(text) == expected


def states(*specs):
    return {host: {"key": key, "needs_install": needs} for host, key, needs in specs}


def test_once_builds_on_the_first_node_that_needs_it_and_unpacks_elsewhere():
    plan = build_plan(states(("n1", "k", False), ("n2", "k", True), ("n3", "k", True)), [], "once")
    assert plan["hosts"]["n1"]["action"] == "archive"  # n1 has it: archive, nobody builds
    assert plan["builds"] == 0
    plan = build_plan(states(("n1", "k", True), ("n2", "k", True), ("n3", "k", True)), [], "once")
    assert plan["hosts"] == {
        "n1": {"action": "build", "key": "k", "archive": True},
        "n2": {"action": "unpack", "key": "k", "archive": False},
        "n3": {"action": "unpack", "key": "k", "archive": False},
    }
    assert plan["builds"] == 1
    assert plan["summary"] == ["OpenMPI k: built on n1, unpacked on 2 nodes", "OpenMPI builds in this run: 1"]


def test_a_cached_archive_means_no_build_at_all():
    plan = build_plan(states(("n1", "k", True), ("n2", "k", True)), ["k"], "once")
    assert {h["action"] for h in plan["hosts"].values()} == {"unpack"}
    assert plan["builds"] == 0
    assert plan["summary"][0] == "OpenMPI k: from cache (no build), unpacked on 2 nodes"


def test_one_build_per_key():
    plan = build_plan(states(("x1", "amd", True), ("a1", "arm", True), ("x2", "amd", True),
                             ("a2", "arm", True), ("x3", "amd", False)), ["arm"], "once")
    assert plan["builds"] == 0  # amd: archived from x3, arm: from cache
    plan = build_plan(states(("x1", "amd", True), ("a1", "arm", True), ("x2", "amd", True),
                             ("a2", "arm", True)), [], "once")
    assert [k["builder"] for k in plan["keys"]] == ["x1", "a1"]
    assert plan["builds"] == 2
    assert plan["hosts"]["a2"] == {"action": "unpack", "key": "arm", "archive": False}


def test_nothing_to_do_when_every_node_is_current():
    plan = build_plan(states(("n1", "k", False), ("n2", "k", False)), [], "once")
    assert {h["action"] for h in plan["hosts"].values()} == {"none"}
    assert plan["summary"] == ["OpenMPI k: already installed on 2 nodes", "OpenMPI builds in this run: 0"]


def test_every_node_builds_everywhere_needed_and_ignores_the_cache():
    plan = build_plan(states(("n1", "k", True), ("n2", "k", True), ("n3", "k", False)), ["k"],
                      "every_node")
    assert [plan["hosts"][h]["action"] for h in ("n1", "n2", "n3")] == ["build", "build", "none"]
    assert not any(h["archive"] for h in plan["hosts"].values())
    assert plan["builds"] == 2
    assert plan["summary"][0] == ("OpenMPI k: built on each of 2 nodes (every_node), "
                                  "already installed on 1 node")


def test_unknown_strategy_is_refused():
    with pytest.raises(ValueError, match="openmpi_build_strategy"):
        build_plan({}, [], "parallel")


RING4 = """Process 0 sending 10 to 1, tag 201 (4 processes in ring)
Process 0 sent to 1
Process 0 decremented value: 9
Process 0 exiting
Process 1 exiting
Process 2 exiting
Process 3 exiting
"""


def test_ring_output_complete():
    assert ring_errors(RING4, 4) == []


def test_ring_output_missing_ranks():
    assert ring_errors(RING4.replace("Process 2 exiting\n", ""), 4) == [
        "rank 2 did not report 'Process 2 exiting'"]
    assert "rank 0 did not start a ring of 8 processes" in ring_errors(RING4, 8)
    assert len(ring_errors("", 2)) == 3
