"""The checks of a job description: every ``job_*`` variable against the inventory, at once.

A job is described by ``job_*`` variables (a file under ``jobs/`` passed with ``-e @file``, or
extra vars). ``check_job`` checks every one of them before anything is copied or started and
returns the checked values, or raises JobSpecError listing every problem; jobs/spec.py (build_plan)
turns the values into the plan. Every message names the node and the variable: job-wide settings
are reported on the master node, which runs the launcher (msrun's scheduler, mpirun, the dynamic
cluster's scheduler, torchrun's rank 0).

Plain Python (stdlib and PyYAML, no Ansible), so it is unit tested directly.
"""
import difflib
import ipaddress
import os
import re

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.ansible_values import is_int
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs.defaults import DEFAULTS, RUN_OPTIONS
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs.launchers import (
    DEFAULT_PORTS, LAUNCHERS, default_workers, node_kind)
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs.paths import job_dirs
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs.tls import check_tls
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation.shell_names import ENV_NAME, SHELL_NAME

# Every pattern is applied with fullmatch: `$` alone would accept a trailing newline.
# Variables the suite sets itself: a job may not override them through job_env (CS_* also tell
# the ranks where to record their exit status).
RESERVED_ENV = re.compile(r"CS_.*|MS_ROLE|MS_NODE_ID|MS_SCHED_HOST|MS_SCHED_PORT|MS_WORKER_NUM|"
                          r"RANK|LOCAL_RANK|WORLD_SIZE|MASTER_ADDR|MASTER_PORT|OMPI_.*")
# job_env names whose values are secrets: written to a 0600 file by a no_log task, never shown.
SECRET_ENV = re.compile(r".*(PASSWORD|PASSWD|TOKEN|SECRET|KEY).*", re.IGNORECASE)
CONTROL_CHARACTER = re.compile(r"[\x00-\x1f\x7f]")
# A command or path that reaches a shell as one word: job_python, job_mpirun_prefix.
COMMAND_PATH = re.compile(r"[A-Za-z0-9_./+-]+")
# mpirun's btl/oob_tcp_if_include: interface names or CIDRs, comma-separated.
IF_INCLUDE = re.compile(r"[A-Za-z0-9_.:/-]+(,[A-Za-z0-9_.:/-]+)*")

# Variables that only stop/logs need (the rest may be absent there).
CONTROL_VARIABLES = ("job_name", "job_hosts", "job_base_dir", "job_log_dir", "job_master")


class JobSpecError(Exception):
    """The job description is wrong; ``errors`` lists every problem."""

    def __init__(self, errors):
        # A message never carries a raw control character from a value: it would break the output.
        errors = [CONTROL_CHARACTER.sub(lambda match: repr(match.group())[1:-1], error) for error in errors]
        super().__init__("\n".join(errors))
        self.errors = errors



def _as_int(value):
    """Numbers given as `-e job_port=8118` arrive as strings: digits count as the number."""
    if isinstance(value, str) and re.fullmatch(r"-?[0-9]+", value.strip()):
        return int(value)
    return value


def _as_bool(value):
    """`-e job_msrun_bind_core=true` arrives as a string: only true/false count."""
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return value


def _int_in(value, low, high):
    return is_int(value) and low <= value <= high


def _scalar(value):
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


def _check_unknown(job, errors, where):
    for name in sorted(job):
        if name.startswith("job_") and name not in DEFAULTS and name not in RUN_OPTIONS:
            close = difflib.get_close_matches(name, list(DEFAULTS), n=3, cutoff=0.75)
            hint = f" (known: {', '.join(close)})" if close else ""
            errors.append(f"{where}: {name}: not a job variable{hint}")


def _hosts_and_master(job, groups, errors):
    cluster = list(groups.get("cluster") or [])
    masters = list(groups.get("cluster_master") or [])
    hosts = job.get("job_hosts")
    if hosts is None:
        hosts = cluster
    master = job.get("job_master") or (masters[0] if masters else None)
    where = master if isinstance(master, str) and master else "cluster_master"
    if not isinstance(hosts, list) or not all(isinstance(h, str) for h in hosts) or not hosts:
        errors.append(f"{where}: job_hosts: must be a non-empty list of inventory hosts, got {hosts!r}")
        hosts = []
    seen = set()
    for host in hosts:
        if host in seen:
            errors.append(f"{host}: job_hosts: listed twice")
        seen.add(host)
        if host not in cluster:
            errors.append(f"{host}: job_hosts: not a node of group 'cluster'")
    if not isinstance(master, str) or not master:
        errors.append("cluster_master: job_master: no master node (group 'cluster_master' is empty "
                      "and job_master is not set)")
        master = None
    elif master not in cluster:
        errors.append(f"{master}: job_master: the master is not a node of group 'cluster'")
    elif hosts and master not in hosts:
        errors.append(f"{master}: job_master: the master is not one of job_hosts ({', '.join(hosts)})")
    # Node rank 0 is the master (torchrun's rank 0, msrun's scheduler node); the rest keep order.
    ordered = ([master] if master in hosts else []) + [h for h in dict.fromkeys(hosts) if h != master]
    return ordered, master, where


