"""NPU device IP plans: generate them from compact settings, validate any plan.

The public entry of the plan logic (the filters in plugins/filter/npu_plan.py and the bench import
it); the work is done in device_plan_ipv4 (address arithmetic), device_plan_rules (models, rules,
validate_plan), device_plan_generation (generate_plan), device_plan_detect (health check targets)
and device_plan_hostvars (the inputs from the inventory).

Plan structure
--------------
A plan maps each inventory host, in inventory order, to the list of its NPU devices::

    {"node1": [{"device": 0, "address": "192.168.100.101", "netmask": "255.255.255.0"},
               ...],
     "node2": [...]}

Each device entry has ``device`` (int, 0..device_count-1), ``address`` and ``netmask``
(dotted IPv4) and optionally ``gateway`` and ``detect`` (dotted IPv4; ``detect`` is the
address ``hccn_tool -netdetect -s`` measures health against).

Hardware models and their rules
-------------------------------
``atlas800`` (Atlas 800 training server / Atlas 900, SMP mode)
    devices 0&4, 1&5, 2&6, 3&7 share a subnet [pair-subnet]; devices 0-3 are in
    different subnets, and so are 4-7 [position-subnets]; device i of every server is in
    the subnet of device i of the other servers [cross-server-subnet]. With 4 devices
    that means four different subnets; with 1 or 2 devices each device has its own subnet.
``atlas800t_a2``, ``atlas900_a2_pod`` (Atlas 800T A2 / Atlas 900 A2 PoD)
    all ports of a node in one subnet [single-subnet].

Every model: addresses are valid dotted IPv4 [ipv4] and usable host addresses, not the
network or broadcast address of their subnet [host-address]; netmasks are contiguous,
/8 to /30 [netmask]; device indexes lie in 0..device_count-1 [device-index], each listed
once [duplicate-device], none missing [missing-device]; device counts are 1, 2, 4 or 8
[device-count]; no address is used twice in the plan [unique-ip]; a gateway lies in its
device's subnet and is no device's address [gateway]; a detect address is not the
device's own [detect]. Distinct addresses in a /24 (the usual mask) differ in the last
octet, so the "last octets differ within a subnet" rule follows from [unique-ip].
Every violation message names host, device, address and the rule tag in brackets.

Compact settings
----------------
Inventory variables ``npu_network_<name>``; the API takes them without the prefix:

``base``        network address of device 0's subnet. atlas800 puts positions 0-3 in
                consecutive subnets of the netmask's size (192.168.100.0/24 ..
                192.168.103.0/24); atlas800 also accepts a list of one network per position.
``netmask``     netmask of every device subnet, e.g. 255.255.255.0.
``host_start``  host number (offset inside the subnet; the last octet for a /24) of server 0.
``host_step``   host numbers between consecutive servers; default 10.
``gateway``     A2 models only: the nodes' gateway, inside the subnet.
``detect``      A2 models only: the detect address; defaults to the gateway.
``plan``        hand-written device lists, {host: [device entries]}; those hosts are taken
                as written (check them with validate_plan), the others are generated.

Server s is the host's position in the host list. It gets:

* atlas800: device i in the subnet of position i % 4, host number
  ``host_start + s * host_step + 1`` for devices 0-3 and ``host_start + s * host_step``
  for devices 4-7 (the layout of Ascend's PyTorch multi-node training guide; the same for 1,
  2 and 4 devices).
* A2 models: device i in the base subnet, host number ``host_start + s * host_step + i``.

Three inventory lines give the two-server table of Ascend's PyTorch multi-node training guide
(server 0: 192.168.100-103.101 for devices 0-3 and .100 for devices 4-7; server 1: .111 and
.110)::

    npu_network_base: 192.168.100.0
    npu_network_netmask: 255.255.255.0
    npu_network_host_start: 100
"""

# Re-exported: the API of the device plans.
# pylint: disable=unused-import
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.npu_plan.detect import (  # noqa: F401
    detect_targets,
    host_detect_targets,
)
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.npu_plan.generation import (  # noqa: F401
    DEFAULT_HOST_STEP,
    INVENTORY_PREFIX,
    SETTING_NAMES,
    generate_plan,
)
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.npu_plan.hostvars import (  # noqa: F401
    hardware_from_hostvars,
    settings_from_hostvars,
)
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.npu_plan.ipv4 import (  # noqa: F401
    format_ipv4,
    parse_ipv4,
    parse_netmask,
)
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.npu_plan.rules import (  # noqa: F401
    ATLAS800,
    ATLAS800_POSITIONS,
    DEFAULT_DEVICE_COUNT,
    DEVICE_COUNT_VAR,
    DEVICE_KEYS,
    KNOWN_MODELS,
    MODEL_RULES,
    MODEL_VAR,
    SUPPORTED_DEVICE_COUNTS,
    PlanError,
    validate_plan,
)
