"""Tests for plugins/module_utils/hccn_output.py on the exact strings of the reference facts."""

import re

import pytest

from hccn_output import (
    NET_HEALTH_STATUSES,
    parse_gateway,
    parse_hccn_conf,
    parse_ip,
    parse_link,
    parse_net_health,
    parse_netdetect,
    parse_npu_list,
    parse_ping,
    render_hccn_conf,
)

FACTS_HCCN_CONF = (
    "address_0=192.168.100.101\n"
    "netmask_0=255.255.255.0\n"
    "netdetect_0=192.168.100.111\n"
    "gateway_0=192.168.100.1\n"
)


def test_ip_get():
    assert parse_ip("ipaddr:192.168.100.101\nnetmask:255.255.255.0\n") == {
        "address": "192.168.100.101",
        "netmask": "255.255.255.0",
    }


@pytest.mark.parametrize(
    "text",
    [
        "ipaddr:192.168.100.101\n",
        "netmask:255.255.255.0",
        "ipaddr:192.168.100.301\nnetmask:255.255.255.0",
        "",
        None,
    ],
)
def test_ip_get_unparseable(text):
    with pytest.raises(ValueError, match=re.escape(f"cannot parse hccn_tool -ip -g output: {text!r}")):
        parse_ip(text)


def test_netdetect_get():
    assert parse_netdetect("netdetect address: 192.168.100.111") == "192.168.100.111"
    assert parse_netdetect("netdetect address: 0.0.0.0\n") is None
    with pytest.raises(ValueError, match="netdetect address: none"):
        parse_netdetect("netdetect address: none")


@pytest.mark.parametrize("code, status", list(enumerate(NET_HEALTH_STATUSES)))
def test_net_health_codes(code, status):
    assert parse_net_health(f"net health status: {status}") == {
        "code": code,
        "status": status,
        "text": status,
    }


def test_net_health_facts_string_and_unknown():
    assert parse_net_health("net health status: Success")["code"] == 0
    assert parse_net_health("net health status: Detect ip set\n")["status"] == "Detect ip set"
    assert parse_net_health("net health status: Cable unplugged") == {
        "code": -1,
        "status": "Unknown",
        "text": "Cable unplugged",
    }
    with pytest.raises(ValueError, match="'health: Success'"):
        parse_net_health("health: Success")


def test_link_get():
    assert parse_link("link status: UP") == "UP"
    assert parse_link("link status: DOWN\n") == "DOWN"
    with pytest.raises(ValueError, match="link status: FLAPPING"):
        parse_link("link status: FLAPPING")


def test_gateway_get():
    assert parse_gateway("default gateway:192.168.100.1, Iface:eth0") == {
        "gateway": "192.168.100.1",
        "iface": "eth0",
    }
    assert parse_gateway("default gateway:0.0.0.0") == {"gateway": None, "iface": None}
    with pytest.raises(ValueError, match="gateway: unknown"):
        parse_gateway("default gateway: unknown")


def test_ping_summary():
    text = (
        "device 0 PING 192.168.100.111\n"
        "recv seq=0,time=0.114000ms\n"
        "recv seq=1,time=0.098000ms\n"
        "recv seq=2,time=0.101000ms\n"
        "3 packets transmitted, 3 received, 0.00% packet loss\n"
    )
    assert parse_ping(text) == {
        "device": 0,
        "target": "192.168.100.111",
        "transmitted": 3,
        "received": 3,
        "loss_percent": 0.0,
        "times_ms": [0.114, 0.098, 0.101],
    }


def test_ping_loss_and_missing_summary():
    result = parse_ping("device 3 PING 10.0.0.9\n3 packets transmitted, 1 received, 66.67% packet loss")
    assert (result["device"], result["received"], result["loss_percent"], result["times_ms"]) == (
        3,
        1,
        66.67,
        [],
    )
    with pytest.raises(ValueError, match="device 0 PING 10.0.0.9"):
        parse_ping("device 0 PING 10.0.0.9\n")


