"""OpenMPI from source, built once per cluster: settings checks, build keys, the build plan.

Plain functions over plain data (no Ansible imports), used by plugins/filter/openmpi_build.py
and unit tested in tests/unit/test_openmpi_build.py.

A *build key* names everything that makes two OpenMPI installations interchangeable: the
operating system release, the CPU architecture, the OpenMPI version, the configure flags, the
sha256 of the source tarball and the install prefix (OpenMPI compiles its prefix into the
binaries, so an archive of /usr/local/openmpi-4.1.4 cannot be unpacked elsewhere). Nodes with
the same key get byte-identical installations, so one of them builds and the others unpack.
"""
import hashlib
import json
import posixpath
import re

VERSION = re.compile(r"4\.\d+\.\d+")
SHA256 = re.compile(r"[0-9a-f]{64}")
TARBALL_SUFFIXES = (".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")
# What build_plan implements (the argument spec offers the same choices to the operator).
STRATEGIES = ("once", "every_node")
# Directories the role would wipe on a reinstall if they were the prefix: refuse them.
SYSTEM_DIRS = {"/", "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib64", "/opt", "/proc",
               "/root", "/run", "/sbin", "/srv", "/sys", "/tmp", "/usr", "/usr/bin", "/usr/lib",
               "/usr/local", "/usr/local/bin", "/usr/local/lib", "/usr/sbin", "/var", "/var/tmp"}
UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")
# Directories every local user can create entries in: whoever creates a name there first owns it,
# so root must never build (and the training user never compile and run) below them.
WORLD_WRITABLE_DIRS = ("/tmp", "/var/tmp", "/dev/shm", "/run/shm", "/run/lock", "/var/lock",
                       "/dev/mqueue", "/var/crash")
# Shared directories the role would make mode 0700 if they were a private directory.
SHARED_DIRS = SYSTEM_DIRS | {"/var/lib", "/var/cache", "/var/log", "/var/spool", "/usr/src",
                             "/usr/local/src", "/usr/local/share", "/mnt", "/media", "/run/user"}


def settings_errors(settings, host="controller"):
    """Every problem of the role's settings, each message naming the variable.

    ``settings`` holds openmpi_version, openmpi_source_url, openmpi_source_file,
    openmpi_source_file_exists (bool, checked on the controller), openmpi_source_sha256,
    openmpi_prefix and openmpi_configure_flags (openmpi_build_strategy's choices are the argument
    spec's, checked by role_settings.choice_problems).
    """
    errors = []

    def err(var, text):
        errors.append(f"{host}: {var}: {text}")

    version = settings.get("openmpi_version")
    if not isinstance(version, str) or not VERSION.fullmatch(version):
        err("openmpi_version", f"{version!r} does not look like an OpenMPI 4.x release "
            f"(4.MINOR.PATCH, e.g. 4.1.4 or 4.0.3); quote it in YAML")

    url = settings.get("openmpi_source_url") or ""
    path = settings.get("openmpi_source_file") or ""
    if bool(url) == bool(path):
        err("openmpi_source_url/openmpi_source_file",
            "set exactly one: a URL to download on the controller, or the path of the tarball "
            "on the controller (air-gapped); " + ("both are set" if url else "neither is set"))
    source = url or path
    if source and not source.split("?", 1)[0].endswith(TARBALL_SUFFIXES):
        err("openmpi_source_url" if url else "openmpi_source_file",
            f"{source} is not a release tarball (.tar.gz, .tar.bz2 or .tar.xz)")
    if url and not re.match(r"^(https?|ftp|file)://", url):
        err("openmpi_source_url", f"{url} is not an http(s), ftp or file URL")
    if path:
        if not posixpath.isabs(path):
            err("openmpi_source_file", f"{path} is not an absolute path on the controller")
        elif not settings.get("openmpi_source_file_exists"):
            err("openmpi_source_file", f"{path} does not exist on the controller "
                f"(for the sandbox: run sandbox/fetch-openmpi-source.sh)")

    sha = settings.get("openmpi_source_sha256")
    if not isinstance(sha, str) or not SHA256.fullmatch(sha.lower()):
        err("openmpi_source_sha256", f"{sha!r} is not a sha256 (64 hexadecimal characters)")

    prefix = settings.get("openmpi_prefix")
    if not isinstance(prefix, str) or not posixpath.isabs(prefix):
        err("openmpi_prefix", f"{prefix!r} is not an absolute path")
    elif posixpath.normpath(prefix) in SYSTEM_DIRS:
        err("openmpi_prefix", f"{prefix} is a system directory; OpenMPI needs a prefix of its "
            f"own (it is removed and recreated on a rebuild), e.g. /usr/local/openmpi-{version}")

    flags = settings.get("openmpi_configure_flags")
    if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags):
        err("openmpi_configure_flags", "must be a list of strings")
    else:
        for flag in flags:
            if flag.startswith("--prefix"):
                err("openmpi_configure_flags", f"{flag}: set the prefix with openmpi_prefix")

    if "openmpi_build_dir" in settings:
        build_dir = settings["openmpi_build_dir"]
        problems = private_path_errors(build_dir, "openmpi_build_dir", host)
        errors.extend(problems)
        if not problems and isinstance(prefix, str) and posixpath.isabs(prefix):
            build, inst = posixpath.normpath(build_dir), posixpath.normpath(prefix)
            if _inside(build, inst) or _inside(inst, build):
                err("openmpi_build_dir", f"{build_dir} and openmpi_prefix {prefix} overlap; a "
                    f"rebuild removes the prefix, so the build directory must be elsewhere")
    if "openmpi_ring_dir" in settings:
        errors.extend(private_path_errors(settings["openmpi_ring_dir"], "openmpi_ring_dir", host,
                                          home=True))
    return errors


