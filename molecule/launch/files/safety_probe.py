"""What the safety checks (molecule/launch/tasks/safety.yml) look at on a node, in one run.

Reads a JSON request on stdin (run as the training user; "~" is their home) and prints JSON:
  plant:   {path: text}  write these sentinel files (0600) first
  mkdir:   [path]        make these directories (0755) first
  sha256:  [path]        -> sha256 {path: hex digest of a regular file, or null when absent}
  list:    [dir]         -> listing {dir: [[relative path, type, octal mode, sha256 or link target]]},
                            recursive, links never followed
  modes:   [path]        -> modes {path: [type, octal mode] or null when absent} (lstat)
  secrets: [text], secret_roots: [dir]
                         -> secret_files: every regular file under the roots that holds one of the
                            texts (the texts come on stdin only and are never printed)
Types: dir, file, link, other.
"""
import hashlib
import json
import os
import stat
import sys


def expand(path):
    return os.path.expanduser(path)


def kind(mode):
    if stat.S_ISLNK(mode):
        return "link"
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISREG(mode):
        return "file"
    return "other"


def digest(path):
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def listing(root):
    entries = []
    for top, dirs, files in os.walk(root):
        for name in sorted(dirs + files):
            path = os.path.join(top, name)
            info = os.lstat(path)
            what = kind(info.st_mode)
            detail = os.readlink(path) if what == "link" else digest(path) if what == "file" else ""
            entries.append([os.path.relpath(path, root), what, oct(stat.S_IMODE(info.st_mode)), detail])
        dirs.sort()
    return sorted(entries)


def holds_secret(path, secrets):
    with open(path, "rb") as handle:
        data = handle.read()
    return any(secret in data for secret in secrets)


def main():
    request = json.load(sys.stdin)
    for path, text in request.get("plant", {}).items():
        fd = os.open(expand(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
    for path in request.get("mkdir", []):
        os.makedirs(expand(path), mode=0o755, exist_ok=True)
    result = {"home": os.path.expanduser("~"), "sha256": {}, "listing": {}, "modes": {}, "secret_files": []}
    for path in request.get("sha256", []):
        full = expand(path)
        result["sha256"][path] = digest(full) if os.path.isfile(full) and not os.path.islink(full) else None
    for path in request.get("list", []):
        result["listing"][path] = listing(expand(path))
    for path in request.get("modes", []):
        try:
            info = os.lstat(expand(path))
        except FileNotFoundError:
            result["modes"][path] = None
        else:
            result["modes"][path] = [kind(info.st_mode), "0%o" % stat.S_IMODE(info.st_mode)]
    secrets = [text.encode("utf-8") for text in request.get("secrets", []) if text]
    for root in request.get("secret_roots", []):
        for top, _dirs, files in os.walk(expand(root)):
            for name in files:
                path = os.path.join(top, name)
                if os.path.isfile(path) and not os.path.islink(path) and holds_secret(path, secrets):
                    result["secret_files"].append(path)
    json.dump(result, sys.stdout, sort_keys=True)


if __name__ == "__main__":
    main()
