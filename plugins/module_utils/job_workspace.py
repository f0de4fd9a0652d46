# -*- coding: utf-8 -*-
"""A job's directory on a node, made and cleared under one contract (plugins/modules/job_workspace.py).

The suite deletes only what it created: the job directory <base>/<job name> carries a marker
file (MARKER) from the launch that made it, and a launch clears only the suite's own
directories inside it (run, bin, tls, code, the log and recovery directories). The controller
has already refused paths that leave the job directory by their text (plugins/plugin_utils/jobs/spec.py);
here, on the node, the same paths are checked after symlinks:

- the job directory must not be the home itself, a dot-directory or inside one, nor a symlink;
- a directory that exists without the marker and is not empty was not made by the suite: refused;
- no part of a path to clear or make, below the job directory, may be a symlink (the suite
  never makes one there, so it was planted: refused, nothing is followed or deleted).

Plain Python, stdlib only.
"""
import os
import shutil
import stat
import tarfile
import tempfile

MARKER = ".cluster-suite-job"
DIR_MODE = 0o700


def _is_link(path):
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except FileNotFoundError:
        return False


def _parts_below(job_dir, relative):
    """Every path from job_dir/<first part> down to job_dir/<relative>."""
    paths, current = [], job_dir
    for part in relative.split("/"):
        current = os.path.join(current, part)
        paths.append(current)
    return paths


def _relative_problem(relative):
    if not isinstance(relative, str) or not relative or relative.startswith("/"):
        return "must be a path relative to the job directory"
    if any(part in ("", ".", "..") or part.startswith(".") for part in relative.split("/")):
        return "'.', '..' and dot-directories are not allowed"
    return None


def problems(home, job_dir, subpaths):
    """Every reason not to make or clear the job directory and ``subpaths``, each naming the job
    variable behind it: subpaths are (path relative to the job directory, variable) pairs."""
    return ["%s: %s" % (variable, text) for variable, text in _problems(home, job_dir, subpaths)]


def _problems(home, job_dir, subpaths):
    found = []
    base = "job_base_dir"
    if not os.path.isabs(job_dir) or os.path.normpath(job_dir) != job_dir.rstrip("/"):
        return [(base, "job directory %s: must be an absolute, normalised path" % job_dir)]
    real_home = os.path.realpath(home)
    if _is_link(job_dir):
        found.append((base, "job directory %s is a symlink (to %s); the suite only works in a "
                            "directory it made itself" % (job_dir, os.path.realpath(job_dir))))
        return found
    real = os.path.realpath(job_dir)
    if real == real_home or real == "/":
        found.append((base, "job directory %s resolves to %s, the home or root directory itself"
                      % (job_dir, real)))
        return found
    below_home = os.path.relpath(real, real_home)
    if not below_home.startswith(".."):
        hidden = [part for part in below_home.split("/") if part.startswith(".")]
        if hidden:
            found.append((base, "job directory %s resolves to %s, inside the dot-directory %s"
                          % (job_dir, real, hidden[0])))
    if os.path.isdir(job_dir) and not os.path.exists(os.path.join(job_dir, MARKER)) and os.listdir(job_dir):
        found.append((base, "job directory %s exists and was not made by the suite (no %s in it); "
                            "move it away or choose another job_name or job_base_dir" % (job_dir, MARKER)))
    elif os.path.exists(job_dir) and not os.path.isdir(job_dir):
        found.append((base, "job directory %s exists and is not a directory" % job_dir))
    for relative, variable in subpaths:
        problem = _relative_problem(relative)
        if problem:
            found.append((variable, "%s in job directory %s: %s" % (relative, job_dir, problem)))
            continue
        for path in _parts_below(job_dir, relative):
            if _is_link(path):
                found.append((variable, "%s is a symlink (to %s), planted in the job directory; the "
                                        "suite neither follows nor deletes it: remove it by hand"
                              % (path, os.path.realpath(path))))
                break
    return found


def prepare(home, job_dir, name, clear=(), make=(), check_mode=False):
    """Make the job directory (with its marker), clear ``clear`` and make ``make`` inside it.

    clear and make are paths relative to the job directory. Returns {"changed", "created",
    "cleared", "made"}; raises ValueError with every problem before anything is touched.
    """
    found = problems(home, job_dir, [(relative, "job directory") for relative in list(clear) + list(make)])
    if found:
        raise ValueError(found)
    created = not os.path.exists(os.path.join(job_dir, MARKER))
    cleared = [relative for relative in clear if os.path.lexists(os.path.join(job_dir, relative))]
    made = [relative for relative in make
            if relative in cleared or not os.path.isdir(os.path.join(job_dir, relative))]
    mode_fix = os.path.isdir(job_dir) and stat.S_IMODE(os.stat(job_dir).st_mode) != DIR_MODE
    if not check_mode:
        os.makedirs(job_dir, mode=DIR_MODE, exist_ok=True)
        os.chmod(job_dir, DIR_MODE)
        if created:
            with open(os.path.join(job_dir, MARKER), "w", encoding="utf-8") as handle:
                handle.write("Made by cluster-suite for job %s: the suite may clear its own "
                             "directories here.\n" % name)
        for relative in cleared:
            path = os.path.join(job_dir, relative)
            if os.path.isdir(path) and not _is_link(path):
                shutil.rmtree(path)
            else:
                os.unlink(path)
        for relative in make:
            os.makedirs(os.path.join(job_dir, relative), mode=DIR_MODE, exist_ok=True)
    return {"changed": bool(created or cleared or made or mode_fix), "created": created,
            "cleared": cleared, "made": made}


def pack(home, job_dir, log_dir, archive, check_mode=False):
    """Pack the log directory (relative to the job directory) into ``archive`` (relative too).

    A job's own code can plant links while it runs, so the same checks as a launch come first
    (no symlink from the job directory down to the log directory or the archive), the archive is
    written to a new file and renamed over the old one (never opened through a link), and links
    inside the log directory are stored as links, never followed. Returns {"changed": False,
    "archive": absolute path}; raises ValueError with every problem.
    """
    found = problems(home, job_dir, [(log_dir, "job_log_dir"), (archive, "job_base_dir")])
    if found:
        raise ValueError(found)
    source = os.path.join(job_dir, log_dir)
    target = os.path.join(job_dir, archive)
    if not check_mode:
        descriptor, temporary = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".logs-")
        try:
            with os.fdopen(descriptor, "wb") as handle, tarfile.open(fileobj=handle, mode="w:gz") as tar:
                if os.path.isdir(source):
                    tar.add(source, arcname=".", recursive=True)
            os.replace(temporary, target)
        except BaseException:
            if os.path.lexists(temporary):
                os.unlink(temporary)
            raise
    return {"changed": False, "archive": target}
