"""The checks of a job description: every ``job_*`` variable against the inventory, at once.

A job is described by ``job_*`` variables (a file under ``jobs/`` passed with ``-e @file``, or
extra vars). ``check_job`` checks every one of them before anything is copied or started and
returns the checked values, or raises JobSpecError listing every problem; job_spec.build_plan
turns the values into the plan. Every message names the node and the variable: job-wide settings
are reported on the master node, which runs the launcher (msrun's scheduler, mpirun, the dynamic
cluster's scheduler, torchrun's rank 0).

Plain Python (stdlib and PyYAML, no Ansible), so it is unit tested directly.
"""
import difflib
import ipaddress
import os
import re

import yaml

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.ansible_values import is_int
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation.shell_names import ENV_NAME, SHELL_NAME

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
# Every pattern is applied with fullmatch: `$` alone would accept a trailing newline.
JOB_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
# Variables the suite sets itself: a job may not override them through job_env (CS_* also tell
# the ranks where to record their exit status).
RESERVED_ENV = re.compile(r"CS_.*|MS_ROLE|MS_NODE_ID|MS_SCHED_HOST|MS_SCHED_PORT|MS_WORKER_NUM|"
                          r"RANK|LOCAL_RANK|WORLD_SIZE|MASTER_ADDR|MASTER_PORT|OMPI_.*")
# job_env names whose values are secrets: written to a 0600 file by a no_log task, never shown.
SECRET_ENV = re.compile(r".*(PASSWORD|PASSWD|TOKEN|SECRET|KEY).*", re.IGNORECASE)
CONTROL_CHARACTER = re.compile(r"[\x00-\x1f\x7f]")
# One component of a job path: no leading dot (no '.', '..' or dot-directory such as ~/.ssh).
PATH_COMPONENT = re.compile(r"[A-Za-z0-9_+-][A-Za-z0-9_.+-]*")
# A command or path that reaches a shell as one word: job_python, job_mpirun_prefix.
COMMAND_PATH = re.compile(r"[A-Za-z0-9_./+-]+")
# mpirun's btl/oob_tcp_if_include: interface names or CIDRs, comma-separated.
IF_INCLUDE = re.compile(r"[A-Za-z0-9_.:/-]+(,[A-Za-z0-9_.:/-]+)*")
# First components of an absolute job_base_dir that belong to the system (or to everyone:
# /tmp, /var/tmp, /dev/shm are world-writable) and never hold a job.
SYSTEM_TOPS = frozenset(("bin", "boot", "dev", "etc", "lib", "lib32", "lib64", "libx32", "proc",
                         "root", "run", "sbin", "snap", "sys", "tmp", "usr", "var", "lost+found"))
# Directories of the job directory that the suite itself fills (and clears on every launch).
SUITE_SUBDIRS = ("run", "bin", "tls", "code")
TLS_FIELDS = ("server_cert_path", "crl_path", "client_cert_path", "ca_cert_path", "cipher_list",
              "cert_expire_warning_time_in_day")
TLS_SECRETS = ("client_password", "server_password")

# Every job variable with its default, read from role job's defaults (roles/job/defaults/main.yml,
# two folders up from plugins/plugin_utils in the checkout as in the installed collection).
DEFAULTS_FILE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))),
                             "roles", "job", "defaults", "main.yml")
# Required, so commented out in the defaults file: no default.
REQUIRED = ("job_name", "job_launcher", "job_script")
# Options of a run rather than of the job (read by role job's tasks themselves).
RUN_OPTIONS = ("job_wait", "job_stop_grace", "job_stacks_root", "job_render_only", "job_render_dir")
# Defaults the defaults file computes with Jinja from other settings (job_port from
# cluster_master_port / cluster_torchrun_port, job_python from the inventory's launch_python).
# Ansible resolves them before the job reaches these checks, so the text of the expression means
# nothing here: they stand as None, "worked out from the inventory" (job_port: DEFAULT_PORTS of
# the launcher; job_python: the launch_python of build_plan). Any other templated default is an
# error when this module is loaded: decide how the checks treat it and list it here.
TEMPLATED = ("job_port", "job_python")


