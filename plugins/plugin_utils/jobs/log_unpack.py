"""Unpacking of a node's job log archive on the controller, under ``<root>/<host>/``.

The logs come from the nodes, where the job (or anything writing in its log directory) can plant
symbolic links, devices or odd names. ``unpack_logs`` therefore unpacks a node's archive itself
instead of trusting tar: regular files and directories only, never a link, never outside
``<root>/<host>/``, with sane modes; the rest is skipped and reported. Plain Python, stdlib only.
"""
import errno
import os
import stat
import tarfile


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
