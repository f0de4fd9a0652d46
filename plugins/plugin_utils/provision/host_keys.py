"""SSH host keys on the controller, for playbooks/replace.yml (role fleet, tasks/replace.yml):
the fingerprints of the keys ssh-keyscan read from a node, which of them the operator's
fingerprint accepts, the known_hosts file and host name the inventory's connection uses, and
whether that file already holds exactly the accepted keys. Plain Python, no Ansible imports.

A fingerprint is OpenSSH's: ``SHA256:`` and the unpadded base64 of the SHA-256 of the key blob,
as ``ssh-keygen -lf`` prints it.
"""
import base64
import binascii
import hashlib
import re
import shlex

FINGERPRINT = re.compile(r"SHA256:[A-Za-z0-9+/]{43}")
KEY_LINE = re.compile(r"^(?P<host>\S+)\s+(?P<type>(?:ssh|ecdsa|sk)-[A-Za-z0-9@.-]+)\s+(?P<blob>[A-Za-z0-9+/]+=*)\s*$")


class HostKeyError(Exception):
    """A fingerprint or key that cannot be used; the message names the node."""


def fingerprint(blob):
    """OpenSSH's SHA256 fingerprint of a key's base64 blob."""
    try:
        raw = base64.b64decode(blob, validate=True)
    except (binascii.Error, ValueError) as error:
        raise HostKeyError(f"not a base64 key blob: {error}") from error
    return "SHA256:" + base64.b64encode(hashlib.sha256(raw).digest()).decode().rstrip("=")


def scanned_keys(text):
    """[{"host", "type", "key" ("type blob"), "fingerprint"}] of ssh-keyscan's output; comment
    lines and lines that are not keys are skipped."""
    found = []
    for line in text.splitlines():
        match = KEY_LINE.match(line.strip())
        if not match or line.lstrip().startswith("#"):
            continue
        found.append({"host": match["host"], "type": match["type"], "key": f"{match['type']} {match['blob']}",
                      "fingerprint": fingerprint(match["blob"])})
    return found


def known_hosts_name(address, port=22):
    """The host name of a known_hosts line (and of ssh-keygen -R/-F) for an address and port."""
    port = int(port or 22)
    return str(address) if port == 22 else f"[{address}]:{port}"


def known_hosts_file(ssh_args, home):
    """The controller's known_hosts file that Ansible's ssh uses for a host: the first
    UserKnownHostsFile (ssh keeps an option's first value) of its ssh arguments (ansible_ssh_common_args, ansible_ssh_extra_args;
    ``-o Name=value``, ``-oName=value`` or ``-o 'Name value'``), its first file when it names
    several, else ~/.ssh/known_hosts. A leading ~ is the home directory."""
    found = None
    words = shlex.split(" ".join(str(arg) for arg in ssh_args if arg))
    for index, word in enumerate(words):
        if word.startswith("-o") and len(word) > 2:
            option = word[2:]
        elif index > 0 and words[index - 1] == "-o":
            option = word
        else:
            continue
        parts = re.split(r"\s*=\s*|\s+", option.strip(), maxsplit=1)
        name, value = parts[0], (parts[1] if len(parts) > 1 else "")
        if found is None and name.lower() == "userknownhostsfile" and value.strip():
            found = value.split()[0]
    path = found or "~/.ssh/known_hosts"
    return str(home) + path[1:] if path.startswith("~") else path


def accepted(node, keys, wanted, trust_on_first_use=False):
    """The keys to trust for ``node``: the one whose fingerprint is ``wanted``; every key scanned
    with trust_on_first_use (and no fingerprint). Refuses, naming the node and every
    fingerprint seen, when none matches or the node offered no key."""
    if not keys:
        raise HostKeyError(f"{node}: ssh-keyscan read no host key from the node (is sshd running, the address "
                           "and port right?); nothing was changed")
    seen = ", ".join(f"{key['fingerprint']} ({key['type']})" for key in keys)
    if wanted:
        wanted = str(wanted).strip()
        if not FINGERPRINT.fullmatch(wanted):
            raise HostKeyError(f"{node}: fleet_host_key_fingerprint: {wanted!r} is not an OpenSSH SHA256 "
                               "fingerprint (SHA256: and 43 characters, as ssh-keygen -lf prints it); "
                               "nothing was changed")
        matching = [key for key in keys if key["fingerprint"] == wanted]
        if not matching:
            raise HostKeyError(f"{node}: fleet_host_key_fingerprint: {wanted} matches none of the host keys the "
                               f"node offers ({seen}); nothing was changed")
        return matching
    if trust_on_first_use:
        return list(keys)
    raise HostKeyError(f"{node}: fleet_host_key_fingerprint: give the fingerprint of the node's new host key "
                       f"(the node offers {seen}), or fleet_trust_on_first_use with fleet_reason; "
                       "nothing was changed")


def current_keys(text):
    """["type blob"] of the lines ``ssh-keygen -F host -f file`` printed (comments skipped)."""
    keys = []
    for line in text.splitlines():
        match = KEY_LINE.match(line.strip())
        if match and not line.lstrip().startswith("#"):
            keys.append(f"{match['type']} {match['blob']}")
    return keys


def plan(node, name, current, keys):
    """What replace.yml does to the controller's known_hosts for ``name``: {"changed",
    "lines" (to append after ssh-keygen -R), "removed" (keys that go)}. Nothing changes when the
    file already holds exactly the accepted keys."""
    wanted = [key["key"] for key in keys]
    if sorted(set(current)) == sorted(set(wanted)):
        return {"node": node, "changed": False, "lines": [], "removed": []}
    return {"node": node, "changed": True, "lines": [f"{name} {key}" for key in wanted],
            "removed": [key for key in current if key not in wanted]}


def check(node, keys, wanted, trust_on_first_use=False):
    """accepted() as a result: {"keys": [...], "error": ""} or {"keys": [], "error": why}."""
    try:
        return {"keys": accepted(node, keys, wanted, trust_on_first_use), "error": ""}
    except HostKeyError as error:
        return {"keys": [], "error": str(error)}
