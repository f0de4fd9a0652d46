"""Tests of sandbox/apt_sources.py: the sandbox's Debian mirror comes from this machine's apt
sources, and a release the machine does not run takes the mirror of the one it does.

The sources and os-release files are written into a temporary directory; the mirror addresses
are made up (the repo names no package registry).
"""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "sandbox" / "apt_sources.py"
_spec = importlib.util.spec_from_file_location("apt_sources", SCRIPT)
apt_sources = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(apt_sources)

MIRROR = "http://mirror.example/debian"
SECURITY = "http://mirror.example/debian-security"

DEB822 = f"""Types: deb
# a comment
URIs: {MIRROR}/
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: {SECURITY}
Suites: bookworm-security
Components: main
"""

DEBIAN_12 = 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\nVERSION_CODENAME=bookworm\n'
UBUNTU = 'ID=ubuntu\nID_LIKE=debian\nVERSION_CODENAME=jammy\n'


@pytest.fixture
def machine(tmp_path):
    """An /etc/apt with deb822 sources of bookworm and an os-release of Debian 12."""
    apt = tmp_path / "apt"
    (apt / "sources.list.d").mkdir(parents=True)
    (apt / "sources.list.d" / "debian.sources").write_text(DEB822)
    os_release = tmp_path / "os-release"
    os_release.write_text(DEBIAN_12)
    return apt, os_release


def test_mirror_of_a_listed_suite(machine):
    apt, _ = machine
    assert apt_sources.mirror("bookworm", str(apt)) == MIRROR
    assert apt_sources.mirror("bookworm-security", str(apt)) == SECURITY


def test_unlisted_suite_has_no_mirror_of_its_own(machine):
    apt, _ = machine
    assert apt_sources.mirror("trixie", str(apt)) is None


@pytest.mark.parametrize("suite", ["bullseye", "bookworm", "trixie"])
def test_other_releases_take_the_mirror_of_the_own_release(machine, suite):
    apt, os_release = machine
    assert apt_sources.mirror_or_own_release(suite, str(apt), str(os_release)) == MIRROR


def test_one_line_sources_and_disabled_stanzas(tmp_path):
    apt = tmp_path / "apt"
    (apt / "sources.list.d").mkdir(parents=True)
    (apt / "sources.list").write_text(
        f"# deb http://old.example/debian bookworm main\n"
        f"deb [arch=amd64 signed-by=/k.gpg] {MIRROR} bookworm main contrib\n")
    (apt / "sources.list.d" / "off.sources").write_text(
        "Enabled: no\nTypes: deb\nURIs: http://off.example/debian\nSuites: trixie\nComponents: main\n")
    os_release = tmp_path / "os-release"
    os_release.write_text(DEBIAN_12)
    assert apt_sources.mirror("trixie", str(apt)) is None
    assert apt_sources.mirror_or_own_release("trixie", str(apt), str(os_release)) == MIRROR


def test_no_fallback_off_debian(machine):
    apt, os_release = machine
    os_release.write_text(UBUNTU)
    assert apt_sources.own_debian_release(str(os_release)) is None
    assert apt_sources.mirror_or_own_release("trixie", str(apt), str(os_release)) is None
    assert apt_sources.own_debian_release(str(os_release.parent / "missing")) is None


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          check=False)


def test_command_line(machine):
    apt, os_release = machine
    common = ["--apt-dir", str(apt), "--os-release", str(os_release)]
    exact = run("mirror", "--suite", "trixie", *common)
    assert exact.returncode == 1
    assert "trixie" in exact.stderr
    fallback = run("mirror", "--suite", "trixie", "--or-own-release", *common)
    assert (fallback.returncode, fallback.stdout) == (0, MIRROR + "\n")
    # deb-src lines stay exact: a source package of another release is another version.
    assert run("deb-src-line", "--suite", "trixie", "--or-own-release", *common).returncode == 1
    assert run("deb-src-line", "--suite", "bookworm", *common).stdout == f"deb-src {MIRROR} bookworm main\n"
