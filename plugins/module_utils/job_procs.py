"""The processes of one training job on a node, found by the job's tag, and how to stop them.

Every process a launch starts carries ``CS_JOB_DIR=<absolute job directory>`` in its
environment (launch.sh exports it; msrun, torchrun and the dynamic cluster pass it on; mpirun
forwards it with ``-x``), so a job is found by what it is, never by a program name, and other
jobs (other directories) are never touched. msrun starts its workers in new sessions, so a
process group alone would miss them. Daemons that do not inherit the environment (OpenMPI's
``orted`` on the other nodes) are recorded by the rank wrapper in ``<job_dir>/run/*.pids``; such
a pid only counts while the process started before the pid file was written (no pid reuse).

Plain Python over /proc (Linux), stdlib only.
"""
import os
import signal
import time

TAG = "CS_JOB_DIR"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _read(path, mode="rb"):
    try:
        with open(path, mode) as handle:
            return handle.read()
    except OSError:
        return None


def parse_environ(raw):
    """{NAME: value} of a /proc/<pid>/environ blob."""
    env = {}
    for item in (raw or b"").split(b"\0"):
        name, sep, value = item.partition(b"=")
        if sep:
            env[name.decode("utf-8", "replace")] = value.decode("utf-8", "replace")
    return env


def parse_stat(raw):
    """(state, ppid, pgid, start ticks) from /proc/<pid>/stat text."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    rest = text[text.rindex(")") + 2:].split()
    return rest[0], int(rest[1]), int(rest[2]), int(rest[19])


def boot_time(proc="/proc"):
    for line in (_read(os.path.join(proc, "stat"), "r") or "").splitlines():
        if line.startswith("btime "):
            return int(line.split()[1])
    return 0


def process_info(pid, proc="/proc"):
    base = os.path.join(proc, str(pid))
    stat = _read(os.path.join(base, "stat"))
    if stat is None:
        return None
    try:
        state, ppid, pgid, start = parse_stat(stat)
    except (ValueError, IndexError):
        return None
    cmd = (_read(os.path.join(base, "cmdline")) or b"").replace(b"\0", b" ").strip()
    return {"pid": pid, "ppid": ppid, "pgid": pgid, "state": state, "start_ticks": start,
            "cmd": cmd.decode("utf-8", "replace")[:300]}


def recorded_pids(job_dir):
    """{pid: mtime of the pid file} from <job_dir>/run/*.pids."""
    found = {}
    run = os.path.join(job_dir, "run")
    try:
        names = sorted(os.listdir(run))
    except OSError:
        return found
    for name in names:
        if not name.endswith(".pids"):
            continue
        path = os.path.join(run, name)
        try:
            mtime = os.stat(path).st_mtime
        except OSError:
            continue
        for word in (_read(path, "r") or "").split():
            if word.isdigit() and int(word) > 1:
                found[int(word)] = max(found.get(int(word), 0), mtime)
    return found


def job_processes(job_dir, proc="/proc"):
    """Live processes of the job: tagged ones plus recorded daemons started before their record."""
    job_dir = os.path.normpath(job_dir)
    recorded = recorded_pids(job_dir)
    btime = boot_time(proc)
    found = []
    for entry in os.listdir(proc):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        pid = int(entry)
        env = parse_environ(_read(os.path.join(proc, entry, "environ")))
        tagged = os.path.normpath(env.get(TAG, "/nonexistent")) == job_dir
        if not tagged and pid not in recorded:
            continue
        info = process_info(pid, proc)
        if info is None or info["state"] == "Z":
            continue
        if not tagged:
            started = btime + info["start_ticks"] / CLOCK_TICKS
            if started > recorded[pid] + 1:
                continue  # the pid was reused after the record was written
        info["rank"] = env.get("CS_RANK")
        info["tagged"] = tagged
        found.append(info)
    return sorted(found, key=lambda item: item["pid"])


def running_jobs(proc="/proc"):
    """{job directory: [pid, ...]} of every job of the suite with a live process on this node, by
    the tag alone (a node is drained when this is empty). Reads only the processes whose
    environment the caller may read: run it as the jobs' user."""
    found = {}
    for entry in os.listdir(proc):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        job_dir = parse_environ(_read(os.path.join(proc, entry, "environ"))).get(TAG)
        if not job_dir:
            continue
        info = process_info(int(entry), proc)
        if info is None or info["state"] == "Z":
            continue
        found.setdefault(os.path.normpath(job_dir), []).append(int(entry))
    return {job_dir: sorted(pids) for job_dir, pids in sorted(found.items())}


def job_trace(job_dir, processes=()):
    """Whether the job ever ran here: {"job_dir_exists", "run_dir_exists", "job_found"}.

    A launch always leaves ``<job_dir>/run/`` (pid and status files); a job whose processes carry
    the tag counts too. Without either, this is the wrong directory (job_name, job_base_dir) or a
    node the job never reached, and "nothing left to stop" would be a false all-clear.
    """
    job_dir = os.path.normpath(job_dir)
    run_dir = os.path.join(job_dir, "run")
    found = {"job_dir_exists": os.path.isdir(job_dir), "run_dir_exists": os.path.isdir(run_dir)}
    found["job_found"] = found["run_dir_exists"] or bool(processes)
    return found


def zombies_of(pids, proc="/proc"):
    """Zombie children of ``pids`` (processes nobody reaped)."""
    pids = set(pids)
    found = []
    for entry in os.listdir(proc):
        if entry.isdigit():
            info = process_info(int(entry), proc)
            if info and info["state"] == "Z" and info["ppid"] in pids:
                found.append(info)
    return found


def stop(job_dir, grace=10.0, proc="/proc", kill=os.kill, sleep=time.sleep):
    """SIGTERM every process of the job, SIGKILL what is left after ``grace`` seconds.

    Returns (signalled processes, processes still alive at the end).
    """
    first = job_processes(job_dir, proc)
    for item in first:
        try:
            kill(item["pid"], signal.SIGTERM)
        except (ProcessLookupError, PermissionError):
            pass
    deadline = time.monotonic() + grace
    left = first
    while left and time.monotonic() < deadline:
        sleep(0.5)
        left = job_processes(job_dir, proc)
    # The launcher's reaper (cs_rank.py --reap) records the exit of what it started and ends with
    # its last child: SIGKILL the others first and give it the time to write that record.
    for reapers in (False, True):
        for item in left:
            if is_reaper(item) is reapers:
                try:
                    kill(item["pid"], signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        for _ in range(20):
            if not left:
                break
            sleep(0.25)
            left = job_processes(job_dir, proc)
            if not reapers and not [item for item in left if not is_reaper(item)]:
                break
    return first, left


def is_reaper(item):
    """Whether a process of the job is the launcher's reaper (cs_rank.py --reap)."""
    return "cs_rank.py --reap " in item.get("cmd", "")


def wait(job_dir, timeout, failed_ranks, proc="/proc", sleep=time.sleep, interval=1.0, pending=lambda: False):
    """Wait up to ``timeout`` seconds until the job has no process here (and ``pending()`` is
    false) or a rank failed here.

    ``failed_ranks`` is a callable returning the ranks whose status says they failed; ``pending``
    one telling whether a rank expected here has not recorded its exit yet (mpirun starts the
    ranks of the other nodes later: no process there may mean none started yet).
    Returns (processes still alive, failed ranks).
    """
    deadline = time.monotonic() + timeout
    while True:
        alive = job_processes(job_dir, proc)
        failed = failed_ranks()
        if (not alive and not pending()) or failed or time.monotonic() >= deadline:
            return alive, failed
        sleep(interval)
