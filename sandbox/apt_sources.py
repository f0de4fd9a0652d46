#!/usr/bin/env python3
"""Read this machine's apt sources to find its Debian mirror.

The repo never names a package registry: the sandbox image and the OpenMPI test source come
from whatever mirror the machine already uses. Both one-line (.list) and deb822 (.sources)
formats are understood.
"""
import argparse
import glob
import os
import sys

APT_DIR = "/etc/apt"
OS_RELEASE = "/etc/os-release"


def parse_one_line(text):
    """Yield (types, uris, suites, components) from sources.list one-line entries."""
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        kind = words.pop(0)
        if words and words[0].startswith("["):
            while words and not words[0].endswith("]"):
                words.pop(0)
            words.pop(0)
        if len(words) < 2:
            continue
        yield [kind], [words[0]], [words[1]], words[2:]


def parse_deb822(text):
    """Yield (types, uris, suites, components) from deb822 .sources stanzas."""
    for stanza in text.split("\n\n"):
        fields = {}
        for line in stanza.splitlines():
            if line.startswith("#") or ":" not in line or line[0].isspace():
                continue
            key, value = line.split(":", 1)
            fields[key.strip().lower()] = value.split()
        if fields.get("enabled", ["yes"])[0].lower() == "no":
            continue
        if "uris" in fields and "suites" in fields:
            yield (fields.get("types", ["deb"]), fields["uris"], fields["suites"],
                   fields.get("components", []))


def entries(apt_dir=APT_DIR):
    files = [os.path.join(apt_dir, "sources.list")]
    files += sorted(glob.glob(os.path.join(apt_dir, "sources.list.d", "*")))
    for path in files:
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
        parser = parse_deb822 if path.endswith(".sources") else parse_one_line
        yield from parser(text)


def mirror(suite, apt_dir=APT_DIR):
    """The first binary source that serves `suite` with the main component."""
    for types, uris, suites, components in entries(apt_dir):
        if "deb" in types and suite in suites and "main" in components:
            return uris[0].rstrip("/")
    return None


def own_debian_release(os_release=OS_RELEASE):
    """This machine's Debian codename (e.g. bookworm), or None on another distribution."""
    try:
        with open(os_release, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except OSError:
        return None
    fields = {}
    for line in text.splitlines():
        if "=" in line:
            key, value = line.split("=", 1)
            fields[key.strip()] = value.strip().strip('"\'')
    if fields.get("ID") != "debian":
        return None
    return fields.get("VERSION_CODENAME") or None


def mirror_or_own_release(suite, apt_dir=APT_DIR, os_release=OS_RELEASE):
    """The mirror of `suite`, else the one that serves this machine's own Debian release.

    A Debian mirror serves every release, while a machine's sources name only its own: this is
    how the sandbox finds a mirror for the releases this machine does not run.
    """
    url = mirror(suite, apt_dir)
    if url is not None:
        return url
    own = own_debian_release(os_release)
    return mirror(own, apt_dir) if own else None


def has_deb_src(suite, apt_dir=APT_DIR):
    return any("deb-src" in types and suite in suites
               for types, _uris, suites, _components in entries(apt_dir))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("command", choices=["mirror", "deb-src-line", "has-deb-src"])
    parser.add_argument("--suite", default="bookworm")
    parser.add_argument("--apt-dir", default=APT_DIR)
    parser.add_argument("--os-release", default=OS_RELEASE)
    parser.add_argument("--or-own-release", action="store_true",
                        help="mirror: fall back to the mirror of this machine's own Debian release")
    args = parser.parse_args(argv)
    if args.command == "has-deb-src":
        return 0 if has_deb_src(args.suite, args.apt_dir) else 1
    if args.command == "mirror" and args.or_own_release:
        url = mirror_or_own_release(args.suite, args.apt_dir, args.os_release)
    else:
        url = mirror(args.suite, args.apt_dir)
    if url is None:
        print(f"no 'deb' source for suite {args.suite} with component main", file=sys.stderr)
        return 1
    if args.command == "mirror":
        print(url)
    else:
        print(f"deb-src {url} {args.suite} main")
    return 0


if __name__ == "__main__":
    sys.exit(main())
