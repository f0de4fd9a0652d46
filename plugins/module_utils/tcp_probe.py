"""TCP probes for cluster launch checks: can a port be reached, is a port free to bind.

Plain stdlib functions (see docs/architecture.md); the tcp_port_check module is a thin
wrapper around probe_connect and probe_bind.
"""

import errno
import os
import socket
import time

# Exactly what `telnet host port` would report, as one word each.
CONNECT_ERROR_BY_ERRNO = {
    errno.ECONNREFUSED: "refused",
    errno.ETIMEDOUT: "timeout",
    errno.EHOSTUNREACH: "no_route",
    errno.ENETUNREACH: "unreachable",
}

BIND_ERROR_BY_ERRNO = {
    errno.EADDRINUSE: "in_use",
    errno.EADDRNOTAVAIL: "address_not_available",
    errno.EACCES: "permission_denied",
}

# EAI_AGAIN is a resolver hiccup worth another try; any other resolution
# failure (unknown name) will not change by asking again.
RETRYABLE_RESOLUTION_ERRORS = {socket.EAI_AGAIN}

# /proc/net/tcp{,6} state codes (include/net/tcp_states.h).
TCP_STATE_NAMES = {
    "01": "ESTABLISHED",
    "02": "SYN_SENT",
    "03": "SYN_RECV",
    "04": "FIN_WAIT1",
    "05": "FIN_WAIT2",
    "06": "TIME_WAIT",
    "07": "CLOSE",
    "08": "CLOSE_WAIT",
    "09": "LAST_ACK",
    "0A": "LISTEN",
    "0B": "CLOSING",
}
PROC_NET_TCP_FILES = ("/proc/net/tcp", "/proc/net/tcp6")


def validate_port(port):
    """Return port as an int in 1..65535, or raise ValueError naming the value."""
    if isinstance(port, bool) or not isinstance(port, (int, str)):
        raise ValueError("port %r is not an integer" % (port,))
    try:
        number = int(port)
    except ValueError:
        raise ValueError("port %r is not an integer" % (port,)) from None
    if not 1 <= number <= 65535:
        raise ValueError("port %d is out of range 1..65535" % number)
    return number


def validate_probe_settings(timeout, retries, delay):
    """Raise ValueError naming the first setting that cannot drive a probe."""
    if timeout <= 0:
        raise ValueError("timeout %r must be greater than 0 seconds" % (timeout,))
    if retries < 0:
        raise ValueError("retries %r must be 0 or more" % (retries,))
    if delay < 0:
        raise ValueError("delay %r must be 0 or more seconds" % (delay,))


def classify_connect_error(exc):
    """Map an exception from resolving or connecting to (kind, text).

    kind is one of unresolved, timeout, refused, no_route, unreachable, other.
    """
    # gaierror is an OSError whose errno is an EAI_* code, not an errno value:
    # test it before the errno table.
    if isinstance(exc, socket.gaierror):
        return "unresolved", exc.strerror or str(exc)
    # socket.timeout (our settimeout expiring) is TimeoutError from Python 3.10 on.
    if isinstance(exc, (socket.timeout, TimeoutError)):
        return "timeout", exc.strerror or "timed out"
    kind = CONNECT_ERROR_BY_ERRNO.get(getattr(exc, "errno", None), "other")
    return kind, getattr(exc, "strerror", None) or str(exc)


def _resolve(host, port):
    """Return the stream socket addresses of host, in the resolver's order."""
    return socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)


def _connect_once(addrinfo, timeout):
    """Connect to one resolved address; return the latency in milliseconds."""
    family, socktype, proto, _canonname, sockaddr = addrinfo
    with socket.socket(family, socktype, proto) as sock:
        sock.settimeout(timeout)
        started = time.monotonic()
        sock.connect(sockaddr)
        return (time.monotonic() - started) * 1000.0


def _attempt(host, port, timeout, result):
    """One attempt over every address of host, like telnet; fill result.

    Returns True when connected or when another attempt cannot help.
    """
    try:
        addrinfos = _resolve(host, port)
    except socket.gaierror as exc:
        result["error"], result["error_text"] = classify_connect_error(exc)
        return exc.errno not in RETRYABLE_RESOLUTION_ERRORS
    for addrinfo in addrinfos:
        result["address"] = addrinfo[4][0]
        try:
            latency_ms = _connect_once(addrinfo, timeout)
        except OSError as exc:
            result["error"], result["error_text"] = classify_connect_error(exc)
            continue
        result.update(reachable=True, error=None, error_text=None, latency_ms=round(latency_ms, 3))
        return True
    return False


