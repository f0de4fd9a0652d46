"""IPv4 arithmetic of the NPU device plans (plugins/plugin_utils/npu_plan/plan.py): dotted text to int
and back, netmasks as prefix lengths, subnets. Plain string work, because ipaddress is slow for
thousands of addresses."""

import functools

MIN_PREFIX = 8
MAX_PREFIX = 30  # /31 and /32 leave no room for a network of devices
ALL_ONES = 0xFFFFFFFF


def parse_ipv4(text):
    """Return dotted IPv4 ``text`` as an int, or None if it is not one.

    Strict: four decimal octets 0..255 without leading zeros (which some tools read as
    octal). Plain string work, because ipaddress is slow for thousands of addresses.
    """
    if not isinstance(text, str):
        return None
    parts = text.split(".")
    if len(parts) != 4:
        return None
    value = 0
    for part in parts:
        if not (part.isascii() and part.isdigit()) or len(part) > 3:
            return None
        if len(part) > 1 and part[0] == "0":
            return None
        octet = int(part)
        if octet > 255:
            return None
        value = value << 8 | octet
    return value


def format_ipv4(value):
    """Return the int ``value`` as dotted IPv4 text."""
    return f"{value >> 24}.{value >> 16 & 255}.{value >> 8 & 255}.{value & 255}"


def parse_netmask(text):
    """Return the prefix length of a contiguous dotted netmask /8../30, or None."""
    return _netmask_prefix(text) if isinstance(text, str) else None


@functools.lru_cache(maxsize=64)
def _netmask_prefix(text):
    # A plan repeats a handful of netmasks a thousand times: parse each once.
    value = parse_ipv4(text)
    if value is None:
        return None
    host_bits = ~value & ALL_ONES
    if host_bits & (host_bits + 1):  # ones not contiguous from the left
        return None
    prefix = 32 - host_bits.bit_length()
    return prefix if MIN_PREFIX <= prefix <= MAX_PREFIX else None


def netmask_problem(netmask, subject="netmask"):
    """(prefix length or None, what is wrong with the netmask or None): the one netmask rule of
    the compact settings and of the plan's entries. A missing netmask is for the caller to name."""
    prefix = parse_netmask(netmask)
    if netmask is not None and prefix is None:
        return None, (f"{subject} {netmask} is not a valid contiguous netmask "
                      f"from {format_ipv4(prefix_mask(MIN_PREFIX))} to {format_ipv4(prefix_mask(MAX_PREFIX))}")
    return prefix, None


def prefix_mask(prefix):
    return ALL_ONES << (32 - prefix) & ALL_ONES


def cidr(network, prefix):
    return f"{format_ipv4(network)}/{prefix}"


def is_unicast(value):
    """False for 0.0.0.0/8, loopback and multicast/reserved addresses."""
    first_octet = value >> 24
    return first_octet not in (0, 127) and first_octet < 224

