"""Batch-mode SSH checks between cluster nodes, through the OpenSSH client.

Plain stdlib functions (see docs/architecture.md); the ssh_mesh_check module is a thin
wrapper around normalize_peers and check_peers.

Host keys are always checked strictly: the check must fail exactly where mpirun's
`ssh` would, so StrictHostKeyChecking is never relaxed and known_hosts is never
/dev/null.
"""

import concurrent.futures
import os
import subprocess
import time

# ssh's ConnectTimeout covers the TCP connect and the banner exchange only; key
# exchange and authentication get this much longer before we kill ssh ourselves.
SESSION_GRACE_SECONDS = 10
DEFAULT_CONNECT_TIMEOUT = 5

# OpenSSH client stderr lines (sshconnect.c, sshconnect2.c, ssh.c, strerror), first
# match wins. The line that explains a host key failure precedes the generic
# "Host key verification failed." that ends it, so it is tried first.
STDERR_PATTERNS = (
    # "Host key for node2 has changed and you have requested strict checking."
    ("has changed and you have requested strict checking", "host_key_changed"),
    ("REMOTE HOST IDENTIFICATION HAS CHANGED", "host_key_changed"),
    # "No ED25519 host key is known for node2 and you have requested strict checking."
    ("host key is known for", "host_key_unknown"),
    ("Host key verification failed.", "host_key_unknown"),
    # "mpiuser@node2: Permission denied (publickey,password)."
    ("Permission denied (", "auth_refused"),
    # "ssh: Could not resolve hostname node9: Name or service not known"
    ("Could not resolve hostname", "unresolved"),
    # "ssh: connect to host 10.0.0.2 port 22: Connection timed out", also
    # "Connection timed out during banner exchange"; BSD strerror says "Operation".
    ("Connection timed out", "timeout"),
    ("Operation timed out", "timeout"),
    # "ssh: connect to host 10.0.0.2 port 22: <strerror>"
    ("No route to host", "unreachable"),
    ("Connection refused", "unreachable"),
    ("Network is unreachable", "unreachable"),
)

# Answers that another attempt will not change; anything else (timeouts, refused
# while sshd restarts, connections dropped by sshd's MaxStartups under a burst of
# parallel logins) is worth retrying.
FINAL_STATUSES = {"ok", "host_key_unknown", "host_key_changed", "auth_refused", "unresolved"}

FORBIDDEN_KNOWN_HOSTS = "/dev/null"


def build_ssh_command(
    address,
    user=None,
    port=22,
    connect_timeout=DEFAULT_CONNECT_TIMEOUT,
    identity_file=None,
    known_hosts_file=None,
    ssh="ssh",
):
    """Return the argv of `ssh ... address true` in batch mode with strict host keys.

    Raises ValueError naming the bad value.
    """
    if not address or address.startswith("-"):
        raise ValueError("peer address %r is not a host name or address" % (address,))
    if not _is_whole_number(port, 1, 65535):
        raise ValueError("port %r is not an integer in 1..65535" % (port,))
    if not _is_whole_number(connect_timeout, 1):
        raise ValueError(
            "connect_timeout %r must be a whole number of seconds, 1 or more" % (connect_timeout,)
        )
    argv = [
        ssh,
        "-T",
        "-o", "BatchMode=yes",
        "-o", "StrictHostKeyChecking=yes",
        "-o", "ConnectTimeout=%d" % connect_timeout,
        "-p", str(port),
    ]
    if known_hosts_file:
        argv += ["-o", "UserKnownHostsFile=%s" % _checked_known_hosts(known_hosts_file)]
    if identity_file:
        argv += ["-i", identity_file]
    if user:
        argv += ["-l", user]
    return argv + ["--", address, "true"]


def _is_whole_number(value, low, high=None):
    """True when value is an int (a bool is not) in low..high."""
    if isinstance(value, bool) or not isinstance(value, int):
        return False
    return value >= low and (high is None or value <= high)


def _checked_known_hosts(path):
    """Return path, refusing /dev/null (which would trust no key ever) and whitespace."""
    if os.path.realpath(path) == FORBIDDEN_KNOWN_HOSTS:
        raise ValueError(
            "known_hosts_file %r points at /dev/null: host keys must be checked" % path
        )
    # ssh splits UserKnownHostsFile on whitespace into several files.
    if any(char.isspace() for char in path):
        raise ValueError("known_hosts_file %r contains whitespace" % path)
    return path


