"""The doctor's own settings (the doctor_* variables): every problem, naming host and variable."""

import re

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.ansible_values import is_int

_MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


def _as_int(value):
    """Digits given as `-e doctor_master_port=8118` arrive as a string: they count as the number."""
    if isinstance(value, str) and re.fullmatch(r"[0-9]+", value.strip()):
        return int(value)
    return value


def _type_name(value):
    for kind in (bool, int, float, str, list, dict):
        if isinstance(value, kind):
            return kind.__name__
    return type(value).__name__


SETTINGS = ("doctor_master_port", "doctor_report_path", "doctor_frameworks", "doctor_netdetect",
            "doctor_interfaces", "doctor_ssh_timeout", "doctor_port_timeout", "doctor_listener_seconds",
            "doctor_import_timeout", "doctor_fail_on_warn", "doctor_clock_warn_ms", "doctor_clock_fail_ms")


def settings_errors(settings, host="controller"):
    """Problems of the doctor's settings (doctor_* variables), each naming host and variable.

    ``settings["names"]``, when given, lists the doctor_* variables the inventory sets: the
    unknown ones are reported as typos.
    """
    errors = []
    for name in settings.get("names") or []:
        if name not in SETTINGS:
            close = [known for known in SETTINGS if known.startswith(name[:10])]
            errors.append("%s: %s: unknown variable (doctor settings: %s)" % (host, name, ", ".join(close or SETTINGS)))
    port = settings.get("doctor_master_port")
    if not is_int(_as_int(port)) or not 1024 <= _as_int(port) <= 65535:
        errors.append("%s: doctor_master_port: %s %r is not an integer from 1024 to 65535" % (
            host, _type_name(port), port))
    for name in ("doctor_netdetect", "doctor_fail_on_warn"):
        if name in settings and not isinstance(settings[name], bool):
            errors.append("%s: %s: must be true or false, got %s %r" % (host, name, _type_name(settings[name]),
                                                                       settings[name]))
    for name, low, high in (("doctor_ssh_timeout", 1, 300), ("doctor_port_timeout", 1, 300),
                            ("doctor_listener_seconds", 10, 3600), ("doctor_import_timeout", 5, 540)):
        value = _as_int(settings.get(name))
        if name in settings and (not is_int(value) or not low <= value <= high):
            errors.append("%s: %s: %s %r is not an integer from %d to %d" % (
                host, name, _type_name(settings[name]), settings[name], low, high))
    limits = {}
    for name in ("doctor_clock_warn_ms", "doctor_clock_fail_ms"):
        value = _as_int(settings.get(name))
        if name in settings and (not is_int(value) or not 0 <= value <= 3600000):
            errors.append("%s: %s: %s %r is not an integer from 0 to 3600000 (milliseconds)" % (
                host, name, _type_name(settings[name]), settings[name]))
        elif name in settings:
            limits[name] = value
    if len(limits) == 2 and limits["doctor_clock_warn_ms"] > limits["doctor_clock_fail_ms"]:
        errors.append("%s: doctor_clock_warn_ms: %s is above doctor_clock_fail_ms %s (warn first, then fail)" % (
            host, limits["doctor_clock_warn_ms"], limits["doctor_clock_fail_ms"]))
    path = settings.get("doctor_report_path")
    if not isinstance(path, str) or not path.strip():
        errors.append("%s: doctor_report_path: must be a file path, got %r" % (host, path))
    frameworks = settings.get("doctor_frameworks", [])
    if not isinstance(frameworks, list) or not all(isinstance(f, str) and _MODULE_NAME.fullmatch(f) for f in frameworks):
        errors.append("%s: doctor_frameworks: must be a list of Python module names, got %r" % (host, frameworks))
    interfaces = settings.get("doctor_interfaces", [])
    if not isinstance(interfaces, list) or not all(isinstance(i, str) and i for i in interfaces):
        errors.append("%s: doctor_interfaces: must be a list of interface names or CIDRs, got %r" % (
            host, interfaces))
    return errors
