"""What produced a result: policy, source code, robot asset, runtime and dependencies.

A result is comparable with another (or resumable) only when these match;
`fingerprint` collects them and `fingerprint_differences` says in words what
changed. Source and dependency hashes are computed once per process.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.metadata as metadata
import importlib.util
import json
import os
import platform
import re
import subprocess
from functools import lru_cache
from pathlib import Path

import av
import mujoco
import numpy

import humanoidtoolbench

from ..sim import render
from .thread_pools import POOL_VARS

PACKAGE_ROOT = Path(humanoidtoolbench.__file__).resolve().parent
DISTRIBUTION = "humanoidtoolbench"
GIT_TIMEOUT_S = 5
ENV_VARS = (
    "MUJOCO_GL",
    "PYOPENGL_PLATFORM",
    "MUJOCO_EGL_DEVICE_ID",
    "HUMANOIDTOOLBENCH_FORCE_CPU",
    "HUMANOIDTOOLBENCH_GPU",
    "CUDA_VISIBLE_DEVICES",
    *POOL_VARS,
)
_VERSION_LABELS = {"python": "Python", "mujoco": "MuJoCo", "numpy": "NumPy", "av": "PyAV"}


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _tree(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.suffix in (".py", ".json") and p.is_file() and "__pycache__" not in p.parts]


def _core(root: Path) -> list[Path]:
    """The package less every suite package and less `planning` (the experts' shared code, which the
    evaluator never imports: a suite's digest counts the modules of it its import graph reaches)."""
    suites_dir, planning = root / "suites", root / "planning"
    return [
        p
        for p in _tree(root)
        if (p.parent == suites_dir or not p.is_relative_to(suites_dir)) and not p.is_relative_to(planning)
    ]


def _module_file(root: Path, name: str) -> Path | None:
    """The file of module `name` if it lies in the package at `root` (a package's `__init__.py`)."""
    head, *rest = name.split(".")
    if head != DISTRIBUTION:
        return None
    path = root.joinpath(*rest)
    for candidate in (path / "__init__.py", path.with_suffix(".py")):
        if candidate.is_file():
            return candidate
    return None


def _module_name(root: Path, path: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join((DISTRIBUTION, *(parts[:-1] if parts[-1] == "__init__" else parts)))


def _imported(root: Path, path: Path) -> set[Path]:
    """Package files `path` imports anywhere in its body (function-level imports too), with the
    `__init__.py` of every package on the way; `from pkg import name` counts submodule `name`."""
    if not path.is_relative_to(root):  # a suite outside the package: only its absolute imports can reach it
        package = ""
    elif path.name == "__init__.py":
        package = _module_name(root, path)
    else:
        package = _module_name(root, path).rpartition(".")[0]
    names = []
    for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            names += [base, *(f"{base}.{alias.name}" for alias in node.names)]
    found = set()
    for name in names:
        parts = name.split(".")
        found |= {_module_file(root, ".".join(parts[:i])) for i in range(1, len(parts) + 1)}
    return found - {None}


def _closure(root: Path, seeds: list[Path]) -> set[Path]:
    """`seeds` and every package file they import, transitively, with the JSON data beside each."""
    covered, pending = set(), [p for p in seeds if p.suffix == ".py"]
    while pending:
        path = pending.pop()
        if path in covered:
            continue
        covered.add(path)
        pending += _imported(root, path) - covered
    data = {j for p in covered if p.is_relative_to(root) for j in p.parent.glob("*.json")}
    return covered | data | {p for p in seeds if p.suffix == ".json"}


def hashes_of(root: Path, suite_module: str | None) -> dict[str, str]:
    """SHA-256 of the core at `root` plus everything `suite_module`'s package imports from it,
    transitively, by path relative to `root` (a suite outside it: relative to its parent folder)."""
    seeds = _core(root)
    base = root
    if suite_module is not None:
        origin = _module_file(root, suite_module) or Path(importlib.util.find_spec(suite_module).origin)
        seeds += _tree(origin.parent) if origin.name == "__init__.py" else [origin]
        base = root if origin.is_relative_to(root) else origin.parent.parent
    hashes = {}
    for p in _closure(root, seeds):
        rel = p.relative_to(root if p.is_relative_to(root) else base).as_posix()
        hashes[rel] = _sha256(p.read_bytes())
    return dict(sorted(hashes.items()))


@lru_cache(maxsize=None)
def _source_hashes(suite_module: str | None) -> tuple[tuple[str, str], ...]:
    return tuple(hashes_of(PACKAGE_ROOT, suite_module).items())


def source_hashes(suite=None) -> dict[str, str]:
    """SHA-256 of every .py and .json file of the core and of all `suite`'s package imports, by relative path.

    The import graph decides, so an edit to a shared module (`planning.skills`, which the tool-use and
    Fiatlux experts use) invalidates the results of the suites that import it, while a suite that
    imports nothing of it keeps its own.
    """
    from .. import suites

    return dict(_source_hashes(None if suite is None else suites.module_of(suite)))


def source_digest(hashes: dict[str, str]) -> str:
    return _sha256(json.dumps(hashes, sort_keys=True, separators=(",", ":")).encode())


def _git(root: Path, *args: str) -> str | None:
    """Output of a read-only git command in `root`, or None if it fails."""
    try:
        out = subprocess.run(
            ["git", "--no-optional-locks", "-C", str(root), *args],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout if out.returncode == 0 else None


def code_info(root: Path = PACKAGE_ROOT) -> dict:
    """Package version and, for a git checkout that tracks the package at `root`, its commit and dirtiness.

    `--no-optional-locks` keeps `git status` from rewriting the index, which
    could collide with someone committing in the same tree.
    """
    info = {"package_version": humanoidtoolbench.__version__, "git_commit": None, "git_dirty": None}
    head = _git(root, "rev-parse", "HEAD")
    # A site-packages install inside some other repository must not borrow its commit.
    tracked = _git(root, "ls-files", "--", "__init__.py")
    if head and tracked and tracked.strip():
        status = _git(root, "status", "--porcelain", "--untracked-files=no")
        info["git_commit"] = head.strip()
        info["git_dirty"] = None if status is None else bool(status.strip())
    return info


def runtime_versions() -> dict:
    return {
        "python": platform.python_version(),
        "mujoco": mujoco.__version__,
        "numpy": numpy.__version__,
        "av": av.__version__,
    }


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement_names(dist: str) -> list[str]:
    """Names a distribution requires in this environment, extras excluded."""
    reqs = metadata.requires(dist) or []
    try:
        from packaging.requirements import Requirement
    except ImportError:  # without packaging: drop extra-only requirements, keep the rest
        return [re.match(r"[A-Za-z0-9._-]+", r).group() for r in reqs if "extra" not in r.partition(";")[2]]
    names = []
    for text in reqs:
        req = Requirement(text)
        if req.marker is None or req.marker.evaluate({"extra": ""}):
            names.append(req.name)
    return names


@lru_cache(maxsize=1)
def _dependency_lock() -> tuple[tuple[str, str], ...]:
    versions: dict[str, str] = {}
    pending = _requirement_names(DISTRIBUTION)
    while pending:
        name = _normalise(pending.pop())
        if name in versions:
            continue
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
            continue
        pending += _requirement_names(name)
    return tuple(sorted(versions.items()))


def dependency_lock() -> dict[str, str]:
    """Installed version of every distribution humanoidtoolbench transitively requires."""
    return dict(_dependency_lock())


def lock_sha256() -> str:
    """Stands in for a lock file hash: sha256 of the sorted 'name==version' lines."""
    return _sha256("\n".join(f"{n}=={v}" for n, v in _dependency_lock()).encode())


def numeric_platform() -> dict:
    """What a run's floating-point bits depend on beyond the pinned packages: the machine and the
    SIMD extensions numpy dispatches its kernels to. Runs on CPUs that differ here agree in
    outcomes but not always in the last bits of what they write."""
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:  # a private module of numpy: unknown rather than a guess if it moves
        simd = None
    else:
        simd = sorted(f for f in __cpu_dispatch__ if __cpu_features__.get(f))
    return {"machine": platform.machine(), "numpy_simd": simd}


def execution_environment() -> dict:
    """Where the run happened; informative only, not part of the fingerprint."""
    return {
        "render": render.backend_info(),
        "env": {k: os.environ.get(k) for k in ENV_VARS},
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        **numeric_platform(),
    }


def renderer_identity() -> dict:
    """What changes pixels: the GL vendor, renderer and version strings."""
    info = render.backend_info()
    return {k: info.get(k) for k in ("vendor", "renderer", "version")}


def fingerprint(policy_identity: dict, manifest_sha256: str, suite=None) -> dict:
    """Everything that must match for two sets of episodes to belong to one result."""
    return {
        "policy": policy_identity,
        "source_digest": source_digest(source_hashes(suite)),
        "asset_manifest_sha256": manifest_sha256,
        "versions": runtime_versions(),
        "lock_sha256": lock_sha256(),
        "renderer": renderer_identity(),
    }


def fingerprint_differences(old: dict, new: dict) -> list[str]:
    """Why two fingerprints differ, one reason per changed field; empty when equal."""
    reasons = []
    old_policy, new_policy = old.get("policy") or {}, new.get("policy") or {}
    for key in sorted(set(old_policy) | set(new_policy)):
        if old_policy.get(key) != new_policy.get(key):
            reasons.append(f"policy {key} changed: {old_policy.get(key)!r} -> {new_policy.get(key)!r}")
    if old.get("source_digest") != new.get("source_digest"):
        reasons.append("source digest changed")
    if old.get("asset_manifest_sha256") != new.get("asset_manifest_sha256"):
        reasons.append("robot asset manifest changed")
    old_v, new_v = old.get("versions") or {}, new.get("versions") or {}
    for key in sorted(set(old_v) | set(new_v)):
        if old_v.get(key) != new_v.get(key):
            reasons.append(f"{_VERSION_LABELS.get(key, key)} version changed: {old_v.get(key)} -> {new_v.get(key)}")
    if old.get("lock_sha256") != new.get("lock_sha256"):
        reasons.append("dependency lock changed")
    if old.get("renderer") != new.get("renderer"):
        reasons.append(f"renderer changed: {old.get('renderer')} -> {new.get('renderer')}")
    known = {"policy", "source_digest", "asset_manifest_sha256", "versions", "lock_sha256", "renderer"}
    reasons += [f"{k} changed" for k in sorted((set(old) | set(new)) - known) if old.get(k) != new.get(k)]
    return reasons
