"""Summary of a training job from the logs gathered on the controller.

Layout read (``<root>`` is ``logs/<job>/``, one folder per node, each a copy of the node's job
log directory):

- ``<host>/status/rank_<N>.json``: written by the rank wrapper when rank N exits:
  ``{"rank": N, "host": "node1", "exit": 0, "role": "worker", "error": "..."}``;
  ``<host>/status/scheduler.json`` the same for the dynamic cluster's scheduler;
  ``<host>/status/launcher.json``: the node's launcher (msrun, torchrun, mpirun, launch script).
- rank logs: ``worker_<N>.log`` (msrun, dynamic, torchrun) or ``mpirun/1/rank.<N>/stdout``
  (mpirun --output-filename, on the master), ``scheduler.log``.

Per rank the summary gives the exit status, the last ``loss`` line (and the first and last loss
values), and for failed ranks their first error lines. Plain Python, stdlib only.

The logs come from the nodes, where the job (or anything writing in its log directory) can plant
symbolic links, devices or odd names. ``unpack_logs`` therefore unpacks a node's archive itself
instead of trusting tar: regular files and directories only, never a link, never outside
``<root>/<host>/``, with sane modes; the rest is skipped and reported.
"""
import errno
import json
import os
import re
import stat
import tarfile

from ansible_collections.cluster_suite.hpc.plugins.module_utils.job_log_names import MPI_LOG, RANK_LOG
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.job_failures import explanation_lines
LOSS_VALUE = re.compile(r"\bloss(?:\s+is|\s*[:=])\s*\[?\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)",
                        re.IGNORECASE)
EXCEPTION_LINE = re.compile(r"^\s*([A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit))(?::\s|$)")
ERROR_LINE = re.compile(r"Traceback \(most recent call last\)|\bError\b|\bERROR\b|\bException\b|"
                        r"\bfatal\b|Killed|Segmentation fault|ORTE|MPI_ABORT|exited on signal")
MAX_ERRORS = 5


def _read(path, limit=4 * 1024 * 1024):
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - limit))
            return handle.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _load_json(path):
    try:
        with open(path, encoding="utf-8") as handle:
            value = json.load(handle)
        return value if isinstance(value, dict) else None
    except (OSError, ValueError):
        return None


def loss_values(text):
    """Every loss value printed in ``text``, in order."""
    return [float(m.group(1)) for m in LOSS_VALUE.finditer(text)]


def last_loss_line(text):
    lines = [line.strip() for line in text.splitlines() if LOSS_VALUE.search(line)]
    return lines[-1] if lines else None


def error_lines(text, limit=MAX_ERRORS):
    """The exception lines of tracebacks first, then other error lines, ``limit`` at most."""
    lines = text.splitlines()
    exceptions = [line.strip() for line in lines if EXCEPTION_LINE.match(line)]
    others = [line.strip() for line in lines
              if ERROR_LINE.search(line) and line.strip() not in exceptions
              and not (exceptions and line.lstrip().startswith("Traceback"))
              and not line.lstrip().startswith(("[WARNING]", "[INFO]"))]
    picked = list(dict.fromkeys(exceptions + others))
    return picked[:limit]


class UnpackError(Exception):
    """The archive or the destination cannot be used at all (the message says why)."""


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_CHUNK = 1024 * 1024


def member_parts(name):
    """(path components inside the destination, None) or (None, why the name is refused)."""
    if not name or "\0" in name:
        return None, "empty name or NUL in the name"
    if name.startswith("/"):
        return None, "absolute path"
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if ".." in parts:
        return None, "'..' in the path"
    return parts, None


def member_problem(member):
    """Why a tar member is not unpacked, or None for a regular file or directory with a safe name."""
    parts, why = member_parts(member.name)
    if why:
        return why
    if member.issym():
        return f"symbolic link to {member.linkname}"
    if member.islnk():
        return f"hard link to {member.linkname}"
    if member.ischr() or member.isblk():
        return "device"
    if member.isfifo():
        return "fifo"
    if not (member.isreg() or member.isdir()):
        return "not a regular file or directory"
    if member.isreg() and not parts:
        return "regular file without a name"
    return None


def _file_mode(mode):
    # No setuid/setgid/sticky bit, no write for group or others; the owner can always read and
    # write, so the next gather can replace it.
    return (mode & 0o755) | 0o600


