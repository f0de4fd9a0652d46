"""What the preflight doctor reads on one node: parsers and collectors, no verdicts.

Plain stdlib functions (see docs/architecture.md); plugins/modules/doctor_probe.py is the thin module
around them. Every collector takes its I/O as arguments (``run`` for commands, ``read`` for
files, ``which`` for PATH look-ups) so the unit tests drive them with fakes. A collector never
raises for what the node lacks: a missing tool, file or package is data (``absent`` or
``error``), judged on the controller by plugins/plugin_utils/doctor/report.py.
"""

import json
import os
import re
import shlex

# CANN layouts in the order role npu_env detects them; each with the files that hold the version.
CANN_LAYOUTS = (
    ("ascend-toolkit", "ascend-toolkit/latest", ("ascend_toolkit_install.info", "version.cfg")),
    ("nnae", "nnae/latest", ("ascend_nnae_install.info", "version.cfg")),
    ("toolkit", "toolkit", ("version.info", "version.cfg")),
)
NCCL_HEADERS = ("/usr/include/nccl.h", "/usr/local/cuda/include/nccl.h", "/usr/local/nccl/include/nccl.h")
FRAMEWORKS = ("mindspore", "torch", "torch_npu")

_OMPI_VERSION = re.compile(r"Open MPI\)? v?(\d+\.\d+(?:\.\d+)?\S*)")
_KEY_VERSION = re.compile(r"^\s*(?:package_)?version\s*[=:]\s*([0-9][^\s\"']*)\s*$", re.I | re.M)
_NCCL_DEFINE = re.compile(r"^\s*#define\s+NCCL_(MAJOR|MINOR|PATCH)\s+(\d+)\s*$", re.M)
_NCCL_LIB = re.compile(r"libnccl\.so\.(\d+\.\d+\.\d+)$")
_UFW_ACTIVE = re.compile(r"^Status:\s*(\S+)", re.M)

# Run by the node's training Python, once per framework (a crash in one import cannot hide the
# others). Prints one JSON line; never raises.
FRAMEWORK_SCRIPT = r"""
import json, sys, platform
name = sys.argv[1]
out = {"python": platform.python_version(), "executable": sys.executable, "module": name}
try:
    import importlib
    module = importlib.import_module(name)
    out["version"] = str(getattr(module, "__version__", "") or "unknown")
except ModuleNotFoundError as exc:
    if exc.name == name or (exc.name or "").split(".")[0] == name:
        out["absent"] = True
    else:
        out["error"] = "%s: %s" % (type(exc).__name__, exc)
except BaseException as exc:  # noqa: B036 - report anything the import raises
    out["error"] = "%s: %s" % (type(exc).__name__, str(exc).strip().splitlines()[-1:] or "")
print("DOCTOR-JSON " + json.dumps(out))
"""


def parse_ip_addr_json(text):
    """``ip -j addr show`` -> {ifname: {"up": bool, "ipv4": ["10.0.0.2/24", ...]}}.

    Raises ValueError quoting the text when it is not ip's JSON.
    """
    try:
        links = json.loads(text)
    except ValueError:
        raise ValueError("cannot parse `ip -j addr show` output: %r" % (text[:200],)) from None
    if not isinstance(links, list):
        raise ValueError("cannot parse `ip -j addr show` output: %r" % (text[:200],))
    interfaces = {}
    for link in links:
        if not isinstance(link, dict) or "ifname" not in link:
            continue
        addresses = [
            "%s/%s" % (info["local"], info.get("prefixlen", 32))
            for info in link.get("addr_info") or []
            if info.get("family") == "inet" and info.get("local")
        ]
        interfaces[link["ifname"]] = {"up": "UP" in (link.get("flags") or []), "ipv4": addresses}
    return interfaces


def parse_hosts_file(text):
    """/etc/hosts -> [[address, [names...]], ...] in file order, comments and blanks dropped."""
    entries = []
    for line in text.splitlines():
        fields = line.split("#", 1)[0].split()
        if len(fields) >= 2:
            entries.append([fields[0], fields[1:]])
    return entries


