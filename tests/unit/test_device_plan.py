"""Tests for plugins/plugin_utils/npu_plan/plan.py and the npu_plan filter plugin."""

import copy

import pytest

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.npu_plan import plan as device_plan
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.npu_plan.plan import PlanError, detect_targets, generate_plan, host_detect_targets, validate_plan

NETMASK = "255.255.255.0"
# Ascend's PyTorch multi-node training guide: hccn_tool -ip -s on AI Server0 and AI Server1.
GUIDE_ADDRESSES = {
    "server0": [
        "192.168.100.101",
        "192.168.101.101",
        "192.168.102.101",
        "192.168.103.101",
        "192.168.100.100",
        "192.168.101.100",
        "192.168.102.100",
        "192.168.103.100",
    ],
    "server1": [
        "192.168.100.111",
        "192.168.101.111",
        "192.168.102.111",
        "192.168.103.111",
        "192.168.100.110",
        "192.168.101.110",
        "192.168.102.110",
        "192.168.103.110",
    ],
}
GUIDE_PLAN = {
    host: [
        {"device": index, "address": address, "netmask": NETMASK} for index, address in enumerate(addresses)
    ]
    for host, addresses in GUIDE_ADDRESSES.items()
}
GUIDE_SETTINGS = {"base": "192.168.100.0", "netmask": NETMASK, "host_start": 100}
A2_SETTINGS = {"base": "10.20.0.0", "netmask": NETMASK, "host_start": 100, "gateway": "10.20.0.1"}


def guide_plan():
    return copy.deepcopy(GUIDE_PLAN)


def tagged(problems, rule):
    return [problem for problem in problems if problem.endswith(f"[{rule}]")]


def addresses(plan):
    return {host: [entry["address"] for entry in entries] for host, entries in plan.items()}


# --- generation: Ascend PyTorch guide and atlas800 layouts ---------------------------------------


def test_three_settings_reproduce_ascend_pytorch_guide_table_exactly():
    plan = generate_plan(["server0", "server1"], "atlas800", GUIDE_SETTINGS)
    assert plan == GUIDE_PLAN
    assert list(plan) == ["server0", "server1"]


def test_ascend_pytorch_guide_table_passes_every_rule():
    assert validate_plan(guide_plan(), "atlas800", 8) == []


def test_host_step_spaces_servers():
    plan = generate_plan(["a", "b", "c"], "atlas800", dict(GUIDE_SETTINGS, host_start=10, host_step=2))
    server2 = addresses(plan)["c"]
    assert (server2[0], server2[4]) == ("192.168.100.15", "192.168.100.14")
    assert validate_plan(plan, "atlas800") == []


def test_base_list_gives_one_network_per_position():
    bases = ["10.1.0.0", "10.2.0.0", "10.3.0.0", "10.4.0.0"]
    plan = generate_plan(["a"], "atlas800", dict(GUIDE_SETTINGS, base=bases))
    assert addresses(plan)["a"] == [
        "10.1.0.101",
        "10.2.0.101",
        "10.3.0.101",
        "10.4.0.101",
        "10.1.0.100",
        "10.2.0.100",
        "10.3.0.100",
        "10.4.0.100",
    ]


@pytest.mark.parametrize(
    "count, expected",
    [
        (1, ["192.168.100.101"]),
        (2, ["192.168.100.101", "192.168.101.101"]),
        (4, ["192.168.100.101", "192.168.101.101", "192.168.102.101", "192.168.103.101"]),
    ],
)
def test_atlas800_small_servers_give_each_device_its_own_subnet(count, expected):
    plan = generate_plan(["a", "b"], "atlas800", GUIDE_SETTINGS, count)
    assert addresses(plan)["a"] == expected
    assert addresses(plan)["b"] == [address[:-3] + "111" for address in expected]
    assert validate_plan(plan, "atlas800", count) == []


