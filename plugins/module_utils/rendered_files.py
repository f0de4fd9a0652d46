"""Write a set of rendered files (text and mode) under one directory, in one go.

playbooks/render.yml renders every node's launch scripts on the controller and writes them all
with one module run (module rendered_files) instead of two per file (the template module's stat
and copy): at 128 nodes that is one run against some 1,500. A file is only rewritten when its
text or mode differ (atomically: a temporary file beside it, then a rename), so a second render
reports what changed. Files listed to remove are deleted when present (a previous render's files
that this one does not write).

Paths are relative to the root and may not leave it. Plain Python, stdlib only.
"""
import os
import stat
import tempfile


class RenderedFilesError(Exception):
    def __init__(self, errors):
        super().__init__("; ".join(errors))
        self.errors = errors


def _path_problem(path):
    if not isinstance(path, str) or not path:
        return f"{path!r}: a path relative to the root is required"
    if path.startswith("/"):
        return f"{path}: must be relative to the root"
    parts = path.split("/")
    if any(part in ("", ".", "..") for part in parts):
        return f"{path}: empty, '.' and '..' parts are not allowed"
    return None


def parse_mode(mode):
    """An octal mode given as text ('0755', '755') or a number; ValueError otherwise."""
    if isinstance(mode, bool):
        raise ValueError(mode)
    if isinstance(mode, int):
        value = mode
    elif isinstance(mode, str) and mode and all(char in "01234567" for char in mode):
        value = int(mode, 8)
    else:
        raise ValueError(mode)
    if not 0 <= value <= 0o7777:
        raise ValueError(mode)
    return value


def check(files, remove):
    """Every problem of ``files`` ([{path, content, mode}]) and ``remove`` ([path]) at once."""
    errors, seen = [], set()
    for index, entry in enumerate(files):
        if not isinstance(entry, dict):
            errors.append(f"files[{index}]: must be a dict with path, content and mode")
            continue
        path = entry.get("path")
        problem = _path_problem(path)
        if problem:
            errors.append(f"files[{index}]: {problem}")
            continue
        if path in seen:
            errors.append(f"files[{index}]: {path}: listed twice")
        seen.add(path)
        if not isinstance(entry.get("content"), str):
            errors.append(f"files[{index}]: {path}: content must be text")
        try:
            parse_mode(entry.get("mode", "0644"))
        except ValueError:
            errors.append(f"files[{index}]: {path}: mode {entry.get('mode')!r} is not an octal mode such as '0755'")
    for path in remove:
        problem = _path_problem(path)
        if problem:
            errors.append(f"remove: {problem}")
        elif path in seen:
            errors.append(f"remove: {path}: also in files")
    return errors


def _current(path):
    """(bytes, mode bits) of an existing regular file, (None, None) otherwise."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None, None
    if not stat.S_ISREG(info.st_mode):
        return None, None
    with open(path, "rb") as handle:
        return handle.read(), stat.S_IMODE(info.st_mode)


def _write(path, data, mode, dir_mode):
    directory = os.path.dirname(path)
    os.makedirs(directory, mode=dir_mode, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=directory, prefix=".rendered-")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def write_files(root, files, remove=(), check_mode=False, dir_mode=0o755):
    """Write ``files`` under ``root`` where they differ; delete ``remove`` where present.

    Returns {"written": [paths], "unchanged": count, "removed": [paths]}; raises
    RenderedFilesError with every problem before anything is written.
    """
    remove = list(remove)
    errors = check(files, remove)
    if not isinstance(root, str) or not os.path.isabs(root):
        errors.insert(0, f"root: {root!r} must be an absolute path")
    if errors:
        raise RenderedFilesError(errors)
    written, unchanged, removed = [], 0, []
    for entry in files:
        target = os.path.join(root, entry["path"])
        data = entry["content"].encode("utf-8")
        mode = parse_mode(entry.get("mode", "0644"))
        if _current(target) == (data, mode):
            unchanged += 1
            continue
        if os.path.isdir(target):
            raise RenderedFilesError([f"{entry['path']}: is a directory"])
        if not check_mode:
            _write(target, data, mode, dir_mode)
        written.append(entry["path"])
    for path in remove:
        target = os.path.join(root, path)
        if os.path.isfile(target) or os.path.islink(target):
            if not check_mode:
                os.unlink(target)
            removed.append(path)
    return {"written": written, "unchanged": unchanged, "removed": removed}
