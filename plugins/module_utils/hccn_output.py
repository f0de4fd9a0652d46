"""Parsers for hccn_tool and npu-smi output, and reading/rendering /etc/hccn.conf.

The formats are those of docs/reference facts ("hccn_tool"):

    hccn_tool -i 0 -ip -g          ipaddr:192.168.100.101 / netmask:255.255.255.0
    hccn_tool -i 0 -netdetect -g   netdetect address: 192.168.100.111   (0.0.0.0 = unset)
    hccn_tool -i 0 -net_health -g  net health status: Success
    hccn_tool -i 0 -link -g        link status: UP
    hccn_tool -i 0 -gateway -g     default gateway:192.168.100.1, Iface:eth0
    hccn_tool -i 0 -ping -g ...    device 0 PING X / recv seq=0,time=0.114000ms /
                                   3 packets transmitted, 3 received, 0.00% packet loss
    hccn_tool -i 0 -tls -g         dev_id:0, tls switch[0](0:disable, 1:enable), tls alarm ...
                                   (CANN's HCCL troubleshooting guide)
    npu-smi info -l                Total Count : 8 / NPU ID : 0 ...
    npu-smi info                   the summary table and its process table
    npu-smi info -t board|health|ecc -i N [-c C]   `Key : value` lines
                                   (Ascend's npu-smi command reference)

Every parser raises ValueError quoting the offending text when it cannot find what it
is looking for. Surrounding lines (banners, warnings) are ignored.
"""

import re

# Index = the code hccn_tool documents for that status.
NET_HEALTH_STATUSES = (
    "Success",
    "Socket fail",
    "Receive timeout",
    "Unreachable",
    "Time exceeded",
    "Fault",
    "Init",
    "Thread error",
    "Detect ip set",
)
NET_HEALTH_UNKNOWN = ("Unknown", -1)
_HEALTH_CODE_BY_KEY = {status.lower(): code for code, status in enumerate(NET_HEALTH_STATUSES)}

UNSET_ADDRESS = "0.0.0.0"
# Keys written first, in this order, for each device of a rendered hccn.conf.
HCCN_CONF_KEY_ORDER = ("address", "netmask", "netdetect", "gateway")

_IPV4 = r"(\d{1,3}(?:\.\d{1,3}){3})"
_IP_ADDRESS = re.compile(r"^\s*ipaddr\s*:\s*" + _IPV4 + r"\s*$", re.M)
_IP_NETMASK = re.compile(r"^\s*netmask\s*:\s*" + _IPV4 + r"\s*$", re.M)
_NETDETECT = re.compile(r"^\s*netdetect address\s*:\s*" + _IPV4 + r"\s*$", re.M)
_NET_HEALTH = re.compile(r"^\s*net health status\s*:[ \t]*(.*?)\s*$", re.M)
_LINK = re.compile(r"^\s*link status\s*:\s*(\S+)\s*$", re.M)
_GATEWAY = re.compile(r"^\s*default gateway\s*:\s*" + _IPV4 + r"\s*(?:,\s*Iface\s*:\s*(\S+))?\s*$", re.M)
_PING_HEADER = re.compile(r"^\s*device (\d+) PING (\S+)", re.M)
_PING_REPLY = re.compile(r"^\s*recv seq=(\d+)\s*,\s*time=([\d.]+)\s*ms", re.M)
_PING_SUMMARY = re.compile(r"^\s*(\d+) packets transmitted,\s*(\d+) received,\s*([\d.]+)% packet loss", re.M)
_TLS_SWITCH = re.compile(r"^\s*dev_id\s*:\s*(\d+)\s*,\s*tls switch\s*\[(\d+)\]", re.M)
_FIELD = re.compile(r"^\s*([A-Za-z][^:]*?)\s*:\s*(.*?)\s*$")
# A device row of npu-smi info's table: "| 0     910B3  | OK  | 93.4  ...": NPU id, name, health.
_TABLE_DEVICE = re.compile(r"^\|\s*(\d+)\s+(\S+)\s*\|\s*([A-Za-z]+)\s*\|")
# A process row: "| 0       0   | 4242   | python3   | 3072   |": NPU, chip, pid, name, memory.
_TABLE_PROCESS = re.compile(r"^\|\s*(\d+)\s+(\d+)\s*\|\s*(\d+)\s*\|\s*(.*?)\s*\|\s*(\S*)\s*\|$")
_NPU_TOTAL = re.compile(r"^\s*Total Count\s*:\s*(\d+)\s*$", re.M)
_NPU_ID = re.compile(r"^\s*NPU ID\s*:\s*(\d+)\s*$", re.M)
_CONF_DEVICE_KEY = re.compile(r"^([A-Za-z][A-Za-z0-9_]*?)_(\d+)$")
_CONF_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