def test_device_counts_per_host():
    counts = {"a": 8, "b": 4}
    plan = generate_plan(["a", "b"], "atlas800", GUIDE_SETTINGS, counts)
    assert [len(entries) for entries in plan.values()] == [8, 4]
    assert validate_plan(plan, "atlas800", counts) == []


def test_128_servers_fit_a_wider_netmask_and_validate():
    hosts = [f"node{number}" for number in range(128)]
    settings = {"base": "10.0.0.0", "netmask": "255.255.248.0", "host_start": 100}
    plan = generate_plan(hosts, "atlas800", settings)
    assert plan["node127"][0]["address"] == "10.0.5.91"  # 100 + 1270 + 1 = 1371 = 5 * 256 + 91
    assert plan["node127"][7]["address"] == "10.0.29.90"  # fourth /21 starts at 10.0.24.0
    assert validate_plan(plan, "atlas800") == []


def test_hand_written_hosts_are_copied_and_keep_the_others_in_place():
    hand_written = copy.deepcopy(GUIDE_PLAN["server1"])
    plan = generate_plan(
        ["server0", "server1"], "atlas800", dict(GUIDE_SETTINGS, plan={"server1": hand_written})
    )
    assert plan == GUIDE_PLAN
    assert plan["server1"] is not hand_written


def test_only_hand_written_hosts_need_no_compact_settings():
    plan = generate_plan(["server0", "server1"], "atlas800", {"plan": guide_plan()})
    assert plan == GUIDE_PLAN


# --- generation: A2 models -----------------------------------------------------------


@pytest.mark.parametrize("model", ["atlas800t_a2", "atlas900_a2_pod"])
def test_a2_puts_all_ports_in_one_subnet_with_gateway_as_detect(model):
    plan = generate_plan(["a", "b"], model, A2_SETTINGS)
    assert addresses(plan)["a"] == [f"10.20.0.{100 + index}" for index in range(8)]
    assert addresses(plan)["b"] == [f"10.20.0.{110 + index}" for index in range(8)]
    assert all(entry["gateway"] == "10.20.0.1" and entry["detect"] == "10.20.0.1" for entry in plan["b"])
    assert validate_plan(plan, model) == []
    assert detect_targets(plan, model, "b", 5) == ["10.20.0.1"]


def test_a2_detect_setting_overrides_gateway():
    plan = generate_plan(["a"], "atlas800t_a2", dict(A2_SETTINGS, detect="10.20.0.2"))
    assert plan["a"][0]["detect"] == "10.20.0.2"
    assert detect_targets(plan, "atlas800t_a2", "a", 0) == ["10.20.0.2"]


def test_a2_without_gateway_detects_peers_in_the_subnet():
    plan = generate_plan(["a", "b", "c"], "atlas800t_a2", dict(A2_SETTINGS, gateway=None), 4)
    assert "gateway" not in plan["a"][0] and "detect" not in plan["a"][0]
    assert detect_targets(plan, "atlas800t_a2", "a", 2) == ["10.20.0.112", "10.20.0.122"]
    assert validate_plan(plan, "atlas800t_a2", 4) == []


# --- generation errors ---------------------------------------------------------------


def plan_error(*args):
    with pytest.raises(PlanError) as raised:
        generate_plan(*args)
    return raised.value


