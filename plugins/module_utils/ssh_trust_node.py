"""What role ssh_trust reads on a node and writes into the training user's ~/.ssh, for modules
ssh_trust_node_read and ssh_trust_user_keys: one module run each instead of a task per file
(docs/large-fleet.md: at 1024 nodes ansible-playbook's own process pays for every task result).

The writes in ~/.ssh run as root in a directory the training user owns: every file is opened
relative to an open ~/.ssh without following links (a ~/.ssh or a key file that is a link is
refused) and replaced by renaming a new file into place.
"""
import glob
import grp
import os
import platform
import pwd
import re
import socket
import stat

HOST_KEY = re.compile(r"^((?:ssh|ecdsa|sk)-[A-Za-z0-9@.-]+)\s+([A-Za-z0-9+/=]+)")
KEY_TYPE = re.compile(r"^(?:ssh|ecdsa|sk)-[A-Za-z0-9@.-]+$")
DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def host_keys(pattern="/etc/ssh/ssh_host_*_key.pub"):
    """["type base64"] of the node's SSH host public keys, sorted by file, without comments."""
    keys = []
    for path in sorted(glob.glob(pattern)):
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as handle:
            match = HOST_KEY.match(handle.read().strip())
        if match:
            keys.append(f"{match[1]} {match[2]}")
    return keys


def own_addresses(ip_output):
    """The IPv4 and IPv6 addresses in ``ip -o addr show``'s output, loopback left out, IPv4 first:
    the addresses setup's network facts list as all_ipv4_addresses and all_ipv6_addresses."""
    ipv4, ipv6 = [], []
    for line in ip_output.splitlines():
        match = re.search(r"\sinet(6?)\s+([0-9A-Fa-f.:]+)(?:/\d+)?\s", line)
        if not match or match[2].startswith("127.") or match[2] == "::1":
            continue
        found = ipv6 if match[1] else ipv4
        if match[2] not in found:
            found.append(match[2])
    return ipv4 + ipv6


def own_host_names():
    """(fqdn, short host name) of this node, as setup's facts fqdn and hostname read them."""
    return socket.getfqdn(), platform.node().split(".")[0]


def node_names(fqdn, inventory_hostname, hostname):
    """The host names (no addresses, no loopback names) a node is reached by, names with a domain
    first: /etc/hosts puts the canonical name first."""
    names = []
    for name in (fqdn, inventory_hostname, hostname, inventory_hostname.split(".")[0]):
        if (not name or re.match(r"^localhost(\.|$)", name) or re.match(r"^[0-9.]+$", name)
                or ":" in name or name in names):
            continue
        names.append(name)
    return [name for name in names if "." in name] + [name for name in names if "." not in name]


def account(name):
    """{"name", "uid", "gid", "home", "groups"} of user ``name`` as NSS knows it (local, LDAP, SSSD),
    or None; "groups" names every group it belongs to, its primary group included."""
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        return None
    return {"name": entry.pw_name, "uid": entry.pw_uid, "gid": entry.pw_gid, "home": entry.pw_dir,
            "groups": [_group_name(gid) for gid in os.getgrouplist(entry.pw_name, entry.pw_gid)]}


def _group_name(gid):
    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return str(gid)


def group_exists(name):
    try:
        grp.getgrnam(name)
    except KeyError:
        return False
    return True


def read_errors(params, keys, addresses, setfacl):
    """The messages of what makes this node unusable for ssh_trust, in the order the role reports
    them; empty when it is usable."""
    host = params["host"]
    errors = []
    if params["address"] not in addresses:
        errors.append(
            f"{host}: ansible_host: {params['address']} is not one of this node's addresses "
            f"({', '.join(addresses)}); ssh_trust writes it into /etc/hosts and known_hosts as the "
            "node's cluster address, so set it to the node's host IP")
    if not keys:
        errors.append(
            f"{host}: no SSH host key found in /etc/ssh/ssh_host_*_key.pub (is {params['server_package']} "
            f"installed and has its {params['sshd_service']} service generated its keys?)")
    if params["login"] != params["user"] and not setfacl:
        errors.append(
            f"{host}: ssh_trust_user: Ansible logs in as {params['login']} and becomes {params['user']}, "
            f"which needs setfacl on the node: install the package {params['acl_package']}")
    if params["npu_group"] and not group_exists(params["npu_group"]):
        errors.append(
            f"{host}: ssh_trust_npu_group: group {params['npu_group']} does not exist on this NPU node. "
            "The NPU driver's installer creates it (its --install-username); install the driver, or set "
            "ssh_trust_npu_group to the group that owns /dev/davinci0")
    return errors