def _dir_mode(mode):
    return (mode & 0o755) | 0o700


def _open_dir(parent_fd, name, create):
    """fd of directory ``name`` in ``parent_fd``, never through a symbolic link; made when missing."""
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
    except FileNotFoundError:
        if not create:
            raise
    try:
        os.mkdir(name, 0o755, dir_fd=parent_fd)
    except FileExistsError:
        pass  # made meanwhile by the unpack of another node's logs
    return os.open(name, _DIR_FLAGS, dir_fd=parent_fd)


def _remove(parent_fd, name):
    """Remove ``name`` in ``parent_fd`` and everything under it, never following a link."""
    try:
        info = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(info.st_mode):
        os.unlink(name, dir_fd=parent_fd)
        return
    fd = os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
    try:
        try:
            os.fchmod(fd, 0o700)  # a copy left read-only must still be emptied
        except OSError:
            pass
        for entry in os.listdir(fd):
            _remove(fd, entry)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=parent_fd)


def _walk_to(host_fd, parts):
    """fd of the directory ``parts`` under ``host_fd`` (made as needed; never through a link)."""
    fd = os.dup(host_fd)
    try:
        for part in parts:
            child = _open_dir(fd, part, create=True)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _write_member(tar, member, host_fd, parts):
    if member.isdir():
        fd = _walk_to(host_fd, parts)
        try:
            os.fchmod(fd, _dir_mode(member.mode))
        finally:
            os.close(fd)
        return 0
    return _write_file(host_fd, parts, tar.extractfile(member), member.mode, member.mtime)


def _copy_file(host_fd, source_parts, parts, mode):
    """Copy a regular file unpacked earlier (a hard link's target) to ``parts``."""
    parent = _walk_to(host_fd, source_parts[:-1])
    try:
        source = os.open(source_parts[-1], os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0), dir_fd=parent)
    finally:
        os.close(parent)
    with os.fdopen(source, "rb") as handle:
        return _write_file(host_fd, parts, handle, mode, None)


def _write_file(host_fd, parts, source, mode, mtime):
    parent = _walk_to(host_fd, parts[:-1])
    try:
        out = os.open(parts[-1], _FILE_FLAGS, 0o600, dir_fd=parent)
    finally:
        os.close(parent)
    size = 0
    try:
        while True:
            chunk = source.read(_CHUNK)
            if not chunk:
                break
            _write_all(out, chunk)
            size += len(chunk)
        os.fchmod(out, _file_mode(mode))
        if mtime is not None:
            os.utime(out, (mtime, mtime))
    finally:
        os.close(out)
    return size


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _host_folder(root, host):
    """fd of a fresh, empty ``<root>/<host>``; ``root`` itself is never followed when a link."""
    parent = os.path.dirname(root) or "."
    try:
        os.makedirs(parent, exist_ok=True)
        parent_fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as exc:
        raise UnpackError(f"cannot use the folder {parent}: {exc.strerror or exc}") from exc
    try:
        root_fd = _open_dir(parent_fd, os.path.basename(root), create=True)
    except OSError as exc:
        raise UnpackError(f"{root} is a symbolic link or not a directory ({exc.strerror or exc}): "
                          f"the logs of {host} are not written through it; remove it") from exc
    finally:
        os.close(parent_fd)
    try:
        _remove(root_fd, host)
        return _open_dir(root_fd, host, create=True)
    except OSError as exc:
        raise UnpackError(f"cannot replace {os.path.join(root, host)}: {exc.strerror or exc}") from exc
    finally:
        os.close(root_fd)


