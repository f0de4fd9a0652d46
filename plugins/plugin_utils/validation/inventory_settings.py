"""Role settings set in the inventory, checked against the roles' argument specs before anything
changes: the type and choices of the spec, renamed settings, and typos of the roles' prefixes."""
import difflib

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation.text import grouped, shown, type_name

# The roles whose unknown <role>_* names are reported as typos, in the inventory and in each role's
# settings (role_settings.typo_problems); job_* is checked by the job's own check, which reads
# every job_* name.
TYPO_ROLES = ("firewall", "openmpi", "ssh_trust", "npu_env", "npu_network", "python_env", "doctor", "acceptance",
              "fleet")
TYPO_PREFIXES = tuple(role + "_" for role in TYPO_ROLES)
# Facts the roles publish for others to read (docs/architecture.md, "Published values"): a playbook
# that validates again later in a run (add.yml, retire.yml and replace.yml import site.yml) finds
# them among a host's variables, and they are not typos.
PUBLISHED = frozenset({
    "npu_network_device_plan", "npu_network_applied", "npu_network_netdetect_result", "npu_network_netdetect_report",
    "npu_network_netdetect_failures", "openmpi_host_state", "openmpi_plan", "fleet_upgrade_serial",
    "firewall_firewalld_ports", "firewall_firewalld_rich_rules"})
# Settings that were renamed: old name -> (new name, its role). Values several roles read moved
# to role cluster; the NPU connectivity test's settings became role npu_network's.
RENAMED = {"npu_env_path": ("cluster_env_npu_path", "cluster"),
           "npu_env_gpu_path": ("cluster_env_gpu_path", "cluster"),
           "npu_network_hccn_tool": ("cluster_hccn_tool", "cluster"),
           "python_env_backend": ("cluster_backend", "cluster"),
           **{f"npu_netdetect_{name}": (f"npu_network_netdetect_{name}", "npu_network")
              for name in ("fail", "timeout", "delay", "interval", "hccn_tool")}}
# Roles whose settings come with each run (-e, job files) and which check them themselves: their
# specs convert "8118" to a number, which an inventory-wide type check would refuse.
RUN_ROLES = ("job", "doctor")
# Inventory-wide variables with checks of their own (check_cluster_user, check_network).
OWN_CHECKED = ("cluster_user", "cluster_allow_root", "cluster_network_cidr")
# Whole numbers with bounds, which argument specs cannot say: variable -> (lowest, highest).
RANGES = {"cluster_max_fail_percentage": (0, 100)}
# Argument spec types -> the YAML values they accept (no conversion: "8" is not a number).
SPEC_TYPES = {
    "bool": ("true or false", lambda v: isinstance(v, bool)),
    "int": ("an integer", lambda v: isinstance(v, int) and not isinstance(v, bool)),
    "float": ("a number", lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)),
    "str": ("a string (quote it in YAML)", lambda v: isinstance(v, str)),
    "path": ("a path (a string)", lambda v: isinstance(v, str)),
    "list": ("a list", lambda v: isinstance(v, list)),
    "dict": ("a mapping", lambda v: isinstance(v, dict)),
}


def typo_text(name, role, known):
    """What is said of an unknown setting ``name`` of ``role``, with the nearest of ``known``."""
    close = difflib.get_close_matches(name, list(known), n=1)
    hint = f"; did you mean {close[0]}?" if close else ""
    return f"unknown variable (not a setting of role {role}{hint})"


def check_settings(hostvars, hosts, specs):
    """Role settings set in the inventory have the type of the role's argument spec, a choice it
    allows, and a name the role knows (typos of the TYPO_ROLES' prefixes).

    specs: variable -> {"type", "elements", "choices", "role"} from the roles'
    meta/argument_specs.yml (every entry point). Messages naming several hosts stand for one
    setting (usually from group_vars) that is wrong on each of them.
    """
    found = {}
    for host in hosts:
        hvars = hostvars.get(host, {})
        for name in sorted(hvars):
            value = hvars[name]
            spec = specs.get(name)
            if name in RENAMED:
                new_name, role = RENAMED[name]
                found.setdefault((name, f"renamed to {new_name} (role {role}): set that instead"),
                                 []).append(host)
                continue
            if name in OWN_CHECKED or (spec or {}).get("role") in RUN_ROLES:
                continue
            if spec is None:
                if name.startswith(TYPO_PREFIXES) and name not in PUBLISHED:
                    prefix = next(p for p in TYPO_PREFIXES if name.startswith(p))
                    found.setdefault((name, typo_text(name, prefix.rstrip("_"), specs)), []).append(host)
                continue
            if value is None:
                continue
            kind = spec.get("type", "str")
            wanted, accepts = SPEC_TYPES.get(kind, (None, None))
            if accepts is not None and not accepts(value):
                found.setdefault((name, f"must be {wanted}, got {type_name(value)} {shown(value)}"),
                                 []).append(host)
                continue
            if kind == "list" and spec.get("elements") in SPEC_TYPES:
                wanted, accepts = SPEC_TYPES[spec["elements"]]
                bad = [item for item in value if not accepts(item)]
                if bad:
                    found.setdefault((name, f"every item must be {wanted}, got {type_name(bad[0])} "
                                            f"{shown(bad[0])}"), []).append(host)
                    continue
            low, high = RANGES.get(name, (None, None))
            if low is not None and not low <= value <= high:
                found.setdefault((name, f"{shown(value)} is not a whole number from {low} to {high}"),
                                 []).append(host)
                continue
            choices = spec.get("choices")
            if choices and value not in choices:
                found.setdefault((name, f"{shown(value)} is not one of {', '.join(map(str, choices))}"),
                                 []).append(host)
    return grouped(found)