def session_timeout(connect_timeout):
    """Seconds after which a hanging ssh is killed and reported as timeout."""
    return connect_timeout + SESSION_GRACE_SECONDS


def classify_ssh_result(returncode, stderr):
    """Map the outcome of `ssh ... true` to (status, message).

    returncode None means ssh was killed by our own timeout. status is one of ok,
    host_key_unknown, host_key_changed, auth_refused, unreachable, unresolved,
    timeout, error; message is the stderr line that decided it.
    """
    if returncode is None:
        return "timeout", "ssh did not finish within the session timeout and was killed"
    if returncode == 0:
        return "ok", ""
    lines = [line.strip() for line in (stderr or "").splitlines() if line.strip()]
    for pattern, status in STDERR_PATTERNS:
        for line in lines:
            if pattern in line:
                return status, line
    if lines:
        return "error", lines[-1]
    return "error", "ssh exited with status %d and no message" % returncode


def run_ssh(argv, timeout):
    """Run argv with no stdin; return (returncode, stderr), returncode None on timeout."""
    # ssh reports connect errors through strerror, which a locale would translate.
    env = dict(os.environ, LC_ALL="C")
    try:
        completed = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=env,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        return None, (exc.stderr or b"").decode("utf-8", "replace")
    return completed.returncode, completed.stderr.decode("utf-8", "replace")


def check_peer(argv, timeout, retries, run=run_ssh):
    """Run one ssh command up to 1 + retries times, stopping at a final answer.

    Returns {status, message, latency_ms (of the last attempt), attempts}.
    """
    for attempt in range(1, retries + 2):
        started = time.monotonic()
        returncode, stderr = run(argv, timeout)
        latency_ms = round((time.monotonic() - started) * 1000.0, 1)
        status, message = classify_ssh_result(returncode, stderr)
        if status in FINAL_STATUSES:
            break
    return {"status": status, "message": message, "latency_ms": latency_ms, "attempts": attempt}


def normalize_peers(peers):
    """Turn a list of names or {name, address?} dicts into [{name, address}].

    Raises ValueError naming the entry that is neither.
    """
    if not peers:
        raise ValueError("peers is empty: nothing to check")
    normalized = []
    for index, peer in enumerate(peers):
        if isinstance(peer, str) and peer:
            normalized.append({"name": peer, "address": peer})
        elif isinstance(peer, dict) and _is_peer_dict(peer):
            address = peer.get("address") or peer["name"]
            normalized.append({"name": peer["name"], "address": address})
        else:
            raise ValueError(
                "peers[%d]: %r is neither a host name nor a dict with 'name' and optional 'address'"
                % (index, peer)
            )
    return normalized


def _is_peer_dict(peer):
    """True for {name} or {name, address} with non-empty string values."""
    return (
        set(peer) <= {"name", "address"}
        and isinstance(peer.get("name"), str)
        and bool(peer["name"])
        and isinstance(peer.get("address") or "", str)
    )


def check_peers(peers, ssh_options, retries=1, parallel=16, run=run_ssh):
    """Check every peer from this node, at most `parallel` ssh clients at a time.

    peers: [{name, address}] (see normalize_peers); ssh_options: keyword arguments
    of build_ssh_command. Returns, in the order of peers, dicts
    {peer, address, status, message, latency_ms, attempts}.
    Raises ValueError for bad settings before any ssh runs.
    """
    if not _is_whole_number(retries, 0):
        raise ValueError("retries %r must be 0 or more" % (retries,))
    if not _is_whole_number(parallel, 1):
        raise ValueError("parallel %r must be 1 or more" % (parallel,))
    commands = [build_ssh_command(peer["address"], **ssh_options) for peer in peers]
    timeout = session_timeout(ssh_options.get("connect_timeout", DEFAULT_CONNECT_TIMEOUT))

    def check(peer_and_command):
        peer, argv = peer_and_command
        result = {"peer": peer["name"], "address": peer["address"]}
        result.update(check_peer(argv, timeout, retries, run))
        return result

    with concurrent.futures.ThreadPoolExecutor(max_workers=min(parallel, len(peers)) or 1) as pool:
        return list(pool.map(check, zip(peers, commands)))
