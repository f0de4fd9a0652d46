"""Role python_env on the controller: the pinned packages, the wheelhouse key of a node, and the
checks of a combination against the compatibility table (roles/python_env/files/compat.yml)
before any node changes. Every message names the host and the variable to fix."""

import re

from ansible_collections.cluster_suite.hpc.plugins.module_utils.python_env_node import version_matches

# Versions as pip pins them (PEP 440 public versions, optionally +local such as 2.13.0+cpu).
VERSION = re.compile(r"[0-9]+(\.[0-9]+)*((a|b|rc)[0-9]+)?(\.post[0-9]+)?(\.dev[0-9]+)?(\+[A-Za-z0-9.]+)?",
                     re.ASCII)
# A CANN release as its version file and the compatibility table write it: 8.3.RC1, 8.0.0, 7.0.0.
CANN = re.compile(r"[0-9]+\.[0-9]+\.([0-9]+|RC[0-9]+)(\.[A-Za-z0-9]+)*", re.ASCII | re.IGNORECASE)
# An extra requirement: one pinned distribution, name==version.
EXTRA = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]*)==(%s)" % VERSION.pattern, re.ASCII)
# The framework settings: variable -> the distribution it pins.
PINS = (("python_env_mindspore_version", "mindspore"), ("python_env_torch_version", "torch"),
        ("python_env_torch_npu_version", "torch_npu"), ("python_env_apex_version", "apex"))
BACKENDS = ("auto", "ascend", "gpu", "cpu")
SOURCE = ("the compatibility table (roles/python_env/files/compat.yml: Ascend's PyTorch "
          "multi-node training guide and Ascend Extension for PyTorch version table; MindSpore's "
          "installation guide)")


def release(version):
    """The public release of a version: 2.13.0+cpu -> 2.13.0, 2.1.0.post17 -> 2.1.0."""
    text = str(version).split("+", 1)[0]
    return re.split(r"\.post|\.dev|a|b|rc", text, maxsplit=1)[0]


def normalised(name):
    """A distribution name as pip compares them (PEP 503): absl_py, Absl.Py -> absl-py."""
    return re.sub(r"[-_.]+", "-", str(name)).lower()


def cann_pins(compat):
    """[(distribution, version)] of CANN's Python dependencies in the compatibility table."""
    return [(str(name), str(version)) for name, version in ((compat or {}).get("cann_python") or {}).items()]


def pins(settings, compat=None, with_cann=False):
    """[(distribution, version)] the settings ask for, frameworks first, then the extras; with_cann
    (an NPU node with a framework pinned) adds CANN's Python dependencies from the compatibility
    table, except those the settings pin themselves."""
    found = [(name, str(settings[var])) for var, name in PINS if settings.get(var)]
    for line in settings.get("python_env_extra_requirements") or []:
        match = EXTRA.fullmatch(str(line))
        if match:
            found.append((match.group(1), match.group(2)))
    if with_cann:
        pinned = {normalised(name) for name, _ in found}
        found += [(name, version) for name, version in cann_pins(compat) if normalised(name) not in pinned]
    return found


def requirement_lines(settings, compat=None, with_cann=False):
    """pip requirements of the pins, each the exact build: === compares the version as text,
    where == would take any local label of the release (2.13.0+cu121 for ==2.13.0)."""
    return ["%s===%s" % pair for pair in pins(settings, compat, with_cann)]


def wheelhouse_key(python_version, machine, libc_version):
    """The wheelhouse directory of a node: Python tag and platform tag, e.g.
    cp311-manylinux_2_36_x86_64 (glibc 2.36, x86_64)."""
    major, minor = str(python_version).split(".")[:2]
    glibc = str(libc_version).split(".")[:2]
    return "cp%s%s-manylinux_%s_%s_%s" % (major, minor, glibc[0], glibc[1], machine)


def platform_of(key):
    """pip's --platform values and --python-version for a wheelhouse key: every manylinux tag
    the node's glibc accepts (pip does not expand a given manylinux_2_N tag to older ones)."""
    python_tag, platform = key.split("-", 1)
    match = re.fullmatch(r"manylinux_([0-9]+)_([0-9]+)_(\w+)", platform)
    if not match or not re.fullmatch(r"cp[0-9]{2,3}", python_tag):
        raise ValueError("not a wheelhouse key: %r" % key)
    major, minor, machine = int(match.group(1)), int(match.group(2)), match.group(3)
    platforms = ["manylinux_%d_%d_%s" % (major, glibc, machine) for glibc in range(minor, 4, -1)]
    # The older names: manylinux2014 on every architecture, 2010 and 1 on x86 only.
    legacy = {17: "manylinux2014"} if machine not in ("x86_64", "i686") else {
        17: "manylinux2014", 12: "manylinux2010", 5: "manylinux1"}
    platforms += ["%s_%s" % (name, machine) for glibc, name in sorted(legacy.items(), reverse=True)
                  if major == 2 and glibc <= minor]
    return platforms, "%s.%s" % (python_tag[2], python_tag[3:])