def _unparseable(what, text):
    return ValueError(f"cannot parse {what} output: {text!r}")


def _search(pattern, what, text):
    match = pattern.search(text) if isinstance(text, str) else None
    if match is None:
        raise _unparseable(what, text)
    return match


def _dotted(value, what, text):
    """Return ``value`` if every octet is 0..255 (the regex only bounds the digits)."""
    if any(int(octet) > 255 for octet in value.split(".")):
        raise _unparseable(what, text)
    return value


def _optional_address(value):
    return None if value == UNSET_ADDRESS else value


def parse_ip(text):
    """``hccn_tool -ip -g`` -> {"address": ..., "netmask": ...}."""
    what = "hccn_tool -ip -g"
    address = _search(_IP_ADDRESS, what, text).group(1)
    netmask = _search(_IP_NETMASK, what, text).group(1)
    return {"address": _dotted(address, what, text), "netmask": _dotted(netmask, what, text)}


def parse_netdetect(text):
    """``hccn_tool -netdetect -g`` -> the detect address, or None when unset (0.0.0.0)."""
    what = "hccn_tool -netdetect -g"
    return _optional_address(_dotted(_search(_NETDETECT, what, text).group(1), what, text))


def parse_net_health(text):
    """``hccn_tool -net_health -g`` -> {"code": 0..8 or -1, "status": name, "text": printed}.

    Known statuses map to hccn_tool's codes (0 Success .. 8 Detect ip set); anything else
    is ("Unknown", -1), with the printed text kept in "text".
    """
    printed = _search(_NET_HEALTH, "hccn_tool -net_health -g", text).group(1)
    code = _HEALTH_CODE_BY_KEY.get(" ".join(printed.split()).lower())
    status, code = NET_HEALTH_UNKNOWN if code is None else (NET_HEALTH_STATUSES[code], code)
    return {"code": code, "status": status, "text": printed}


def parse_link(text):
    """``hccn_tool -link -g`` -> "UP" or "DOWN"."""
    state = _search(_LINK, "hccn_tool -link -g", text).group(1).upper()
    if state not in ("UP", "DOWN"):
        raise _unparseable("hccn_tool -link -g", text)
    return state


def parse_gateway(text):
    """``hccn_tool -gateway -g`` -> {"gateway": address or None (0.0.0.0), "iface": name or None}."""
    what = "hccn_tool -gateway -g"
    match = _search(_GATEWAY, what, text)
    return {"gateway": _optional_address(_dotted(match.group(1), what, text)), "iface": match.group(2)}


def parse_ping(text):
    """``hccn_tool -ping -g`` -> summary and reply times.

    Returns {"device": int or None, "target": str or None, "transmitted": int,
    "received": int, "loss_percent": float, "times_ms": [float per reply]}. The summary
    line is required; the header and reply lines are optional.
    """
    summary = _search(_PING_SUMMARY, "hccn_tool -ping -g", text)
    header = _PING_HEADER.search(text)
    return {
        "device": int(header.group(1)) if header else None,
        "target": header.group(2) if header else None,
        "transmitted": int(summary.group(1)),
        "received": int(summary.group(2)),
        "loss_percent": float(summary.group(3)),
        "times_ms": [float(reply.group(2)) for reply in _PING_REPLY.finditer(text)],
    }


def parse_npu_list(text):
    """``npu-smi info -l`` -> {"total": Total Count, "npu_ids": [NPU ID, ...]}.

    Both are returned as printed; a caller that cares compares total with len(npu_ids).
    """
    total = _search(_NPU_TOTAL, "npu-smi info -l", text)
    return {
        "total": int(total.group(1)),
        "npu_ids": [int(match.group(1)) for match in _NPU_ID.finditer(text)],
    }


def parse_tls(text):
    """``hccn_tool -tls -g`` -> the TLS switch, 0 (disabled) or 1 (enabled)."""
    return int(_search(_TLS_SWITCH, "hccn_tool -tls -g", text).group(2))


def parse_npu_fields(text, what="npu-smi info -t"):
    """npu-smi's ``Key : value`` lines (-t board, health, ecc) -> [(key, value), ...] in order
    (keys repeat per chip). Raises ValueError when there is none."""
    fields = [match.groups() for match in map(_FIELD.match, (text or "").splitlines()) if match]
    if not fields:
        raise _unparseable(what, text)
    return fields


