"""Where a job lives on the nodes: job_base_dir, job_log_dir and job_dynamic_recovery_path
checked as paths before anything is written (under the training user's home or a data directory,
never a system or shared one, no '..' or dot-directory, the suite's own subdirectories kept
apart), and the job directory they make."""
import re

JOB_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
# One component of a job path: no leading dot (no '.', '..' or dot-directory such as ~/.ssh).
PATH_COMPONENT = re.compile(r"[A-Za-z0-9_+-][A-Za-z0-9_.+-]*")
# First components of an absolute job_base_dir that belong to the system (or to everyone:
# /tmp, /var/tmp, /dev/shm are world-writable) and never hold a job.
SYSTEM_TOPS = frozenset(("bin", "boot", "dev", "etc", "lib", "lib32", "lib64", "libx32", "proc",
                         "root", "run", "sbin", "snap", "sys", "tmp", "usr", "var", "lost+found"))
# Directories of the job directory that the suite itself fills (and clears on every launch).
SUITE_SUBDIRS = ("run", "bin", "tls", "code")


def split_path(path):
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


def show(root, parts):
    return ("~/" if root == "~" else "/") + "/".join(parts)


def bad_part(parts):
    """The first part that is '..', a dot-directory or outside the safe characters, or None."""
    return next((part for part in parts if not PATH_COMPONENT.fullmatch(part)), None)


def base_dir(job, default, where, errors):
    """(root, parts) of job_base_dir: under the home, or an absolute path outside the system's."""
    base = job.get("job_base_dir", default)
    problem = None
    if not isinstance(base, str) or not base:
        problem = f"must be a directory path, got {base!r}"
    else:
        try:
            root, parts = split_path(base)
        except ValueError as error:
            problem = f"{base!r}: {error}"
        else:
            bad = bad_part(parts)
            if bad is not None:
                problem = (f"{base!r} resolves to {show(root, parts)}: {bad!r} is not allowed (no '..', "
                           f"no dot-directories; letters, digits, '_', '+', '-', '.')")
            elif not parts:
                problem = f"{base!r} resolves to the home or root directory itself"
            elif root == "/" and (parts[0] in SYSTEM_TOPS or parts == ("home",)):
                problem = (f"{base!r} resolves to {show(root, parts)}, a system or shared directory; "
                           f"use a path under the training user's home (default jobs) or a data "
                           f"directory such as /data/jobs")
    if problem:
        errors.append(f"{where}: job_base_dir: {problem}")
        return "~", (default,)
    return root, parts


def inside_job_dir(job, name, default, job_root, job_parts, where, errors):
    """A path option that must lie inside the job directory, relative to it ('logs')."""
    value = job.get(name, "") or ""
    shown_job_dir = show(job_root, job_parts)
    if not isinstance(value, str):
        errors.append(f"{where}: {name}: must be a path inside the job directory {shown_job_dir}, got {value!r}")
        return default
    if not value:
        return default
    try:
        root, parts = split_path(value)
    except ValueError as error:
        errors.append(f"{where}: {name}: {value!r}: {error}")
        return default
    if value.startswith(("/", "~")):
        full_root, full = root, parts
    elif parts[:len(job_parts)] == job_parts and job_root == "~":
        full_root, full = root, parts  # given from the home, as "jobs/<name>/logs"
    else:
        full_root, full = job_root, job_parts + parts
    bad = bad_part(parts)
    resolved = show(full_root, lexical(full))
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


def lexical(parts):
    """parts with '..' applied (for messages: where a path would lead)."""
    out = []
    for part in parts:
        if part == "..":
            if out:
                out.pop()
        else:
            out.append(part)
    return tuple(out)


def job_dirs(job, default_base, where, errors):
    """(name, job directory, log directory relative to it, recovery directory relative to it).

    The job directory is <job_base_dir>/<job_name>, relative to the training user's home unless
    absolute; the log and recovery directories always lie inside it (the suite clears them).
    """
    name = job.get("job_name")
    if not isinstance(name, str) or not JOB_NAME.fullmatch(name):
        errors.append(f"{where}: job_name: must be 1-64 letters, digits, '.', '_' or '-' starting "
                      f"with a letter or digit, got {name!r}")
        name = None
    root, base_parts = base_dir(job, default_base, where, errors)
    job_parts = base_parts + ((name,) if name else ("job",))
    log_dir = inside_job_dir(job, "job_log_dir", "logs", root, job_parts, where, errors)
    recovery = inside_job_dir(job, "job_dynamic_recovery_path", "recovery", root, job_parts, where, errors)
    job_dir = "/".join(job_parts) if root == "~" else "/" + "/".join(job_parts)
    return name, (job_dir if name else None), log_dir, recovery