def unpack_logs(archive, root, host, check=False):
    """Unpack ``archive`` (one node's job log directory, packed by tar) into ``<root>/<host>/``.

    ``<root>/<host>`` is replaced. ``root``'s parent is the user's choice (it may be a link), but
    neither ``root`` nor anything under it is ever followed when it is a symbolic link. Only
    regular files (byte for byte, modes without setuid/setgid and group/other write) and
    directories are written; symbolic and hard links, devices, fifos, absolute names and names
    with '..' are skipped and listed. With ``check`` nothing is written.

    Returns {"files": n, "bytes": n, "not_copied": [{"member": name, "reason": why}]}.
    Raises UnpackError when the archive cannot be read or the destination cannot be used.
    """
    if not host or "/" in host or host in (".", ".."):
        raise UnpackError(f"{host!r} is not a usable folder name for a node's logs")
    root = os.path.normpath(root)
    result = {"files": 0, "bytes": 0, "not_copied": []}
    if not check and not os.path.isfile(archive):
        raise UnpackError(f"the archive {archive} does not exist")
    host_fd = None if check else _host_folder(root, host)
    try:
        # Streamed (r|*): one pass over the compressed data, members in archive order.
        written = {}  # regular files unpacked so far: a hard link to one of them is a copy of it
        with tarfile.open(archive, "r|*") as tar:
            for member in tar:
                why = member_problem(member)
                parts, _ = member_parts(member.name)
                source, _ = member_parts(member.linkname) if member.islnk() else (None, None)
                if parts and source and source != parts and tuple(source) in written:
                    why = None
                if why is None and parts:
                    try:
                        size = _unpack_member(tar, member, host_fd, parts, source, written, check)
                    except OSError as exc:
                        why = _os_reason(exc)
                    else:
                        if not member.isdir():
                            result["files"] += 1
                            written[tuple(parts)] = size
                        result["bytes"] += size
                if why is not None:
                    result["not_copied"].append({"member": member.name, "reason": why})
    except (tarfile.TarError, EOFError, OSError, ValueError) as exc:
        raise UnpackError(f"cannot read the archive {archive}: {exc}") from exc
    finally:
        if host_fd is not None:
            os.close(host_fd)
    return result


def _unpack_member(tar, member, host_fd, parts, source, written, check):
    """Bytes written for one accepted member (with ``check``, bytes it would write)."""
    if check:
        return written[tuple(source)] if member.islnk() else (member.size if member.isreg() else 0)
    if member.islnk():
        return _copy_file(host_fd, source, parts, member.mode)
    return _write_member(tar, member, host_fd, parts)


def _os_reason(exc):
    if exc.errno in (errno.ELOOP, errno.ENOTDIR):
        return "a folder on its path is not a directory in the archive"
    if exc.errno == errno.EISDIR:
        return "a directory of the same name exists"
    return f"cannot write it: {exc.strerror or exc}"


def host_folders(root, hosts=None):
    """The node folders under ``root`` to read: directories, never links (a copy gathered
    before links were refused may still hold some), and only those of ``hosts`` when given
    (the nodes of this run: a folder of another node is left from an earlier run)."""
    if not os.path.isdir(root):
        return []
    return [host for host in sorted(os.listdir(root))
            if os.path.isdir(os.path.join(root, host)) and not os.path.islink(os.path.join(root, host))
            and (hosts is None or host in hosts)]


def earlier_hosts(root, hosts):
    """Node folders under ``root`` that are not of this run's ``hosts`` (left from an earlier run)."""
    return [] if hosts is None else [host for host in host_folders(root) if host not in hosts]


