"""A suite's source digest follows its import graph: what it borrows from the shared planning package counts."""

from __future__ import annotations

import shutil

import pytest

from humanoidtoolbench.digest import file_sha256
from humanoidtoolbench.eval import provenance

pytestmark = pytest.mark.no_robot  # builds no simulation: runs offline, with no robot asset

SUITES = ("toolbench", "fiatlux", "findsit")


@pytest.fixture
def root(tmp_path):
    copy = tmp_path / "humanoidtoolbench"
    shutil.copytree(provenance.PACKAGE_ROOT, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def digests(root) -> dict[str, str]:
    return {
        name: provenance.source_digest(provenance.hashes_of(root, f"humanoidtoolbench.suites.{name}"))
        for name in SUITES
    }


def changed(root, edit) -> set[str]:
    before = digests(root)
    edit()
    after = digests(root)
    return {name for name in SUITES if before[name] != after[name]}


def append(path, text="\n# edited\n"):
    return lambda: path.write_text(path.read_text() + text)


def test_a_shared_module_changes_every_suite_that_imports_it(root):
    # The tool-use and Fiatlux experts are built on the planning skills; Fiatlux's routes and
    # find-navigate-sit's apartments on its floor footprints.
    assert changed(root, append(root / "planning/skills.py")) == {"toolbench", "fiatlux"}
    assert changed(root, append(root / "planning/caution.py")) == {"toolbench", "fiatlux"}
    assert changed(root, append(root / "planning/navgrid.py")) == {"findsit", "fiatlux"}


def test_a_suite_only_module_changes_that_suite_alone(root):
    assert changed(root, append(root / "suites/fiatlux/expert/ladder.py")) == {"fiatlux"}
    assert changed(root, append(root / "suites/toolbench/env.py")) == {"toolbench"}
    assert changed(root, append(root / "suites/toolbench/expert/skills.py")) == {"toolbench"}


def test_the_core_changes_every_suite_and_a_suite_package_counts_whole(root):
    assert changed(root, append(root / "sim/simulation.py")) == set(SUITES)
    # The PPO trainer is part of the Fiatlux package, though evaluation never imports it.
    assert changed(root, append(root / "suites/fiatlux/learning/ppo.py")) == {"fiatlux"}


def test_a_function_level_import_counts(root):
    geometry = root / "suites/toolbench/expert/geometry.py"
    assert changed(root, append(geometry)) == {"toolbench"}
    lazy = "\n\ndef _borrowed():\n    from ..toolbench.expert import geometry\n\n    return geometry\n"
    assert changed(root, append(root / "suites/findsit/split.py", lazy)) == {"findsit"}
    assert changed(root, append(geometry)) == {"toolbench", "findsit"}


def test_the_package_digest_is_the_import_graph_of_the_installed_tree():
    fiatlux = provenance.hashes_of(provenance.PACKAGE_ROOT, "humanoidtoolbench.suites.fiatlux")
    findsit = provenance.hashes_of(provenance.PACKAGE_ROOT, "humanoidtoolbench.suites.findsit")
    assert {"planning/skills.py", "planning/navgrid.py", "robot/g1_manifest.json"} <= set(fiatlux)
    assert "suites/fiatlux/learning/ppo.py" in fiatlux
    assert "planning/navgrid.py" in findsit and "planning/skills.py" not in findsit
    assert not any(p.startswith(("suites/toolbench/", "suites/fiatlux/")) for p in findsit)
    assert not any(p.startswith(("suites/toolbench/", "suites/findsit/")) for p in fiatlux)


def test_a_suite_outside_the_package_counts_what_it_imports_from_it(root, tmp_path, monkeypatch):
    (tmp_path / "ext").mkdir()
    (tmp_path / "ext/outside_suite.py").write_text("from humanoidtoolbench.planning.navgrid import Rect\n")
    monkeypatch.syspath_prepend(str(tmp_path / "ext"))
    hashes = provenance.hashes_of(root, "outside_suite")
    assert "ext/outside_suite.py" in hashes and "planning/navgrid.py" in hashes
    assert not any(p.startswith(("suites/toolbench/", "suites/findsit/")) or p == "planning/skills.py" for p in hashes)
    append(root / "planning/navgrid.py")()
    edited = provenance.hashes_of(root, "outside_suite")
    assert edited["planning/navgrid.py"] == file_sha256(root / "planning/navgrid.py") != hashes["planning/navgrid.py"]
    assert {p: h for p, h in edited.items() if p != "planning/navgrid.py"} == {
        p: h for p, h in hashes.items() if p != "planning/navgrid.py"}  # nothing else moved