def wheel_python_fits(filename, python_version):
    """Whether a wheel's Python tags accept CPython python_version (e.g. 3.11)."""
    parts = filename[:-len(".whl")].split("-")
    if len(parts) < 5:
        return False
    python_tags, abi = parts[-3].split("."), parts[-2]
    major, minor = (int(part) for part in str(python_version).split(".")[:2])
    for tag in python_tags:
        match = re.fullmatch(r"(cp|py)([0-9])([0-9]*)", tag)
        if not match or int(match.group(2)) != major:
            continue
        if not match.group(3):
            return True
        wanted = int(match.group(3))
        if wanted == minor or (wanted < minor and (abi == "abi3" or match.group(1) == "py")):
            return True
    return False


def wheel_name(filename):
    """The normalised distribution name of a wheel file (torch_npu-2.1.0...whl -> torch_npu)."""
    return re.sub(r"[-_.]+", "_", filename.split("-", 1)[0]).lower()


def _check_format(host, settings):
    errors = []
    for var, _name in PINS:
        value = settings.get(var)
        if value in (None, ""):
            continue
        if not isinstance(value, str) or not VERSION.fullmatch(value):
            errors.append("%s: %s: %r is not a version (quote it, e.g. \"2.1.0\")" % (host, var, value))
    py_spy = settings.get("python_env_py_spy_version")
    if py_spy not in (None, "") and (not isinstance(py_spy, str) or not VERSION.fullmatch(py_spy) or "+" in py_spy):
        errors.append("%s: python_env_py_spy_version: %r is not a release of py-spy (quote it, e.g. \"0.4.3\"; "
                      "\"\" installs no tools)" % (host, py_spy))
    extras = settings.get("python_env_extra_requirements") or []
    if not isinstance(extras, list):
        errors.append("%s: python_env_extra_requirements: must be a list of name==version" % host)
    else:
        for line in extras:
            if not isinstance(line, str) or not EXTRA.fullmatch(line):
                errors.append("%s: python_env_extra_requirements: %r is not name==version (one pinned "
                              "distribution)" % (host, line))
    cann = settings.get("python_env_cann_version") or ""
    if cann and (not isinstance(cann, str) or not CANN.fullmatch(cann)):
        errors.append("%s: python_env_cann_version: %r is not a CANN version such as 8.3.RC1" % (host, cann))
    if settings.get("cluster_backend", "auto") not in BACKENDS:
        errors.append("%s: cluster_backend: %r is not one of %s" % (
            host, settings.get("cluster_backend"), ", ".join(BACKENDS)))
    if settings.get("python_env_torch_npu_version") and not settings.get("python_env_torch_version"):
        errors.append("%s: python_env_torch_npu_version: torch_npu needs torch: set python_env_torch_version "
                      "too" % host)
    if settings.get("python_env_apex_version") and not settings.get("python_env_torch_npu_version"):
        errors.append("%s: python_env_apex_version: Ascend's apex is built for torch_npu: set "
                      "python_env_torch_npu_version too" % host)
    return errors


def _cann_verdict(host, var, label, version, entry, cann, cann_from):
    """Error or warning for a framework release against the node's CANN."""
    if entry is None or not cann:
        return [], []
    known = [str(item).upper() for item in entry.get("cann", [])]
    if not known:
        return [], []
    if str(cann).upper() in known:
        return [], []
    return ["%s: %s: %s %s is paired with CANN %s in %s, but %s is CANN %s" % (
        host, var, label, version, " or ".join(entry.get("cann", [])), SOURCE, cann_from, cann)], []


