"""The Python stack of every process of one training job on a node, dumped with py-spy.

The job's processes are found by their tag (job_procs). Each is classified from its environment
as a rank (the variables cs_rank.py reads), a rank's child (a process that inherited its rank's
variables, such as a DataLoader worker), the scheduler (MS_ROLE=MS_SCHED) or a launcher (msrun,
torchrun's agent). Every Python process among them is dumped with ``py-spy dump --json``, with
native frames when py-spy can unwind them (``--native``; without them when that fails). py-spy
pauses a process only while it reads its stack and needs nothing from the job's code; it needs
ptrace permission on the process: the same user (and Yama's ptrace_scope 0 where Yama is
loaded) or CAP_SYS_PTRACE.

Plain Python over /proc (Linux), stdlib only.
"""
import json
import os
import subprocess

from ansible_collections.cluster_suite.hpc.plugins.module_utils.job_procs import job_processes, parse_environ

# As cs_rank.py reads them (CS_RANK first: rank.sh and the dynamic cluster export it).
RANK_VARIABLES = ("CS_RANK", "RANK", "RANK_ID", "MS_NODE_ID", "OMPI_COMM_WORLD_RANK")
PTRACE_SCOPE = "/proc/sys/kernel/yama/ptrace_scope"
MAX_ERROR = 400


def _read(path):
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return None


def classify(env):
    """(role, rank) of a process from its environment: ("scheduler", None), ("rank", N) or
    ("launcher", None)."""
    if env.get("MS_ROLE") == "MS_SCHED" or env.get("CS_RANK") == "scheduler":
        return "scheduler", None
    for name in RANK_VARIABLES:
        value = env.get(name, "")
        if value.isdigit():
            return "rank", int(value)
    return "launcher", None


def is_python(pid, cmd, proc="/proc"):
    """Whether process ``pid`` runs a Python interpreter (its executable, else its command)."""
    try:
        exe = os.readlink(os.path.join(proc, str(pid), "exe"))
    except OSError:
        exe = (cmd.split() or [""])[0]
    return os.path.basename(exe).startswith("python")


def job_members(job_dir, proc="/proc"):
    """The job's live processes on this node, each with "role", "rank" and "python".

    A process whose parent is a process of the same rank is that rank's child ("rank_child"),
    so a rank is its topmost Python process ("rank_wrapper": a shell in front of it).
    """
    found = job_processes(job_dir, proc)
    for item in found:
        env = parse_environ(_read(os.path.join(proc, str(item["pid"]), "environ")))
        item["role"], item["rank"] = classify(env)
        item["python"] = is_python(item["pid"], item["cmd"], proc)
    # A launcher may start a rank through a shell that carries the rank's variables too: where a
    # Python process holds the same rank, the other process is its wrapper.
    python_ranks = {item["rank"] for item in found if item["role"] == "rank" and item["python"]}
    for item in found:
        if item["role"] == "rank" and not item["python"] and item["rank"] in python_ranks:
            item["role"] = "rank_wrapper"
    by_pid = {item["pid"]: item for item in found}
    for item in found:
        parent = by_pid.get(item["ppid"])
        if item["role"] == "rank" and parent is not None and parent["role"] in ("rank", "rank_child") \
                and parent["rank"] == item["rank"]:
            item["role"] = "rank_child"
    return found


def ptrace_scope(path=PTRACE_SCOPE):
    """Yama's ptrace_scope (0 to 3), or None where Yama is not loaded."""
    raw = _read(path)
    try:
        return int(raw.strip()) if raw is not None else None
    except ValueError:
        return None


def _short(text):
    text = " ".join((text or "").split())
    return text[:MAX_ERROR]


def run_py_spy(py_spy, pid, native, timeout, run=subprocess.run):
    """(threads, error) of one ``py-spy dump --json`` of ``pid``."""
    argv = [py_spy, "dump", "--json", "--pid", str(pid)] + (["--native"] if native else [])
    try:
        done = run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return None, "py-spy dump took longer than %s s" % timeout
    except OSError as exc:
        return None, "py-spy could not run: %s" % exc
    stdout = done.stdout.decode("utf-8", "replace")
    if done.returncode != 0:
        return None, _short(done.stderr.decode("utf-8", "replace") or stdout) or "py-spy exited %d" % done.returncode
    try:
        threads = json.loads(stdout)
    except ValueError:
        return None, "py-spy printed no JSON: %s" % _short(stdout)
    if not isinstance(threads, list):
        return None, "py-spy printed JSON that is not a list of threads"
    return threads, None


def dump(py_spy, pid, native=True, timeout=30, run=subprocess.run):
    """{"threads", "native", "error", "native_error"} of process ``pid``: with native frames
    first when ``native``, then without them when that failed."""
    result = {"threads": None, "native": False, "error": None, "native_error": None}
    if native:
        threads, error = run_py_spy(py_spy, pid, True, timeout, run)
        if threads is not None:
            result.update(threads=threads, native=True)
            return result
        result["native_error"] = error
    threads, error = run_py_spy(py_spy, pid, False, timeout, run)
    result.update(threads=threads, error=error)
    return result


def permission_hint(scope):
    """Why ptrace may be refused on this node, for an error message."""
    if scope is None:
        return "py-spy needs ptrace permission: run it as the job's user or with CAP_SYS_PTRACE"
    if scope == 0:
        return "Yama ptrace_scope is 0: the job's user may trace its processes; root needs CAP_SYS_PTRACE"
    if scope in (1, 2):
        return ("Yama ptrace_scope is %d: only a user with CAP_SYS_PTRACE may trace the job "
                "(job_stacks_root: true, or sysctl kernel.yama.ptrace_scope=0)" % scope)
    return "Yama ptrace_scope is 3: nobody may trace another process on this node"


def dump_job(job_dir, py_spy, native=True, timeout=30, proc="/proc", run=subprocess.run):
    """Every process of the job on this node, each Python one with its stack.

    Returns {"processes": [{pid, ppid, role, rank, cmd, python, threads, native, error,
    native_error}], "ptrace_scope", "error"}: "error" when py-spy is missing (nothing dumped).
    """
    members = job_members(job_dir, proc)
    scope = ptrace_scope()
    result = {"processes": [], "ptrace_scope": scope, "error": None}
    if not os.access(py_spy, os.X_OK):
        result["error"] = "py-spy is not installed at %s (role python_env installs it: python_env_py_spy_version)" % py_spy
    for item in members:
        entry = {key: item[key] for key in ("pid", "ppid", "role", "rank", "cmd", "python")}
        entry.update(threads=None, native=False, error=None, native_error=None)
        if not item["python"]:
            entry["error"] = "not a Python process"
        elif result["error"] is None:
            entry.update(dump(py_spy, item["pid"], native, timeout, run))
            if entry["error"] and "ermission" in entry["error"]:
                entry["error"] += " (%s)" % permission_hint(scope)
        result["processes"].append(entry)
    return result
