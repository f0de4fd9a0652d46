import json
import os
import subprocess
import sys

import pytest
import yaml
from packaging.version import Version

from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.provision.python_env import (VERSION, checksum_problems, combination_problems, copy_plan, parse_sha256sums, keys_to_fill, pins, pins_to_install,
                        platform_of, release, requirement_lines, sha256sums_text, wheel_list, wheel_problems,
                        wheel_python_fits, wheelhouse_key)
from ansible_collections.cluster_suite.hpc.plugins.plugin_utils.validation import role_settings
from module_runner import run_module
from python_env_node import install_plan, other_builds, pip_install_argv, version_matches

PROJECT = os.path.join(os.path.dirname(__file__), "..", "..")
COMPAT_PATH = os.path.join(PROJECT, "roles", "python_env", "files", "compat.yml")
with open(COMPAT_PATH, encoding="utf-8") as handle:
    COMPAT = yaml.safe_load(handle)
# Copies of the published tables compat.yml cites, with their sources in the folder's README.md.
PUBLISHED_DIR = os.path.join(os.path.dirname(__file__), "..", "data", "compat")


def settings(**changes):
    base = {"python_env_mindspore_version": "", "python_env_torch_version": "", "python_env_torch_npu_version": "",
            "python_env_apex_version": "", "python_env_extra_requirements": [], "python_env_cann_version": "",
            "cluster_backend": "auto"}
    base.update(changes)
    return base


def published_rows(name):
    """The cells of every data row of the Markdown tables in tests/data/compat/<name>."""
    rows = []
    with open(os.path.join(PUBLISHED_DIR, name), encoding="utf-8") as handle:
        for line in handle:
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if line.startswith("|") and cells[0][:1].isdigit():
                rows.append(cells)
    return rows


def differences(table, published):
    """The rows of the role's table that differ from the published ones, and the published rows it lacks."""
    wrong = {version: {"compat.yml": entry, "published": published.get(version)}
             for version, entry in table.items() if published.get(version) != entry}
    return wrong, sorted(set(published) - set(table))


def test_the_torch_npu_rows_are_the_published_ones():
    published = {}
    for version, _branch, torch, cann in published_rows("torch_npu_versions.md"):
        entry = published.setdefault(version, {"torch": torch, "cann": []})
        assert entry["torch"] == torch, version
        entry["cann"].append(cann.removeprefix("CANN "))
    assert len(published) == 36
    wrong, missing = differences(COMPAT["torch_npu"], published)
    assert wrong == {} and missing == [], f"not as published: {wrong}; published but missing: {missing}"


def test_the_mindspore_rows_are_the_published_ones():
    published = {}
    for _transformers, mindspore, cann, _firmware in published_rows("mindspore_versions.md"):
        # compat.yml writes a pre-release as pip does: 2.6.0-rc1 is 2.6.0rc1.
        published.setdefault(str(Version(mindspore)), {"cann": []})["cann"].append(cann)
    assert len(published) == 8
    wrong, missing = differences(COMPAT["mindspore"], published)
    assert wrong == {} and missing == [], f"not as published: {wrong}; published but missing: {missing}"


def test_every_torch_npu_row_follows_the_naming_rule():
    for version, entry in COMPAT["torch_npu"].items():
        assert release(version) == entry["torch"], version


