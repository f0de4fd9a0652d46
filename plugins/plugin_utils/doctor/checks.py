"""What every check family of the preflight doctor shares: the checks in report order, the
statuses, the result collector and small text helpers (see doctor/report.py for the whole)."""


STATUSES = ("ok", "warn", "fail")
# Every check, in report order. NPU checks apply to npu_nodes, master_port_free to the master.
CHECKS = (
    "ssh_login",
    "ssh_mesh",
    "hostname",
    "etc_hosts",
    "host_ip",
    "interfaces",
    "firewall",
    "clock",
    "master_port_free",
    "master_port_reachable",
    "version_openmpi",
    "version_python",
    "version_mindspore",
    "version_torch",
    "version_torch_npu",
    "version_nccl",
    "version_cann",
    "npu_device_count",
    "npu_device_ips",
    "npu_netdetect",
    "npu_device_access",
    "npu_model",
    "npu_health",
    "npu_link",
    "npu_tls",
    "npu_versions",
    "npu_processes",
    "npu_ecc",
)
NPU_CHECKS = ("version_cann", "npu_device_count", "npu_device_ips", "npu_netdetect", "npu_device_access",
              "npu_model", "npu_health", "npu_link", "npu_tls", "npu_versions", "npu_processes", "npu_ecc")
FRAMEWORK_CHECKS = {"mindspore": "version_mindspore", "torch": "version_torch", "torch_npu": "version_torch_npu"}


class Results:
    """Collects (status, message) per (check, node); at most one each."""

    def __init__(self):
        self.by_key = {}

    def set(self, check, node, status, message):
        if status not in STATUSES:
            raise ValueError("unknown status %r" % (status,))
        self.by_key[(check, node)] = (status, message)


def join_items(items, limit=6):
    items = list(items)
    if len(items) > limit:
        return ", ".join(items[:limit]) + " and %d more" % (len(items) - limit)
    return ", ".join(items)


def shorten(text, limit=160):
    text = " ".join(str(text or "").split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def node_addresses(system):
    """{ip: ifname} of a node's IPv4 addresses."""
    found = {}
    for name, info in sorted(((system or {}).get("interfaces") or {}).items()):
        for cidr in info.get("ipv4") or []:
            found.setdefault(cidr.split("/", 1)[0], name)
    return found


def not_checked_reason(host, node):
    """Why a node has no data, or None when it has."""
    if not node.get("reached", True):
        return "not checked: Ansible cannot reach %s (see ssh_login)" % host
    if node.get("error"):
        return "not checked: collecting the node's data failed: %s" % shorten(node["error"])
    return None
