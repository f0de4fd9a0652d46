"""plugins/module_utils/doctor_probe.py: parsers and collectors driven by fakes (no node needed)."""
import json
import subprocess
import sys

import pytest

import doctor_probe as dp

IP_JSON = json.dumps([
    {"ifname": "lo", "flags": ["LOOPBACK", "UP"], "addr_info": [
        {"family": "inet", "local": "127.0.0.1", "prefixlen": 8}, {"family": "inet6", "local": "::1"}]},
    {"ifname": "eth1", "flags": ["BROADCAST", "UP"], "addr_info": [
        {"family": "inet", "local": "192.168.100.101", "prefixlen": 24, "label": "eth1:0"},
        {"family": "inet", "local": "192.168.101.101", "prefixlen": 24}]},
    {"ifname": "eth9", "flags": ["BROADCAST"], "addr_info": []},
])


def test_parse_ip_addr_json():
    found = dp.parse_ip_addr_json(IP_JSON)
    assert found["lo"] == {"up": True, "ipv4": ["127.0.0.1/8"]}
    assert found["eth1"]["ipv4"] == ["192.168.100.101/24", "192.168.101.101/24"]
    assert found["eth9"] == {"up": False, "ipv4": []}
    with pytest.raises(ValueError, match="cannot parse"):
        dp.parse_ip_addr_json("Object \"addr\" is unknown")


def test_parse_hosts_file_keeps_order_and_drops_comments():
    text = "# c\n10.0.0.1  node1 node1.x  # managed\n\n127.0.1.1\tnode1\n::1 localhost\nbroken\n"
    assert dp.parse_hosts_file(text) == [["10.0.0.1", ["node1", "node1.x"]], ["127.0.1.1", ["node1"]],
                                         ["::1", ["localhost"]]]


def test_parse_ufw_status():
    assert dp.parse_ufw_status("Status: inactive\n") == {"active": False, "rules": []}
    active = dp.parse_ufw_status("Status: active\n\nTo                         Action      From\n"
                                 "--                         ------      ----\n"
                                 "22/tcp                     ALLOW       Anywhere\n"
                                 "8118/tcp                   ALLOW       10.0.0.0/24\n")
    assert active == {"active": True, "rules": ["22/tcp ALLOW Anywhere", "8118/tcp ALLOW 10.0.0.0/24"]}
    with pytest.raises(ValueError):
        dp.parse_ufw_status("ERROR: You need to be root to run this script")


@pytest.mark.parametrize("text, version", [
    ("Open MPI v4.1.4\n\nhttp://www.open-mpi.org/community/help/\n", "4.1.4"),
    ("mpirun (Open MPI) 4.0.3\n", "4.0.3"),
    ("Open MPI v5.0.0rc12\n", "5.0.0rc12"),
])
def test_parse_ompi_info_version(text, version):
    assert dp.parse_ompi_info_version(text) == version


def test_parse_ompi_info_version_refuses_other_text():
    with pytest.raises(ValueError):
        dp.parse_ompi_info_version("bash: ompi_info: command not found")


def test_version_files():
    assert dp.parse_version_file("version=7.0.0\npackage_name=x\n") == "7.0.0"
    assert dp.parse_version_file("Version=23.0.0\n") == "23.0.0"
    assert dp.parse_version_file("package_version=8.0.RC1\n") == "8.0.RC1"
    assert dp.parse_version_file("nothing here") is None
    assert dp.parse_nccl_header("#define NCCL_MAJOR 2\n#define NCCL_MINOR 18\n#define NCCL_PATCH 1\n") == "2.18.1"
    assert dp.parse_nccl_header("#define NCCL_MAJOR 2\n") is None
    assert dp.nccl_version_from_library("/usr/lib/x86_64-linux-gnu/libnccl.so.2.18.1") == "2.18.1"


def files(mapping):
    return lambda path: mapping.get(path)


def test_collect_cann_follows_the_layout_order():
    read = files({"/A/nnae/latest/version.cfg": "version=6.0.0",
                  "/A/ascend-toolkit/latest/version.cfg": "version=7.0.0"})
    assert dp.collect_cann("/A", read) == {"layout": "ascend-toolkit", "path": "/A/ascend-toolkit/latest/version.cfg",
                                           "version": "7.0.0"}
    absent = dp.collect_cann("/A", files({}))
    assert absent["absent"] and "/A/toolkit/version.info" in absent["looked_in"]


def test_collect_nccl_from_the_linker_cache():
    def run(argv):
        return 0, "\tlibnccl.so.2 (libc6,x86-64) => /nonexistent/libnccl.so.2.19.3\n", ""
    assert dp.collect_nccl(files({}), run) == {"version": "2.19.3", "source": "/nonexistent/libnccl.so.2.19.3"}
    assert dp.collect_nccl(files({}), lambda argv: (1, "", "")) == {"absent": True}