def sandbox_pins():
    with open(os.path.join(PROJECT, "inventory", "sandbox", "group_vars", "all", "python_env.yml"),
              encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def test_the_sandbox_pins_are_fine_on_cpu_nodes():
    chosen = {name: value for name, value in sandbox_pins().items() if name in settings()}
    errors, warnings = combination_problems("node1", settings(**chosen), COMPAT, "7.0.0", "cpu")
    assert errors == [] and warnings == []


def test_the_sandbox_pins_are_the_builds_its_ml_volume_installs():
    # Role python_env takes a local label for another build: a pin that differs from the volume's
    # requirement (2.13.0 against 2.13.0+cpu) would fail every check of the provided environment.
    with open(os.path.join(PROJECT, "sandbox", "ml-requirements.txt"), encoding="utf-8") as handle:
        volume = [line.strip() for line in handle if line.strip() and not line.startswith("#")]
    assert volume == [line.replace("===", "==") for line in requirement_lines(sandbox_pins())]
    assert "torch==2.13.0+cpu" in volume


# The Python libraries of the table "Runtime dependencies" of CANN's installation guide, and the
# three the dependency line of Ascend Extension for PyTorch's installation guide adds.
CANN_DOCUMENTED = {"numpy", "decorator", "sympy", "cffi", "protobuf", "attrs", "cython", "pyyaml", "pathlib2", "scipy",
                   "requests", "psutil", "absl-py"} | {"ml-dtypes", "tornado", "cloudpickle"}


def test_the_cann_dependencies_are_the_documented_ones_within_the_guides_bounds():
    table = COMPAT["cann_python"]
    assert set(table) == CANN_DOCUMENTED
    assert all(isinstance(version, str) and VERSION.fullmatch(version) for version in table.values()), table
    versions = {name: Version(version) for name, version in table.items()}
    # CANN's bounds: numpy 1.19.2 or later and before 2.0 (Python before 3.13), protobuf 3.20.x,
    # decorator 4.4.0, sympy 1.5.1 and cffi 1.12.3 or later.
    assert Version("1.19.2") <= versions["numpy"] < Version("2.0")
    assert versions["protobuf"].release[:2] == (3, 20)
    assert versions["decorator"] >= Version("4.4.0") and versions["sympy"] >= Version("1.5.1")
    assert versions["cffi"] >= Version("1.12.3")


def test_an_npu_node_with_a_framework_gets_the_cann_dependencies_after_the_pins():
    chosen = settings(python_env_mindspore_version="2.7.1", python_env_extra_requirements=["NumPy==1.24.0"])
    assert pins(chosen, COMPAT, False) == [("mindspore", "2.7.1"), ("NumPy", "1.24.0")]
    with_cann = pins(chosen, COMPAT, True)
    assert with_cann[:2] == [("mindspore", "2.7.1"), ("NumPy", "1.24.0")]
    # The settings' own pin of a dependency wins (compared as pip compares names).
    assert sorted(name for name, _ in with_cann[2:]) == sorted(CANN_DOCUMENTED - {"numpy"})
    assert "decorator===5.2.1" in requirement_lines(chosen, COMPAT, True)
    assert pins(settings(), COMPAT, False) == []


def test_the_sandbox_downloads_the_tables_cann_dependencies():
    run = subprocess.run([os.path.join(PROJECT, "sandbox", "ml-packages.sh"), "cann"], capture_output=True, text=True,
                         check=True, env={key: value for key, value in os.environ.items() if not key.startswith("SANDBOX_")})
    assert run.stdout.splitlines() == ["%s==%s" % pair for pair in COMPAT["cann_python"].items()]


def test_a_torch_npu_built_for_another_torch_is_an_error_naming_host_and_variable():
    errors, _ = combination_problems("node2", settings(python_env_torch_version="2.13.0",
                                                       python_env_torch_npu_version="2.1.0.post17"), COMPAT, None, "cpu")
    assert errors == ["node2: python_env_torch_npu_version: torch_npu 2.1.0.post17 is built for torch 2.1.0, but "
                      "python_env_torch_version is 2.13.0 (the compatibility table (roles/python_env/files/compat.yml: "
                      "Ascend's PyTorch multi-node training guide and Ascend Extension for PyTorch version table; "
                      "MindSpore's installation guide))"]


def test_the_naming_rule_applies_to_releases_missing_from_the_table_with_a_warning():
    errors, warnings = combination_problems("n", settings(python_env_torch_version="2.3.1",
                                                          python_env_torch_npu_version="2.2.0.post99"), COMPAT, None, "cpu")
    assert len(errors) == 1 and "is built for torch 2.2.0" in errors[0]
    assert len(warnings) == 1 and "not in the compatibility table" in warnings[0]
    errors, warnings = combination_problems("n", settings(python_env_torch_version="2.3.1",
                                                          python_env_torch_npu_version="2.3.1.post99"), COMPAT, None, "cpu")
    assert errors == [] and "2.3.1.post99 is not in" in warnings[0]


def test_a_local_label_on_torch_does_not_hide_the_pairing():
    errors, _ = combination_problems("n", settings(python_env_torch_version="2.1.0+cpu",
                                                   python_env_torch_npu_version="2.1.0.post17"), COMPAT, "8.3.RC1", "ascend")
    assert errors == []


@pytest.mark.parametrize("cann, from_inventory, expected", [
    ("8.3.RC1", False, []),
    ("8.3.rc1", False, []),
    ("8.2.RC1", False, ["n: python_env_torch_npu_version: torch_npu 2.1.0.post17 is paired with CANN 8.3.RC1"]),
    ("8.0.0", True, ["n: python_env_torch_npu_version: torch_npu 2.1.0.post17 is paired with CANN 8.3.RC1"]),
])
def test_torch_npu_against_the_cann_of_the_node_or_the_inventory(cann, from_inventory, expected):
    chosen = settings(python_env_torch_version="2.1.0", python_env_torch_npu_version="2.1.0.post17",
                      python_env_cann_version=cann if from_inventory else "")
    errors, _ = combination_problems("n", chosen, COMPAT, None if from_inventory else cann, "ascend")
    assert [error[:len(expected[0])] for error in errors] == expected if expected else errors == []
    if errors:
        assert errors[0].endswith(("but python_env_cann_version is CANN %s" if from_inventory
                                   else "but the node's CANN is CANN %s") % cann)


def test_cann_pairings_are_not_checked_off_ascend():
    chosen = settings(python_env_torch_version="2.1.0", python_env_torch_npu_version="2.1.0.post17",
                      python_env_mindspore_version="2.7.1")
    assert combination_problems("n", chosen, COMPAT, "7.0.0", "cpu") == ([], [])


def test_mindspore_against_cann():
    errors, _ = combination_problems("n", settings(python_env_mindspore_version="2.7.1"), COMPAT, "8.0.0", "ascend")
    assert errors[0].startswith("n: python_env_mindspore_version: MindSpore 2.7.1 is paired with CANN 8.3.RC1")
    assert combination_problems("n", settings(python_env_mindspore_version="2.7.1"), COMPAT, "8.3.RC1", "ascend") == ([], [])
    errors, warnings = combination_problems("n", settings(python_env_mindspore_version="9.9.9"), COMPAT, "8.3.RC1",
                                            "ascend")
    assert errors == [] and "MindSpore 9.9.9 is not in" in warnings[0]
    _, warnings = combination_problems("n", settings(python_env_mindspore_version="2.7.1"), COMPAT, None, "ascend")
    assert any("no CANN found on the node" in warning for warning in warnings)


@pytest.mark.parametrize("changes, message", [
    ({"python_env_torch_version": 2.1}, "n: python_env_torch_version: 2.1 is not a version"),
    ({"python_env_torch_version": "2.1.0; rm -rf /"}, "is not a version"),
    ({"python_env_torch_version": ">=2.1"}, "is not a version"),
    ({"python_env_torch_npu_version": "2.1.0"}, "n: python_env_torch_npu_version: torch_npu needs torch"),
    ({"python_env_apex_version": "0.1"}, "n: python_env_apex_version: Ascend's apex is built for torch_npu"),
    ({"python_env_extra_requirements": ["pyyaml"]}, "'pyyaml' is not name==version"),
    ({"python_env_extra_requirements": ["pyyaml>=6"]}, "is not name==version"),
    ({"python_env_extra_requirements": "pyyaml==6.0"}, "must be a list"),
    ({"python_env_cann_version": "latest"}, "n: python_env_cann_version: 'latest' is not a CANN version"),
    ({"cluster_backend": "npu"}, "n: cluster_backend: 'npu' is not one of auto, ascend, gpu, cpu"),
])
def test_bad_settings_name_the_host_and_the_variable(changes, message):
    errors, _ = combination_problems("n", settings(**changes), COMPAT, None, "cpu")
    assert len(errors) == 1 and message in errors[0]


def test_pins_and_requirement_lines():
    chosen = settings(python_env_mindspore_version="2.7.1", python_env_torch_version="2.13.0",
                      python_env_extra_requirements=["PyYAML==6.0.3"])
    assert pins(chosen) == [("mindspore", "2.7.1"), ("torch", "2.13.0"), ("PyYAML", "6.0.3")]
    assert requirement_lines(chosen) == ["mindspore===2.7.1", "torch===2.13.0", "PyYAML===6.0.3"]


def test_wheelhouse_key_and_pip_platforms():
    key = wheelhouse_key("3.11.2", "x86_64", "2.36")
    assert key == "cp311-manylinux_2_36_x86_64"
    platforms, python = platform_of(key)
    assert python == "3.11"
    assert platforms[0] == "manylinux_2_36_x86_64" and platforms[-1] == "manylinux1_x86_64"
    assert "manylinux_2_28_x86_64" in platforms and "manylinux2014_x86_64" in platforms
    assert "manylinux_2_37_x86_64" not in platforms
    assert platform_of(wheelhouse_key("3.9", "aarch64", "2.17"))[0][-1] == "manylinux2014_aarch64"
    with pytest.raises(ValueError):
        platform_of("../../etc")


@pytest.mark.parametrize("filename, python, fits", [
    ("torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl", "3.11", True),
    ("torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl", "3.10", False),
    ("protobuf-7.36.2-cp310-abi3-manylinux2014_x86_64.whl", "3.11", True),
    ("protobuf-7.36.2-cp310-abi3-manylinux2014_x86_64.whl", "3.9", False),
    ("six-1.17.0-py2.py3-none-any.whl", "3.11", True),
    ("mindspore-2.7.1-cp39-cp39-manylinux1_x86_64.whl", "3.11", False),
])
def test_wheel_python_tags(filename, python, fits):
    assert wheel_python_fits(filename, python) is fits


def test_wheel_problems_name_the_host_and_the_base_python():
    found = wheel_problems("node1", ["mindspore-2.7.1-cp39-cp39-manylinux1_x86_64.whl",
                                     "six-1.17.0-py2.py3-none-any.whl"], "3.11", ["mindspore"])
    assert found == ["node1: python_env_base_python: mindspore-2.7.1-cp39-cp39-manylinux1_x86_64.whl does not "
                     "install on the node's Python 3.11 (its Python tag is cp39)"]


def test_sha256sums_round_trip_and_mismatch():
    sums = {"b.whl": "b" * 64, "a.whl": "a" * 64}
    text = sha256sums_text(sums)
    assert text.splitlines()[0] == "a" * 64 + "  a.whl"
    assert parse_sha256sums(text + "junk\n" + "c" * 64 + " *dir/c.whl\n") == dict(sums, **{"c.whl": "c" * 64})
    assert checksum_problems(sums, {"a.whl": "a" * 64, "b.whl": "f" * 64, "new.whl": "0" * 64}) == [
        "b.whl: sha256 %s, but SHA256SUMS records %s (replace the file or its line)" % ("f" * 64, "b" * 64)]


def test_copy_plan_skips_wheels_with_the_same_sha256():
    wheels = wheel_list([{"stat": {"path": "/w/a.whl", "checksum": "1" * 64, "size": 10}},
                         {"stat": {"path": "/w/b.whl", "checksum": "2" * 64, "size": 20}},
                         {"stat": {"path": "/w/c.whl", "checksum": "3" * 64, "size": 30}}])
    assert [wheel["name"] for wheel in copy_plan(wheels, {"a.whl": "1" * 64, "b.whl": "9" * 64})] == ["b.whl", "c.whl"]
    assert copy_plan(wheels, {wheel["name"]: wheel["sha256"] for wheel in wheels}) == []


def test_installed_versions_are_compared_before_installing():
    assert version_matches("2.13.0+cpu", "2.13.0+cpu")
    assert not version_matches("2.13.1", "2.13.0")
    assert not version_matches(None, "2.13.0")
    todo, diff = install_plan([("mindspore", "2.7.1"), ("torch", "2.13.0")], {"mindspore": "2.7.1", "torch": None})
    assert todo == ["torch===2.13.0"]
    assert diff == {"before": "torch absent\n", "after": "torch 2.13.0\n"}
    assert install_plan([("torch", "2.13.0+cpu")], {"torch": "2.13.0+cpu"}) == ([], {"before": "", "after": ""})


@pytest.mark.parametrize("installed, pinned", [
    ("2.13.0+cu121", "2.13.0"), ("2.13.0+cpu", "2.13.0"), ("2.13.0", "2.13.0+cpu"), ("2.13.0+cu121", "2.13.0+cpu")])
def test_a_local_label_is_another_build_and_is_reinstalled_as_pinned(installed, pinned):
    assert not version_matches(installed, pinned)
    todo, diff = install_plan([("torch", pinned)], {"torch": installed})
    # ===: pip's == would take the installed build for ==2.13.0 and change nothing.
    assert todo == ["torch===" + pinned]
    assert diff == {"before": "torch %s\n" % installed, "after": "torch %s\n" % pinned}
    assert other_builds([("torch", pinned)], {"torch": installed}) == [
        "torch %s is another build than the pinned %s" % (installed, pinned)]


def test_another_release_is_not_called_another_build():
    assert other_builds([("torch", "2.13.0"), ("mindspore", "2.7.1")], {"torch": "2.12.0+cpu", "mindspore": None}) == []


FAKE_PYTHON = """#!/bin/sh
# The environment's Python as python_env_install calls it: the versions, or pip.
if [ "$1" = -m ]; then
    echo "ERROR: Cannot install torch===2.13.0 because these package versions have conflicting dependencies." >&2
    exit 1
fi
echo '{"torch": "2.13.0+cu121"}'
"""

def run_install_module(tmp_path, check, version="2.13.0", **args):
    python = tmp_path / "python"
    python.write_text(FAKE_PYTHON)
    python.chmod(0o755)
    return run_module("python_env_install", {
        "python": str(python), "wheel_dir": str(tmp_path), "packages": [{"name": "torch", "version": version}],
        **args}, tmp_path / "args.json", check=check)


def test_a_provided_environment_is_never_installed_into_and_fails_naming_the_variable(tmp_path):
    failed = run_install_module(tmp_path, check=False, provided=True)
    assert failed["failed"] and not failed.get("changed")
    assert failed["msg"] == (f"cluster_python_provided: {tmp_path}/python does not hold torch===2.13.0 (installed: "
                             "{'torch': '2.13.0+cu121'}); torch 2.13.0+cu121 is another build than the pinned 2.13.0")
    assert "warnings" not in failed
    held = run_install_module(tmp_path, check=False, version="2.13.0+cu121", provided=True)
    assert not held.get("failed") and not held["changed"] and held["requirements"] == []


def test_the_module_says_it_reinstalls_another_build(tmp_path):
    checked = run_install_module(tmp_path, check=True)
    assert checked["changed"] and checked["requirements"] == ["torch===2.13.0"]
    assert checked["other_builds"] == ["torch 2.13.0+cu121 is another build than the pinned 2.13.0"]
    assert checked["msg"] == "torch 2.13.0+cu121 is another build than the pinned 2.13.0: would be reinstalled as pinned"
    # The wheels hold no 2.13.0 of that build: pip fails, and the message says which build was wanted.
    failed = run_install_module(tmp_path, check=False)
    assert failed["failed"]
    assert failed["msg"].startswith("pip install torch===2.13.0 failed (rc 1) (torch 2.13.0+cu121 is another build "
                                    "than the pinned 2.13.0; the wheels must hold the pinned build): ERROR")
    assert "torch 2.13.0+cu121 is another build than the pinned 2.13.0: reinstalling as pinned" in json.dumps(
        failed["warnings"])


def test_pip_installs_from_the_node_wheels_only():
    argv = pip_install_argv("/opt/cluster-suite/python/bin/python", "/opt/cluster-suite/python/wheels", ["torch===2.13.0"])
    assert argv[:4] == ["/opt/cluster-suite/python/bin/python", "-m", "pip", "install"]
    assert "--no-index" in argv and argv[argv.index("--find-links") + 1] == "/opt/cluster-suite/python/wheels"
    assert argv[-1] == "torch===2.13.0"


def test_the_inventory_check_knows_every_setting_of_the_role():
    specs = role_settings.all_specs()
    defaults_path = os.path.join(os.path.dirname(COMPAT_PATH), "..", "defaults", "main.yml")
    with open(defaults_path, encoding="utf-8") as handle:
        defaults = yaml.safe_load(handle)
    assert sorted(name for name in specs if name.startswith("python_env_")) == sorted(defaults)
    assert specs["cluster_backend"]["choices"] == ["auto", "ascend", "gpu", "cpu"]
    assert {"cluster_python_env_path", "cluster_python_provided"} <= set(specs)


def test_installed_versions_read_by_the_environment_python():
    from python_env_node import installed_versions

    def run(argv):
        try:
            done = subprocess.run(argv, capture_output=True, text=True, check=False)
        except OSError as exc:
            return 127, "", str(exc)
        return done.returncode, done.stdout, done.stderr

    found, error = installed_versions(run, sys.executable, ["pytest", "no-such-distribution-here"])
    assert error is None and found["pytest"] == pytest.__version__ and found["no-such-distribution-here"] is None
    found, error = installed_versions(run, "/nonexistent/python", ["pytest"])
    assert found is None and error.startswith("/nonexistent/python does not run")


def test_pins_to_install_are_those_whose_exact_build_is_missing():
    wanted = [{"name": "torch", "version": "2.13.0+cpu"}, {"name": "mindspore", "version": "2.7.1"},
              {"name": "py-spy", "version": "0.4.0"}]
    installed = {"torch": "2.13.0", "mindspore": "2.7.1", "py-spy": None}
    assert pins_to_install(wanted, installed) == [wanted[0], wanted[2]]
    assert pins_to_install(wanted, {"torch": "2.13.0+cpu", "mindspore": "2.7.1", "py-spy": "0.4.0"}) == []
    assert pins_to_install([], {}) == []


def test_the_wheelhouse_is_filled_for_the_keys_of_the_nodes_not_current_only():
    python = {"version": "3.11.2", "machine": "x86_64", "libc": "2.36"}
    arm = {"version": "3.11.2", "machine": "aarch64", "libc": "2.36"}
    spy = [{"name": "py-spy", "version": "0.4.0"}]
    reads = [{"env_exists": True, "installed": {"py-spy": "0.4.0"}, "python": python},
             {"env_exists": False, "installed": {}, "python": python},
             {"env_exists": True, "installed": {"py-spy": "0.3.14"}, "python": arm},
             {"env_exists": True, "installed": {"py-spy": None}, "python": python}]
    assert keys_to_fill(reads, spy) == [wheelhouse_key("3.11.2", "x86_64", "2.36"), wheelhouse_key("3.11.2", "aarch64", "2.36")]
    assert keys_to_fill(reads[:1], spy) == []