def _load_defaults(path=DEFAULTS_FILE):
    """{job variable: default} of the job itself (not RUN_OPTIONS), from role job's defaults."""
    with open(path, encoding="utf-8") as handle:
        defaults = yaml.safe_load(handle) or {}
    loaded = {name: None for name in REQUIRED}
    for name, value in defaults.items():
        if name in RUN_OPTIONS:
            continue
        if isinstance(value, str) and ("{{" in value or "{%" in value):
            if name not in TEMPLATED:
                raise ValueError(f"{path}: {name}: a templated default that jobs/checks.py does not know; "
                                 f"add it to TEMPLATED with what it stands for")
            value = None
        loaded[name] = value
    return loaded


DEFAULTS = _load_defaults()
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


def _split_path(path):
    """("/", parts) for an absolute path, ("~", parts) for one under the training user's home.

    "~/x" and a relative "x" are both under the home; "~" alone and "~user" are not paths here.
    Empty and "." parts are dropped; ".." stays, to be refused by the caller.
    """
    if path.startswith("~"):
        if path != "~" and not path.startswith("~/"):
            raise ValueError("~user paths are not supported; give a path under the training user's home")
        root, rest = "~", path[1:]
    elif path.startswith("/"):
        root, rest = "/", path
    else:
        root, rest = "~", path
    return root, tuple(part for part in rest.split("/") if part not in ("", "."))


def _show(root, parts):
    return ("~/" if root == "~" else "/") + "/".join(parts)


def _bad_part(parts):
    """The first part that is '..', a dot-directory or outside the safe characters, or None."""
    return next((part for part in parts if not PATH_COMPONENT.fullmatch(part)), None)


def _base_dir(job, where, errors):
    """(root, parts) of job_base_dir: under the home, or an absolute path outside the system's."""
    base = job.get("job_base_dir", DEFAULTS["job_base_dir"])
    problem = None
    if not isinstance(base, str) or not base:
        problem = f"must be a directory path, got {base!r}"
    else:
        try:
            root, parts = _split_path(base)
        except ValueError as error:
            problem = f"{base!r}: {error}"
        else:
            bad = _bad_part(parts)
            if bad is not None:
                problem = (f"{base!r} resolves to {_show(root, parts)}: {bad!r} is not allowed (no '..', "
                           f"no dot-directories; letters, digits, '_', '+', '-', '.')")
            elif not parts:
                problem = f"{base!r} resolves to the home or root directory itself"
            elif root == "/" and (parts[0] in SYSTEM_TOPS or parts == ("home",)):
                problem = (f"{base!r} resolves to {_show(root, parts)}, a system or shared directory; "
                           f"use a path under the training user's home (default jobs) or a data "
                           f"directory such as /data/jobs")
    if problem:
        errors.append(f"{where}: job_base_dir: {problem}")
        return "~", (DEFAULTS["job_base_dir"],)
    return root, parts


def _inside_job_dir(job, name, default, job_root, job_parts, where, errors):
    """A path option that must lie inside the job directory, relative to it ('logs')."""
    value = job.get(name, "") or ""
    shown_job_dir = _show(job_root, job_parts)
    if not isinstance(value, str):
        errors.append(f"{where}: {name}: must be a path inside the job directory {shown_job_dir}, got {value!r}")
        return default
    if not value:
        return default
    try:
        root, parts = _split_path(value)
    except ValueError as error:
        errors.append(f"{where}: {name}: {value!r}: {error}")
        return default
    if value.startswith(("/", "~")):
        full_root, full = root, parts
    elif parts[:len(job_parts)] == job_parts and job_root == "~":
        full_root, full = root, parts  # given from the home, as "jobs/<name>/logs"
    else:
        full_root, full = job_root, job_parts + parts
    bad = _bad_part(parts)
    resolved = _show(full_root, _lexical(full))
    if bad is not None or full_root != job_root or full[:len(job_parts)] != job_parts or len(full) == len(job_parts):
        reason = f"{bad!r} is not allowed (no '..', no dot-directories)" if bad is not None else \
            f"it is not inside the job directory {shown_job_dir}"
        errors.append(f"{where}: {name}: {value!r} resolves to {resolved}: {reason}; the suite clears this "
                      f"directory on every launch, so it must be the job's own (default {default})")
        return default
    inner = full[len(job_parts):]
    if inner[0] in SUITE_SUBDIRS:
        errors.append(f"{where}: {name}: {value!r} resolves to {resolved}, inside the suite's own "
                      f"{inner[0]}/ directory of the job; choose another name (default {default})")
        return default
    return "/".join(inner)


