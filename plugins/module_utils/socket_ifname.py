"""*_SOCKET_IFNAME values read as the libraries read them, for the node checks (job_ifaces), the
inventory check and npu_env's settings check.

NCCL_SOCKET_IFNAME and HCCL_SOCKET_IFNAME: an optional ``^`` (use every interface but these), an
optional ``=`` (these exact names; without it each name is a prefix), then names separated by
``,`` (NCCL's environment documentation; the HCCL_SOCKET_IFNAME rules of role npu_env).
GLOO_SOCKET_IFNAME: exact names only.
"""
import re

NAME = re.compile(r"[A-Za-z0-9_.:@-]{1,15}", re.ASCII)
PREFIX_VARIABLES = ("NCCL_SOCKET_IFNAME", "HCCL_SOCKET_IFNAME")


def parse(value, prefixes=True):
    """(exclude, exact, names) of ``value``; ``prefixes`` False for GLOO's exact names.

    ``names`` keeps empty parts (``a,,b``) for the caller to refuse or skip.
    """
    value = (value or "").strip()
    exclude = prefixes and value.startswith("^")
    body = value[1:] if exclude else value
    exact = not prefixes or body.startswith("=")
    if prefixes and body.startswith("="):
        body = body[1:]
    return exclude, exact, body.split(",")


def matches(name, device, exact):
    """Whether interface ``device`` is selected by ``name`` (exact, or as a prefix)."""
    return device == name if exact else device.startswith(name)