def test_missing_settings_are_all_reported_at_once():
    error = plan_error(["a"], "atlas800", {})
    assert error.problems == [
        "npu_network_netmask is required",
        "npu_network_base is required",
        "npu_network_host_start is required",
    ]
    assert isinstance(error, ValueError)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"netmask": "255.0.255.0"}, "npu_network_netmask 255.0.255.0 is not a valid contiguous netmask"),
        (
            {"netmask": "255.255.255.255"},
            "npu_network_netmask 255.255.255.255 is not a valid contiguous netmask",
        ),
        (
            {"base": "192.168.100.5"},
            "npu_network_base 192.168.100.5 is not a network address for the netmask (did you mean 192.168.100.0?)",
        ),
        ({"base": "192.168.300.0"}, "npu_network_base 192.168.300.0 is not a valid dotted IPv4 address"),
        ({"base": ["10.1.0.0", "10.2.0.0"]}, "npu_network_base lists 2 networks; atlas800 needs 4"),
        (
            {"base": ["10.1.0.0", "10.2.0.0", "10.1.0.0", "10.4.0.0"]},
            "npu_network_base lists the same network twice",
        ),
        ({"base": "126.255.254.0"}, "consecutive subnets run into 127.0.1.0, which is not a usable unicast"),
        ({"host_start": "100"}, "npu_network_host_start '100' is not an integer"),
        ({"host_start": True}, "npu_network_host_start True is not an integer"),
        ({"host_step": 0}, "npu_network_host_step 0 must be at least 1"),
        ({"host_step": 1}, "npu_network_host_step 1 is too small"),
        ({"gateway": "192.168.100.1"}, "npu_network_gateway applies to the A2 models only"),
        ({"hoststart": 5}, "unknown setting hoststart (known: npu_network_base,"),
        ({"plan": {"server9": []}}, "npu_network_plan names hosts that are not in the host list: server9"),
    ],
)
def test_malformed_atlas800_settings(change, message):
    error = plan_error(["server0", "server1"], "atlas800", dict(GUIDE_SETTINGS, **change))
    assert any(message in problem for problem in error.problems), error.problems


def test_sixteen_servers_fill_a_24():
    plan = generate_plan([f"node{number}" for number in range(16)], "atlas800", GUIDE_SETTINGS)
    assert plan["node15"][0]["address"] == "192.168.100.251"


def test_overflow_reports_first_host_that_does_not_fit():
    hosts = [f"node{number}" for number in range(17)]
    error = plan_error(hosts, "atlas800", GUIDE_SETTINGS)
    assert error.problems == [
        "node16: device 0: host number 261 (npu_network_host_start 100 + 16 x npu_network_host_step 10) "
        "is beyond the last host number 254 of 192.168.100.0/24; use a wider npu_network_netmask or a smaller step"
    ]


@pytest.mark.parametrize(
    "change, message",
    [
        ({"gateway": "10.21.0.1"}, "npu_network_gateway 10.21.0.1 is outside the device subnet 10.20.0.0/24"),
        ({"gateway": "10.20.0.255"}, "npu_network_gateway 10.20.0.255 is the network or broadcast address"),
        ({"gateway": "10.20.0.104"}, "a: device 4: generated address 10.20.0.104 is the npu_network_gateway"),
        ({"gateway": "gw"}, "npu_network_gateway gw is not a valid dotted IPv4 address"),
        ({"detect": "10.20.0.111"}, "b: device 1: generated address 10.20.0.111 is the npu_network_detect"),
        ({"base": ["10.20.0.0"]}, "npu_network_base must be one network address"),
        (
            {"host_step": 4},
            "npu_network_host_step 4 is too small: each A2 server uses one host number per device",
        ),
    ],
)
def test_malformed_a2_settings(change, message):
    error = plan_error(["a", "b"], "atlas900_a2_pod", dict(A2_SETTINGS, **change))
    assert any(message in problem for problem in error.problems), error.problems


@pytest.mark.parametrize(
    "counts, message",
    [
        ("8", "a: npu_device_count '8' is not an integer [device-count]"),
        (3, "a: npu_device_count 3 is not one of 1, 2, 4, 8 [device-count]"),
        ({"b": 8}, "a: no device count (npu_device_count) given [device-count]"),
    ],
)
def test_bad_device_counts_stop_generation(counts, message):
    error = plan_error(["a", "b"], "atlas800", GUIDE_SETTINGS, counts)
    assert message in error.problems


def test_unknown_model_lists_the_known_ones():
    error = plan_error(["a"], "atlas300", GUIDE_SETTINGS)
    assert (
        str(error)
        == "unknown hardware model 'atlas300' (known: atlas800, atlas800t_a2, atlas900_a2_pod) [model]"
    )


