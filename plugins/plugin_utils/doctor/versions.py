"""Doctor checks version_*: the same OpenMPI, Python, frameworks, NCCL and CANN on every node;
the odd nodes are named."""

import re
from collections import Counter

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.doctor.checks import (
    FRAMEWORK_CHECKS, join_items, not_checked_reason, shorten)


def _release(version, parts):
    return ".".join(re.split(r"[.+-]", str(version))[:parts])


def compare_versions(label, values, order, master=None, expected=None, expected_var=None,
                     required=False, fix="install the same version on every node", patch_warn=False):
    """Verdicts for one component: {host: (status, message)}.

    values: host -> {"version": v} | {"absent": True[, "error": why]} | {"error": why}.
    expected: the version the inventory asks for (odd = every node that differs from it);
    otherwise the majority is the reference, a tie going to the master's, then the first node's.
    required: absent is a failure even when no node has it. patch_warn: a difference only after
    MAJOR.MINOR is a warning (Python).
    """
    verdicts = {}
    present = {host: str(value["version"]) for host, value in values.items()
               if value and value.get("version") is not None}
    for host, value in values.items():
        if value and value.get("error") and not value.get("absent"):
            verdicts[host] = ("fail", "%s: %s" % (label, shorten(value["error"], 200)))
    reference = None
    if expected is not None:
        reference = str(expected)
    elif present:
        counts = Counter(present.values())
        best = max(counts.values())
        tied = [version for version, count in counts.items() if count == best]
        if len(tied) == 1:
            reference = tied[0]
        elif master in present and present[master] in tied:
            reference = present[master]
        else:
            reference = next(present[host] for host in order if host in present and present[host] in tied)
    holders = [host for host in order if present.get(host) == reference]
    where = ("the inventory expects %s (%s)" % (reference, expected_var) if expected is not None
             else "%s on %s" % (reference, join_items(holders)))
    for host in order:
        if host not in values or host in verdicts:
            continue
        value = values[host] or {}
        version = present.get(host)
        if version is None:
            if reference is None and not required:
                verdicts[host] = ("ok", "%s: not installed on any node (skipped)" % label)
            elif reference is None:
                verdicts[host] = ("fail", "%s: %s" % (label, shorten(value.get("error") or "not installed", 200)))
            else:
                verdicts[host] = ("fail", "%s: not installed here%s, but %s: %s" % (
                    label, " (%s)" % shorten(value["error"], 120) if value.get("error") else "", where, fix))
        elif version == reference:
            verdicts[host] = ("ok", "%s %s%s" % (label, version, " (as expected)" if expected is not None
                                                 else " (same on %d node(s))" % len(holders)))
        elif patch_warn and _release(version, 2) == _release(reference, 2):
            verdicts[host] = ("warn", "%s %s here, %s: same release, different patch level" % (label, version, where))
        else:
            verdicts[host] = ("fail", "%s %s here, but %s: %s" % (label, version, where, fix))
    return verdicts


STATUS_ORDER = {"ok": 0, "warn": 1, "fail": 2}

# How two nodes' OpenMPI builds (the openmpi role's marker) may differ: (field, label, verdict, fix).
OPENMPI_BUILD_ASPECTS = (
    ("architecture", "Open MPI built for", "fail",
     "OpenMPI does not mix architectures unless built with --enable-heterogeneous: keep a job on one architecture"),
    ("prefix", "Open MPI installed at", "fail",
     "mpirun starts orted from the master's prefix on every node: use one openmpi_prefix everywhere "
     "(site.yml --tags openmpi)"),
    ("os", "Open MPI built on", "warn",
     "the same OpenMPI release, built once per OS release by the openmpi role, works across them when "
     "versions and flags agree; bring the nodes to one OS release when you can"),
    ("configure_flags", "Open MPI configured with", "warn",
     "use the same openmpi_configure_flags on every node (site.yml --tags openmpi)"),
)