def _check_script(job, where, project_dir, errors):
    script = job.get("job_script")
    code_dir = job.get("job_code_dir") or ""
    if not isinstance(code_dir, str):
        errors.append(f"{where}: job_code_dir: must be a controller directory, got {code_dir!r}")
        code_dir = ""
    if code_dir and not os.path.isabs(code_dir):
        code_dir = os.path.normpath(os.path.join(project_dir, code_dir))
    if not isinstance(script, str) or not script:
        errors.append(f"{where}: job_script: required: the training script (or program) to run")
        return None, code_dir
    project = os.path.realpath(project_dir)
    if code_dir and not CONTROL_CHARACTER.search(code_dir) and (os.path.realpath(code_dir) == "/"
                     or project == os.path.realpath(code_dir)
                     or project.startswith(os.path.realpath(code_dir).rstrip("/") + "/")):
        errors.append(f"{where}: job_code_dir: {code_dir} resolves to {os.path.realpath(code_dir)}, the root or "
                      f"a directory holding the project; give the directory of the training code")
        return script, ""
    if code_dir:
        if not os.path.isdir(code_dir):
            errors.append(f"{where}: job_code_dir: {code_dir} is not a directory on the controller")
        elif os.path.isabs(script) or ".." in script.split("/"):
            errors.append(f"{where}: job_script: {script} must be a path inside job_code_dir")
        elif not os.path.isfile(os.path.join(code_dir, script)) and not job.get("job_setup"):
            errors.append(f"{where}: job_script: {script} does not exist in {code_dir}")
    elif not os.path.isabs(script):
        errors.append(f"{where}: job_script: {script}: without job_code_dir the script must be an "
                      f"absolute path on the nodes")
    return script, code_dir


def _workers(job, hosts, groups, hostvars, where, errors):
    given = job.get("job_workers_per_node")
    workers = {}
    for host in hosts:
        kind = node_kind(host, groups)
        if given is None:
            count = default_workers(host, hostvars, kind)
        elif isinstance(given, dict):
            count = _as_int(given.get(host, default_workers(host, hostvars, kind)))
        else:
            count = _as_int(given)
        if not _int_in(count, 1, 1024):
            errors.append(f"{host}: job_workers_per_node: {count!r} is not an integer from 1 to 1024")
            count = 0
        workers[host] = count
    if isinstance(given, dict):
        for host in sorted(set(given) - set(hosts)):
            errors.append(f"{host}: job_workers_per_node: not one of job_hosts")
    total = sum(workers.values())
    wanted = _as_int(job.get("job_worker_num"))
    if wanted is not None and wanted != total:
        per_node = ", ".join(f"{h}={workers[h]}" for h in hosts)
        errors.append(f"{where}: job_worker_num: {wanted!r} is not the sum of the workers per node "
                      f"({per_node}: {total})")
    return workers, total


def _check_env(job, where, errors):
    env = job.get("job_env") or {}
    if not isinstance(env, dict):
        errors.append(f"{where}: job_env: must be a mapping NAME: value, got {env!r}")
        return {}
    clean = {}
    for name, value in env.items():
        if not isinstance(name, str) or not ENV_NAME.fullmatch(name):
            errors.append(f"{where}: job_env: {name!r} is not an environment variable name")
        elif RESERVED_ENV.fullmatch(name):
            errors.append(f"{where}: job_env: {name} is set by the launcher, not by the job")
        elif SHELL_NAME.fullmatch(name):
            errors.append(f"{where}: job_env: {name} is a variable of bash itself (read-only or reset by "
                          f"the shell), it cannot reach the job")
        elif not _scalar(value):
            shown = "a " + type(value).__name__ if SECRET_ENV.fullmatch(name) else repr(value)
            errors.append(f"{where}: job_env: {name}: value must be a string or a number, got {shown}")
        else:
            clean[name] = str(value)
    return clean


def _control_characters(value, path=()):
    """[(path, index, character)] of every control character in the strings of value (keys too)."""
    found = []
    if isinstance(value, str):
        match = CONTROL_CHARACTER.search(value)
        if match:
            found.append((path, match.start(), match.group()))
    elif isinstance(value, dict):
        for key, item in value.items():
            found += _control_characters(key, path + ("(name)",))
            found += _control_characters(item, path + (str(key),))
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            found += _control_characters(item, path + (str(index),))
    return found


