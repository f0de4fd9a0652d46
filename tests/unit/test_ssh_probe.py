"""Tests for plugins/module_utils/ssh_probe.py: command line, classification, parallel runner."""

import shutil
import socket
import sys
import threading
import time

import pytest

import ssh_probe

FORBIDDEN_OPTIONS = (
    "StrictHostKeyChecking=no",
    "StrictHostKeyChecking=accept-new",
    "StrictHostKeyChecking=off",
    "UserKnownHostsFile=/dev/null",
)

# Real OpenSSH client stderr (OpenSSH 9.x unless noted), as `ssh ... true` prints it.
UNKNOWN_HOST_KEY = (
    "No ED25519 host key is known for node2 and you have requested strict checking.\r\n"
    "Host key verification failed.\r\n"
)
CHANGED_HOST_KEY = (
    "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\r\n"
    "@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\r\n"
    "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\r\n"
    "IT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!\r\n"
    "Someone could be eavesdropping on you right now (man-in-the-middle attack)!\r\n"
    "It is also possible that a host key has just been changed.\r\n"
    "The fingerprint for the ED25519 key sent by the remote host is\n"
    "SHA256:2m6Kb5f6qS1Yv0d8Vb1yJx2QbqGQjZr3mEo5i9Zr0yA.\r\n"
    "Please contact your system administrator.\r\n"
    "Add correct host key in /home/mpiuser/.ssh/known_hosts to get rid of this message.\r\n"
    "Offending ED25519 key in /home/mpiuser/.ssh/known_hosts:3\r\n"
    "  remove with:\r\n"
    '  ssh-keygen -f "/home/mpiuser/.ssh/known_hosts" -R "node2"\r\n'
    "Host key for node2 has changed and you have requested strict checking.\r\n"
    "Host key verification failed.\r\n"
)
# OpenSSH before 8.x named the key type in the closing line.
CHANGED_HOST_KEY_OLD_CLIENT = (
    "@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\r\n"
    "ECDSA host key for node2 has changed and you have requested strict checking.\r\n"
    "Host key verification failed.\r\n"
)


@pytest.mark.parametrize(
    "returncode, stderr, status, message",
    [
        (0, "", "ok", ""),
        (0, "** WARNING: connection is not using a post-quantum key exchange algorithm.\r\n", "ok", ""),
        (
            255,
            UNKNOWN_HOST_KEY,
            "host_key_unknown",
            "No ED25519 host key is known for node2 and you have requested strict checking.",
        ),
        (255, "Host key verification failed.\r\n", "host_key_unknown", "Host key verification failed."),
        (
            255,
            CHANGED_HOST_KEY,
            "host_key_changed",
            "Host key for node2 has changed and you have requested strict checking.",
        ),
        (
            255,
            CHANGED_HOST_KEY_OLD_CLIENT,
            "host_key_changed",
            "ECDSA host key for node2 has changed and you have requested strict checking.",
        ),
        (
            255,
            "mpiuser@node2: Permission denied (publickey).\r\n",
            "auth_refused",
            "mpiuser@node2: Permission denied (publickey).",
        ),
        (
            255,
            "mpiuser@10.0.0.2: Permission denied (publickey,gssapi-keyex,gssapi-with-mic,password).\r\n",
            "auth_refused",
            "mpiuser@10.0.0.2: Permission denied (publickey,gssapi-keyex,gssapi-with-mic,password).",
        ),
        (
            255,
            "ssh: connect to host 10.0.0.2 port 22: No route to host\r\n",
            "unreachable",
            "ssh: connect to host 10.0.0.2 port 22: No route to host",
        ),
        (
            255,
            "ssh: connect to host 10.0.0.2 port 22: Connection refused\r\n",
            "unreachable",
            "ssh: connect to host 10.0.0.2 port 22: Connection refused",
        ),
        (
            255,
            "ssh: connect to host 10.0.0.2 port 22: Network is unreachable\r\n",
            "unreachable",
            "ssh: connect to host 10.0.0.2 port 22: Network is unreachable",
        ),
        (
            255,
            "ssh: Could not resolve hostname node9: Name or service not known\r\n",
            "unresolved",
            "ssh: Could not resolve hostname node9: Name or service not known",
        ),
        (
            255,
            "ssh: Could not resolve hostname node9: Temporary failure in name resolution\r\n",
            "unresolved",
            "ssh: Could not resolve hostname node9: Temporary failure in name resolution",
        ),
        (
            255,
            "ssh: connect to host 10.0.0.2 port 22: Connection timed out\r\n",
            "timeout",
            "ssh: connect to host 10.0.0.2 port 22: Connection timed out",
        ),
        (
            255,
            "ssh: connect to host 10.0.0.2 port 22: Operation timed out\r\n",
            "timeout",
            "ssh: connect to host 10.0.0.2 port 22: Operation timed out",
        ),
        (
            255,
            "Connection timed out during banner exchange\r\nConnection to 10.0.0.2 port 22 timed out\r\n",
            "timeout",
            "Connection timed out during banner exchange",
        ),
        (
            255,
            "kex_exchange_identification: read: Connection reset by peer\r\n"
            "Connection reset by 10.0.0.2 port 22\r\n",
            "error",
            "Connection reset by 10.0.0.2 port 22",
        ),
        (1, "This account is currently not available.\n", "error", "This account is currently not available."),
        (255, "", "error", "ssh exited with status 255 and no message"),
    ],
)
def test_classify_real_openssh_stderr(returncode, stderr, status, message):
    assert ssh_probe.classify_ssh_result(returncode, stderr) == (status, message)