@pytest.mark.parametrize(
    "hosts, message",
    [
        ("node1", "hosts must be a list of host names, not str"),
        (["a", "a"], "a: listed more than once in the hosts"),
        (["a", 5], "host name 5 is not a string"),
    ],
)
def test_bad_host_lists(hosts, message):
    assert message in plan_error(hosts, "atlas800", GUIDE_SETTINGS).problems


# --- validation: atlas800 rules ------------------------------------------------------


def test_pair_rule_names_host_device_address_and_rule():
    plan = guide_plan()
    plan["server0"][4]["address"] = "192.168.104.100"
    problems = validate_plan(plan, "atlas800")
    assert tagged(problems, "pair-subnet") == [
        "server0: device 4: address 192.168.104.100 is in 192.168.104.0/24, but device 0 (192.168.100.101) "
        "is in 192.168.100.0/24; devices 0&4, 1&5, 2&6, 3&7 must share a subnet [pair-subnet]"
    ]


def test_devices_0_to_3_in_different_subnets():
    plan = guide_plan()
    plan["server0"][1]["address"] = "192.168.100.105"
    problems = validate_plan(plan, "atlas800")
    assert tagged(problems, "position-subnets") == [
        "server0: device 1: address 192.168.100.105 is in 192.168.100.0/24, the subnet of device 0 "
        "(192.168.100.101); devices 0-3 must be in different subnets [position-subnets]"
    ]


def test_devices_4_to_7_in_different_subnets():
    plan = guide_plan()
    plan["server1"][7]["address"] = "192.168.102.117"
    problems = validate_plan(plan, "atlas800")
    assert len(tagged(problems, "position-subnets")) == 1
    assert "devices 4-7 must be in different subnets" in tagged(problems, "position-subnets")[0]
    assert tagged(problems, "position-subnets")[0].startswith("server1: device 7: address 192.168.102.117")


def test_same_position_across_servers_blames_the_minority():
    plan = generate_plan(["a", "b", "c"], "atlas800", GUIDE_SETTINGS)
    plan["a"][2]["address"] = "192.168.112.101"
    plan["a"][6]["address"] = "192.168.112.100"
    assert validate_plan(plan, "atlas800") == [
        "a: device 2: address 192.168.112.101 is in 192.168.112.0/24, but b device 2 (192.168.102.111) is in "
        "192.168.102.0/24; device 2 of every server must be in the same subnet [cross-server-subnet]",
        "a: device 6: address 192.168.112.100 is in 192.168.112.0/24, but b device 6 (192.168.102.110) is in "
        "192.168.102.0/24; device 6 of every server must be in the same subnet [cross-server-subnet]",
    ]


def test_duplicate_address_names_both_holders():
    plan = guide_plan()
    plan["server1"][0]["address"] = "192.168.100.101"
    assert validate_plan(plan, "atlas800") == [
        "server1: device 0: address 192.168.100.101 is also used by server0 device 0; no IP may be used twice [unique-ip]"
    ]


def test_different_netmask_is_a_different_subnet():
    plan = guide_plan()
    plan["server1"][3]["netmask"] = "255.255.0.0"
    problems = validate_plan(plan, "atlas800")
    assert any(
        "server1: device 3: address 192.168.103.111 is in 192.168.0.0/16" in problem for problem in problems
    )


# --- validation: every model ---------------------------------------------------------