def _check_strings(job, where, errors):
    """No control character (newline, tab, NUL, ...) in any job_* string: they break scripts."""
    for name in sorted(job):
        if not isinstance(name, str) or not name.startswith("job_"):
            continue
        for path, index, character in _control_characters(job[name]):
            field = name + "".join(f"[{part}]" for part in path)
            errors.append(f"{where}: {field}: control character {character!r} at position {index} "
                          f"is not allowed")


def _check_list(job, name, where, errors, pattern=None):
    value = job.get(name, DEFAULTS[name])
    if value is None:
        value = []
    if not isinstance(value, list) or not all(_scalar(v) for v in value):
        errors.append(f"{where}: {name}: must be a list of strings or numbers, got {value!r}")
        return []
    if pattern:
        for item in value:
            if not pattern.fullmatch(str(item)):
                errors.append(f"{where}: {name}: {item!r} is not an environment variable name")
    return [str(v) for v in value]


def _check_bool(job, name, where, errors):
    value = _as_bool(job.get(name, DEFAULTS[name]))
    if not isinstance(value, bool):
        errors.append(f"{where}: {name}: must be true or false, got {value!r}")
        return DEFAULTS[name]
    return value


def _check_int(job, name, low, high, where, errors, allow_none=False):
    value = _as_int(job.get(name, DEFAULTS[name]))
    if value is None and allow_none:
        return None
    if not _int_in(value, low, high):
        errors.append(f"{where}: {name}: {value!r} is not an integer from {low} to {high}")
        return DEFAULTS[name]
    return value


def check_control(job, groups):
    """What stop.yml and logs.yml need, checked: the job's name, nodes, directories and master."""
    errors = []
    hosts, master, where = _hosts_and_master(job, groups, errors)
    _check_strings(job, where, errors)
    name, job_dir, log_dir, _recovery = job_dirs(job, DEFAULTS["job_base_dir"], where, errors)
    if errors:
        raise JobSpecError(errors)
    return {"name": name, "hosts": hosts, "master": master, "job_dir": job_dir, "log_dir": log_dir}


