"""The NPU device plan's inputs from Ansible's host variables: npu_model, npu_device_count and the
compact npu_network_* settings."""

from collections.abc import Mapping

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.npu_plan.generation import (
    INVENTORY_PREFIX, SETTING_NAMES,
)
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.npu_plan.rules import (
    DEVICE_COUNT_VAR, KNOWN_MODELS, MODEL_VAR, PlanError,
)


def hardware_from_hostvars(hosts, hostvars):
    """Return (model, {host: device count}) read from ``npu_model`` / ``npu_device_count``.

    ``hostvars`` is Ansible's hostvars or any mapping host -> mapping of variables. One
    plan covers one hardware model, so hosts must agree on it. Missing device counts are
    left as None for generate_plan/validate_plan to report. Raises PlanError.
    """
    problems = []
    models = {}
    counts = {}
    for host, variables in _host_variables(hosts, hostvars, problems):
        counts[host] = variables.get(DEVICE_COUNT_VAR)
        model = variables.get(MODEL_VAR)
        if model is None:
            problems.append(f"{host}: {MODEL_VAR} is not set (known: {', '.join(KNOWN_MODELS)})")
        else:
            models[host] = model
    if models:
        first_host, first_model = next(iter(models.items()))
        for host, model in models.items():
            if model != first_model:
                problems.append(
                    f"{host}: {MODEL_VAR} is {model} but {first_host} has {first_model}; "
                    f"one plan covers one hardware model"
                )
    if problems:
        raise PlanError(problems)
    return (next(iter(models.values())) if models else None), counts


def settings_from_hostvars(hosts, hostvars):
    """Return the compact settings dict (no prefix) from the ``npu_network_*`` variables.

    Compact settings are cluster-wide, so every host must see the same values (put them
    in group_vars). ``npu_network_plan`` may be a host's own device list (host_vars) or a
    mapping host -> device list (group_vars). Raises PlanError listing every problem.
    """
    problems = []
    settings = {}
    reference_host = None
    explicit = {}
    strangers = set()
    host_list = list(hosts)
    for host, variables in _host_variables(host_list, hostvars, problems):
        unknown = sorted(
            name
            for name in variables
            if isinstance(name, str)
            and name.startswith(INVENTORY_PREFIX)
            and name[len(INVENTORY_PREFIX) :] not in SETTING_NAMES
        )
        if unknown:
            problems.append(f"{host}: unknown variable {', '.join(unknown)}")
        values = {name: variables.get(INVENTORY_PREFIX + name) for name in SETTING_NAMES if name != "plan"}
        if reference_host is None:
            reference_host, settings = host, values
        for name, value in values.items():
            if value != settings[name]:
                problems.append(
                    f"{host}: {INVENTORY_PREFIX}{name} is {_shown(value)} but {reference_host} has "
                    f"{_shown(settings[name])}; compact settings are cluster-wide "
                    f"(write {INVENTORY_PREFIX}plan for per-host addresses)"
                )
        own = variables.get(INVENTORY_PREFIX + "plan")
        if isinstance(own, Mapping):
            strangers.update(str(name) for name in own if name not in host_list)
            if host in own:
                explicit[host] = own[host]
        elif isinstance(own, (list, tuple)):
            explicit[host] = own
        elif own is not None:
            problems.append(
                f"{host}: {INVENTORY_PREFIX}plan must be a device list or a mapping of host to "
                f"device list, not {type(own).__name__}"
            )
    if strangers:
        problems.append(
            f"{INVENTORY_PREFIX}plan names hosts that are not in the host list: {', '.join(sorted(strangers))}"
        )
    if problems:
        raise PlanError(problems)
    settings = {name: value for name, value in settings.items() if value is not None}
    if explicit:
        settings["plan"] = explicit
    return settings


def _shown(value):
    return "not set" if value is None else repr(value)


def _host_variables(hosts, hostvars, problems):
    """Yield (host, variables) for each host found in ``hostvars``; report the others."""
    if isinstance(hosts, (str, Mapping)) or not hasattr(hosts, "__iter__"):
        raise PlanError(f"hosts must be a list of host names, not {type(hosts).__name__}")
    for host in hosts:
        try:
            variables = hostvars[host]
        except (KeyError, TypeError):
            problems.append(f"{host}: no variables for this host (not in the inventory?)")
            continue
        yield host, variables
