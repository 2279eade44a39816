"""Provenance: source hashes, git state, dependency lock and fingerprint comparison."""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from importlib import metadata

import pytest

import humanoidtoolbench
from humanoidtoolbench.eval import provenance


def test_source_hashes_cover_the_package():
    hashes = provenance.source_hashes()
    assert re.fullmatch(r"[0-9a-f]{64}", hashes["control/contracts/base.py"])
    assert "robot/g1_manifest.json" in hashes
    assert list(hashes) == sorted(hashes)
    assert not any("__pycache__" in p or "\\" in p for p in hashes)


def test_digest_follows_any_hash():
    hashes = provenance.source_hashes()
    digest = provenance.source_digest(hashes)
    assert provenance.source_digest(dict(reversed(hashes.items()))) == digest
    changed = {**hashes, "control/contracts/base.py": "0" * 64}
    assert provenance.source_digest(changed) != digest
    # Recorded results carry digests of this definition (SHA-256 of the sorted map as compact JSON):
    # a change to it would unseal every stored result.
    tiny = {"b.py": "1" * 64, "a.py": "0" * 64}
    assert provenance.source_digest(tiny) == "6ae8ab392ce508774402b50a570e4462b6022f44cfcdf51805ffcb864daa2ef4"
    assert provenance.source_hashes() == hashes  # the cached value was not mutated


def test_code_info_of_the_installed_package_is_consistent():
    """An editable install reports its checkout's commit; a site-packages install reports none."""
    info = provenance.code_info()
    assert info["package_version"] == humanoidtoolbench.__version__
    root = provenance.PACKAGE_ROOT
    tracked = subprocess.run(["git", "-C", str(root), "ls-files", "--", "__init__.py"], capture_output=True, text=True)
    if tracked.returncode == 0 and tracked.stdout.strip():
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
        assert info["git_commit"] == head.stdout.strip()
        assert isinstance(info["git_dirty"], bool)
    else:
        assert info["git_commit"] is None and info["git_dirty"] is None


def _git(cwd, *args):
    subprocess.run(["git", "-C", str(cwd), *args], check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "config", "user.email", "ci@example.org")
    _git(tmp_path, "config", "user.name", "ci")
    return tmp_path


def test_code_info_reads_commit_and_dirtiness_of_a_tracked_package(repo):
    package = repo / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("x = 1\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "first")
    clean = provenance.code_info(package)
    assert re.fullmatch(r"[0-9a-f]{40}", clean["git_commit"])
    assert clean["git_dirty"] is False
    (package / "__init__.py").write_text("x = 2\n")
    dirty = provenance.code_info(package)
    assert dirty["git_commit"] == clean["git_commit"]
    assert dirty["git_dirty"] is True


def test_code_info_does_not_borrow_the_commit_of_an_enclosing_repository(repo):
    (repo / "README").write_text("other project\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "first")
    package = repo / "site-packages" / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("x = 1\n")
    info = provenance.code_info(package)
    assert info["git_commit"] is None and info["git_dirty"] is None


def test_code_info_outside_any_repository(tmp_path):
    info = provenance.code_info(tmp_path)
    assert info["git_commit"] is None and info["git_dirty"] is None


def test_dependency_lock_is_stable_and_complete():
    lock = provenance.dependency_lock()
    assert {"mujoco", "numpy", "av"} <= set(lock)
    assert lock["mujoco"] == provenance.runtime_versions()["mujoco"]
    assert "humanoidtoolbench" not in lock
    # Transitive: mujoco needs absl-py, gymnasium needs cloudpickle; neither is named by humanoidtoolbench.
    assert {"absl-py", "cloudpickle"} <= set(lock)
    assert all(v == metadata.version(n) for n, v in lock.items())
    lines = "\n".join(f"{n}=={v}" for n, v in sorted(lock.items()))
    assert provenance.lock_sha256() == hashlib.sha256(lines.encode()).hexdigest()


def test_execution_environment_names_the_numeric_platform():
    """The SIMD extensions numpy dispatches to: runs on CPUs that differ there write other bits."""
    import numpy._core._multiarray_umath as umath

    env = provenance.execution_environment()
    simd = env["numpy_simd"]
    assert simd and simd == sorted(simd)
    assert all(umath.__cpu_features__[f] and f in umath.__cpu_dispatch__ for f in simd)
    assert env["machine"] == provenance.numeric_platform()["machine"]


def test_fingerprint_differences_name_the_changed_fields():
    policy = {"policy": "pose_hold", "checkpoint": "a"}
    old = provenance.fingerprint(policy, "m" * 64)
    assert provenance.fingerprint_differences(old, provenance.fingerprint(dict(policy), "m" * 64)) == []

    new = {
        **old,
        "policy": {**policy, "checkpoint": "b"},
        "source_digest": "x",
        "versions": {**old["versions"], "mujoco": "3.12.0"},
    }
    assert provenance.fingerprint_differences(old, new) == [
        "policy checkpoint changed: 'a' -> 'b'",
        "source digest changed",
        f"MuJoCo version changed: {old['versions']['mujoco']} -> 3.12.0",
    ]
    assert provenance.fingerprint_differences(old, {**old, "lock_sha256": "y", "asset_manifest_sha256": "z"}) == [
        "robot asset manifest changed",
        "dependency lock changed",
    ]