def check_job(job, groups, hostvars, project_dir=".", launch_python="python3"):
    """Check ``job`` (the job_* variables) against the inventory; return the checked values.

    {"hosts" (master first), "master", "name", "job_dir", "log_dir", "launcher", "script",
    "code_dir", "args", "workers" ({host: count}), "worker_num", "port", "master_addr", "env",
    "python", "setup", "options" (the launcher's settings, as the plan carries them)}.
    Raises JobSpecError with every problem at once.
    """
    errors = []
    hosts, master, where = _hosts_and_master(job, groups, errors)
    _check_unknown(job, errors, where)
    _check_strings(job, where, errors)
    name, job_dir, log_dir, recovery_path = job_dirs(job, DEFAULTS["job_base_dir"], where, errors)

    launcher = job.get("job_launcher")
    if launcher not in LAUNCHERS:
        errors.append(f"{where}: job_launcher: {launcher!r} is not one of {', '.join(LAUNCHERS)}")
        launcher = None
    script, code_dir = _check_script(job, where, project_dir, errors)
    args = _check_list(job, "job_args", where, errors)
    workers, total = _workers(job, hosts, groups, hostvars, where, errors)

    port = _as_int(job.get("job_port"))
    if port is None:
        port = DEFAULT_PORTS.get(launcher)
    elif not _int_in(port, 1024, 65535):
        errors.append(f"{master or where}: job_port: {port!r} is not an integer from 1024 to 65535")
    if launcher in ("msrun", "dynamic", "torchrun") and port is None:
        errors.append(f"{where}: job_port: required for {launcher}")

    master_vars = hostvars.get(master, {}) if master else {}
    master_addr = job.get("job_master_addr") or master_vars.get("ansible_host") or master
    try:
        if not isinstance(master_addr, str):
            raise ValueError
        ipaddress.IPv4Address(master_addr)
    except ValueError:
        errors.append(f"{where}: job_master_addr: {master_addr!r} is not an IPv4 address (msrun and "
                      f"the scheduler need the master's own address, never a name); set "
                      f"job_master_addr or the master's ansible_host")
    else:
        addresses = (master_vars.get("ansible_facts") or {}).get("all_ipv4_addresses")
        if addresses and master_addr not in addresses:
            errors.append(f"{where}: job_master_addr: {master_addr} is not an address of {master} "
                          f"({', '.join(addresses)})")

    env = _check_env(job, where, errors)
    python = job.get("job_python") or launch_python
    if not isinstance(python, str) or not COMMAND_PATH.fullmatch(python):
        errors.append(f"{where}: job_python: must be a command name or path (letters, digits, "
                      f"'_', '.', '/', '+', '-'), got {python!r}")
    setup = job.get("job_setup") or ""
    if not isinstance(setup, str):
        errors.append(f"{where}: job_setup: must be a shell command, got {setup!r}")

    plan_options = {
        "timeout": _check_int(job, "job_timeout", 10, 7 * 86400, where, errors),
        "cluster_timeout": _check_int(job, "job_cluster_timeout", 10, 86400, where, errors),
        "source_env": _check_bool(job, "job_source_env", where, errors),
        "msrun_bind_core": _check_bool(job, "job_msrun_bind_core", where, errors),
        "msrun_sim_level": _check_int(job, "job_msrun_sim_level", -1, 1, where, errors, allow_none=True),
        "msrun_rank_table_file": job.get("job_msrun_rank_table_file") or "",
        "mpirun_hostfile": _check_bool(job, "job_mpirun_hostfile", where, errors),
        "mpirun_abort_on_failure": _check_bool(job, "job_mpirun_abort_on_failure", where, errors),
        "mpirun_forward_env": _check_list(job, "job_mpirun_forward_env", where, errors, ENV_NAME),
        "mpirun_extra_args": _check_list(job, "job_mpirun_extra_args", where, errors),
        "mpirun_prefix": job.get("job_mpirun_prefix")
        if job.get("job_mpirun_prefix") is not None else (master_vars.get("openmpi_prefix") or ""),
        "mpirun_if_include": job.get("job_mpirun_if_include")
        if job.get("job_mpirun_if_include") is not None else (master_vars.get("cluster_network_cidr") or ""),
        "dynamic_recovery": _check_bool(job, "job_dynamic_recovery", where, errors),
        "dynamic_recovery_path": recovery_path,
        "dynamic_recovery_wait": _check_int(job, "job_dynamic_recovery_wait", 0, 3600, where, errors),
        "dynamic_hccl_cm_init": _check_bool(job, "job_dynamic_hccl_cm_init", where, errors),
        "dynamic_tls": check_tls(job, where, errors),
        "torch_launcher": job.get("job_torch_launcher", DEFAULTS["job_torch_launcher"]),
        "torch_backend": job.get("job_torch_backend", DEFAULTS["job_torch_backend"]),
        "torch_max_restarts": _check_int(job, "job_torch_max_restarts", 0, 100, where, errors),
        "hang_timeout": _check_int(job, "job_hang_timeout", 10, 7 * 86400, where, errors, allow_none=True),
        "stop_on_hang": _check_bool(job, "job_stop_on_hang", where, errors),
    }
    if plan_options["torch_launcher"] not in ("torchrun", "distributed_launch"):
        errors.append(f"{where}: job_torch_launcher: {plan_options['torch_launcher']!r} is not "
                      f"torchrun or distributed_launch")
    if plan_options["torch_backend"] not in ("auto", "gloo", "nccl", "hccl"):
        errors.append(f"{where}: job_torch_backend: {plan_options['torch_backend']!r} is not "
                      f"auto, gloo, nccl or hccl")
    if_include = plan_options["mpirun_if_include"]
    if not isinstance(if_include, str) or (if_include and not IF_INCLUDE.fullmatch(if_include)):
        errors.append(f"{where}: job_mpirun_if_include: must be interface names or IPv4 CIDRs separated "
                      f"by commas (e.g. eth0 or 192.168.1.0/24), got {if_include!r}")
    else:
        for item in if_include.split(","):
            if "/" in item:
                try:
                    ipaddress.IPv4Network(item, strict=False)
                except ValueError:
                    errors.append(f"{where}: job_mpirun_if_include: {item} is not an IPv4 CIDR")
    prefix = plan_options["mpirun_prefix"]
    if not isinstance(prefix, str) or (prefix and not (prefix.startswith("/") and COMMAND_PATH.fullmatch(prefix)
                                                       and ".." not in prefix.split("/"))):
        errors.append(f"{where}: job_mpirun_prefix: must be an absolute directory path (letters, digits, "
                      f"'_', '.', '/', '+', '-'), got {prefix!r}")
    if not isinstance(plan_options["msrun_rank_table_file"], str):
        errors.append(f"{where}: job_msrun_rank_table_file: must be a path on the nodes")
    if launcher == "dynamic" and plan_options["dynamic_recovery"] and not plan_options["dynamic_recovery_path"]:
        errors.append(f"{where}: job_dynamic_recovery_path: required with job_dynamic_recovery")

    if errors:
        raise JobSpecError(errors)
    return {"hosts": hosts, "master": master, "name": name, "job_dir": job_dir, "log_dir": log_dir,
            "launcher": launcher, "script": script, "code_dir": code_dir, "args": args, "workers": workers,
            "worker_num": total, "port": port, "master_addr": master_addr, "env": env, "python": python,
            "setup": setup, "options": plan_options}
