"""docs/architecture.md stays true: every file, role, module, filter and playbook it names exists."""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOC = os.path.join(ROOT, "docs", "architecture.md")
CODE = re.compile(r"`([^`\s]+)`")
FQCN = re.compile(r"cluster_suite\.hpc\.(\w+)$")


def names_of(kind):
    return {name[:-3] for name in os.listdir(os.path.join(ROOT, "plugins", kind)) if name.endswith(".py")}


def filter_names():
    found = set()
    for name in os.listdir(os.path.join(ROOT, "plugins", "filter")):
        if name.endswith(".py"):
            with open(os.path.join(ROOT, "plugins", "filter", name), encoding="utf-8") as handle:
                found |= set(re.findall(r'"(\w+)":', handle.read().split("def filters", 1)[-1]))
    return found


def exists(token):
    """Whether what a backticked token names is in the checkout (None: the token names no file)."""
    roles = set(os.listdir(os.path.join(ROOT, "roles")))
    modules = names_of("modules") | names_of("action")
    fqcn = FQCN.match(token)
    if fqcn:
        return fqcn.group(1) in roles | modules | filter_names() | {"site", "launch", "render"}
    if token.startswith("/") or "=" in token:
        return None  # a path on a node, or an option
    path = token.rstrip("/").replace("<role>", "job").replace("<scenario>", "launch")
    if "*" in path or "<" in path:
        return os.path.isdir(os.path.join(ROOT, os.path.dirname(path)))
    if path.endswith((".py", ".yml", ".md", ".cfg")) or "/" in path:
        if os.path.exists(os.path.join(ROOT, path)):
            return True
        # A bare file name: a playbook, in plugins/ or in a role (tasks/check.yml)
        return os.path.exists(os.path.join(ROOT, "playbooks", path)) or any(os.path.exists(os.path.join(ROOT, "plugins", kind, path)) for kind in os.listdir(
            os.path.join(ROOT, "plugins"))) or any(os.path.exists(os.path.join(ROOT, "roles", role, path))
                                                   for role in roles)
    if token in roles or token in modules:
        return True
    return None


def test_every_name_in_the_architecture_doc_exists():
    with open(DOC, encoding="utf-8") as handle:
        tokens = set(CODE.findall(handle.read()))
    checked = {token: exists(token) for token in tokens}
    assert [token for token, found in checked.items() if found is False] == []
    # The doc does name the parts: a check that finds nothing to check would prove nothing.
    assert sum(1 for found in checked.values() if found) > 60


def test_a_missing_name_is_caught():
    assert exists("plugins/plugin_utils/no_such_file.py") is False
    assert exists("cluster_suite.hpc.no_such_module") is False
    assert exists("job_preflight") is True and exists("npu_plan/rules.py") is True


def test_no_file_of_the_product_is_over_400_lines():
    """docs/architecture.md: a file the next engineer reads whole; tests and bench may be longer."""
    long = []
    for folder in ("plugins", "roles", "playbooks"):
        for base, _dirs, files in os.walk(os.path.join(ROOT, folder)):
            for name in files:
                if name.endswith((".py", ".yml", ".j2", ".sh")):
                    with open(os.path.join(base, name), encoding="utf-8") as handle:
                        count = sum(1 for _line in handle)
                    if count > 400:
                        long.append("%s: %d lines" % (os.path.relpath(os.path.join(base, name), ROOT), count))
    assert long == []
