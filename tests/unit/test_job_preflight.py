"""Tests for plugins/module_utils/job_preflight.py (module job_preflight, launch.yml's node checks)."""

import json
import os
import platform
import pwd
import sys
from pathlib import Path

import pytest

import job_preflight
from module_runner import run_module

PROJECT = Path(__file__).resolve().parents[2]
IP_OUTPUT = """\
1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever
2: eth0@if12    inet 10.89.0.2/24 brd 10.89.0.255 scope global eth0\\       valid_lft forever
3: eth1    inet 10.90.0.7/16 brd 10.90.255.255 scope global eth1\\       valid_lft forever
"""


def request(**overrides):
    values = dict(user="trainer", python="python3", python_module="torch", launcher="torchrun",
                  name="demo", port=None, master_addr=None)
    values.update(overrides)
    return values


def facts(**overrides):
    values = dict(python_path="/usr/bin/python3", python_module_ok=True, missing_files=[], processes=[],
                  port=None, ipv4_addresses=[("lo", "127.0.0.1"), ("eth0", "10.89.0.2")])
    values.update(overrides)
    return values


@pytest.mark.parametrize("job_dir, log_dir, expected", [
    ("jobs/demo", "logs", ("/home/trainer/jobs/demo", "/home/trainer/jobs/demo/logs")),
    ("jobs/demo", "trace/a", ("/home/trainer/jobs/demo", "/home/trainer/jobs/demo/trace/a")),
    ("/scratch/demo", "logs", ("/scratch/demo", "/scratch/demo/logs")),
])
def test_node_paths_under_the_home(job_dir, log_dir, expected):
    assert job_preflight.node_paths("/home/trainer/", job_dir, log_dir) == expected


def test_node_paths_of_root():
    assert job_preflight.node_paths("/", "jobs/a", "logs") == ("/jobs/a", "/jobs/a/logs")


def test_parse_ipv4_addresses_of_ip_o():
    addresses = job_preflight.parse_ipv4_addresses(IP_OUTPUT)
    assert addresses == [("lo", "127.0.0.1"), ("eth0", "10.89.0.2"), ("eth1", "10.90.0.7")]
    assert job_preflight.interface_of(addresses, "10.90.0.7") == "eth1"
    assert job_preflight.interface_of(addresses, "10.1.1.1") == ""


def test_find_python_by_name_and_by_path(tmp_path):
    program = tmp_path / "python9"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    assert job_preflight.find_python("python9", path=str(tmp_path)) == str(program)
    assert job_preflight.find_python(str(program)) == str(program)
    assert job_preflight.find_python("python9", path="/nonexistent") is None
    program.chmod(0o644)
    assert job_preflight.find_python(str(program)) is None


def test_read_python_gives_versions_without_importing():
    import pytest as installed
    found = job_preflight.read_python(sys.executable, "pytest")
    assert found == {"python": platform.python_version(), "found": True, "version": installed.__version__}
    assert job_preflight.read_python(sys.executable, "no_such_module_here")["found"] is False
    assert job_preflight.read_python(sys.executable, "")["found"] is False
    assert job_preflight.read_python("/bin/false", "json") is None


def test_no_problem_when_all_is_there():
    assert job_preflight.problems(facts(), request(master_addr="10.89.0.2")) == []


def test_every_problem_at_once_each_naming_its_variable():
    found = job_preflight.problems(
        facts(python_module_ok=False,
              missing_files=[{"path": "/etc/cluster-suite/env_npu.sh", "variable": "job_source_env"},
                             {"path": "/opt/mpi/bin/orted", "variable": "job_mpirun_prefix"}],
              processes=[{"pid": 41}, {"pid": 42}],
              port={"free": False, "error_text": "Address already in use", "holder_pid": 7,
                    "holder_name": "python3", "holder_state": "LISTEN"}),
        request(port=29500, master_addr="10.9.9.9"))
    assert [line.split(":")[0] for line in found] == [
        "job_launcher torchrun", "job_source_env", "job_mpirun_prefix", "job_name", "job_port", "job_master_addr"]
    assert "cannot import torch" in found[0]
    assert "pids 41, 42" in found[3] and "playbooks/stop.yml -e job_name=demo" in found[3]
    assert "held by python3 pid 7" in found[4]
    assert "127.0.0.1, 10.89.0.2" in found[5]


def test_python_not_found_hides_the_framework_check():
    found = job_preflight.problems(facts(python_path="", python_module_ok=None), request(python="python3.99"))
    assert found == ["job_python: python3.99 is not found by trainer (set launch_python in the inventory or job_python)"]


def test_a_port_left_in_time_wait_is_no_problem():
    port = {"free": False, "error_text": "Address already in use", "holder_pid": None, "holder_name": None,
            "holder_state": "TIME_WAIT"}
    assert job_preflight.problems(facts(port=port), request(port=29500)) == []


def test_module_runs_as_ansible_would(tmp_path):
    """The whole module, through Ansible's argument handling, on this machine (as its own user)."""
    user = pwd.getpwuid(os.getuid()).pw_name
    result = run_module("job_preflight", {
        "user": user, "job_dir": "jobs/x", "log_dir": "logs", "name": "x", "launcher": "torchrun",
        "python": sys.executable, "python_module": "json", "address": "127.0.0.1",
        "files": [{"path": "/nonexistent/env_npu.sh", "variable": "job_source_env"}]}, tmp_path / "args.json")
    assert result["problems"] == [
        "job_source_env: /nonexistent/env_npu.sh is missing (role npu_env), or set job_source_env: false"]
    assert result["iface"] == "lo" and "127.0.0.1" in result["ipv4_addresses"]
    assert result["job_dir"] == os.path.join(pwd.getpwuid(os.getuid()).pw_dir, "jobs/x")
    assert result["python_path"] == sys.executable and result["port"] is None and not result["changed"]
    assert result["versions"]["python"] == platform.python_version()
    assert result["versions"]["framework"] is None and result["versions"]["openmpi"] is None


def test_module_reads_openmpi_and_its_build_under_the_prefix(tmp_path):
    """OpenMPI's version from prefix/bin/ompi_info and its build from the marker beside the real
    installation (prefix/bin/ompi_info may be a link, as /usr/local/bin's are)."""
    install = tmp_path / "openmpi-4.1.4"
    (install / "bin").mkdir(parents=True)
    (install / "share").mkdir()
    (install / "bin" / "ompi_info").write_text("#!/bin/sh\necho 'Open MPI v4.1.4'\n")
    (install / "bin" / "ompi_info").chmod(0o755)
    (install / "share" / "cluster-suite-build.json").write_text(json.dumps({
        "build_key": "openmpi-414-debian12-x86_64-0", "version": "4.1.4",
        "key_fields": {"distribution": "Debian", "distribution_major_version": "12", "architecture": "x86_64",
                       "prefix": str(install), "configure_flags": [], "source_sha256": "ab"}}))
    linked = tmp_path / "local"
    (linked / "bin").mkdir(parents=True)
    (linked / "bin" / "ompi_info").symlink_to(install / "bin" / "ompi_info")
    result = run_module("job_preflight", {
        "user": pwd.getpwuid(os.getuid()).pw_name, "job_dir": "jobs/x", "log_dir": "logs", "name": "x",
        "launcher": "mpirun", "python": sys.executable, "openmpi_prefix": str(linked)}, tmp_path / "args.json")
    openmpi = result["versions"]["openmpi"]
    assert openmpi["version"] == "4.1.4" and openmpi["path"] == str(linked / "bin" / "ompi_info")
    assert openmpi["build"]["os"] == "Debian 12" and openmpi["build"]["prefix"] == str(install)
