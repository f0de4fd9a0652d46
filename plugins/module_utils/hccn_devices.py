"""The device settings of module hccn_device_ip, as plain functions: what a device reports for an
entry of the plan, the entries' shape, the settings as text, and the hccn.conf values that differ
from the plan."""

CONF_NAMES = (("address", "address"), ("netmask", "netmask"), ("gateway", "gateway"), ("detect", "netdetect"))


def read_entry(tool, entry):
    """What the device reports for the settings the entry names."""
    device = entry["device"]
    state = dict(tool.ip(device))
    if entry.get("gateway"):
        state["gateway"] = tool.gateway(device)
    if entry.get("detect"):
        state["detect"] = tool.detect(device)
    return state


def check_devices(devices):
    """Light shape checks (the plan is validated on the controller); return problems."""
    problems = []
    seen = set()
    for entry in devices:
        device = entry["device"]
        if device < 0:
            problems.append("device %d: not a device index" % device)
        if device in seen:
            problems.append("device %d: listed more than once" % device)
        seen.add(device)
    return problems


def describe_state(state):
    """``192.168.100.101/255.255.255.0 gateway -`` (``-`` for unset)."""
    parts = ["%s/%s" % (state.get("address") or "-", state.get("netmask") or "-")]
    for key in ("gateway", "detect"):
        if key in state:
            parts.append("%s %s" % (key, state[key] or "-"))
    return " ".join(parts)


def describe_devices(states):
    return "".join("device %d: %s\n" % (device, describe_state(states[device])) for device in sorted(states))


def conf_settings(devices):
    return {entry["device"]: {name: entry[key] for key, name in CONF_NAMES if entry.get(key)} for entry in devices}


def conf_mismatches(wanted, current):
    """Keys ``name_device`` whose value in the parsed hccn.conf differs from ``wanted``."""
    return sorted(
        "%s_%d" % (name, device)
        for device, values in wanted.items()
        for name, value in values.items()
        if current.get(device, {}).get(name) != value
    )
