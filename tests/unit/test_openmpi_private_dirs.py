"""Root never builds, and the training user never runs the ring, where another local user could
have put something first: openmpi_build_dir and openmpi_ring_dir (plugins/plugin_utils/provision/openmpi_build.py)."""
import pytest

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.provision.openmpi_build import path_chain, private_dir_errors, private_path_errors, settings_errors

SHA = "ddaee7dbdb01eb4fab1fda5b5e03e8bbff026711806c095c1f39bb410f99f263"


def settings(**changes):
    base = {"openmpi_version": "4.1.4", "openmpi_source_url": "",
            "openmpi_source_file": "/srv/openmpi_4.1.4.orig.tar.xz",
            "openmpi_source_file_exists": True, "openmpi_source_sha256": SHA,
            "openmpi_prefix": "/usr/local/openmpi-4.1.4",
            "openmpi_configure_flags": ["--disable-mpi-fortran"], "openmpi_build_strategy": "once",
            "openmpi_build_dir": "/var/lib/cluster-suite/openmpi-build",
            "openmpi_ring_dir": "~/.cache/cluster-suite/openmpi-ring"}
    base.update(changes)
    return base


def test_the_defaults_are_accepted():
    assert settings_errors(settings(), "node1") == []


@pytest.mark.parametrize("path", ["/srv/openmpi-build", "/var/lib/cluster-suite/openmpi-build",
                                  "/root/.cache/cluster-suite/openmpi", "/var/lib/cluster-suite/b/"])
def test_private_build_dirs_are_accepted(path):
    assert settings_errors(settings(openmpi_build_dir=path), "node1") == []


@pytest.mark.parametrize("path, expected", [
    ("/var/tmp/cluster-suite-openmpi", "is in /var/tmp, where any local user can create that name first"),
    ("/tmp/x", "is in /tmp, where any local user"),
    ("/tmp", "is in /tmp, where any local user"),
    ("//tmp/x", "is in /tmp,"),
    ("/var/tmp/x", "is in /var/tmp,"),
    ("/dev/shm/x", "is in /dev/shm,"),
    ("/run/lock/x", "is in /run/lock,"),
    ("/var/lock/x", "is in /var/lock,"),
    ("/var/lib/../tmp/x", "contains '..'"),
    ("/srv/build/../x", "contains '..'"),
    ("var/lib/openmpi-build", "is not an absolute path"),
    ("./build", "is not an absolute path"),
    ("~/build", "is not an absolute path"),
    ("", "'' is not a path"),
    (None, "None is not a path"),
    (" /srv/x", "leading/trailing blanks"),
    ("/var/lib", "is a shared directory"),
    ("/", "is a shared directory"),
    ("/usr/local/openmpi-4.1.4/build", "and openmpi_prefix /usr/local/openmpi-4.1.4 overlap"),
    ("/usr/local", "is a shared directory"),
])
def test_bad_build_dirs_are_refused_on_the_controller(path, expected):
    errors = settings_errors(settings(openmpi_build_dir=path), "node1")
    assert len(errors) == 1, errors
    assert errors[0].startswith("node1: openmpi_build_dir: "), errors
    assert expected in errors[0], errors


def test_a_prefix_inside_the_build_dir_is_refused():
    errors = settings_errors(settings(openmpi_build_dir="/srv/b", openmpi_prefix="/srv/b/openmpi"), "n")
    assert errors == ["n: openmpi_build_dir: /srv/b and openmpi_prefix /srv/b/openmpi overlap; a rebuild "
                      "removes the prefix, so the build directory must be elsewhere"]


@pytest.mark.parametrize("path, expected", [
    ("/tmp/openmpi-ring-trainer", "is in /tmp, where any local user"),
    ("/dev/shm/ring", "is in /dev/shm"),
    ("~/../other/ring", "contains '..'"),
    ("~other/ring", "is not an absolute path (only ~/ of the user itself may start it)"),
    ("ring", "is not an absolute path or one under ~/"),
    ("~", "is a shared directory"),
])
def test_bad_ring_dirs_are_refused(path, expected):
    errors = settings_errors(settings(openmpi_ring_dir=path), "node2")
    assert len(errors) == 1 and errors[0].startswith("node2: openmpi_ring_dir: "), errors
    assert expected in errors[0], errors