def combination_problems(host, settings, compat, node_cann=None, backend=None):
    """(errors, warnings) of one host's settings against the compatibility table.

    settings: the python_env_* values of the host. compat: the parsed compatibility table.
    node_cann: the CANN version the node reports (None: not read yet or not installed).
    backend: ascend, gpu or cpu (cluster_backend resolved from the host's group); CANN
    pairings are checked for ascend only.
    """
    errors = _check_format(host, settings)
    if errors:
        return errors, []
    warnings = []
    torch = settings.get("python_env_torch_version") or ""
    torch_npu = settings.get("python_env_torch_npu_version") or ""
    mindspore = settings.get("python_env_mindspore_version") or ""
    cann = settings.get("python_env_cann_version") or node_cann or ""
    cann_from = "python_env_cann_version" if settings.get("python_env_cann_version") else "the node's CANN"
    npu_table = (compat or {}).get("torch_npu") or {}
    ms_table = (compat or {}).get("mindspore") or {}
    if torch_npu:
        entry = npu_table.get(torch_npu)
        wanted = str(entry["torch"]) if entry else release(torch_npu)
        # The table's naming rule: torch_npu X.Y.Z[.postN] is built against torch X.Y.Z.
        if release(torch) != wanted:
            errors.append("%s: python_env_torch_npu_version: torch_npu %s is built for torch %s, but "
                          "python_env_torch_version is %s (%s)" % (host, torch_npu, wanted, torch, SOURCE))
        if entry is None:
            warnings.append("%s: python_env_torch_npu_version: torch_npu %s is not in %s: its pairing "
                            "with CANN is not checked" % (host, torch_npu, SOURCE))
        if backend == "ascend":
            found, _ = _cann_verdict(host, "python_env_torch_npu_version", "torch_npu", torch_npu, entry,
                                     cann, cann_from)
            errors += found
    if mindspore and backend == "ascend":
        entry = ms_table.get(mindspore)
        if entry is None:
            warnings.append("%s: python_env_mindspore_version: MindSpore %s is not in %s: its pairing "
                            "with CANN is not checked" % (host, mindspore, SOURCE))
        found, _ = _cann_verdict(host, "python_env_mindspore_version", "MindSpore", mindspore, entry,
                                 cann, cann_from)
        errors += found
    if (torch_npu or mindspore) and backend == "ascend" and not cann:
        warnings.append("%s: python_env_cann_version: no CANN found on the node and none set: the "
                        "framework's CANN pairing is not checked" % host)
    return errors, warnings


def wheel_problems(host, filenames, python_version, wanted):
    """Wheels in the wheelhouse for a wanted distribution that the node's Python cannot install:
    one message per wheel naming python_env_base_python."""
    problems = []
    names = {re.sub(r"[-_.]+", "_", name).lower() for name in wanted}
    for filename in sorted(filenames):
        if wheel_name(filename) in names and not wheel_python_fits(filename, python_version):
            problems.append("%s: python_env_base_python: %s does not install on the node's Python %s "
                            "(its Python tag is %s)" % (host, filename, python_version,
                                                        filename[:-4].split("-")[-3]))
    return problems


def parse_sha256sums(text):
    """{filename: sha256} of a SHA256SUMS file (sha256sum's output format)."""
    sums = {}
    for line in (text or "").splitlines():
        match = re.fullmatch(r"([0-9a-fA-F]{64}) [ *]?(\S+)", line.strip())
        if match:
            sums[match.group(2).rsplit("/", 1)[-1]] = match.group(1).lower()
    return sums


def checksum_problems(recorded, actual):
    """Wheels whose sha256 differs from the one recorded in SHA256SUMS."""
    return ["%s: sha256 %s, but SHA256SUMS records %s (replace the file or its line)" % (name, actual[name],
                                                                                    recorded[name])
            for name in sorted(actual) if name in recorded and recorded[name] != actual[name]]


def pins_to_install(pins, installed):
    """The pins [{name, version}] whose exact build is not installed ({name: version or None}), by
    the comparison module python_env_install makes on the node."""
    return [pin for pin in pins if not version_matches(installed.get(pin["name"]), pin["version"])]


def keys_to_fill(node_reads, pins_wanted):
    """The wheelhouse keys (each once, in order) of the nodes whose environment is not current
    (missing, or a pin not installed as pinned); ``node_reads`` are module python_env_facts' results."""
    keys = []
    for read in node_reads:
        if read["env_exists"] and not pins_to_install(pins_wanted, read["installed"]):
            continue
        key = wheelhouse_key(read["python"]["version"], read["python"]["machine"], read["python"]["libc"])
        if key not in keys:
            keys.append(key)
    return keys


def copy_plan(wheels, node_sums):
    """The wheels a node lacks or holds with another sha256: [{name, sha256, size}]."""
    return [wheel for wheel in wheels if node_sums.get(wheel["name"]) != wheel["sha256"]]



def sha256sums_text(sums):
    """SHA256SUMS text (sha256sum's format, sorted by file name) of {filename: sha256}."""
    return "".join("%s  %s\n" % (sums[name], name) for name in sorted(sums))


def wheel_list(stat_results):
    """[{name, sha256, size}] of the stat results of the wheels (sha256 checksums)."""
    return [{"name": result["stat"]["path"].rsplit("/", 1)[-1], "sha256": result["stat"]["checksum"],
             "size": result["stat"]["size"]} for result in stat_results]