@pytest.mark.parametrize(
    "address, message",
    [
        (
            "192.168.103.300",
            "server0: device 3: address 192.168.103.300 is not a valid dotted IPv4 address [ipv4]",
        ),
        ("192.168.103", "server0: device 3: address 192.168.103 is not a valid dotted IPv4 address [ipv4]"),
        (
            "192.168.103.0101",
            "server0: device 3: address 192.168.103.0101 is not a valid dotted IPv4 address [ipv4]",
        ),
        (
            "192.168.103.011",
            "server0: device 3: address 192.168.103.011 is not a valid dotted IPv4 address [ipv4]",
        ),
        (3232261989, "server0: device 3: address 3232261989 is not a valid dotted IPv4 address [ipv4]"),
        (
            "192.168.103.0",
            "server0: device 3: address 192.168.103.0 is the network address of 192.168.103.0/24 [host-address]",
        ),
        (
            "192.168.103.255",
            "server0: device 3: address 192.168.103.255 is the broadcast address of 192.168.103.0/24 [host-address]",
        ),
    ],
)
def test_bad_addresses(address, message):
    plan = guide_plan()
    plan["server0"][3]["address"] = address
    assert validate_plan(plan, "atlas800") == [message]


def test_loopback_is_not_a_device_address():
    plan = {"a": [{"device": 0, "address": "127.0.0.2", "netmask": NETMASK}]}
    assert validate_plan(plan, "atlas800", 1) == [
        "a: device 0: address 127.0.0.2 is not a usable unicast address [host-address]"
    ]


@pytest.mark.parametrize("netmask", ["255.0.255.0", "255.255.255.255", "0.0.0.0", "24", "/24", None])
def test_bad_netmasks(netmask):
    plan = guide_plan()
    plan["server0"][2]["netmask"] = netmask
    problems = validate_plan(plan, "atlas800")
    if netmask is None:
        assert problems == ["server0: device 2: address 192.168.102.101: no netmask [entry]"]
    else:
        assert problems == [
            f"server0: device 2: address 192.168.102.101: netmask {netmask} is not a valid contiguous "
            f"netmask from 255.0.0.0 to 255.255.255.252 [netmask]"
        ]


def test_device_index_outside_the_count():
    plan = guide_plan()
    plan["server0"][7]["device"] = 8
    assert validate_plan(plan, "atlas800", 8) == [
        "server0: device 8: address 192.168.103.100: device index 8 is outside 0..7 [device-index]",
        "server0: device 7 missing: npu_device_count is 8 but the plan lists 7 of devices 0..7 [missing-device]",
    ]


def test_negative_device_index():
    plan = guide_plan()
    plan["server0"][0]["device"] = -1
    assert "server0: device -1: address 192.168.100.101: device index -1 is outside 0..7 [device-index]" in (
        validate_plan(plan, "atlas800")
    )


@pytest.mark.parametrize("index", ["3", 3.0, True, None])
def test_device_index_must_be_an_integer(index):
    plan = guide_plan()
    plan["server1"][3]["device"] = index
    problems = validate_plan(plan, "atlas800")
    assert problems[0] == (
        f"server1: entry 3: device {index!r} (address 192.168.103.111) is not an integer device index [device-index]"
    )
    assert problems[1].endswith("[missing-device]")


def test_device_listed_twice():
    plan = guide_plan()
    plan["server1"][5]["device"] = 4
    assert validate_plan(plan, "atlas800") == [
        "server1: device 4: address 192.168.101.110: device 4 is listed more than once [duplicate-device]",
        "server1: device 5 missing: npu_device_count is 8 but the plan lists 7 of devices 0..7 [missing-device]",
    ]


def test_missing_device():
    plan = guide_plan()
    del plan["server1"][7]
    assert validate_plan(plan, "atlas800", 8) == [
        "server1: device 7 missing: npu_device_count is 8 but the plan lists 7 of devices 0..7 [missing-device]"
    ]


@pytest.mark.parametrize(
    "counts, message",
    [
        ("8", "server0: npu_device_count '8' is not an integer [device-count]"),
        (6, "server0: npu_device_count 6 is not one of 1, 2, 4, 8 [device-count]"),
        ({"server1": 8}, "server0: no device count (npu_device_count) given [device-count]"),
    ],
)
def test_bad_device_counts_are_reported_and_the_rest_still_checked(counts, message):
    plan = guide_plan()
    plan["server1"][0]["address"] = "192.168.100.101"
    problems = validate_plan(plan, "atlas800", counts)
    assert message in problems
    assert any(problem.endswith("[unique-ip]") for problem in problems)