def test_classify_our_own_timeout():
    status, message = ssh_probe.classify_ssh_result(None, "")
    assert status == "timeout"
    assert "killed" in message


# --- build_ssh_command -----------------------------------------------------------


def test_default_command_is_batch_mode_with_strict_host_keys():
    assert ssh_probe.build_ssh_command("node2") == [
        "ssh",
        "-T",
        "-o", "BatchMode=yes",
        "-o", "StrictHostKeyChecking=yes",
        "-o", "ConnectTimeout=5",
        "-p", "22",
        "--", "node2", "true",
    ]


def test_command_with_every_option(tmp_path):
    known_hosts = str(tmp_path / "known_hosts")
    argv = ssh_probe.build_ssh_command(
        "10.0.0.2",
        user="mpiuser",
        port=2222,
        connect_timeout=3,
        identity_file="/home/mpiuser/.ssh/id_ed25519",
        known_hosts_file=known_hosts,
        ssh="/usr/bin/ssh",
    )
    assert argv[0] == "/usr/bin/ssh"
    assert argv[-3:] == ["--", "10.0.0.2", "true"]
    pairs = list(zip(argv, argv[1:]))
    for pair in (
        ("-o", "ConnectTimeout=3"),
        ("-p", "2222"),
        ("-o", "UserKnownHostsFile=%s" % known_hosts),
        ("-i", "/home/mpiuser/.ssh/id_ed25519"),
        ("-l", "mpiuser"),
    ):
        assert pair in pairs


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"user": "mpiuser"},
        {"identity_file": "/tmp/key", "known_hosts_file": "/tmp/known_hosts"},
        {"port": 2222, "connect_timeout": 1, "user": "root"},
    ],
)
def test_forbidden_options_never_appear(options):
    argv = ssh_probe.build_ssh_command("node2", **options)
    joined = " ".join(argv)
    for forbidden in FORBIDDEN_OPTIONS:
        assert forbidden not in joined
    assert argv.count("StrictHostKeyChecking=yes") == 1
    assert argv.count("BatchMode=yes") == 1


def test_known_hosts_dev_null_is_refused(tmp_path):
    with pytest.raises(ValueError, match="/dev/null"):
        ssh_probe.build_ssh_command("node2", known_hosts_file="/dev/null")
    link = tmp_path / "known_hosts"
    link.symlink_to("/dev/null")
    with pytest.raises(ValueError, match="/dev/null"):
        ssh_probe.build_ssh_command("node2", known_hosts_file=str(link))