def key_label(line):
    """The last 16 characters of a key line's base64 blob: enough to tell keys apart in a log."""
    blob = next((field for field in line.split() if field.startswith("AAAA")), "")
    return "..." + blob[-16:]


def authorized_keys(text, public_key, comment):
    """(new text, [removed lines]) of authorized_keys ``text`` with the cluster key ``public_key``
    ("type base64") present and every other key carrying the cluster's ``comment`` removed.
    Lines are kept as they are otherwise, the user's own keys and options included."""
    blob = public_key.split()[1]
    kept, removed, present = [], [], False
    for line in text.splitlines():
        fields = line.split()
        if line.strip() and not line.lstrip().startswith("#"):
            if blob in fields:
                present = True
            elif fields[-1] == comment:
                removed.append(line)
                continue
        kept.append(line)
    if not present:
        kept.append(f"{public_key} {comment}")
    return "".join(line + "\n" for line in kept), removed


class UnsafeHome(Exception):
    """~/.ssh is not a directory the role may write in (a link, a file)."""


class SshDir:
    """The training user's ~/.ssh, opened once without following links; every read and write is
    relative to it. ``planned`` lists what a run changes (or would, in check mode)."""

    def __init__(self, user, check_mode):
        self.user, self.check_mode = user, check_mode
        self.path = os.path.join(user["home"], ".ssh")
        self.planned, self.diffs = [], []
        self.fd = self._open()

    def _open(self):
        home = os.open(self.user["home"], os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            try:
                info = os.stat(".ssh", dir_fd=home, follow_symlinks=False)
            except FileNotFoundError:
                self.planned.append(self.path)
                if self.check_mode:
                    return None
                os.mkdir(".ssh", 0o700, dir_fd=home)
                info = os.stat(".ssh", dir_fd=home, follow_symlinks=False)
            if not stat.S_ISDIR(info.st_mode):
                raise UnsafeHome(f"{self.path} is not a directory (a link or a file): the role writes the "
                                 "cluster key only into a real directory; move it away and run again")
            fd = os.open(".ssh", DIR_FLAGS, dir_fd=home)
        finally:
            os.close(home)
        self._own(fd, 0o700, self.path)
        return fd

    def _own(self, fd, mode, path):
        info = os.fstat(fd)
        if (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (self.user["uid"], self.user["gid"], mode):
            return
        if path not in self.planned:
            self.planned.append(path)
        if not self.check_mode:
            os.fchown(fd, self.user["uid"], self.user["gid"])
            os.fchmod(fd, mode)

    def read(self, name):
        """The text of regular file ``name`` in ~/.ssh, or None when it is absent."""
        if self.fd is None:
            return None
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=self.fd)
        except FileNotFoundError:
            return None
        except OSError as error:
            raise UnsafeHome(f"{self.path}/{name} cannot be read without following a link: {error}") from error
        with os.fdopen(fd, encoding="utf-8", errors="surrogateescape") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise UnsafeHome(f"{self.path}/{name} is not a regular file")
            return handle.read()

    def ensure(self, name, content, mode, show_diff=True):
        """Make ~/.ssh/``name`` hold ``content`` with ``mode``, owned by the user."""
        path = f"{self.path}/{name}"
        before = self.read(name)
        if before == content:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=self.fd)
            try:
                self._own(fd, mode, path)
            finally:
                os.close(fd)
            return
        self.planned.append(path)
        if show_diff:
            self.diffs.append({"before_header": path, "after_header": path,
                               "before": before or "", "after": content})
        if self.check_mode:
            return
        temporary = f".{name}.cluster-suite.{os.getpid()}"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600,
                     dir_fd=self.fd)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as handle:
                os.fchown(handle.fileno(), self.user["uid"], self.user["gid"])
                os.fchmod(handle.fileno(), mode)
                handle.write(content)
                handle.flush()
                os.fsync(handle.fileno())
            os.rename(temporary, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        except BaseException:
            os.unlink(temporary, dir_fd=self.fd)
            raise

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