def test_npu_smi_list():
    text = "        Total Count                    : 8\n\n" + "".join(
        f"        NPU ID                         : {npu}\n"
        f"        Product Name                   : IT21DMDA\n"
        f"        Chip Count                     : 1\n\n"
        for npu in range(8)
    )
    assert parse_npu_list(text) == {"total": 8, "npu_ids": list(range(8))}
    assert parse_npu_list("Total Count : 8\nNPU ID : 0\n") == {"total": 8, "npu_ids": [0]}
    with pytest.raises(ValueError, match="npu-smi info -l output: 'command not found'"):
        parse_npu_list("command not found")


# --- /etc/hccn.conf --------------------------------------------------------------------


def test_parse_facts_hccn_conf():
    assert parse_hccn_conf(FACTS_HCCN_CONF) == {
        0: {
            "address": "192.168.100.101",
            "netmask": "255.255.255.0",
            "netdetect": "192.168.100.111",
            "gateway": "192.168.100.1",
        }
    }


def test_parse_hccn_conf_skips_comments_and_unknown_lines():
    text = "# written by hand\n\nlog_level=3\naddress_10=10.0.0.1\nip_rule_1=from 10.0.0.1 table 101\n"
    assert parse_hccn_conf(text) == {10: {"address": "10.0.0.1"}, 1: {"ip_rule": "from 10.0.0.1 table 101"}}


@pytest.mark.parametrize(
    "text, message",
    [
        ("address_0=1.2.3.4\ngarbage\n", "line 2: 'garbage' is not key=value"),
        ("=1.2.3.4\n", "line 1: '=1.2.3.4' is not key=value"),
        ("address_0=1.2.3.4\naddress_0=1.2.3.5\n", "address_0 is set twice"),
    ],
)
def test_parse_hccn_conf_rejects(text, message):
    with pytest.raises(ValueError, match=message):
        parse_hccn_conf(text)


def test_render_fresh_file_in_stable_order():
    settings = {
        1: {"gateway": "192.168.101.1", "address": "192.168.101.101", "netmask": "255.255.255.0"},
        0: {
            "netdetect": "192.168.100.111",
            "netmask": "255.255.255.0",
            "address": "192.168.100.101",
            "gateway": "192.168.100.1",
        },
    }
    assert render_hccn_conf(settings) == FACTS_HCCN_CONF + (
        "address_1=192.168.101.101\nnetmask_1=255.255.255.0\ngateway_1=192.168.101.1\n"
    )


def test_render_keeps_unknown_lines_and_is_idempotent():
    existing = "# site comment\naddress_0 = 192.168.100.101\nlog_level=3\nnetmask_0=255.255.255.0\naddress_1=10.0.0.1\n"
    settings = {0: {"address": "192.168.100.101", "netmask": "255.255.0.0", "netdetect": "192.168.100.111"}}
    rendered = render_hccn_conf(settings, existing)
    assert rendered == (
        "# site comment\naddress_0 = 192.168.100.101\nlog_level=3\nnetmask_0=255.255.0.0\naddress_1=10.0.0.1\n"
        "netdetect_0=192.168.100.111\n"
    )
    assert render_hccn_conf(settings, rendered) == rendered


def test_render_none_removes_a_key():
    assert render_hccn_conf({0: {"gateway": None}}, FACTS_HCCN_CONF) == FACTS_HCCN_CONF.replace(
        "gateway_0=192.168.100.1\n", ""
    )


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"0": {"address": "1.2.3.4"}}, "device '0' is not a device index"),
        ({0: {"bad key": "1"}}, "'bad key' is not a key name"),
        ({0: {"address": "1.2.3.4\nnetmask_0=0"}}, "spans lines"),
        ({0: "1.2.3.4"}, "must be a mapping"),
    ],
)
def test_render_rejects_bad_settings(settings, message):
    with pytest.raises(ValueError, match=message):
        render_hccn_conf(settings)