def scan(root, hosts=None):
    """Read everything under ``root``: statuses, launchers and rank logs, per host."""
    ranks, launchers, schedulers = {}, [], []
    logs = {}
    for host in host_folders(root, hosts):
        host_dir = os.path.join(root, host)
        for dirpath, _dirs, files in os.walk(host_dir):
            for name in sorted(files):
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                if os.path.islink(path):
                    continue
                if os.path.basename(dirpath) == "status" and name.endswith(".json"):
                    status = _load_json(path) or {}
                    status.setdefault("host", host)
                    if name.startswith("rank_") and _is_int(status.get("rank")):
                        ranks[status["rank"]] = status
                    elif name.startswith("scheduler"):
                        schedulers.append(status)
                    elif name.startswith("launcher"):
                        launchers.append(status)
                    continue
                match = RANK_LOG.search(rel) or MPI_LOG.search(rel)
                if match:
                    logs.setdefault(int(match.group(1)), []).append((host, rel, path))
                elif name == "scheduler.log":
                    logs.setdefault("scheduler", []).append((host, rel, path))
    return ranks, launchers, schedulers, logs


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def summarize(root, job=None, launcher=None, expected=None, running_hosts=(), not_copied=None, hosts=None):
    """Summary dict of the job whose logs are under ``root``.

    ``expected``: {rank: host} from the plan (ranks without a status are then reported as
    missing); ``running_hosts``: nodes where the job still has processes; ``not_copied``: {host:
    [{"member", "reason"}]}, what ``unpack_logs`` left out of each node's logs; ``hosts``: the
    nodes of this run (the folders of other nodes, from an earlier run, are not read).
    """
    statuses, launchers, schedulers, logs = scan(root, hosts)
    expected = {int(rank): host for rank, host in (expected or {}).items()}
    all_ranks = sorted(set(expected) | set(statuses) | {r for r in logs if _is_int(r)})
    running_hosts = list(running_hosts)
    rows = []
    for rank in all_ranks:
        status = statuses.get(rank)
        files = logs.get(rank, [])
        text = "\n".join(_read(path) for _host, _rel, path in files)
        host = (status or {}).get("host") or expected.get(rank) or (files[0][0] if files else None)
        exit_code = (status or {}).get("exit")
        if status is None:
            state = "running" if host in running_hosts else "no exit status"
        elif exit_code == 0:
            state = "ok"
        else:
            state = "failed"
        losses = loss_values(text)
        row = {
            "rank": rank,
            "host": host,
            "exit": exit_code,
            "time": (status or {}).get("time"),
            "state": state,
            "last_loss_line": last_loss_line(text),
            "first_loss": losses[0] if losses else None,
            "last_loss": losses[-1] if losses else None,
            "losses": len(losses),
            "logs": [rel for _host, rel, _path in files],
            "errors": [],
        }
        if state not in ("ok", "running"):
            row["errors"] = error_lines(text) or ([status["error"]] if status and status.get("error") else [])
        rows.append(row)
    failed_launchers = [item for item in launchers if item.get("exit") not in (0, None)]
    failed = [row for row in rows if row["state"] not in ("ok", "running")]
    if running_hosts and not failed:
        result = "running"
    elif failed or failed_launchers or not rows:
        result = "failed"
    else:
        result = "succeeded"
    # The root cause is usually the rank that failed first (the others die of its absence).
    timed = [row for row in failed if isinstance((statuses.get(row["rank"]) or {}).get("time"), (int, float))]
    first = min(timed, key=lambda row: statuses[row["rank"]]["time"]) if timed else (failed[0] if failed else None)
    summary = {
        "job": job,
        "first_failed_rank": first["rank"] if first else None,
        "first_failed_host": first["host"] if first else None,
        "first_error": (first["errors"] or [None])[0] if first else None,
        "launcher": launcher,
        "result": result,
        "ranks": rows,
        "failed_ranks": [row["rank"] for row in failed],
        "launchers": sorted(launchers, key=lambda item: str(item.get("host"))),
        "schedulers": schedulers,
        "running_hosts": running_hosts,
        "not_copied": {host: list(items) for host, items in sorted((not_copied or {}).items()) if items},
        "earlier_hosts": earlier_hosts(root, hosts),
    }
    if not rows:
        summary["launcher_errors"] = _launcher_errors(root, hosts)
    summary["text"] = render(summary)
    return summary


def _launcher_errors(root, hosts=None):
    """Error lines of the launcher logs, when no rank left anything behind."""
    found = []
    for host in host_folders(root, hosts):
        path = os.path.join(root, host, "launcher.log")
        if os.path.isfile(path) and not os.path.islink(path):
            found += [f"{host}: {line}" for line in error_lines(_read(path))]
    return found[:MAX_ERRORS * 2]