def _lexical(parts):
    """parts with '..' applied (for messages: where a path would lead)."""
    out = []
    for part in parts:
        if part == "..":
            if out:
                out.pop()
        else:
            out.append(part)
    return tuple(out)


def _job_dirs(job, where, errors):
    """(name, job directory, log directory relative to it, recovery directory relative to it).

    The job directory is <job_base_dir>/<job_name>, relative to the training user's home unless
    absolute; the log and recovery directories always lie inside it (the suite clears them).
    """
    name = job.get("job_name")
    if not isinstance(name, str) or not JOB_NAME.fullmatch(name):
        errors.append(f"{where}: job_name: must be 1-64 letters, digits, '.', '_' or '-' starting "
                      f"with a letter or digit, got {name!r}")
        name = None
    root, base_parts = _base_dir(job, where, errors)
    job_parts = base_parts + ((name,) if name else ("job",))
    log_dir = _inside_job_dir(job, "job_log_dir", "logs", root, job_parts, where, errors)
    recovery = _inside_job_dir(job, "job_dynamic_recovery_path", "recovery", root, job_parts, where, errors)
    job_dir = "/".join(job_parts) if root == "~" else "/" + "/".join(job_parts)
    return name, (job_dir if name else None), log_dir, recovery


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


def _check_tls(job, where, errors):
    tls = job.get("job_dynamic_tls") or {}
    if not isinstance(tls, dict):
        errors.append(f"{where}: job_dynamic_tls: must be a mapping, got a {type(tls).__name__}")
        return {}
    if not tls:
        return {}
    for key in sorted(set(tls) - set(TLS_FIELDS) - set(TLS_SECRETS)):
        errors.append(f"{where}: job_dynamic_tls: {key} is not a field of the TLS config "
                      f"(fields: {', '.join(TLS_FIELDS + TLS_SECRETS)})")
    for key in ("server_cert_path", "client_cert_path", "ca_cert_path") + TLS_SECRETS:
        if not isinstance(tls.get(key), str) or not tls.get(key):
            errors.append(f"{where}: job_dynamic_tls: {key} is required when TLS is on")
    days = tls.get("cert_expire_warning_time_in_day", 90)
    if not _int_in(days, 7, 180):
        errors.append(f"{where}: job_dynamic_tls: cert_expire_warning_time_in_day {days!r} is not "
                      f"an integer from 7 to 180")
    config = {key: tls.get(key, "") for key in TLS_FIELDS}
    config["cert_expire_warning_time_in_day"] = days
    # The passwords stay out of the plan (it is a fact, shown with -v): the playbook writes them
    # from job_dynamic_tls straight into a 0600 file with no_log.
    return {"enabled": True, "config": config}


def check_control(job, groups):
    """What stop.yml and logs.yml need, checked: the job's name, nodes, directories and master."""
    errors = []
    hosts, master, where = _hosts_and_master(job, groups, errors)
    _check_strings(job, where, errors)
    name, job_dir, log_dir, _recovery = _job_dirs(job, where, errors)
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
    name, job_dir, log_dir, recovery_path = _job_dirs(job, where, errors)

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
        "dynamic_tls": _check_tls(job, where, errors),
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