def test_known_hosts_with_whitespace_is_refused():
    with pytest.raises(ValueError, match="whitespace"):
        ssh_probe.build_ssh_command("node2", known_hosts_file="/tmp/my hosts")


@pytest.mark.parametrize(
    "address, options, name",
    [
        ("", {}, "peer address"),
        ("-oProxyCommand=touch /tmp/x", {}, "peer address"),
        ("node2", {"port": 0}, "port 0"),
        ("node2", {"port": 65536}, "port 65536"),
        ("node2", {"connect_timeout": 0}, "connect_timeout 0"),
    ],
)
def test_bad_command_values_are_named(address, options, name):
    with pytest.raises(ValueError, match=name):
        ssh_probe.build_ssh_command(address, **options)


# --- normalize_peers -------------------------------------------------------------


def test_normalize_peers_accepts_names_and_dicts():
    assert ssh_probe.normalize_peers(
        ["node1", {"name": "node2"}, {"name": "node3", "address": "10.0.0.3"}]
    ) == [
        {"name": "node1", "address": "node1"},
        {"name": "node2", "address": "node2"},
        {"name": "node3", "address": "10.0.0.3"},
    ]


@pytest.mark.parametrize(
    "bad",
    [3, "", {"address": "10.0.0.3"}, {"name": "node3", "user": "root"}, {"name": ""}, ["node1"]],
)
def test_normalize_peers_names_the_bad_entry(bad):
    with pytest.raises(ValueError, match=r"peers\[1\]"):
        ssh_probe.normalize_peers(["node1", bad])


def test_normalize_peers_refuses_an_empty_list():
    with pytest.raises(ValueError, match="empty"):
        ssh_probe.normalize_peers([])


# --- check_peer / check_peers with a fake runner ---------------------------------


class ScriptedRunner:
    """Fake run(argv, timeout): answers per address from a script, records calls."""

    def __init__(self, script, pause=0.0):
        self.script = {address: list(answers) for address, answers in script.items()}
        self.pause = pause
        self.calls = []
        self.running = 0
        self.most_running = 0
        self.lock = threading.Lock()

    def __call__(self, argv, timeout):
        address = argv[-2]
        with self.lock:
            self.calls.append((address, timeout))
            self.running += 1
            self.most_running = max(self.most_running, self.running)
            answers = self.script[address]
            answer = answers.pop(0) if len(answers) > 1 else answers[0]
        time.sleep(self.pause)
        with self.lock:
            self.running -= 1
        return answer


REFUSED = (255, "ssh: connect to host node2 port 22: Connection refused\r\n")
DENIED = (255, "mpiuser@node3: Permission denied (publickey).\r\n")
OK = (0, "")


def test_check_peer_retries_a_transient_failure_until_ok():
    run = ScriptedRunner({"node2": [REFUSED, OK]})
    result = ssh_probe.check_peer(["ssh", "--", "node2", "true"], 15, retries=3, run=run)
    assert result["status"] == "ok"
    assert result["attempts"] == 2
    assert isinstance(result["latency_ms"], float)


def test_check_peer_gives_up_after_retries():
    run = ScriptedRunner({"node2": [REFUSED]})
    result = ssh_probe.check_peer(["ssh", "--", "node2", "true"], 15, retries=2, run=run)
    assert result["status"] == "unreachable"
    assert result["message"] == "ssh: connect to host node2 port 22: Connection refused"
    assert result["attempts"] == 3


@pytest.mark.parametrize(
    "answer",
    [DENIED, (255, UNKNOWN_HOST_KEY), (255, CHANGED_HOST_KEY), (255, "ssh: Could not resolve hostname x: Name or service not known")],
)
def test_check_peer_does_not_retry_final_answers(answer):
    run = ScriptedRunner({"node3": [answer]})
    result = ssh_probe.check_peer(["ssh", "--", "node3", "true"], 15, retries=3, run=run)
    assert result["attempts"] == 1


