"""SSH host keys on the controller (plugins/plugin_utils/provision/host_keys.py), for playbooks/replace.yml.
The fingerprints were printed by `ssh-keygen -lf` (OpenSSH 9) for the keys below."""
import pytest

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.provision import host_keys

ED25519 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFMo49WP2oOCgfcnooRXDSVIF4X1M+jaulg6lWf7KMCH"
ED25519_FP = "SHA256:wMILQInLg4JwujAp0ccW3z6ctPZkf09m7p5W8C/0bfc"
ECDSA = ("ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBAhpsaWvckaVdrN4hHCDd408HfRqNAbo"
         "wO0NLhEvSrI84hhga3d8x1AMuhNeFLKvm64yftfi8YNHlkODIYfocr4=")
ECDSA_FP = "SHA256:xFbaiLwD7kio62mjwqP+D/vgu1vqwrLkFLTwvCVr2EI"
SCAN = f"# 10.0.0.3:22 SSH-2.0-OpenSSH_9.6\n10.0.0.3 {ECDSA}\n# 10.0.0.3:22 SSH-2.0-OpenSSH_9.6\n10.0.0.3 {ED25519}\n"


def test_fingerprints_are_those_of_ssh_keygen():
    assert host_keys.fingerprint(ED25519.split()[1]) == ED25519_FP
    assert host_keys.fingerprint(ECDSA.split()[1]) == ECDSA_FP
    with pytest.raises(host_keys.HostKeyError):
        host_keys.fingerprint("not base64!")


def test_keyscan_output_is_read_comments_skipped():
    keys = host_keys.scanned_keys(SCAN + "garbage line\n")
    assert [(key["host"], key["type"], key["fingerprint"]) for key in keys] == [
        ("10.0.0.3", "ecdsa-sha2-nistp256", ECDSA_FP), ("10.0.0.3", "ssh-ed25519", ED25519_FP)]
    assert keys[1]["key"] == ED25519


def test_the_operators_fingerprint_accepts_only_its_key():
    keys = host_keys.scanned_keys(SCAN)
    assert [key["key"] for key in host_keys.accepted("node3", keys, ED25519_FP)] == [ED25519]
    assert host_keys.check("node3", keys, f" {ECDSA_FP} ")["keys"][0]["key"] == ECDSA


def test_a_wrong_or_malformed_fingerprint_is_refused_naming_the_node_and_what_was_seen():
    keys = host_keys.scanned_keys(SCAN)
    wrong = "SHA256:" + "A" * 43
    error = host_keys.check("node3", keys, wrong)["error"]
    assert error.startswith("node3: fleet_host_key_fingerprint: " + wrong + " matches none")
    assert ED25519_FP in error and ECDSA_FP in error and "nothing was changed" in error
    assert "not an OpenSSH SHA256" in host_keys.check("node3", keys, "MD5:aa:bb")["error"]
    assert "read no host key" in host_keys.check("node3", [], ED25519_FP)["error"]


def test_no_fingerprint_needs_trust_on_first_use():
    keys = host_keys.scanned_keys(SCAN)
    assert "or fleet_trust_on_first_use" in host_keys.check("node3", keys, "")["error"]
    assert len(host_keys.accepted("node3", keys, "", trust_on_first_use=True)) == 2


def test_known_hosts_name_and_file():
    assert host_keys.known_hosts_name("10.0.0.3") == "10.0.0.3"
    assert host_keys.known_hosts_name("10.0.0.3", "2222") == "[10.0.0.3]:2222"
    sandbox = "-o UserKnownHostsFile=/s/known_hosts -o StrictHostKeyChecking=yes"
    assert host_keys.known_hosts_file([sandbox], "/home/u") == "/s/known_hosts"
    assert host_keys.known_hosts_file(["-oUserKnownHostsFile=~/kh /other", "-o UserKnownHostsFile=/late"],
                                      "/home/u") == "/home/u/kh"
    assert host_keys.known_hosts_file(["-o 'UserKnownHostsFile /q'"], "/home/u") == "/q"
    assert host_keys.known_hosts_file(["", "-o StrictHostKeyChecking=yes"], "/home/u") == "/home/u/.ssh/known_hosts"


def test_plan_replaces_old_keys_and_is_idempotent():
    keys = host_keys.accepted("node3", host_keys.scanned_keys(SCAN), ED25519_FP)
    old = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOldOldOldOldOldOldOldOldOldOldOldOldOldOldOld"
    found = f"# Host 10.0.0.3 found: line 3\n10.0.0.3 {old}\n"
    step = host_keys.plan("node3", "10.0.0.3", host_keys.current_keys(found), keys)
    assert step == {"node": "node3", "changed": True, "lines": [f"10.0.0.3 {ED25519}"], "removed": [old]}
    again = host_keys.plan("node3", "10.0.0.3", host_keys.current_keys(f"10.0.0.3 {ED25519}\n"), keys)
    assert again["changed"] is False
