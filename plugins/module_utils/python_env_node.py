"""Role python_env on a node: what the node's Python and the environment hold, and what pip
must install (plugins/modules/python_env_facts.py, plugins/modules/python_env_install.py)."""

import hashlib
import json
import os

# Run by the node's own Python (python_env_base_python): its version and platform, as JSON.
PLATFORM_SCRIPT = ("import json, platform, sys; print(json.dumps({'version': '%d.%d.%d' % sys.version_info[:3], "
                   "'machine': platform.machine(), 'libc': platform.libc_ver()[1]}))")
# Run by the environment's Python: {distribution: version or None} of the names in argv.
VERSIONS_SCRIPT = ("import json, sys\nfrom importlib import metadata\nfound = {}\n"
                   "for name in sys.argv[1:]:\n"
                   "    try:\n        found[name] = metadata.version(name)\n"
                   "    except metadata.PackageNotFoundError:\n        found[name] = None\n"
                   "print(json.dumps(found))")


def parse_json_line(text):
    """The last line of a probe's output as JSON (None when it is not JSON)."""
    lines = [line for line in (text or "").splitlines() if line.strip()]
    try:
        return json.loads(lines[-1]) if lines else None
    except ValueError:
        return None


def installed_versions(run, python, names):
    """({name: version or None}, None) from the environment's Python, or (None, why it failed).
    run(argv) returns (rc, stdout, stderr)."""
    rc, out, err = run([python, "-c", VERSIONS_SCRIPT] + list(names))
    found = parse_json_line(out) if rc == 0 else None
    if found is None:
        return None, "%s does not run (rc %s): %s" % (python, rc, (err or out).strip()[-300:])
    return found, None


def sha256_of(path, chunk=1 << 20):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(chunk), b""):
            digest.update(block)
    return digest.hexdigest()


def wheel_sums(directory, names):
    """{filename: sha256} of the wheels named in names that the directory holds."""
    sums = {}
    for name in names:
        path = os.path.join(directory, name)
        if os.path.isfile(path) and not os.path.islink(path):
            sums[name] = sha256_of(path)
    return sums


def version_matches(installed, pinned):
    """Whether the installed version is the pinned build. A local label names another build of
    the release: 2.13.0+cpu or 2.13.0+cu121 is not 2.13.0, nor the reverse (pip's == would take
    them)."""
    return installed is not None and str(installed) == str(pinned)


def other_builds(pinned, installed):
    """Messages for the pins whose release is installed as another build (another local label),
    e.g. "torch 2.13.0+cpu is another build than the pinned 2.13.0"."""
    found = []
    for name, version in pinned:
        have = installed.get(name)
        if have is not None and not version_matches(have, version) \
                and str(have).split("+", 1)[0] == str(version).split("+", 1)[0]:
            found.append("%s %s is another build than the pinned %s" % (name, have, version))
    return found


def install_plan(pinned, installed):
    """(requirements to install, diff) of [(name, version)] against {name: installed version}.
    The requirements use ===, string equality: pip's == would take any local label of the
    release (2.13.0+cpu for ==2.13.0) and leave another build installed."""
    todo = [(name, version) for name, version in pinned if not version_matches(installed.get(name), version)]
    before = "".join("%s %s\n" % (name, installed.get(name) or "absent") for name, _ in todo)
    after = "".join("%s %s\n" % (name, version) for name, version in todo)
    return ["%s===%s" % pair for pair in todo], {"before": before, "after": after}


def pip_install_argv(python, wheel_dir, requirements):
    """pip from the wheels on the node only: no index, nothing from the network."""
    return [python, "-m", "pip", "install", "--no-index", "--find-links", wheel_dir,
            "--disable-pip-version-check", "--no-input", "--quiet"] + list(requirements)