def test_check_peers_returns_results_in_input_order_with_bounded_parallelism():
    names = ["node%d" % number for number in range(1, 9)]
    script = {name: [OK] for name in names}
    script["node3"] = [DENIED]
    script["node6"] = [REFUSED, OK]
    run = ScriptedRunner(script, pause=0.05)
    peers = ssh_probe.normalize_peers(names)

    results = ssh_probe.check_peers(peers, {"connect_timeout": 4}, retries=1, parallel=3, run=run)

    assert [result["peer"] for result in results] == names
    assert [result["status"] for result in results] == [
        "ok", "ok", "auth_refused", "ok", "ok", "ok", "ok", "ok",
    ]
    assert results[5]["attempts"] == 2
    assert results[2]["message"] == "mpiuser@node3: Permission denied (publickey)."
    assert set(results[0]) == {"peer", "address", "status", "message", "latency_ms", "attempts"}
    assert 1 < run.most_running <= 3
    # ssh's own ConnectTimeout plus the grace for key exchange and login
    assert {timeout for _address, timeout in run.calls} == {4 + ssh_probe.SESSION_GRACE_SECONDS}


def test_check_peers_reports_name_and_connects_to_address():
    run = ScriptedRunner({"10.0.0.2": [OK]})
    peers = ssh_probe.normalize_peers([{"name": "node2", "address": "10.0.0.2"}])
    [result] = ssh_probe.check_peers(peers, {}, run=run)
    assert (result["peer"], result["address"], result["status"]) == ("node2", "10.0.0.2", "ok")
    assert run.calls == [("10.0.0.2", ssh_probe.DEFAULT_CONNECT_TIMEOUT + ssh_probe.SESSION_GRACE_SECONDS)]


@pytest.mark.parametrize(
    "peers, ssh_options, settings, name",
    [
        (["node1"], {}, {"parallel": 0}, "parallel 0"),
        (["node1"], {}, {"retries": -1}, "retries -1"),
        (["node1"], {"known_hosts_file": "/dev/null"}, {}, "/dev/null"),
        (["node1", "-oProxyCommand=x"], {}, {}, "peer address"),
    ],
)
def test_check_peers_rejects_bad_settings_before_running_ssh(peers, ssh_options, settings, name):
    run = ScriptedRunner({})
    with pytest.raises(ValueError, match=name):
        ssh_probe.check_peers(ssh_probe.normalize_peers(peers), ssh_options, run=run, **settings)
    assert run.calls == []


# --- run_ssh and the real OpenSSH client -----------------------------------------


def test_run_ssh_returns_exit_status_and_stderr_in_the_c_locale():
    argv = [sys.executable, "-c", "import os, sys; sys.stderr.write(os.environ['LC_ALL']); sys.exit(3)"]
    assert ssh_probe.run_ssh(argv, timeout=10) == (3, "C")


def test_run_ssh_reports_our_timeout_as_none():
    argv = [sys.executable, "-c", "import sys, time; sys.stderr.write('started'); sys.stderr.flush(); time.sleep(10)"]
    assert ssh_probe.run_ssh(argv, timeout=0.5) == (None, "started")


@pytest.mark.skipif(shutil.which("ssh") is None, reason="no OpenSSH client")
def test_real_ssh_to_closed_loopback_port_is_unreachable(tmp_path):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held:
        held.bind(("127.0.0.1", 0))  # bound, not listening: connects are refused
        options = {
            "port": held.getsockname()[1],
            "connect_timeout": 2,
            "known_hosts_file": str(tmp_path / "known_hosts"),
            "ssh": shutil.which("ssh"),
        }
        [result] = ssh_probe.check_peers(ssh_probe.normalize_peers(["127.0.0.1"]), options, retries=0)
    assert result["status"] == "unreachable"
    assert result["message"].endswith("Connection refused")
