"""Tests for plugins/module_utils/tcp_probe.py, on loopback only."""

import errno
import os
import socket

import pytest

import tcp_probe


def ipv6_loopback_available():
    try:
        with socket.socket(socket.AF_INET6) as sock:
            sock.bind(("::1", 0))
        return True
    except OSError:
        return False


needs_ipv6 = pytest.mark.skipif(not ipv6_loopback_available(), reason="no IPv6 loopback")


@pytest.fixture
def listener():
    """A listening socket on 127.0.0.1, yielding its port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


@pytest.fixture
def bound_not_listening():
    """A port held by a bound socket that does not listen: connects are refused."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


def unused_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# --- validate_port ---------------------------------------------------------------


@pytest.mark.parametrize("port, expected", [(1, 1), (8118, 8118), (65535, 65535), ("29500", 29500)])
def test_validate_port_accepts_1_to_65535(port, expected):
    assert tcp_probe.validate_port(port) == expected


@pytest.mark.parametrize("port", [0, -1, 65536, 100000])
def test_validate_port_rejects_out_of_range_naming_the_value(port):
    with pytest.raises(ValueError, match=r"port %d is out of range 1\.\.65535" % port):
        tcp_probe.validate_port(port)


@pytest.mark.parametrize("port", ["http", "", None, True, 80.5])
def test_validate_port_rejects_non_integers_naming_the_value(port):
    with pytest.raises(ValueError, match=r"port .* is not an integer") as raised:
        tcp_probe.validate_port(port)
    assert repr(port) in str(raised.value)


@pytest.mark.parametrize(
    "settings, name",
    [((0, 3, 1), "timeout"), ((3, -1, 1), "retries"), ((3, 3, -0.5), "delay")],
)
def test_probe_connect_rejects_bad_settings(settings, name):
    timeout, retries, delay = settings
    with pytest.raises(ValueError, match=name):
        tcp_probe.probe_connect("127.0.0.1", 80, timeout, retries, delay)


def test_probe_connect_rejects_empty_host():
    with pytest.raises(ValueError, match="host"):
        tcp_probe.probe_connect("", 80)


# --- classify_connect_error ------------------------------------------------------