def test_collect_firewall():
    calls = []

    def run(argv):
        calls.append(argv)
        return {"/usr/sbin/ufw": (0, "Status: active\n", ""),
                "/usr/bin/firewall-cmd": (252, "not running\n", "")}[argv[0]]
    found = dp.collect_firewall(run, {"ufw": "/usr/sbin/ufw", "firewall-cmd": "/usr/bin/firewall-cmd"}.get)
    assert found["ufw"] == {"installed": True, "active": True, "rules": []}
    assert found["firewalld"] == {"installed": True, "running": False, "ports": []}
    nothing = dp.collect_firewall(run, lambda name: None)
    assert not nothing["ufw"]["installed"] and not nothing["firewalld"]["installed"]


def test_collect_system_survives_a_failing_ip():
    def run(argv):
        if argv[0] == "hostname":
            return 0, "node1\n", ""
        if argv[0] == "ip":
            return 1, "", "Object \"addr\" is unknown"
        return 1, "", ""
    found = dp.collect_system(run, files({"/etc/hosts": "10.0.0.1 node1\n"}), lambda name: None, {})
    assert found["hostname"] == "node1" and found["interfaces"] is None and "ip -j" in found["interfaces_error"]
    assert found["hosts_file"] == [["10.0.0.1", ["node1"]]] and "cann" not in found


def test_collect_openmpi():
    marker = json.dumps({"version": "4.1.4"})
    found = dp.collect_openmpi(lambda argv: (0, "Open MPI v4.1.5\n", ""), lambda name: "/usr/local/bin/ompi_info",
                               files({"/m": marker}), "/m")
    assert found == {"marker_version": "4.1.4", "path": "/usr/local/bin/ompi_info", "version": "4.1.5"}
    missing = dp.collect_openmpi(None, lambda name: None, files({}), None)
    assert missing["absent"] and "not on PATH" in missing["error"]
    broken = dp.collect_openmpi(lambda argv: (127, "", "error while loading shared libraries: libmpi.so.40"),
                                lambda name: "/x/ompi_info", files({}))
    assert "libmpi.so.40" in broken["error"] and "version" not in broken


def test_collect_openmpi_reads_the_build_from_the_marker():
    marker = json.dumps({
        "build_key": "openmpi-414-debian13-x86_64-0123456789ab", "version": "4.1.4",
        "key_fields": {"distribution": "Debian", "distribution_major_version": "13",
                       "distribution_release": "trixie", "architecture": "x86_64", "version": "4.1.4",
                       "configure_flags": ["--disable-mpi-fortran"], "source_sha256": "ab12",
                       "prefix": "/usr/local/openmpi-4.1.4"}})
    found = dp.collect_openmpi(lambda argv: (0, "Open MPI v4.1.4\n", ""), lambda name: "/usr/local/bin/ompi_info",
                               files({"/m": marker}), "/m")
    assert found["build"] == {"key": "openmpi-414-debian13-x86_64-0123456789ab", "os": "Debian 13",
                              "architecture": "x86_64", "prefix": "/usr/local/openmpi-4.1.4",
                              "configure_flags": ["--disable-mpi-fortran"], "source_sha256": "ab12"}
    unreadable = dp.collect_openmpi(lambda argv: (0, "Open MPI v4.1.4\n", ""), lambda name: "/x/ompi_info",
                                    files({"/m": "{not json"}), "/m")
    assert unreadable["marker_version"] is None and "build" not in unreadable


def run_for_real(commands):
    return [(p.returncode, p.stdout, p.stderr) for p in
            (subprocess.run(argv, capture_output=True, text=True, check=False) for argv in commands)]


def test_collect_python_with_this_python():
    found = dp.collect_python(sys.executable, ["json", "no_such_module_xyz"], run_for_real)
    assert found["python"]["version"] == "%d.%d.%d" % sys.version_info[:3]
    assert found["frameworks"]["json"]["version"]  # json has __version__
    assert found["frameworks"]["no_such_module_xyz"] == {"absent": True}


def test_collect_python_broken_import_is_an_error(tmp_path):
    (tmp_path / "broken_mod.py").write_text("import no_such_dependency_xyz\n")
    script = tmp_path / "env.sh"
    script.write_text("export PYTHONPATH=%s\n" % tmp_path)
    found = dp.collect_python(sys.executable, ["broken_mod"], run_for_real, env_script=str(script))
    assert "no_such_dependency_xyz" in found["frameworks"]["broken_mod"]["error"]


def test_collect_python_missing_interpreter():
    found = dp.collect_python("/nonexistent/python", ["torch"],
                              lambda commands: [(127, "", "No such file or directory")] * len(commands))
    assert found["frameworks"] is None and "No such file" in found["python"]["error"]
