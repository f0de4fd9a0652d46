"""firewalld converges like ufw: the firewall role removes the rules it added and no longer wants,
never an administrator's rule, never SSH (plugins/plugin_utils/provision/firewalld_rules.py)."""
import importlib.util
import json
import pathlib

import pytest

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.provision.firewalld_rules import parse_present, parse_record, plan, wanted_rules

PORTS = [{"name": "master", "port": "8118"}, {"name": "master", "port": "29500"},
         {"name": "hccl", "port": "60000:60015"}, {"name": "mpi", "port": "46000:46099"}]
CIDR = "10.0.0.0/24"


def rich(port, source=CIDR):
    return f'rule family="ipv4" source address="{source}" port port="{port}" protocol="tcp" accept'


def listing(rules):
    """What the role's listing task prints for a zone holding ``rules``."""
    ports = [r["rule"] for r in rules if r["kind"] == "port"]
    return "\n".join(["ports: " + " ".join(ports)] + [r["rule"] for r in rules if r["kind"] == "rich_rule"])


class Firewalld:
    """A zone and the role's record file, changed the way firewalld.yml changes them."""

    def __init__(self, rules=()):
        self.rules = [dict(r) for r in rules]
        self.record = ""

    def run(self, ports, sources, ssh_port=22):
        wanted = wanted_rules(str(ssh_port), ports, sources)
        result = plan(wanted, parse_present(listing(self.rules)), parse_record(self.record), str(ssh_port))
        self.record = json.dumps(result["record_before"])
        self.rules += [{"kind": r["kind"], "rule": r["rule"]} for r in result["add"]]
        gone = {(r["kind"], r["rule"]) for r in result["remove"]}
        self.rules = [r for r in self.rules if (r["kind"], r["rule"]) not in gone]
        self.record = json.dumps(result["record"])
        return result

    def open_ports(self):
        return sorted(r["rule"] for r in self.rules if r["kind"] == "port")

    def rich_rules(self):
        return sorted(r["rule"] for r in self.rules if r["kind"] == "rich_rule")


ALL_OPEN = ["22/tcp", "29500/tcp", "46000-46099/tcp", "60000-60015/tcp", "8118/tcp"]
ALL_RICH = sorted(rich(p) for p in ["8118", "29500", "60000-60015", "46000-46099"])


def test_wanted_rules_any_source_are_plain_ports_ssh_first():
    rules = wanted_rules("22", PORTS, [])
    assert [r["rule"] for r in rules] == ["22/tcp", "8118/tcp", "29500/tcp", "60000-60015/tcp", "46000-46099/tcp"]
    assert {r["kind"] for r in rules} == {"port"}
    assert rules[0]["purpose"] == "ssh"


def test_wanted_rules_with_sources_are_rich_rules_and_ssh_stays_open_to_all():
    rules = wanted_rules("2222", PORTS, [CIDR, "10.0.1.5"])
    assert rules[0] == {"kind": "port", "rule": "2222/tcp", "purpose": "ssh"}
    assert [r["rule"] for r in rules[1:3]] == [rich("8118"), rich("8118", "10.0.1.5")]
    assert len(rules) == 1 + 4 * 2 and all(r["kind"] == "rich_rule" for r in rules[1:])


def test_first_run_adds_everything_and_records_it():
    fw = Firewalld()
    result = fw.run(PORTS, [])
    assert [r["rule"] for r in result["add"]] == ["22/tcp", "8118/tcp", "29500/tcp", "60000-60015/tcp",
                                                  "46000-46099/tcp"]
    assert result["remove"] == []
    assert fw.open_ports() == ALL_OPEN
    assert sorted(r["rule"] for r in json.loads(fw.record)) == ALL_OPEN


@pytest.mark.parametrize("sources", [[], [CIDR]])
def test_unchanged_input_has_nothing_to_do(sources):
    fw = Firewalld()
    fw.run(PORTS, sources)
    record = fw.record
    result = fw.run(PORTS, sources)
    assert result["add"] == [] and result["remove"] == []
    assert json.loads(record) == result["record"] == result["record_before"]


def test_open_to_cidr_leaves_no_open_training_port():
    fw = Firewalld()
    fw.run(PORTS, [])
    result = fw.run(PORTS, [CIDR])
    assert sorted(r["rule"] for r in result["remove"]) == [p for p in ALL_OPEN if p != "22/tcp"]
    assert fw.open_ports() == ["22/tcp"]
    assert fw.rich_rules() == ALL_RICH
    assert fw.run(PORTS, [CIDR])["add"] == []


def test_cidr_to_open_removes_the_rich_rules():
    fw = Firewalld()
    fw.run(PORTS, [CIDR])
    fw.run(PORTS, [])
    assert fw.open_ports() == ALL_OPEN
    assert fw.rich_rules() == []


