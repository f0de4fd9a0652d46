"""plugins/plugin_utils/jobs/versions.py: a launch refuses what the doctor fails and warns of what
it warns of, across the job's nodes."""
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.jobs import versions as job_versions

HOSTS = ["node1", "node2", "node3"]


def build(os_name="Debian 12", prefix="/usr/local/openmpi-4.1.4"):
    return {"key": "k-" + os_name, "os": os_name, "architecture": "x86_64", "prefix": prefix,
            "configure_flags": ["--disable-mpi-fortran"], "source_sha256": "ab12"}


def plan(**changes):
    found = {"hosts": HOSTS, "master": "node1", "launcher": "msrun", "script": "train.py",
             "python": "/opt/cluster-suite/python/bin/python", "python_module": "mindspore"}
    found.update(changes)
    return found


def versions(python=("3.11.2",) * 3, framework=("2.7.1",) * 3, openmpi=None):
    return {host: {"python": python[i], "framework": framework[i],
                   "openmpi": openmpi[i] if openmpi else None} for i, host in enumerate(HOSTS)}


def test_the_same_everywhere_passes():
    assert job_versions.version_verdicts(plan(), versions()) == {"fail": [], "warn": []}


def test_another_python_release_is_refused_naming_the_node_and_the_majority():
    found = job_versions.version_verdicts(plan(), versions(python=("3.11.2", "3.13.5", "3.11.2")))
    assert found["warn"] == []
    assert found["fail"] == ["node2: Python 3.13.5 here, but 3.11.2 on node1, node3: "
                             "use the same Python on every node (job_python)"]


def test_another_python_patch_level_warns():
    found = job_versions.version_verdicts(plan(), versions(python=("3.11.2", "3.11.2", "3.11.9")))
    assert found["fail"] == [] and len(found["warn"]) == 1 and found["warn"][0].startswith("node3: Python 3.11.9")


def test_another_framework_version_is_refused():
    found = job_versions.version_verdicts(plan(), versions(framework=("2.7.1", "2.7.1", "2.6.0")))
    assert found["fail"] == ["node3: mindspore 2.6.0 here, but 2.7.1 on node1, node2: "
                             "install the same mindspore on every node (role python_env)"]


def test_a_c_program_under_mpirun_does_not_compare_python_but_openmpi():
    mpirun = plan(launcher="mpirun", script="mpi_ring", python_module="")
    same = {"version": "4.1.4", "build": build()}
    other_os = {"version": "4.1.4", "build": build("Debian 13")}
    found = job_versions.version_verdicts(mpirun, versions(python=("3.11.2", "3.13.5", "3.11.2"),
                                                           openmpi=(same, other_os, same)))
    assert found["fail"] == []
    assert found["warn"] == ["node2: Open MPI 4.1.4 (same on 3 node(s)); Open MPI built on Debian 13 here, "
                             "but Debian 12 on node1, node3: the same OpenMPI release, built once per OS "
                             "release by the openmpi role, works across them when versions and flags agree; "
                             "bring the nodes to one OS release when you can"]


def test_a_python_script_under_mpirun_compares_python_and_openmpi():
    mpirun = plan(launcher="mpirun", script="probe.py", python_module="")
    same = {"version": "4.1.4", "build": build()}
    other = {"version": "4.1.5", "build": build()}
    found = job_versions.version_verdicts(mpirun, versions(python=("3.11.2", "3.13.5", "3.11.2"),
                                                           openmpi=(same, same, other)))
    assert [line.split(":")[0] for line in found["fail"]] == ["node2", "node3"]
    assert "Python 3.13.5" in found["fail"][0] and "Open MPI 4.1.5" in found["fail"][1]


def test_openmpi_at_another_prefix_is_refused():
    mpirun = plan(launcher="mpirun", script="mpi_ring", python_module="")
    same = {"version": "4.1.4", "build": build()}
    moved = {"version": "4.1.4", "build": build(prefix="/opt/openmpi")}
    found = job_versions.version_verdicts(mpirun, versions(openmpi=(same, same, moved)))
    assert len(found["fail"]) == 1 and found["fail"][0].startswith("node3: Open MPI 4.1.4")
    assert "/opt/openmpi here" in found["fail"][0]
