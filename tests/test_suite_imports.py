"""A suite never imports another suite, and the shared planning package imports no suite: what experts of
several suites share lives in `humanoidtoolbench.planning`, which only the core feeds."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

import humanoidtoolbench

pytestmark = pytest.mark.no_robot  # builds no simulation: runs offline, with no robot asset

PACKAGE_ROOT = Path(humanoidtoolbench.__file__).resolve().parent
SUITES = "humanoidtoolbench.suites"


def _module(root: Path, path: Path) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(root: Path, path: Path) -> list[tuple[int, list[str]]]:
    """Each import statement anywhere in `path`'s body: its line and the absolute names it may load
    (the module; for `from pkg import name` then `pkg.name`, which may be a submodule)."""
    module = _module(root, path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, [alias.name]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            found.append((node.lineno, [base, *(f"{base}.{alias.name}" for alias in node.names)]))
    return found


def _suite_of(name: str) -> str | None:
    """The suite package a module name lies in (None outside every suite package)."""
    parts = name.split(".")
    return parts[2] if len(parts) > 2 and ".".join(parts[:2]) == SUITES else None


def crossings(root: Path) -> list[str]:
    """Every import from a suite package into another, or from planning into any suite, as 'file:line imports name'."""
    suites_dir = root / "suites"
    packages = {p.name for p in suites_dir.iterdir() if (p / "__init__.py").is_file()}
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if rel.parts[0] == "suites" and len(rel.parts) > 2:
            own = rel.parts[1]
        elif rel.parts[0] == "planning":
            own = None
        else:
            continue
        for line, names in imports(root, path):
            other = next((n for n in names if _suite_of(n) in packages and _suite_of(n) != own), None)
            if other is not None:
                found.append(f"{rel.as_posix()}:{line} imports {other}")
    return found


def test_no_suite_imports_another_and_planning_imports_none():
    found = crossings(PACKAGE_ROOT)
    assert not found, "shared code belongs in humanoidtoolbench.planning:\n" + "\n".join(found)


def test_a_borrowed_module_is_named_with_the_file_that_borrows_it(tmp_path):
    root = tmp_path / "humanoidtoolbench"
    shutil.copytree(PACKAGE_ROOT, root, ignore=shutil.ignore_patterns("__pycache__"))
    (root / "suites/findsit/borrow.py").write_text("import math\n\n\ndef f():\n    from ..toolbench.expert import geometry\n")
    (root / "suites/fiatlux/borrow.py").write_text("from .. import findsit\n")
    (root / "planning/borrow.py").write_text("import humanoidtoolbench.suites.fiatlux.props\n")
    assert crossings(root) == [
        "planning/borrow.py:1 imports humanoidtoolbench.suites.fiatlux.props",
        "suites/fiatlux/borrow.py:1 imports humanoidtoolbench.suites.findsit",
        "suites/findsit/borrow.py:5 imports humanoidtoolbench.suites.toolbench.expert",
    ]


def reaches_suite_module(root: Path, suite: str) -> list[str]:
    """The chain by which a suite's episode module reaches its own `suite.py`, through the suite's own
    modules (empty: it does not). The suite makes the episode and hands it what it needs."""
    package = f"{SUITES}.{suite}"
    target, start = f"{package}.suite", f"{package}.episode"
    files = {_module(root, p): p for p in (root / "suites" / suite).rglob("*.py")}
    came_from, pending = {start: None}, [start]
    while pending:
        name = pending.pop()
        if name == target:
            chain = [name]
            while came_from[chain[-1]] is not None:
                chain.append(came_from[chain[-1]])
            return chain[::-1]
        for _, names in imports(root, files[name]):
            for other in (n for n in names if n in files and n not in came_from and n != package):
                came_from[other] = name
                pending.append(other)
    return []


@pytest.mark.parametrize("suite", ["toolbench", "fiatlux", "findsit"])
def test_an_episode_never_imports_its_suite(suite):
    assert reaches_suite_module(PACKAGE_ROOT, suite) == []


def test_an_episode_reaching_its_suite_is_named_by_its_chain(tmp_path):
    root = tmp_path / "humanoidtoolbench"
    shutil.copytree(PACKAGE_ROOT, root, ignore=shutil.ignore_patterns("__pycache__"))
    views = root / "suites/fiatlux/views.py"
    views.write_text(views.read_text() + "\n\ndef f():\n    from .suite import SUITE\n")
    assert reaches_suite_module(root, "fiatlux")[-2:] == ["humanoidtoolbench.suites.fiatlux.views",
                                                          "humanoidtoolbench.suites.fiatlux.suite"]
