"""The one runner of hccn_tool for the modules (hccn_device_ip, hccn_netdetect).

Every call is ``hccn_tool -i DEVICE ARGS...`` through AnsibleModule.run_command; a non-zero exit
raises HccnError naming the command line and the tool's output. The readers parse what the tool
prints with hccn_output's parsers, which raise ValueError on text they do not recognise.
"""

from ansible_collections.cluster_suite.hpc.plugins.module_utils.hccn_output import (
    parse_gateway,
    parse_ip,
    parse_link,
    parse_net_health,
    parse_netdetect,
)


class HccnError(RuntimeError):
    """hccn_tool failed; the message names the command line and its output."""


class HccnTool:
    def __init__(self, module, path):
        self.module = module
        self.path = path

    def argv(self, device, *args):
        return [self.path, "-i", str(device)] + list(args)

    def run(self, device, *args):
        argv = self.argv(device, *args)
        rc, out, err = self.module.run_command(argv)
        if rc != 0:
            raise HccnError("%s failed (rc %d): %s" % (" ".join(argv), rc, (err or out).strip()))
        return out

    def ip(self, device):
        """{address, netmask} of the device, both None when it has none (``-ip -g`` then fails)."""
        try:
            return parse_ip(self.run(device, "-ip", "-g"))
        except HccnError:
            return {"address": None, "netmask": None}

    def address(self, device):
        return self.ip(device)["address"]

    def gateway(self, device):
        return parse_gateway(self.run(device, "-gateway", "-g"))["gateway"]

    def detect(self, device):
        return parse_netdetect(self.run(device, "-netdetect", "-g"))

    def set_detect(self, device, target):
        self.run(device, "-netdetect", "-s", "address", target)

    def health(self, device):
        return parse_net_health(self.run(device, "-net_health", "-g"))

    def link(self, device):
        return parse_link(self.run(device, "-link", "-g"))
