"""The operator's documents name the inventory in every command, their relative links lead to files
and headings that exist, and docs/guide.md holds the blocks scenario guide runs
(molecule/guide/run_guide.py reads them from the document)."""
import glob
import importlib.util
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMMAND = re.compile(r"(?:^|[`\s])(ansible(?:-playbook)?) (?![\d]|-vvvv)[^`\n]*", re.M)
# The README and the pages it sends operators to for the commands of each topic.
OPERATOR_PAGES = ("README.md", "docs/guide.md", "docs/provisioning.md", "docs/jobs.md", "docs/checks.md",
                  "docs/fleet.md")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6} +(.+?) *$", re.M)


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as handle:
        return handle.read()


def run_guide():
    spec = importlib.util.spec_from_file_location("run_guide", os.path.join(ROOT, "molecule", "guide", "run_guide.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def anchors(text):
    """The anchors GitHub gives a document's headings (outside code blocks)."""
    seen = {}
    for title in HEADING.findall(FENCE.sub("", text)):
        slug = re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
        seen[slug] = seen.get(slug, -1) + 1
        yield slug if seen[slug] == 0 else "%s-%d" % (slug, seen[slug])


def test_every_command_of_the_operator_pages_names_its_inventory():
    for path in OPERATOR_PAGES:
        commands = [match.group(0).strip(" `") for match in COMMAND.finditer(read(path))]
        assert commands, path
        assert [command for command in commands if " -i " not in " %s " % command] == [], path
    assert len([match for match in COMMAND.finditer(read("README.md"))]) > 5


def test_anchors_follow_github_rules():
    text = "# What `site.yml` does\n```sh\n# Add: not a heading\n```\n## Every rank's stack\n## Every rank's stack\n"
    assert list(anchors(text)) == ["what-siteyml-does", "every-ranks-stack", "every-ranks-stack-1"]


def test_every_relative_link_of_the_readme_and_docs_leads_to_a_file_and_heading_that_exist():
    paths = ["README.md"] + sorted(os.path.relpath(path, ROOT) for path in glob.glob(os.path.join(ROOT, "docs", "*.md")))
    assert "docs/fleet.md" in paths
    broken = []
    for path in paths:
        for target in LINK.findall(FENCE.sub("", read(path))):
            if re.match(r"[a-z]+:", target):
                continue
            name, _, anchor = target.partition("#")
            linked = os.path.normpath(os.path.join(os.path.dirname(path), name)) if name else path
            if not os.path.exists(os.path.join(ROOT, linked)):
                broken.append("%s: %s (no file %s)" % (path, target, linked))
            elif anchor and anchor not in set(anchors(read(linked))):
                broken.append("%s: %s (no heading #%s in %s)" % (path, target, anchor, linked))
    assert broken == []


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
