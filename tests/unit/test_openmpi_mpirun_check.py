"""Action openmpi_mpirun_check (plugins/action/openmpi_mpirun_check.py): its verdict on what
`mpirun --version` printed, and the action run by ansible-playbook on a real command."""
import os
import stat

from ansible_collections.cluster_suite.hpc.plugins.action.openmpi_mpirun_check import version_error
from module_runner import run_playbook

# `mpirun --version` of OpenMPI 4.1.4, built by role openmpi, on node1 of a 3-node sandbox.
MPIRUN_4_1_4 = "mpirun (Open MPI) 4.1.4\n\nReport bugs to http://www.open-mpi.org/community/help/"


def test_the_expected_version_passes_and_another_or_a_failure_is_named():
    assert version_error("node1", "4.1.4", dict(rc=0, stdout=MPIRUN_4_1_4, stderr="")) == ""
    assert version_error("node1", "4.1.3", dict(rc=0, stdout=MPIRUN_4_1_4, stderr="")) == (
        "node1: `mpirun --version` in a non-interactive SSH shell reports mpirun (Open MPI) 4.1.4; "
        "expected Open MPI 4.1.3")
    assert version_error("node1", "4.1.4", dict(rc=127, stdout="", stderr="sh: mpirun: not found\n")) == (
        "node1: `mpirun --version` in a non-interactive SSH shell failed (rc 127): sh: mpirun: not found; "
        "expected Open MPI 4.1.4")


def test_the_action_runs_mpirun_from_path_and_fails_on_another_version(tmp_path):
    fake = tmp_path / "bin" / "mpirun"
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\nprintf '%s\\n' '{MPIRUN_4_1_4}'\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    inventory = tmp_path / "hosts.yml"
    inventory.write_text("all:\n  hosts:\n    localhost:\n      ansible_connection: local\n"
                         "      ansible_python_interpreter: '{{ ansible_playbook_python }}'\n")
    playbook = tmp_path / "play.yml"
    playbook.write_text(
        "- hosts: localhost\n  gather_facts: false\n"
        f"  environment: {{PATH: '{fake.parent}:{os.environ['PATH']}'}}\n  tasks:\n"
        "    - cluster_suite.hpc.openmpi_mpirun_check: {version: 4.1.4}\n      register: same\n"
        "    - cluster_suite.hpc.openmpi_mpirun_check: {version: 4.1.3}\n      ignore_errors: true\n      register: other\n"
        "    - cluster_suite.hpc.openmpi_mpirun_check: {version: 4.1.4}\n      check_mode: true\n      register: check\n"
        "    - ansible.builtin.assert:\n        that:\n          - same is succeeded and same.rc == 0\n"
        "          - other is failed and other.msg.endswith('reports mpirun (Open MPI) 4.1.4; expected Open MPI 4.1.3')\n"
        "          - check is skipped\n")
    rc, report = run_playbook(playbook, inventory, tmp_path)
    assert rc == 0, report