def parse_npu_table(text):
    """``npu-smi info`` -> {"devices": {npu: {"name", "health"}}, "processes": [{"npu", "chip",
    "pid", "name", "memory_mb"}]}. The device rows are the ones whose second column is a health
    word; process rows have a numeric pid in their second column."""
    devices, processes = {}, []
    for line in (text or "").splitlines():
        match = _TABLE_DEVICE.match(line)
        if match and match.group(3) in ("OK", "Warning", "Alarm", "Critical", "UNKNOWN"):
            devices[int(match.group(1))] = {"name": match.group(2), "health": match.group(3)}
            continue
        match = _TABLE_PROCESS.match(line)
        if match:
            processes.append({"npu": int(match.group(1)), "chip": int(match.group(2)), "pid": int(match.group(3)),
                              "name": match.group(4), "memory_mb": match.group(5)})
    if not devices:
        raise _unparseable("npu-smi info", text)
    return {"devices": devices, "processes": processes}


# --- /etc/hccn.conf --------------------------------------------------------------------


def _conf_lines(text):
    """Yield (line, key, value) for each line; key/value are None for blank and # lines."""
    if not isinstance(text, str):
        raise ValueError(f"cannot parse /etc/hccn.conf: expected text, got {text!r}")
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            yield line, None, None
            continue
        key, separator, value = stripped.partition("=")
        if not separator or not key.strip():
            raise ValueError(f"cannot parse /etc/hccn.conf line {number}: {line!r} is not key=value")
        yield line, key.strip(), value.strip()


def parse_hccn_conf(text):
    """``/etc/hccn.conf`` text -> {device: {name: value}} for its ``<name>_<device>=value`` lines.

    Other ``key=value`` lines, comments and blank lines are ignored here and kept by
    render_hccn_conf. A key given twice raises ValueError: which one applies is unclear.
    """
    settings = {}
    seen = set()
    for line, key, value in _conf_lines(text):
        if key is None:
            continue
        if key in seen:
            raise ValueError(f"cannot parse /etc/hccn.conf: {key} is set twice ({line!r})")
        seen.add(key)
        match = _CONF_DEVICE_KEY.match(key)
        if match:
            settings.setdefault(int(match.group(2)), {})[match.group(1)] = value
    return settings


def _key_order(item):
    (device, name), _value = item
    rank = HCCN_CONF_KEY_ORDER.index(name) if name in HCCN_CONF_KEY_ORDER else len(HCCN_CONF_KEY_ORDER)
    return device, rank, name


def render_hccn_conf(settings, existing=""):
    """Return hccn.conf text with ``settings`` ({device: {name: value}}) applied to ``existing``.

    Lines of keys not in ``settings`` (other devices, unknown keys, comments) stay as they
    are, in place. A key whose value is unchanged keeps its line byte for byte, so
    rendering is idempotent; a changed key is rewritten in place; a value of None removes
    the key. New keys go at the end, by device, then address, netmask, netdetect, gateway,
    then other names alphabetically. Raises ValueError for unusable settings.
    """
    parse_hccn_conf(existing)  # reject malformed or ambiguous files before rewriting them
    wanted = _flatten_settings(settings)
    lines = []
    for line, key, value in _conf_lines(existing):
        if key is None or key not in wanted:
            lines.append(line)
            continue
        new_value = wanted.pop(key)
        if new_value is None:
            continue
        lines.append(line if new_value == value else f"{key}={new_value}")
    additions = {}
    for key, value in wanted.items():
        if value is not None:
            name, _separator, device = key.rpartition("_")
            additions[(int(device), name)] = value
    lines.extend(
        f"{name}_{device}={value}" for (device, name), value in sorted(additions.items(), key=_key_order)
    )
    return "".join(line + "\n" for line in lines)


def _flatten_settings(settings):
    """{device: {name: value}} -> {"name_device": "value" or None}; check every part."""
    if not isinstance(settings, dict):
        raise ValueError(f"hccn.conf settings must be a mapping of device to settings, got {settings!r}")
    flat = {}
    for device, values in settings.items():
        if isinstance(device, bool) or not isinstance(device, int) or device < 0:
            raise ValueError(f"hccn.conf settings: device {device!r} is not a device index")
        if not isinstance(values, dict):
            raise ValueError(f"hccn.conf settings for device {device} must be a mapping, got {values!r}")
        for name, value in values.items():
            if not isinstance(name, str) or not _CONF_NAME.match(name):
                raise ValueError(f"hccn.conf settings for device {device}: {name!r} is not a key name")
            if value is not None:
                value = str(value)
                if "\n" in value or "\r" in value:
                    raise ValueError(f"hccn.conf settings: {name}_{device} value {value!r} spans lines")
            flat[f"{name}_{device}"] = value
    return flat
