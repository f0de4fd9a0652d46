"""The code that runs on the nodes (plugins/modules/ and plugins/module_utils/) stays within what Python 3.9 to
3.13 all run: clusters drift to mixed releases (Debian 11's Python 3.9 to Debian 13's 3.13; the
sandbox brings such nodes up with SANDBOX_RELEASES=bullseye,bookworm,trixie).

The controller's Python is newer, so the parser is asked for 3.9's grammar, and two things that
parse under 3.9 but fail when it runs them are looked for: annotations evaluated at definition
time with 3.10's `X | Y` or 3.9-only generics, and modules that 3.12 and 3.13 removed.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NODE_CODE = sorted((ROOT / "plugins" / "modules").glob("*.py")) + sorted((ROOT / "plugins" / "module_utils").glob("*.py"))
OLDEST = (3, 9)
# Removed from the standard library in Python 3.12 (distutils, imp, asynchat, asyncore, smtpd)
# and 3.13 (PEP 594).
REMOVED_MODULES = {
    "distutils", "imp", "asynchat", "asyncore", "smtpd", "aifc", "audioop", "cgi", "cgitb",
    "chunk", "crypt", "imghdr", "mailcap", "msilib", "nis", "nntplib", "ossaudiodev", "pipes",
    "sndhdr", "spwd", "sunau", "telnetlib", "uu", "xdrlib", "lib2to3",
}


def node_files():
    return [pytest.param(path, id=str(path.relative_to(ROOT))) for path in NODE_CODE]


def test_there_is_node_code():
    assert len(NODE_CODE) > 10


@pytest.mark.parametrize("path", node_files())
def test_parses_as_python_3_9(path):
    ast.parse(path.read_text(encoding="utf-8"), str(path), feature_version=OLDEST)


def annotations(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            for arg in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
                if arg is not None and arg.annotation is not None:
                    yield arg.annotation
            if node.returns is not None:
                yield node.returns
        elif isinstance(node, ast.AnnAssign):
            yield node.annotation


@pytest.mark.parametrize("path", node_files())
def test_no_annotation_that_3_9_cannot_evaluate(path):
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    postponed = any(isinstance(node, ast.ImportFrom) and node.module == "__future__"
                    and any(alias.name == "annotations" for alias in node.names)
                    for node in tree.body)
    if postponed:
        return
    for annotation in annotations(tree):
        for node in ast.walk(annotation):
            assert not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr)), (
                f"{path.name}:{node.lineno}: `X | Y` in an annotation fails on Python 3.9")


@pytest.mark.parametrize("path", node_files())
def test_no_module_removed_by_3_13(path):
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            assert name.split(".")[0] not in REMOVED_MODULES, (
                f"{path.name}:{node.lineno}: {name} is gone from Python 3.13")


def test_the_checks_catch_what_they_should():
    with pytest.raises(SyntaxError):
        ast.parse("match x:\n    case 1:\n        pass\n", feature_version=OLDEST)
    with pytest.raises(SyntaxError):
        ast.parse("type Ports = list[int]\n", feature_version=OLDEST)
    tree = ast.parse("def f(x: int | None) -> str | None:\n    pass\n")
    assert sum(isinstance(n, ast.BinOp) for a in annotations(tree) for n in ast.walk(a)) == 2