def test_unknown_model_is_reported_with_the_known_ones_and_generic_rules_still_run():
    plan = guide_plan()
    plan["server0"][0]["address"] = "300.1.1.1"
    assert validate_plan(plan, "atlas9000") == [
        "unknown hardware model 'atlas9000' (known: atlas800, atlas800t_a2, atlas900_a2_pod) [model]",
        "server0: device 0: address 300.1.1.1 is not a valid dotted IPv4 address [ipv4]",
    ]


def test_malformed_entries():
    plan = guide_plan()
    plan["server0"][0]["adress"] = plan["server0"][0].pop("address")
    plan["server0"][1] = "192.168.101.101"
    plan["server1"] = "not a list"
    problems = validate_plan(plan, "atlas800")
    assert problems == [
        "server0: entry 0: unknown key adress (known: device, address, netmask, gateway, detect) [entry]",
        "server0: device 0: no address [entry]",
        "server0: entry 1 must be a mapping with device, address and netmask, not '192.168.101.101' [entry]",
        "server0: device 1 missing: npu_device_count is 8 but the plan lists 7 of devices 0..7 [missing-device]",
        "server1: the device list must be a list, not str [entry]",
    ]


def test_plan_must_be_a_mapping():
    assert validate_plan([], "atlas800") == ["the plan must be a mapping of host to device list, not list"]


def test_all_violations_come_back_at_once():
    plan = guide_plan()
    plan["server0"][3]["address"] = "192.168.103.300"
    plan["server1"][6]["address"] = "192.168.102.100"
    assert validate_plan(plan, "atlas800") == [
        "server0: device 3: address 192.168.103.300 is not a valid dotted IPv4 address [ipv4]",
        "server1: device 6: address 192.168.102.100 is also used by server0 device 6; no IP may be used twice [unique-ip]",
    ]


# --- validation: A2 rules ------------------------------------------------------------


def a2_plan():
    return generate_plan(["a", "b"], "atlas800t_a2", A2_SETTINGS)


def test_a2_ports_in_one_subnet():
    plan = a2_plan()
    plan["b"][5]["address"] = "10.20.1.115"
    plan["b"][5]["gateway"] = "10.20.1.1"
    assert validate_plan(plan, "atlas800t_a2") == [
        "b: device 5: address 10.20.1.115 is in 10.20.1.0/24, but device 0 (10.20.0.110) is in 10.20.0.0/24; "
        "all ports of a node must be in one subnet [single-subnet]"
    ]


def test_a2_nodes_may_use_different_subnets():
    plan = a2_plan()
    for entry in plan["b"]:
        entry.update(
            address=entry["address"].replace("10.20.0.", "10.20.1."), gateway="10.20.1.1", detect="10.20.1.1"
        )
    assert validate_plan(plan, "atlas900_a2_pod") == []


def test_a2_gateway_outside_the_subnet():
    plan = a2_plan()
    plan["a"][2]["gateway"] = "10.20.9.1"
    assert validate_plan(plan, "atlas800t_a2") == [
        "a: device 2: address 10.20.0.102: gateway 10.20.9.1 is outside the device's subnet 10.20.0.0/24 [gateway]"
    ]


def test_a2_gateway_equal_to_a_device_address():
    plan = a2_plan()
    plan["a"][0]["gateway"] = "10.20.0.117"
    assert validate_plan(plan, "atlas800t_a2") == [
        "a: device 0: address 10.20.0.100: gateway 10.20.0.117 is the address of b device 7; "
        "a gateway must not be a device address [gateway]"
    ]


def test_a2_gateway_on_the_broadcast_address():
    plan = a2_plan()
    plan["b"][1]["gateway"] = "10.20.0.255"
    assert validate_plan(plan, "atlas800t_a2") == [
        "b: device 1: address 10.20.0.111: gateway 10.20.0.255 is the network or broadcast address of 10.20.0.0/24 [gateway]"
    ]