def test_a_cidr_replaced_by_another_moves_every_rule():
    fw = Firewalld()
    fw.run(PORTS, [CIDR])
    fw.run(PORTS, ["192.168.7.0/24"])
    assert fw.rich_rules() == sorted(rich(p, "192.168.7.0/24") for p in ["8118", "29500", "60000-60015",
                                                                          "46000-46099"])


@pytest.mark.parametrize("sources", [[], [CIDR]])
def test_a_port_removed_from_the_list_is_closed(sources):
    fw = Firewalld()
    fw.run(PORTS, sources)
    result = fw.run([p for p in PORTS if p["port"] != "29500"], sources)
    assert [r["rule"] for r in result["remove"]] == ["29500/tcp" if not sources else rich("29500")]
    assert "29500/tcp" not in fw.open_ports() and rich("29500") not in fw.rich_rules()


def test_ssh_is_never_removed_even_when_its_port_changes():
    fw = Firewalld()
    fw.run(PORTS, [], ssh_port=22)
    result = fw.run(PORTS, [CIDR], ssh_port=2222)
    assert "22/tcp" not in [r["rule"] for r in result["remove"]]
    assert fw.open_ports() == ["22/tcp", "2222/tcp"]
    # still recorded as the role's own SSH rule, and still never removed
    assert {"kind": "port", "rule": "22/tcp", "purpose": "ssh"} in json.loads(fw.record)
    assert fw.run(PORTS, [CIDR], ssh_port=2222) == {"add": [], "remove": [], "record": json.loads(fw.record),
                                                    "record_before": json.loads(fw.record)}


def test_the_current_ssh_port_is_never_removed_whatever_the_record_says():
    record = [{"kind": "port", "rule": "22/tcp", "purpose": "master"}]
    result = plan(wanted_rules("22", [], []), parse_present("ports: 22/tcp"), record, "22")
    assert result["remove"] == []
    result = plan([], parse_present("ports: 22/tcp"), record, "22")
    assert result["remove"] == []


def test_an_administrators_rule_is_never_removed():
    # 8118/tcp was open before the role ran, 9000/tcp is unrelated: neither is the role's.
    fw = Firewalld([{"kind": "port", "rule": "8118/tcp"}, {"kind": "port", "rule": "9000/tcp"}])
    result = fw.run(PORTS, [])
    assert "8118/tcp" not in [r["rule"] for r in result["add"]]
    assert "8118/tcp" not in [r["rule"] for r in json.loads(fw.record)]
    fw.run(PORTS, [CIDR])
    assert fw.open_ports() == ["22/tcp", "8118/tcp", "9000/tcp"]


def test_a_recorded_rule_already_gone_is_not_removed_again():
    record = [{"kind": "port", "rule": "8118/tcp", "purpose": "master"}]
    assert plan(wanted_rules("22", [], []), parse_present("ports: 22/tcp"), record, "22")["remove"] == []


def test_a_run_that_stops_half_way_still_knows_the_rules_to_remove():
    fw = Firewalld()
    fw.run(PORTS, [])
    result = plan(wanted_rules("22", PORTS, [CIDR]), parse_present(listing(fw.rules)), parse_record(fw.record), "22")
    assert {r["rule"] for r in result["remove"]} <= {r["rule"] for r in result["record_before"]}
    assert {r["rule"] for r in result["add"]} <= {r["rule"] for r in result["record_before"]}


def test_listing_and_record_parsing():
    present = parse_present('ports: 22/tcp 8118/tcp\n  rule family="ipv4"  source address="10.0.0.0/24" '
                            'port port="8118" protocol="tcp" accept\n\n')
    assert present[:2] == [{"kind": "port", "rule": "22/tcp"}, {"kind": "port", "rule": "8118/tcp"}]
    assert present[2]["kind"] == "rich_rule"
    # firewalld's spacing does not matter
    assert plan(wanted_rules("22", [{"name": "master", "port": "8118"}], [CIDR]), present, [], "22")["add"] == []
    assert parse_present("ports: \n") == []
    assert parse_record("") == [] and parse_record("not json") == [] and parse_record('{"a": 1}') == []
    assert parse_record('[{"kind": "port", "rule": "1/tcp"}, {"kind": "zone"}, 3]') == [
        {"kind": "port", "rule": "1/tcp"}]


def test_the_filters_give_the_same_answer():
    pytest.importorskip("ansible")
    path = pathlib.Path(__file__).parents[2] / "plugins" / "filter" / "firewalld_rules.py"
    spec = importlib.util.spec_from_file_location("firewalld_rules_filters", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    filters = module.FilterModule().filters()
    wanted = filters["firewalld_wanted_rules"](PORTS, 22, [CIDR])
    assert wanted == wanted_rules("22", PORTS, [CIDR])
    record = json.dumps([{"kind": "port", "rule": "8118/tcp", "purpose": "master"}])
    result = filters["firewalld_plan"](wanted, "ports: 22/tcp 8118/tcp", record, 22)
    assert [r["rule"] for r in result["remove"]] == ["8118/tcp"]
    assert [r["rule"] for r in result["add"]] == [r["rule"] for r in wanted[1:]]