def _inside(path, directory):
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def private_path_errors(path, var, host="controller", home=False):
    """Problems of ``path`` as a private directory (mode 0700, one owner), checked on the
    controller before any node is touched. ``home``: "~/..." (the user's home) is allowed.
    """
    def err(text):
        return [f"{host}: {var}: {text}"]

    if not isinstance(path, str) or not path.strip():
        return err(f"{path!r} is not a path")
    if path != path.strip() or "\n" in path:
        return err(f"{path!r} has leading/trailing blanks or a line break")
    full = path
    if home and (path == "~" or path.startswith("~/")):
        full = "/home/USER" + path[1:]
    elif path.startswith("~"):
        return err(f"{path} is not an absolute path" + (" (only ~/ of the user itself may start it)"
                                                          if home else ""))
    if not posixpath.isabs(full):
        return err(f"{path} is not an absolute path" + (" or one under ~/" if home else ""))
    if ".." in full.split("/"):
        return err(f"{path} contains '..'; give the real path")
    norm = posixpath.normpath(full)
    if norm.startswith("//"):
        norm = "/" + norm.lstrip("/")
    for shared in WORLD_WRITABLE_DIRS:
        if _inside(norm, shared):
            return err(f"{path} is in {shared}, where any local user can create that name first "
                       f"(or a symbolic link to it); use a directory of its own such as "
                       + ("~/.cache/cluster-suite/openmpi-ring" if home
                          else "/var/lib/cluster-suite/openmpi-build"))
    if norm in SHARED_DIRS or norm == "/home/USER":
        return err(f"{path} is a shared directory; the role needs one of its own "
                   f"(it is made mode 0700)")
    return []


def path_chain(path):
    """``path`` and every directory above it, from "/" down: what must be safe to work in it."""
    norm = posixpath.normpath(path)
    chain, current = ["/"], ""
    for part in [p for p in norm.split("/") if p]:
        current += "/" + part
        chain.append(current)
    return chain