def test_bad_gateway_and_detect_text():
    plan = a2_plan()
    plan["a"][0]["gateway"] = "10.20.0"
    plan["a"][1]["detect"] = "10.20.0.101"
    assert validate_plan(plan, "atlas800t_a2") == [
        "a: device 0: address 10.20.0.100: gateway 10.20.0 is not a valid dotted IPv4 address [ipv4]",
        "a: device 1: detect address 10.20.0.101 is the device's own address [detect]",
    ]


@pytest.mark.parametrize("count", [1, 2, 4])
def test_a2_small_servers(count):
    plan = generate_plan(["a", "b"], "atlas900_a2_pod", A2_SETTINGS, count)
    assert addresses(plan)["b"] == [f"10.20.0.{110 + index}" for index in range(count)]
    assert validate_plan(plan, "atlas900_a2_pod", count) == []


# --- detect targets ------------------------------------------------------------------


def test_atlas800_detects_same_position_device_of_each_peer():
    plan = generate_plan(["a", "b", "c"], "atlas800", GUIDE_SETTINGS)
    assert detect_targets(plan, "atlas800", "a", 3) == ["192.168.103.111", "192.168.103.121"]
    assert detect_targets(plan, "atlas800", "b", 4) == ["192.168.100.100", "192.168.100.120"]


def test_ascend_pytorch_guide_two_server_detect_targets():
    targets = host_detect_targets(guide_plan(), "atlas800", "server0")
    assert targets == {index: [address] for index, address in enumerate(GUIDE_ADDRESSES["server1"])}


def test_entry_detect_wins():
    plan = guide_plan()
    plan["server0"][0]["detect"] = "192.168.100.1"
    assert detect_targets(plan, "atlas800", "server0", 0) == ["192.168.100.1"]


@pytest.mark.parametrize(
    "host, device, message",
    [
        ("server9", 0, "server9: not in the device plan"),
        ("server0", 9, "server0: device 9 is not in the device plan"),
    ],
)
def test_detect_targets_of_unknown_devices(host, device, message):
    with pytest.raises(PlanError, match=message):
        detect_targets(guide_plan(), "atlas800", host, device)


# --- IPv4 helpers --------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["1.2.3", "1.2.3.4.5", "1.2.3.256", "01.2.3.4", " 1.2.3.4", "1.2.3.²", "", None, 16909060]
)
def test_parse_ipv4_rejects(text):
    assert device_plan.parse_ipv4(text) is None


def test_parse_ipv4_and_format_round_trip():
    assert device_plan.parse_ipv4("192.168.100.101") == 0xC0A86465
    assert device_plan.format_ipv4(0xC0A86465) == "192.168.100.101"


@pytest.mark.parametrize(
    "text, prefix",
    [
        ("255.255.255.0", 24),
        ("255.255.248.0", 21),
        ("255.0.0.0", 8),
        ("255.255.255.252", 30),
        ("255.0.255.0", None),
        ("254.0.0.0", None),
        ("255.255.255.254", None),
        ("255.255.255.1", None),
    ],
)
def test_parse_netmask(text, prefix):
    assert device_plan.parse_netmask(text) == prefix


# --- hostvars helpers ----------------------------------------------------------------


def guide_hostvars(**changes):
    common = {
        "npu_model": "atlas800",
        "npu_device_count": 8,
        "npu_network_base": "192.168.100.0",
        "npu_network_netmask": NETMASK,
        "npu_network_host_start": 100,
        "cluster_user": "train",
    }
    return {
        "server0": dict(common, ansible_host="10.0.0.1"),
        "server1": dict(common, ansible_host="10.0.0.2", **changes),
    }


