"""The operator's documents name the inventory in every command, and docs/guide.md holds the
blocks scenario guide runs (molecule/guide/run_guide.py reads them from the document)."""
import importlib.util
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMMAND = re.compile(r"(?:^|[`\s])(ansible(?:-playbook)?) (?![\d]|-vvvv)[^`\n]*", re.M)


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
        return handle.read()


def run_guide():
    spec = importlib.util.spec_from_file_location("run_guide", os.path.join(ROOT, "molecule", "guide", "run_guide.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_command_of_the_readme_and_the_guide_names_its_inventory():
    for path in ("README.md", "docs/guide.md"):
        commands = [match.group(0).strip(" `") for match in COMMAND.finditer(read(path))]
        assert len(commands) > 5, path
        assert [command for command in commands if " -i " not in " %s " % command] == [], path


def test_the_guide_has_every_step_the_scenario_runs_in_order():
    module = run_guide()
    blocks = module.guide_blocks(read("docs/guide.md"))
    kinds = [kind for kind, _ in blocks]
    assert kinds.count("guide-console") == 1 and kinds.count("guide-per-node") == 1 and kinds[-1] == "guide-fails"
    lines = [line for _, block in blocks for line in block]
    assert lines[0] == "cp -r inventory/sample inventory/<cluster>"
    for step in ("site.yml -K --check --diff", "site.yml -K", "playbooks/doctor.yml -K", "playbooks/acceptance.yml -K",
                 "-K -e @jobs/sample_msrun.yml", "-K -e @jobs/examples/torchrun.yml", "-K -e @jobs/examples/fail.yml"):
        assert [line for line in lines if line.endswith(step)], step
    # Host keys only by fingerprint: the line that appends is guarded by the comparison.
    (per_node,) = [block for kind, block in blocks if kind == "guide-per-node"]
    assert [line for line in per_node if ">> inventory/<cluster>/known_hosts" in line] == [
        "ssh-keygen -lf /tmp/<node>.hostkey | grep -F ' <fingerprint> ' && cat /tmp/<node>.hostkey >> "
        "inventory/<cluster>/known_hosts"]


def test_the_guide_table_names_the_files_the_scenario_fills_in():
    rows = run_guide().fill_table(read("docs/guide.md"))
    assert sorted({path for path, _ in rows}) == ["group_vars/all/cluster.yml", "group_vars/all/openmpi.yml",
                                                  "group_vars/all/python_env.yml",
                                                  "group_vars/npu_nodes/npu_network.yml", "hosts.yml"]
    for path, _ in rows:
        assert os.path.isfile(os.path.join(ROOT, "inventory", "sample", path)), path