@pytest.mark.parametrize(
    "exc, kind",
    [
        (ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused"), "refused"),
        (OSError(errno.ECONNREFUSED, "Connection refused"), "refused"),
        (TimeoutError(errno.ETIMEDOUT, "Connection timed out"), "timeout"),
        (OSError(errno.ETIMEDOUT, "Connection timed out"), "timeout"),
        (socket.timeout("timed out"), "timeout"),
        (OSError(errno.EHOSTUNREACH, "No route to host"), "no_route"),
        (OSError(errno.ENETUNREACH, "Network is unreachable"), "unreachable"),
        (socket.gaierror(socket.EAI_NONAME, "Name or service not known"), "unresolved"),
        (socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution"), "unresolved"),
        (OSError(errno.EPERM, "Operation not permitted"), "other"),
    ],
)
def test_classify_connect_error(exc, kind):
    assert tcp_probe.classify_connect_error(exc)[0] == kind


def test_classify_connect_error_keeps_the_system_text():
    assert tcp_probe.classify_connect_error(OSError(errno.EPERM, "Operation not permitted")) == (
        "other",
        "Operation not permitted",
    )
    assert tcp_probe.classify_connect_error(socket.timeout("timed out")) == ("timeout", "timed out")


# --- probe_connect on loopback ---------------------------------------------------


def test_connect_to_listener_is_reachable_with_latency(listener):
    result = tcp_probe.probe_connect("127.0.0.1", listener, timeout=2, retries=0, delay=0)
    assert result["reachable"] is True
    assert result["error"] is None and result["error_text"] is None
    assert result["attempts"] == 1
    assert result["address"] == "127.0.0.1"
    assert isinstance(result["latency_ms"], float) and 0 <= result["latency_ms"] < 2000


@needs_ipv6
def test_connect_to_ipv6_loopback_listener_is_reachable():
    with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as sock:
        sock.bind(("::1", 0))
        sock.listen()
        result = tcp_probe.probe_connect("::1", sock.getsockname()[1], timeout=2, retries=0, delay=0)
    assert result["reachable"] is True
    assert result["address"] == "::1"


def test_connect_to_closed_port_is_refused_after_every_retry(bound_not_listening):
    result = tcp_probe.probe_connect("127.0.0.1", bound_not_listening, timeout=2, retries=2, delay=0)
    assert result["reachable"] is False
    assert result["error"] == "refused"
    assert result["error_text"] == "Connection refused"
    assert result["attempts"] == 3
    assert result["latency_ms"] is None
    assert result["address"] == "127.0.0.1"


def test_unresolvable_name_is_unresolved_and_not_retried(monkeypatch):
    # A stubbed resolver: tests never query a DNS server.
    def no_such_name(host, port):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(tcp_probe, "_resolve", no_such_name)
    result = tcp_probe.probe_connect("no-such-node.invalid", 22, timeout=2, retries=3, delay=0)
    assert result["reachable"] is False
    assert result["error"] == "unresolved"
    assert result["error_text"]
    assert result["attempts"] == 1
    assert result["address"] is None


def test_temporary_resolver_failure_is_retried(monkeypatch):
    def resolver_down(host, port):
        raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")

    monkeypatch.setattr(tcp_probe, "_resolve", resolver_down)
    result = tcp_probe.probe_connect("node2", 22, timeout=1, retries=2, delay=0)
    assert result["error"] == "unresolved"
    assert result["attempts"] == 3


# --- probe_bind on loopback ------------------------------------------------------


def test_bind_unused_port_is_free():
    result = tcp_probe.probe_bind(unused_port(), "127.0.0.1")
    assert result == {
        "free": True,
        "error": None,
        "error_text": None,
        "holder_pid": None,
        "holder_name": None,
        "holder_state": None,
    }


def test_bind_port_we_listen_on_is_busy_and_held_by_this_process(listener):
    result = tcp_probe.probe_bind(listener, "127.0.0.1")
    assert result["free"] is False
    assert result["error"] == "in_use"
    assert result["error_text"] == "Address already in use"
    assert result["holder_state"] == "LISTEN"
    assert result["holder_pid"] == os.getpid()
    with open("/proc/self/comm", encoding="utf-8") as comm:
        assert result["holder_name"] == comm.read().strip()


def test_bind_wildcard_sees_a_listener_on_loopback(listener):
    result = tcp_probe.probe_bind(listener, "0.0.0.0")
    assert result["free"] is False
    assert result["holder_pid"] == os.getpid()


@needs_ipv6
def test_bind_ipv6_port_we_listen_on_is_busy():
    with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as sock:
        sock.bind(("::1", 0))
        sock.listen()
        result = tcp_probe.probe_bind(sock.getsockname()[1], "::1")
    assert result["error"] == "in_use"
    assert result["holder_pid"] == os.getpid()


def test_bind_port_held_without_listening_is_busy_holder_unknown(bound_not_listening):
    # A bound socket that never listened is not in /proc/net/tcp: busy, holder unknown.
    result = tcp_probe.probe_bind(bound_not_listening, "127.0.0.1")
    assert result["free"] is False
    assert result["error"] == "in_use"
    assert result["holder_pid"] is None and result["holder_state"] is None


def test_bind_address_not_on_this_host_is_reported():
    # 192.0.2.1 (TEST-NET-1, RFC 5737) is on no interface; bind sends no packet.
    result = tcp_probe.probe_bind(unused_port(), "192.0.2.1")
    assert result["free"] is False
    assert result["error"] == "address_not_available"


def test_bind_rejects_bad_port():
    with pytest.raises(ValueError, match="port 70000"):
        tcp_probe.probe_bind(70000)


def test_find_port_holder_of_unused_port_is_unknown():
    assert tcp_probe.find_port_holder(unused_port()) == {"pid": None, "name": None, "state": None}
