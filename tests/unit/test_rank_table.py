"""Tests for plugins/plugin_utils/npu_plan/rank_table.py."""

import copy
import json

import pytest

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.npu_plan.rank_table import RankTableError, build_rank_table, validate_rank_table

GUIDE_ADDRESSES = {
    "10.0.0.1": [
        "192.168.100.101",
        "192.168.101.101",
        "192.168.102.101",
        "192.168.103.101",
        "192.168.100.100",
        "192.168.101.100",
        "192.168.102.100",
        "192.168.103.100",
    ],
    "10.0.0.2": [
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
PLAN = {
    f"server{number}": [
        {"device": index, "address": address, "netmask": "255.255.255.0"}
        for index, address in enumerate(addresses)
    ]
    for number, addresses in enumerate(GUIDE_ADDRESSES.values())
}
SERVERS = list(zip(GUIDE_ADDRESSES, PLAN.values()))


def table():
    return build_rank_table(SERVERS)


def test_two_servers_of_eight_devices_match_the_facts_shape():
    built = table()
    assert list(built) == ["status", "version", "server_count", "server_list"]
    assert (built["status"], built["version"], built["server_count"]) == ("completed", "1.0", "2")
    assert built["server_list"][0]["server_id"] == "10.0.0.1"
    assert built["server_list"][0]["device"][0] == {
        "device_id": "0",
        "device_ip": "192.168.100.101",
        "rank_id": "0",
    }
    assert built["server_list"][1]["device"][0] == {
        "device_id": "0",
        "device_ip": "192.168.100.111",
        "rank_id": "8",
    }
    assert [device["rank_id"] for server in built["server_list"] for device in server["device"]] == [
        str(rank) for rank in range(16)
    ]
    assert validate_rank_table(json.loads(json.dumps(built)), PLAN) == []


def test_devices_sorted_by_index_and_values_are_strings():
    shuffled = [("10.0.0.1", list(reversed(PLAN["server0"])))]
    built = build_rank_table(shuffled)
    assert [device["device_id"] for device in built["server_list"][0]["device"]] == [str(i) for i in range(8)]
    assert all(
        isinstance(value, str) for device in built["server_list"][0]["device"] for value in device.values()
    )


@pytest.mark.parametrize(
    "servers, message",
    [
        ({"10.0.0.1": []}, "servers must be a list of"),
        ([("10.0.0.1",)], "server 0: expected a (server_id, devices) pair"),
        ([("10.0.0.1", "x")], "server 0 (10.0.0.1): devices must be a list"),
        ([("10.0.0.1", [{"device": "0", "address": "1.2.3.4"}])], "is not a plan device"),
        ([("10.0.0.1", [{"device": 0}])], "is not a plan device"),
    ],
)
def test_build_rejects_malformed_input(servers, message):
    with pytest.raises(RankTableError) as raised:
        build_rank_table(servers)
    assert message in str(raised.value)


def test_non_contiguous_ranks():
    broken = table()
    broken["server_list"][1]["device"][2]["rank_id"] = "11"
    assert validate_rank_table(broken) == [
        "server 1 (10.0.0.2): device 2: rank_id 11 should be 10: ranks run 0..N-1, contiguous within a server, "
        "servers in order",
        "server 1 (10.0.0.2): device 3: rank_id 11 is also the rank of server 1 (10.0.0.2): device 2",
    ]


def test_a_gap_in_ranks_is_reported_once():
    broken = table()
    for device in broken["server_list"][1]["device"]:
        device["rank_id"] = str(int(device["rank_id"]) + 1)
    assert validate_rank_table(broken) == [
        "server 1 (10.0.0.2): device 0: rank_id 9 should be 8: ranks run 0..N-1, contiguous within a server, "
        "servers in order"
    ]


def test_duplicate_device_ip_names_both():
    broken = table()
    broken["server_list"][1]["device"][0]["device_ip"] = "192.168.100.101"
    assert validate_rank_table(broken) == [
        "server 1 (10.0.0.2): device 0: device_ip 192.168.100.101 is also used by server 0 (10.0.0.1): device 0"
    ]


def test_wrong_types_and_count_mismatch_all_reported():
    broken = table()
    broken["server_count"] = 2
    broken["server_list"][0]["device"][1]["rank_id"] = 1
    broken["server_list"][0]["device"][2]["device_id"] = 2
    broken["status"] = "pending"
    assert validate_rank_table(broken) == [
        "status is 'pending', expected 'completed'",
        "server_count 2 must be a string of digits",
        "server 0 (10.0.0.1): device 1: rank_id 1 must be a string",
        "server 0 (10.0.0.1): device 2: device_id 2 must be a string",
    ]


def test_server_count_mismatch_and_server_problems():
    broken = table()
    broken["server_count"] = "3"
    broken["server_list"][1]["server_id"] = "10.0.0.1"
    broken["server_list"].append({"server_id": "node3", "device": []})
    broken["server_count"] = "2"
    assert validate_rank_table(broken) == [
        "server_count is 2 but server_list has 3 servers",
        "server 1 (10.0.0.1): server_id 10.0.0.1 is also server 0",
        "server 2 (node3): server_id node3 is not the host's IPv4 address",
        "server 2 (node3): device must be a non-empty list",
    ]


def test_device_ip_checked_against_the_plan():
    broken = table()
    broken["server_list"][0]["device"][3]["device_ip"] = "192.168.103.199"
    broken["server_list"][0]["device"][5]["device_id"] = "6"
    broken["server_list"][0]["device"][6]["device_id"] = "5"
    assert validate_rank_table(broken, PLAN) == [
        "server 0 (10.0.0.1): device 3: device_ip 192.168.103.199 is not in the device plan",
        "server 0 (10.0.0.1): device 6: device_ip 192.168.101.100 belongs to device 5 in the device plan",
        "server 0 (10.0.0.1): device 5: device_ip 192.168.102.100 belongs to device 6 in the device plan",
    ]


def test_duplicate_device_id_and_bad_ip():
    broken = table()
    broken["server_list"][1]["device"][1]["device_id"] = "0"
    broken["server_list"][1]["device"][2]["device_ip"] = "192.168.102.300"
    assert validate_rank_table(broken) == [
        "server 1 (10.0.0.2): device 0: device_id 0 is listed twice in this server",
        "server 1 (10.0.0.2): device 2: device_ip 192.168.102.300 is not an IPv4 address",
    ]


def test_not_a_table():
    assert validate_rank_table([]) == ["the rank table must be a JSON object, not list"]
    assert validate_rank_table({"status": "completed", "version": "1.0"}) == [
        "server_list must be a list, not NoneType"
    ]


def test_plan_must_be_a_mapping():
    with pytest.raises(RankTableError):
        validate_rank_table(table(), plan=[1])


def test_128_servers():
    servers = [
        (
            f"10.1.0.{number + 1}",
            [
                {"device": index, "address": f"10.{index % 4 + 10}.{number}.{index // 4 + 1}"}
                for index in range(8)
            ],
        )
        for number in range(128)
    ]
    built = build_rank_table(copy.deepcopy(servers))
    assert built["server_count"] == "128"
    assert built["server_list"][127]["device"][7]["rank_id"] == "1023"
    assert validate_rank_table(built) == []
