# doctor_listener.py: the temporary listener of role doctor's master port check, run by
# the training user as `python3 -c "<this file>" ARGS`:
#   listen PORT RUN_ID SECONDS  accept every connection on PORT, wait for the peer to close first
#                               (so that no TIME_WAIT socket makes the port look busy), exit after
#                               SECONDS or when stopped; its PID goes to the pidfile below.
#   stop PORT RUN_ID            stop the listener of that run; prints killed, gone, not-started or
#                               refused: <why>. It only signals the PID of this run's pidfile, and
#                               only when /proc/PID/cmdline is this listener with the same PORT
#                               and RUN_ID, so it never kills anything this run did not start.
# The pidfile is ~/.cache/cluster-suite/doctor/listener-PORT-RUN_ID.pid: in a directory of mode
# 0700 that only the training user can enter (checked without following links), never in /tmp.
import os
import signal
import socket
import stat
import sys
import threading
import time

NAME = "doctor_listener.py"


def private_dir(create=True):
    """The pidfile directory (created 0700 when missing and ``create``, else None); refused
    unless it is a real directory of ours that nobody else can enter."""
    path = os.path.join(os.path.expanduser("~"), ".cache", "cluster-suite", "doctor")
    if create:
        try:
            os.makedirs(path, mode=0o700, exist_ok=True)
        except FileExistsError:
            pass  # not a directory: refused below
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise SystemExit(f"{NAME}: {path} is not a real directory (a symbolic link?); remove it")
    if info.st_uid != os.getuid():
        raise SystemExit(f"{NAME}: {path} belongs to uid {info.st_uid}, not to uid {os.getuid()}; remove it")
    if stat.S_IMODE(info.st_mode) & 0o077:
        raise SystemExit(f"{NAME}: {path} has mode {stat.S_IMODE(info.st_mode):04o}, not 0700; remove it")
    return path


def pidfile(port, run_id, create=True):
    directory = private_dir(create)
    return directory and os.path.join(directory, f"listener-{int(port)}-{run_id}.pid")


def is_this_listener(pid, port, run_id):
    """Whether process ``pid`` is this run's listener: ours, and started as
    `python -c <this file> listen PORT RUN_ID ...`."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            argv = handle.read().split(b"\0")
        owner = os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return False
    argv = [a.decode("utf-8", "replace") for a in argv]
    return (owner == os.getuid() and len(argv) >= 6 and argv[1] == "-c" and NAME in argv[2]
            and argv[3:6] == ["listen", str(port), run_id])


def listen(port, run_id, seconds):
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("0.0.0.0", port))
    server.listen(256)
    path = pidfile(port, run_id)
    # Written beside, then renamed: the pidfile is whole or absent.
    fd = os.open(path + ".part", os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(str(os.getpid()))
    os.replace(path + ".part", path)
    server.settimeout(0.5)

    def drain(conn):
        conn.settimeout(10)
        try:
            while conn.recv(4096):
                pass
        except OSError:
            pass
        conn.close()

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            conn, _ = server.accept()
        except socket.timeout:
            continue
        threading.Thread(target=drain, args=(conn,), daemon=True).start()
    server.close()


def stop(port, run_id):
    path = pidfile(port, run_id, create=False)
    try:
        with open(path or "", encoding="utf-8") as handle:
            text = handle.read().strip()
    except FileNotFoundError:
        return "not-started"
    os.unlink(path)
    try:
        os.rmdir(os.path.dirname(path))
    except OSError:
        pass
    if not text.isdigit():
        return f"refused: {path} does not hold a PID ({text[:20]!r})"
    pid = int(text)
    if not os.path.exists(f"/proc/{pid}"):
        return "gone"
    if not is_this_listener(pid, port, run_id):
        return f"refused: PID {pid} is not the listener of this run (port {port}, run {run_id})"
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return "gone"
    return "killed"


def main(argv):
    if len(argv) >= 3 and not argv[2].isalnum():
        raise SystemExit(f"{NAME}: RUN_ID must be letters and digits, not {argv[2]!r}")
    if len(argv) == 4 and argv[0] == "listen":
        listen(int(argv[1]), argv[2], float(argv[3]))
    elif len(argv) == 3 and argv[0] == "stop":
        print(stop(int(argv[1]), argv[2]))
    else:
        raise SystemExit(f"usage: {NAME} listen PORT RUN_ID SECONDS | stop PORT RUN_ID")


main(sys.argv[1:])