@pytest.mark.parametrize("path", ["~/.cache/cluster-suite/openmpi-ring", "/srv/ring", "~/ring"])
def test_ring_dirs_of_the_user_are_accepted(path):
    assert private_path_errors(path, "openmpi_ring_dir", "node1", home=True) == []


def test_the_chain_runs_from_the_root_down():
    assert path_chain("/var/lib/cluster-suite/openmpi-build/") == [
        "/", "/var", "/var/lib", "/var/lib/cluster-suite", "/var/lib/cluster-suite/openmpi-build"]
    assert path_chain("/") == ["/"]


def lstat(path, owner="root", mode="0755", **more):
    entry = {"path": path, "exists": True, "islnk": False, "isdir": True, "pw_name": owner,
             "uid": 0 if owner == "root" else 1000, "mode": mode}
    entry.update(more)
    return entry


ROOT_CHAIN = [lstat("/"), lstat("/var"), lstat("/var/lib")]
TARGET = "/var/lib/cluster-suite"


def test_a_missing_private_dir_under_root_owned_dirs_is_fine():
    assert private_dir_errors(ROOT_CHAIN + [{"path": TARGET, "exists": False}],
                              "root", "openmpi_build_dir", "node1") == []


def test_an_existing_root_dir_of_mode_0700_is_fine():
    assert private_dir_errors(ROOT_CHAIN + [lstat(TARGET, mode="0700")], "root", "openmpi_build_dir") == []


@pytest.mark.parametrize("target, expected", [
    (lstat(TARGET, owner="trainer", mode="0700"),
     "belongs to trainer (uid 1000), not root: someone else created it first"),
    (lstat(TARGET, mode="0755"), "has mode 0755, not 0700"),
    (lstat(TARGET, mode="1777"), "has mode 1777, not 0700"),
    (lstat(TARGET, owner="trainer", islnk=True, isdir=False, lnk_target="/home/trainer/src"),
     "is a symbolic link (to /home/trainer/src), someone may have planted it"),
    (lstat(TARGET, isdir=False), "exists and is not a directory"),
    (dict(lstat(TARGET, mode="0700"), pw_name="root", uid=1000), "belongs to root (uid 1000), not root"),
])
def test_a_planted_or_open_private_dir_is_refused(target, expected):
    errors = private_dir_errors(ROOT_CHAIN + [target], "root", "openmpi_build_dir", "node1")
    assert errors == [f"node1: openmpi_build_dir: {TARGET}: {expected}" + errors[0].split(expected, 1)[1]]


@pytest.mark.parametrize("above, expected", [
    (lstat("/var/lib", owner="trainer"), "/var/lib above it belongs to trainer (uid 1000), who could swap"),
    (lstat("/var/lib", mode="1777"), "/var/lib above it is writable by others (mode 1777)"),
    (lstat("/var/lib", mode="0775"), "/var/lib above it is writable by others (mode 0775)"),
    (lstat("/var/lib", islnk=True, isdir=False, lnk_target="/tmp/l"),
     "/var/lib above it is a symbolic link (to /tmp/l)"),
    (lstat("/var/lib", isdir=False), "/var/lib above it is not a directory"),
])
def test_a_directory_above_that_someone_else_controls_is_refused(above, expected):
    chain = [lstat("/"), lstat("/var"), above, {"path": TARGET, "exists": False}]
    errors = private_dir_errors(chain, "root", "openmpi_build_dir", "node1")
    assert len(errors) == 1 and errors[0].startswith(f"node1: openmpi_build_dir: {TARGET}: "), errors
    assert expected in errors[0], errors


def test_the_ring_user_may_own_its_home_and_the_ring_dir():
    chain = [lstat("/"), lstat("/home"), lstat("/home/trainer", owner="trainer"),
             lstat("/home/trainer/.cache", owner="trainer", mode="0700"),
             lstat("/home/trainer/.cache/ring", owner="trainer", mode="0700")]
    assert private_dir_errors(chain, "trainer", "openmpi_ring_dir", "node1") == []
    chain[-1] = lstat("/home/trainer/.cache/ring", owner="other", mode="0700")
    assert private_dir_errors(chain, "trainer", "openmpi_ring_dir", "node1") == [
        "node1: openmpi_ring_dir: /home/trainer/.cache/ring: belongs to other (uid 1000), not trainer: "
        "someone else created it first; remove it or choose another openmpi_ring_dir"]