def openmpi_verdicts(values, hosts, master, expected=None):
    """Verdicts for OpenMPI: {host: (status, message)}.

    values: host -> what doctor_probe's collect_openmpi returned. The version decides first (the
    inventory's openmpi_version when given, else the majority); where versions agree, the builds
    recorded in the role's marker are compared too (OPENMPI_BUILD_ASPECTS), naming the odd nodes.
    """
    values = {host: dict(value or {}) for host, value in values.items()}
    for value in values.values():
        if value.get("absent") and value.get("marker_version"):
            value["error"] = ("ompi_info is not on the training user's PATH, although the openmpi role's "
                              "marker says %s is installed: run site.yml --tags openmpi (it links "
                              "mpirun and ompi_info into /usr/local/bin)" % value["marker_version"])
    verdicts = compare_versions(
        "Open MPI", values, hosts, master, expected=expected, expected_var="openmpi_version",
        required=expected is not None,
        fix="install the same OpenMPI on every node (site.yml --tags openmpi; mpirun fails with "
            "'Data unpack would read past end of buffer' otherwise)")
    builds = {host: value["build"] for host, value in values.items()
              if verdicts.get(host, ("fail",))[0] == "ok" and isinstance(value.get("build"), dict)}
    for field, label, status, fix in OPENMPI_BUILD_ASPECTS:
        aspect = {host: {"version": " ".join(build.get(field) or []) if field == "configure_flags"
                         else build.get(field)}
                  for host, build in builds.items() if build.get(field) is not None}
        for host, (found, message) in compare_versions(label, aspect, hosts, master, fix=fix).items():
            if found == "ok":
                continue
            current, text = verdicts[host]
            worse = status if STATUS_ORDER[status] > STATUS_ORDER[current] else current
            verdicts[host] = (worse, "%s; %s" % (text, message))
    return verdicts


def python_verdicts(values, hosts, master, variable="launch_python"):
    """Verdicts for the training Python: another MAJOR.MINOR fails, another patch level warns.
    variable: the setting that names the Python, for the messages."""
    values = {host: dict(value or {}) for host, value in values.items()}
    for value in values.values():
        if value.get("error"):
            value["error"] = "%s does not run: %s (%s)" % (value.get("path"), value["error"], variable)
    return compare_versions("Python", values, hosts, master, required=True, patch_warn=True,
                            fix="use the same Python on every node (%s)" % variable)


def check_versions(nodes, hosts, master, results):
    def collect(getter, applies=lambda host: True):
        values, skipped = {}, {}
        for host in hosts:
            if not applies(host):
                continue
            node = nodes[host]
            reason = not_checked_reason(host, node)
            value = getter(node) if not reason else None
            if value is None:
                skipped[host] = reason or "not checked: no data"
            else:
                values[host] = value
        return values, skipped

    def record(check, verdicts, skipped):
        for host in hosts:
            if host in verdicts:
                results.set(check, host, *verdicts[host])
            elif host in skipped:
                results.set(check, host, "warn", skipped[host])

    # OpenMPI: ompi_info on the training user's PATH; the inventory's openmpi_version decides.
    values, skipped = collect(lambda node: (node.get("user") or {}).get("openmpi"))
    expected = sorted({str(nodes[host]["expect"]["openmpi_version"]) for host in values
                       if nodes[host].get("expect", {}).get("openmpi_version")})
    record("version_openmpi", openmpi_verdicts(values, hosts, master,
                                               expected[0] if len(expected) == 1 else None), skipped)

    values, skipped = collect(lambda node: (node.get("user") or {}).get("python"))
    record("version_python", python_verdicts(values, hosts, master), skipped)

    for module, check in FRAMEWORK_CHECKS.items():
        values, skipped = collect(lambda node, module=module: ((node.get("user") or {}).get("frameworks") or {})
                                  .get(module))
        for host in list(skipped):
            user = nodes[host].get("user") or {}
            if user and user.get("frameworks") is None and (user.get("python") or {}).get("error"):
                skipped[host] = "not checked: the training Python does not run (see version_python)"
            elif user and module not in (user.get("frameworks") or {}):
                del skipped[host]  # not asked for (doctor_frameworks)
        record(check, compare_versions(module, values, hosts, master,
                                       fix="install the same %s on every node" % module), skipped)

    values, skipped = collect(lambda node: (node.get("system") or {}).get("nccl"))
    record("version_nccl", compare_versions("NCCL", values, hosts, master,
                                            fix="install the same NCCL on every node"), skipped)

    npu = [host for host in hosts if nodes[host].get("expect", {}).get("kind") == "npu"]
    values, skipped = collect(lambda node: (node.get("system") or {}).get("cann"), lambda host: host in npu)
    for host, value in values.items():
        if value.get("absent"):
            value["error"] = "no CANN version file under the detected layouts (looked in %s)" % join_items(
                value.get("looked_in") or [], 3)
    record("version_cann", compare_versions("CANN", values, npu, master, required=True,
                                            fix="install the same CANN toolkit on every NPU node"), skipped)