def parse_ufw_status(text):
    """``ufw status`` -> {"active": bool, "rules": [rule lines]} (ValueError when unparseable)."""
    match = _UFW_ACTIVE.search(text or "")
    if match is None:
        raise ValueError("cannot parse `ufw status` output: %r" % ((text or "")[:200],))
    rules = []
    in_rules = False
    for line in text.splitlines():
        if line.startswith("--"):
            in_rules = True
            continue
        if in_rules and line.strip():
            rules.append(" ".join(line.split()))
    return {"active": match.group(1).lower() == "active", "rules": rules}


def parse_ompi_info_version(text):
    """``ompi_info --version`` ("Open MPI v4.1.4") -> "4.1.4" (ValueError when absent)."""
    match = _OMPI_VERSION.search(text or "")
    if match is None:
        raise ValueError("cannot find the Open MPI version in %r" % ((text or "")[:200],))
    return match.group(1)


def parse_version_file(text):
    """version=7.0.0 / Version=23.0.0 / package_version=... -> the first version, or None."""
    match = _KEY_VERSION.search(text or "")
    return match.group(1) if match else None


def parse_nccl_header(text):
    """nccl.h's NCCL_MAJOR/MINOR/PATCH defines -> "2.18.1", or None."""
    parts = dict(_NCCL_DEFINE.findall(text or ""))
    if {"MAJOR", "MINOR", "PATCH"} <= set(parts):
        return "%s.%s.%s" % (parts["MAJOR"], parts["MINOR"], parts["PATCH"])
    return None


def nccl_version_from_library(path):
    """/usr/lib/x86_64-linux-gnu/libnccl.so.2.18.1 -> "2.18.1", or None."""
    match = _NCCL_LIB.search(path or "")
    return match.group(1) if match else None


def parse_framework_output(stdout):
    """The JSON line of FRAMEWORK_SCRIPT, or None when the script printed none."""
    for line in (stdout or "").splitlines():
        if line.startswith("DOCTOR-JSON "):
            try:
                return json.loads(line[len("DOCTOR-JSON "):])
            except ValueError:
                return None
    return None


def _first_line(text, limit=300):
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return (lines[-1] if lines else "")[:limit]


# --- collectors -------------------------------------------------------------------------


def collect_cann(install_path, read):
    """The CANN version under ``install_path`` in role npu_env's layout order.

    ``read(path)`` returns the file's text or None. Returns {"layout", "path", "version"} or
    {"absent": True, "looked_in": [...]}.
    """
    looked = []
    for layout, root, files in CANN_LAYOUTS:
        for name in files:
            path = os.path.join(install_path, root, name)
            looked.append(path)
            version = parse_version_file(read(path) or "")
            if version:
                return {"layout": layout, "path": path, "version": version}
    return {"absent": True, "looked_in": looked}


def collect_nccl(read, run):
    """NCCL's version from nccl.h, else from the libnccl.so.X.Y.Z the linker cache knows."""
    for header in NCCL_HEADERS:
        version = parse_nccl_header(read(header) or "")
        if version:
            return {"version": version, "source": header}
    rc, out, _err = run(["ldconfig", "-p"])
    if rc == 0:
        for line in out.splitlines():
            if "libnccl.so" in line and "=>" in line:
                path = line.split("=>", 1)[1].strip()
                version = nccl_version_from_library(os.path.realpath(path)) or nccl_version_from_library(path)
                if version:
                    return {"version": version, "source": path}
    return {"absent": True}


def collect_firewall(run, which):
    """ufw and firewalld: installed, active/running, ufw's rules, firewalld's open ports."""
    result = {"ufw": {"installed": False, "active": False, "rules": []},
              "firewalld": {"installed": False, "running": False, "ports": []}}
    ufw = which("ufw")
    if ufw:
        result["ufw"]["installed"] = True
        rc, out, err = run([ufw, "status"])
        try:
            result["ufw"].update(parse_ufw_status(out))
        except ValueError:
            result["ufw"]["error"] = "ufw status failed (rc %s): %s" % (rc, _first_line(err or out))
    cmd = which("firewall-cmd")
    if cmd:
        result["firewalld"]["installed"] = True
        rc, out, _err = run([cmd, "--state"])
        result["firewalld"]["running"] = rc == 0 and out.strip() == "running"
        if result["firewalld"]["running"]:
            rc, out, _err = run([cmd, "--list-ports"])
            result["firewalld"]["ports"] = out.split() if rc == 0 else []
    return result