def private_dir_errors(chain, owner, var, host="controller"):
    """Problems of a private directory on a node, from lstat results (symbolic links are never
    followed) of it and every directory above it, in the order of path_chain().

    ``chain``: [{"path", "exists", "islnk", "isdir", "pw_name", "uid", "mode" ("0755")}, ...],
    the last entry the directory itself. Above it, every existing directory must be a real
    directory owned by root or ``owner`` and writable by nobody else (or it could be swapped);
    the directory itself, when it exists, must be a real directory of ``owner`` with mode 0700.
    A missing directory is fine: the role creates it.
    """
    errors = []
    if not chain:
        return [f"{host}: {var}: nothing to check"]
    target = chain[-1].get("path")

    def err(text):
        errors.append(f"{host}: {var}: {target}: {text}")

    def who(st):
        return f"{st.get('pw_name') or 'uid'} (uid {st.get('uid')})"

    def link(st):
        return st.get("lnk_target") or st.get("lnk_source") or "?"

    for st in chain[:-1]:
        if not st.get("exists"):
            break
        path = st.get("path")
        if st.get("islnk"):
            err(f"{path} above it is a symbolic link (to {link(st)}); give a path without "
                f"symbolic links")
        elif not st.get("isdir"):
            err(f"{path} above it is not a directory")
        elif st.get("pw_name") not in ("root", owner) or (owner == "root" and st.get("uid") != 0):
            err(f"{path} above it belongs to {who(st)}, who could swap the directory; "
                f"only root{'' if owner == 'root' else ' or ' + owner} may own the directories above it")
        elif int(str(st.get("mode") or "0"), 8) & 0o022:
            err(f"{path} above it is writable by others (mode {st.get('mode')}), "
                f"who could swap the directory")
    st = chain[-1]
    if st.get("exists"):
        if st.get("islnk"):
            err(f"is a symbolic link (to {link(st)}), someone may have planted it; remove it "
                f"or choose another {var}")
        elif not st.get("isdir"):
            err(f"exists and is not a directory; remove it or choose another {var}")
        elif st.get("pw_name") != owner or (owner == "root" and st.get("uid") != 0):
            err(f"belongs to {who(st)}, not {owner}: someone else created it first; "
                f"remove it or choose another {var}")
        elif str(st.get("mode")).lstrip("0") != "700":
            err(f"has mode {st.get('mode')}, not 0700; anyone it lets in could change what "
                f"{owner} runs there (chmod 0700 it, or choose another {var})")
    return errors


def build_key(facts, version, flags, sha256, prefix):
    """The build key of a node: {"id": readable unique name, "fields": what it is made of}.

    ``facts`` holds the node's distribution, distribution_major_version, distribution_release
    and architecture (Ansible facts); a node without distribution or architecture (its facts not
    gathered) is refused rather than keyed "unknown".
    """
    missing = [name for name in ("distribution", "architecture") if not facts.get(name)]
    if missing:
        raise ValueError(f"the node's facts have no {', '.join(missing)}: gather them first "
                         "(ansible.builtin.setup, gather_subset min)")
    fields = {
        "distribution": str(facts.get("distribution", "unknown")),
        "distribution_major_version": str(facts.get("distribution_major_version", "")),
        "distribution_release": str(facts.get("distribution_release", "")),
        "architecture": str(facts.get("architecture", "unknown")),
        "version": str(version),
        "configure_flags": [str(f) for f in flags],
        "source_sha256": str(sha256).lower(),
        "prefix": posixpath.normpath(str(prefix)),
    }
    digest = hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:12]
    os_name = UNSAFE_NAME.sub("", fields["distribution"].lower() + fields["distribution_major_version"])
    arch = UNSAFE_NAME.sub("", fields["architecture"])
    key_id = f"openmpi-{UNSAFE_NAME.sub('', fields['version'])}-{os_name}-{arch}-{digest}"
    return {"id": key_id, "fields": fields}


def marker_key(text):
    """The build key id recorded in an installation's marker file ('' when unreadable)."""
    if not text:
        return ""
    try:
        data = json.loads(text)
    except (TypeError, ValueError):
        return ""
    key = data.get("build_key") if isinstance(data, dict) else None
    return key if isinstance(key, str) else ""


def _nodes(count):
    return f"{count} node{'s' if count != 1 else ''}"