def test_settings_from_hostvars_reads_the_prefixed_variables():
    hostvars = guide_hostvars()
    assert device_plan.settings_from_hostvars(["server0", "server1"], hostvars) == GUIDE_SETTINGS
    assert device_plan.hardware_from_hostvars(["server0", "server1"], hostvars) == (
        "atlas800",
        {"server0": 8, "server1": 8},
    )


def test_settings_must_be_cluster_wide_and_known():
    hostvars = guide_hostvars(npu_network_host_start=110, npu_network_hoststep=10, npu_network_netmask=None)
    with pytest.raises(PlanError) as raised:
        device_plan.settings_from_hostvars(["server0", "server1"], hostvars)
    assert raised.value.problems == [
        "server1: unknown variable npu_network_hoststep",
        "server1: npu_network_netmask is not set but server0 has '255.255.255.0'; compact settings are "
        "cluster-wide (write npu_network_plan for per-host addresses)",
        "server1: npu_network_host_start is 110 but server0 has 100; compact settings are cluster-wide "
        "(write npu_network_plan for per-host addresses)",
    ]


def test_plan_variable_as_host_list_or_group_mapping():
    host_list = guide_hostvars(npu_network_plan=GUIDE_PLAN["server1"])
    assert device_plan.settings_from_hostvars(["server0", "server1"], host_list)["plan"] == {
        "server1": GUIDE_PLAN["server1"]
    }
    group_mapping = {
        host: dict(variables, npu_network_plan=GUIDE_PLAN) for host, variables in guide_hostvars().items()
    }
    assert device_plan.settings_from_hostvars(["server0", "server1"], group_mapping)["plan"] == GUIDE_PLAN
    with pytest.raises(
        PlanError, match="npu_network_plan names hosts that are not in the host list: server1"
    ):
        device_plan.settings_from_hostvars(["server0"], group_mapping)


def test_hardware_must_be_one_model_and_hosts_known():
    with pytest.raises(PlanError) as raised:
        device_plan.hardware_from_hostvars(
            ["server0", "server1", "ghost"], guide_hostvars(npu_model="atlas800t_a2")
        )
    assert raised.value.problems == [
        "ghost: no variables for this host (not in the inventory?)",
        "server1: npu_model is atlas800t_a2 but server0 has atlas800; one plan covers one hardware model",
    ]


# --- filter plugin -------------------------------------------------------------------


@pytest.fixture
def filters():
    pytest.importorskip("ansible")
    import npu_plan

    return npu_plan.FilterModule().filters()


def test_filters_generate_validate_and_rank(filters):
    hostvars = guide_hostvars()
    plan = filters["npu_device_plan"](["server0", "server1"], hostvars)
    assert plan == GUIDE_PLAN
    assert filters["npu_plan_errors"](plan, hostvars) == []
    table = filters["npu_rank_table"](plan, hostvars)
    assert [server["server_id"] for server in table["server_list"]] == ["10.0.0.1", "10.0.0.2"]
    assert filters["npu_rank_table_errors"](table, plan) == []
    assert filters["npu_detect_targets"](plan, "atlas800", "server1", 0) == ["192.168.100.101"]
    assert filters["npu_detect_targets"](plan, "atlas800", "server1")[7] == ["192.168.103.100"]


def test_filters_raise_ansible_filter_errors(filters):
    from ansible.errors import AnsibleFilterError

    with pytest.raises(
        AnsibleFilterError, match="npu_network_netmask 255.0.255.0 is not a valid contiguous netmask"
    ):
        filters["npu_device_plan"](
            ["server0", "server1"],
            {
                host: dict(variables, npu_network_netmask="255.0.255.0")
                for host, variables in guide_hostvars().items()
            },
        )
    with pytest.raises(AnsibleFilterError, match="ghost: no variables for this host"):
        filters["npu_rank_table"]({"ghost": []}, guide_hostvars())
    with pytest.raises(AnsibleFilterError, match="server0: device 9 is not in the device plan"):
        filters["npu_detect_targets"](GUIDE_PLAN, "atlas800", "server0", 9)
