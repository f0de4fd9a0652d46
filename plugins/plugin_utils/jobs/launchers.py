"""The launchers a job may use and what each node computes on: the tables of role job's
templates (device target, torch backend, default port, the module each launcher needs) and the
node-kind helpers (a node's kind from its group, its backend, its default worker count)."""
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.ansible_values import is_int

LAUNCHERS = ("msrun", "mpirun", "dynamic", "torchrun")
NODE_GROUPS = (("npu_nodes", "npu"), ("gpu_nodes", "gpu"), ("cpu_nodes", "cpu"))
# What the frameworks compute on (cluster_backend, auto: from the node's kind), MindSpore's device
# target and torch's backend for it.
BACKEND_OF_KIND = {"npu": "ascend", "gpu": "gpu", "cpu": "cpu"}
DEVICE_TARGETS = {"ascend": "Ascend", "gpu": "GPU", "cpu": "CPU"}
TORCH_BACKENDS = {"ascend": "hccl", "gpu": "nccl", "cpu": "gloo"}
DEFAULT_PORTS = {"msrun": 8118, "dynamic": 8118, "torchrun": 29500, "mpirun": None}
# Modules the node's Python must import for each launcher (mpirun runs any program).
LAUNCHER_MODULES = {"msrun": "mindspore", "dynamic": "mindspore", "torchrun": "torch", "mpirun": ""}


def node_kind(host, groups):
    """npu, gpu or cpu: the first node group that holds ``host``."""
    for group, kind in NODE_GROUPS:
        if host in (groups.get(group) or []):
            return kind
    return "cpu"


def node_backend(host, groups, variables):
    """ascend, gpu or cpu: the host's cluster_backend, auto resolved from its node group."""
    backend = (variables or {}).get("cluster_backend", "auto")
    return BACKEND_OF_KIND[node_kind(host, groups)] if backend == "auto" else backend


def default_workers(host, hostvars, kind):
    """The node's device count (npu_device_count / gpu_device_count), 1 on CPU nodes."""
    variables = hostvars.get(host, {})
    count = variables.get("npu_device_count") if kind == "npu" else variables.get("gpu_device_count")
    return count if is_int(count) and count > 0 else 1