def render(summary):
    """The summary as the lines launch.yml prints."""
    rows = summary["ranks"]
    ok = sum(1 for row in rows if row["state"] == "ok")
    lines = [f"job {summary['job']} ({summary['launcher']}): {summary['result']}, "
             f"{ok}/{len(rows)} ranks exited 0"]
    first = summary.get("first_failure")
    if first:
        lines.append(f"  first failure: {first['name']} on {first['host']}"
                     f"{', ' + first['exit_text'] if first.get('exit_text') else ''}: "
                     f"{first['error'] or 'no error line'}")
        lines += explanation_lines(first.get("diagnosis"), "    ")
    elif "first_failure" not in summary and summary.get("first_failed_rank") is not None:
        lines.append(f"  first failure: rank {summary['first_failed_rank']} on {summary['first_failed_host']}: "
                     f"{summary['first_error'] or 'no error line'}")
    for row in rows:
        exit_text = "running" if row["state"] == "running" else row.get("exit_text") or (
            f"exit {row['exit']}" if row["exit"] is not None else row["state"])
        line = f"  rank {row['rank']} on {row['host']}: {exit_text}"
        if row["last_loss_line"]:
            line += f"; last loss line: {row['last_loss_line']}"
        lines.append(line)
        lines += [f"    error: {error}" for error in row["errors"]]
        if row.get("diagnosis"):
            lines.append(f"    known cause: {row['diagnosis']['id']}")
        lines += [f"    CANN log: {path}" for path in row.get("plogs", [])]
    for item in summary.get("schedulers", []):
        if item.get("diagnosis") or item.get("errors"):
            lines.append(f"  scheduler on {item.get('host')}: exit {item.get('exit')}")
            lines += [f"    error: {error}" for error in item.get("errors", [])[:MAX_ERRORS]]
            lines += explanation_lines(item.get("diagnosis"), "    ")
    explained = summary.get("launcher_diagnosis")
    for item in summary["launchers"] if explained is None else explained:
        if explained is not None or item.get("exit") not in (0, None):
            lines.append(f"  launcher on {item.get('host')}: exit {item.get('exit')}")
        lines += [f"    error: {error}" for error in item.get("errors", [])]
        lines += explanation_lines(item.get("diagnosis"), "    ")
    for error in summary.get("launcher_errors", []) if explained is None else []:
        lines.append(f"  launcher error: {error}")
    if summary["running_hosts"]:
        lines.append(f"  still running on: {', '.join(summary['running_hosts'])}")
    for host, items in summary.get("not_copied", {}).items():
        shown = "; ".join(f"{item.get('member')} ({item.get('reason')})" for item in items[:MAX_ERRORS])
        more = f"; and {len(items) - MAX_ERRORS} more" if len(items) > MAX_ERRORS else ""
        lines.append(f"  {host}: {len(items)} item(s) of its logs not copied (only regular files "
                     f"and directories are): {shown}{more}")
    if summary.get("earlier_hosts"):
        lines.append(f"  not read: the logs of {', '.join(summary['earlier_hosts'])}, "
                     f"left from an earlier run (not a node of this one)")
    return "\n".join(lines)


def diagnosis_logs(root, hosts=None):
    """What job_failures.diagnose reads: every rank's logs (text, node, mtime) and each node's
    launcher and scheduler log (text and error lines), of ``hosts`` when given."""
    found = {"ranks": {}, "launchers": {}, "schedulers": {}, "plogs": {}}
    statuses, _launchers, _schedulers, logs = scan(root, hosts)
    for rank, files in logs.items():
        if _is_int(rank):
            found["ranks"][rank] = [{"host": host, "text": _read(path), "mtime": _mtime(path)}
                                    for host, _rel, path in files]
    # CANN's plog of a rank's process (NPU nodes: ASCEND_PROCESS_LOG_PATH in job.env).
    for rank, status in statuses.items():
        for host, rel, path in _plogs(root, status.get("host"), status.get("pid")):
            found["plogs"].setdefault(rank, []).append(rel)
            found["ranks"].setdefault(rank, []).append({"host": host, "text": _read(path), "mtime": None})
    for host in host_folders(root, hosts):
        for name, kind in (("launcher.log", "launchers"), ("scheduler.log", "schedulers")):
            path = os.path.join(root, host, name)
            if os.path.isfile(path) and not os.path.islink(path):
                text = _read(path)
                found[kind][host] = {"text": text, "errors": error_lines(text)}
    return found


def _mtime(path):
    try:
        return os.stat(path, follow_symlinks=False).st_mtime
    except OSError:
        return None


def _plogs(root, host, pid):
    """[(host, rel, path)] of the CANN plogs of process ``pid`` in ``<root>/<host>/ascend/``."""
    base = os.path.join(root, str(host), "ascend")
    if not _is_int(pid) or not host or "/" in str(host) or os.path.islink(os.path.join(root, str(host))) \
            or os.path.islink(base) or not os.path.isdir(base):
        return []
    found = []
    for dirpath, dirs, files in os.walk(base):
        dirs[:] = sorted(name for name in dirs if not os.path.islink(os.path.join(dirpath, name)))
        for name in sorted(files):
            path = os.path.join(dirpath, name)
            if name.startswith(f"plog-{pid}_") and not os.path.islink(path):
                found.append((host, os.path.relpath(path, root), path))
    return found