def probe_connect(host, port, timeout=3.0, retries=3, delay=1.0):
    """Open (and close) a TCP connection to host:port, as `telnet host port` would.

    Tries 1 + retries times, delay seconds apart, each attempt going through every
    address the name resolves to. Returns a dict:
      reachable (bool), error (None or refused, timeout, no_route, unreachable,
      unresolved, other), error_text, attempts, latency_ms (of the successful
      connect, None when not reachable), address (the address last tried).
    Raises ValueError for a bad port or setting.
    """
    port = validate_port(port)
    validate_probe_settings(timeout, retries, delay)
    if not host:
        raise ValueError("host must not be empty")
    result = {
        "reachable": False,
        "error": None,
        "error_text": None,
        "attempts": 0,
        "latency_ms": None,
        "address": None,
    }
    for attempt in range(1 + retries):
        if attempt:
            time.sleep(delay)
        result["attempts"] += 1
        if _attempt(host, port, timeout, result):
            break
    return result


def _proc_net_sockets(port):
    """Yield (state, inode) of sockets whose local port is port, from /proc/net/tcp{,6}."""
    for path in PROC_NET_TCP_FILES:
        try:
            with open(path, encoding="ascii") as table:
                next(table)  # header
                rows = [line.split() for line in table]
        except OSError:
            continue
        for fields in rows:
            local_port = int(fields[1].rsplit(":", 1)[1], 16)
            if local_port == port:
                yield fields[3], int(fields[9])


def _command_name(pid):
    """Return the command name of pid, or None when it cannot be read."""
    try:
        with open("/proc/%d/comm" % pid, encoding="utf-8") as comm:
            return comm.read().strip()
    except OSError:
        return None


def _pid_holding_inode(inode):
    """Return (pid, command name) of a process with socket inode open, or (None, None).

    Processes of other users cannot be inspected without root: skipped.
    """
    target = "socket:[%d]" % inode
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        fd_dir = os.path.join("/proc", entry, "fd")
        try:
            fds = os.listdir(fd_dir)
        except OSError:  # process gone or not ours to read
            continue
        for fd in fds:
            try:
                link = os.readlink(os.path.join(fd_dir, fd))
            except OSError:  # fd closed meanwhile
                continue
            if link == target:
                return int(entry), _command_name(int(entry))
    return None, None


def find_port_holder(port):
    """Best effort: which socket, and which process, holds local TCP port.

    Prefers a LISTEN socket. Returns {"pid", "name", "state"}, each None when unknown
    (a TIME_WAIT socket has no owning process, so its pid is always None).
    """
    holder = {"pid": None, "name": None, "state": None}
    sockets = sorted(_proc_net_sockets(port), key=lambda sock: sock[0] != "0A")
    if not sockets:
        return holder
    state, inode = sockets[0]
    holder["state"] = TCP_STATE_NAMES.get(state, state)
    if inode:
        holder["pid"], holder["name"] = _pid_holding_inode(inode)
    return holder


def probe_bind(port, address="0.0.0.0"):
    """Check whether a server could bind TCP address:port now.

    A plain bind without SO_REUSEADDR: EADDRINUSE means busy. That counts a LISTEN
    socket as busy and, conservatively, also a port still held by a connection
    (e.g. in TIME_WAIT) that a launcher setting SO_REUSEADDR could take over.
    Returns a dict: free (bool), error (None or in_use, address_not_available,
    permission_denied, unresolved, other), error_text, and when in use holder_pid,
    holder_name, holder_state (each None when unknown).
    Raises ValueError for a bad port.
    """
    port = validate_port(port)
    result = {
        "free": False,
        "error": None,
        "error_text": None,
        "holder_pid": None,
        "holder_name": None,
        "holder_state": None,
    }
    try:
        family, socktype, proto, _canonname, sockaddr = socket.getaddrinfo(
            address, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        with socket.socket(family, socktype, proto) as sock:
            sock.bind(sockaddr)
    except socket.gaierror as exc:
        result.update(error="unresolved", error_text=exc.strerror or str(exc))
        return result
    except OSError as exc:
        result.update(
            error=BIND_ERROR_BY_ERRNO.get(exc.errno, "other"),
            error_text=exc.strerror or str(exc),
        )
        if exc.errno == errno.EADDRINUSE:
            holder = find_port_holder(port)
            result.update(
                holder_pid=holder["pid"], holder_name=holder["name"], holder_state=holder["state"]
            )
        return result
    result["free"] = True
    return result