def build_plan(host_states, cached_ids, strategy):
    """Decide who builds, who archives, who unpacks and who is already current.

    ``host_states``: {host: {"key": key id, "needs_install": bool}} in inventory order.
    ``cached_ids``: key ids whose archive is already in the controller cache.
    ``strategy``: "once" (one build per key, archived, unpacked elsewhere) or "every_node"
    (the baseline: each node that needs OpenMPI builds it itself, no archive, no cache).

    With "once", a key that some nodes need is served, in this order of preference, by the
    cached archive (no node builds), by archiving the prefix of a node that already has the key
    installed (no node builds), or by building on the first node that needs it.

    Returns {"hosts": {host: {"action", "key", "archive"}}, "keys": [...], "builds": n,
    "summary": [lines]}. Actions: "build" (configure, make, make install; "archive": true when
    its prefix is then archived for the others), "archive" (already current, archives its
    prefix for the others), "unpack" (unpacks the archive) and "none" (already current).
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"openmpi_build_strategy: {strategy!r} is not one of {', '.join(STRATEGIES)}")
    cached = set(cached_ids or [])
    keys, order = {}, []
    for host, state in host_states.items():
        key = state["key"]
        if key not in keys:
            keys[key] = {"id": key, "needing": [], "current": []}
            order.append(key)
        keys[key]["needing" if state.get("needs_install") else "current"].append(host)

    hosts = {}
    for key in order:
        entry = keys[key]
        needing, current = entry.pop("needing"), entry["current"]
        entry.update(source="none", builder=None, archived_from=None, built_on=[], unpacked_on=[])
        for host in current:
            hosts[host] = {"action": "none", "key": key, "archive": False}
        if not needing:
            continue
        if strategy == "every_node":
            entry["source"] = "build"
            entry["built_on"] = list(needing)
        elif key in cached:
            entry["source"] = "cache"
            entry["unpacked_on"] = list(needing)
        elif current:
            entry["source"] = "installed"
            entry["archived_from"] = current[0]
            entry["unpacked_on"] = list(needing)
            hosts[current[0]] = {"action": "archive", "key": key, "archive": True}
        else:
            entry["source"] = "build"
            entry["builder"] = needing[0]
            entry["built_on"] = [needing[0]]
            entry["unpacked_on"] = needing[1:]
        for host in entry["built_on"]:
            hosts[host] = {"action": "build", "key": key, "archive": host == entry["builder"]}
        for host in entry["unpacked_on"]:
            hosts[host] = {"action": "unpack", "key": key, "archive": False}

    summary = []
    for key in order:
        entry = keys[key]
        parts = []
        if strategy == "every_node" and entry["built_on"]:
            parts.append(f"built on each of {_nodes(len(entry['built_on']))} (every_node)")
        elif entry["built_on"]:
            parts.append(f"built on {entry['built_on'][0]}")
        if entry["source"] == "cache":
            parts.append("from cache (no build)")
        elif entry["source"] == "installed":
            parts.append(f"archived from {entry['archived_from']}'s installation (no build)")
        if entry["unpacked_on"]:
            parts.append(f"unpacked on {_nodes(len(entry['unpacked_on']))}")
        if entry["current"]:
            parts.append(f"already installed on {_nodes(len(entry['current']))}")
        summary.append(f"OpenMPI {key}: {', '.join(parts)}")
    builds = sum(len(keys[k]["built_on"]) for k in order)
    summary.append(f"OpenMPI builds in this run: {builds}")
    return {"hosts": hosts, "keys": [keys[k] for k in order], "builds": builds,
            "summary": summary}


def ring_errors(stdout, ranks):
    """What is missing from the output of examples/ring_c.c run with ``ranks`` processes."""
    lines = set((stdout or "").splitlines())
    errors = [f"rank {rank} did not report 'Process {rank} exiting'"
              for rank in range(ranks) if f"Process {rank} exiting" not in lines]
    if f"Process 0 sending 10 to {1 % max(ranks, 1)}, tag 201 ({ranks} processes in ring)" not in lines:
        errors.append(f"rank 0 did not start a ring of {ranks} processes")
    return errors