def collect_system(run, read, which, options):
    """Everything root may read on the node, in one dict (see plugins/modules/doctor_probe.py RETURN)."""
    out = {}
    rc, text, err = run(["hostname"])
    out["hostname"] = text.strip() if rc == 0 else None
    rc, text, err = run(["hostname", "-f"])
    out["fqdn"] = text.strip() if rc == 0 and text.strip() else out["hostname"]
    rc, text, err = run(["ip", "-j", "addr", "show"])
    try:
        if rc != 0:
            raise ValueError("ip -j addr show failed (rc %s): %s" % (rc, _first_line(err)))
        out["interfaces"] = parse_ip_addr_json(text)
    except ValueError as exc:
        out["interfaces"] = None
        out["interfaces_error"] = str(exc)
    hosts = read("/etc/hosts")
    out["hosts_file"] = parse_hosts_file(hosts) if hosts is not None else None
    out["firewall"] = collect_firewall(run, which)
    out["nccl"] = collect_nccl(read, run)
    if options.get("cann_install_path"):
        out["cann"] = collect_cann(options["cann_install_path"], read)
    return out


def marker_build(marker):
    """What the openmpi role's marker says of the build: {"key", "os", "architecture", "prefix",
    "configure_flags", "source_sha256"} (None when the marker does not say)."""
    if not isinstance(marker, dict) or not isinstance(marker.get("key_fields"), dict):
        return None
    fields = marker["key_fields"]
    return {
        "key": str(marker.get("build_key") or ""),
        "os": ("%s %s" % (fields.get("distribution", ""), fields.get("distribution_major_version", ""))).strip(),
        "architecture": str(fields.get("architecture", "")),
        "prefix": str(fields.get("prefix", "")),
        "configure_flags": [str(flag) for flag in fields.get("configure_flags") or []],
        "source_sha256": str(fields.get("source_sha256", "")),
    }


def collect_openmpi(run, which, read, marker_file=None):
    """``ompi_info --version`` on this user's PATH; the role's marker file as a second opinion."""
    result = {}
    marker_text = read(marker_file) if marker_file else None
    if marker_text:
        try:
            marker = json.loads(marker_text)
        except ValueError:
            marker = None
        result["marker_version"] = str(marker.get("version")) if isinstance(marker, dict) else None
        build = marker_build(marker)
        if build:
            result["build"] = build
    path = which("ompi_info")
    if not path:
        result["absent"] = True
        result["error"] = "ompi_info is not on PATH (%s)" % os.environ.get("PATH", "")
        return result
    result["path"] = path
    rc, out, err = run([path, "--version"])
    try:
        result["version"] = parse_ompi_info_version(out)
    except ValueError:
        result["error"] = "%s --version failed (rc %s): %s" % (path, rc, _first_line(err or out))
    return result


def framework_command(python, name, env_script=None):
    """argv importing ``name`` with ``python``, after sourcing ``env_script`` when given."""
    if env_script:
        shell = '. %s >/dev/null 2>&1; exec "$0" -c "$1" "$2"' % shlex.quote(env_script)
        return ["sh", "-c", shell, python, FRAMEWORK_SCRIPT, name]
    return [python, "-c", FRAMEWORK_SCRIPT, name]


def collect_python(python, frameworks, run_many, env_script=None):
    """The training Python's version and each framework's, importing each in its own process.

    ``run_many(list of argv)`` runs them (in parallel) and returns [(rc, out, err), ...].
    Returns {"python": {...}, "frameworks": {name: {...}}}.
    """
    names = list(frameworks)
    commands = [framework_command(python, name, env_script) for name in names] or \
        [framework_command(python, "sys", env_script)]
    results = run_many(commands)
    python_info = None
    found = {}
    errors = []
    for name, (rc, out, err) in zip(names or ["sys"], results):
        data = parse_framework_output(out)
        if data is None:
            errors.append("rc %s: %s" % (rc, _first_line(err or out) or "no output"))
            found[name] = {"error": "the import did not run: rc %s: %s" % (rc, _first_line(err or out) or "no output")}
            continue
        if python_info is None:
            python_info = {"path": python, "executable": data.get("executable"), "version": data.get("python")}
        entry = {key: data[key] for key in ("version", "absent", "error") if key in data}
        found[name] = entry
    if python_info is None:
        return {"python": {"path": python, "error": errors[0] if errors else "no output"}, "frameworks": None}
    return {"python": python_info, "frameworks": found if names else {}}
