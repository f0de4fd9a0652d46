"""Checks of role firewall's settings, on the controller, before anything changes.

Plain functions over plain values; every problem is reported at once, each naming the host and
the variable. Patterns match whole values (re.fullmatch).
"""
import ipaddress
import re

PORT = re.compile(r"[0-9]{1,5}", re.ASCII)
PORT_RANGE = re.compile(r"([0-9]{1,5}):([0-9]{1,5})", re.ASCII)
SOURCE = re.compile(r"[0-9]{1,3}(?:\.[0-9]{1,3}){3}(?:/[0-9]{1,2})?", re.ASCII)


def _port(value):
    """The port a value names (an int, or digits as text), else None."""
    if isinstance(value, bool):
        return None
    text = str(value)
    if not PORT.fullmatch(text):
        return None
    port = int(text)
    return port if 1 <= port <= 65535 else None


def _range(value):
    """(low, high) of a "low:high" text with 1 <= low <= high <= 65535, else None."""
    match = PORT_RANGE.fullmatch(value) if isinstance(value, str) else None
    if not match:
        return None
    low, high = int(match.group(1)), int(match.group(2))
    return (low, high) if 1 <= low <= high <= 65535 else None


def _source(value):
    if not isinstance(value, str) or not SOURCE.fullmatch(value):
        return False
    try:
        ipaddress.IPv4Network(value, strict=False)
    except ValueError:
        return False
    return True


def settings_errors(settings, host):
    """Every problem of the firewall settings of ``host`` (empty when fine); firewall_mode's
    choices are checked from the role's argument spec (role_settings.choice_problems).

    settings: firewall_ssh_port, firewall_master_ports, firewall_hccl_port_range,
    firewall_mpi_port_range, firewall_extra_ports, firewall_allowed_sources.
    """
    errors = []
    for name in ("firewall_hccl_port_range", "firewall_mpi_port_range"):
        value = settings.get(name)
        if _range(value) is None:
            errors.append(f"{host}: {name}: {value} is not a port range low:high with "
                          f"1 <= low <= high <= 65535")
    ports = [("firewall_ssh_port", settings.get("firewall_ssh_port"))]
    ports += [("firewall_master_ports", port) for port in settings.get("firewall_master_ports") or []]
    for name, value in ports:
        if _port(value) is None:
            errors.append(f"{host}: {name}: {value} is not a port between 1 and 65535")
    for value in settings.get("firewall_extra_ports") or []:
        text = "" if isinstance(value, bool) else str(value)
        if _port(text) is None and _range(text) is None:
            errors.append(f"{host}: firewall_extra_ports: {value} is neither a port nor a range "
                          f"low:high with 1 <= low <= high <= 65535")
    for value in settings.get("firewall_allowed_sources") or []:
        if not _source(value):
            errors.append(f"{host}: firewall_allowed_sources: {value} is not an IPv4 address or "
                          f"CIDR such as 192.168.1.0/24")
    return errors
