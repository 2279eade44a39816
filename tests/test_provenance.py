"""Provenance: source hashes, git state, dependency lock and fingerprint comparison."""

from __future__ import annotations

import re

from humanoidtoolbench.eval import provenance


def test_source_hashes_cover_the_package():
    hashes = provenance.source_hashes()
    assert re.fullmatch(r"[0-9a-f]{64}", hashes["control/contract.py"])
    assert "robot/g1_manifest.json" in hashes
    assert list(hashes) == sorted(hashes)
    assert not any("__pycache__" in p or "\\" in p for p in hashes)


def test_digest_follows_any_hash():
    hashes = provenance.source_hashes()
    digest = provenance.source_digest(hashes)
    assert provenance.source_digest(dict(reversed(hashes.items()))) == digest
    changed = {**hashes, "control/contract.py": "0" * 64}
    assert provenance.source_digest(changed) != digest
    assert provenance.source_hashes() == hashes  # the cached value was not mutated


def test_code_info_in_this_checkout():
    info = provenance.code_info()
    assert info["package_version"]
    assert re.fullmatch(r"[0-9a-f]{40}", info["git_commit"])
    assert isinstance(info["git_dirty"], bool)


def test_dependency_lock_is_stable_and_complete():
    lock = provenance.dependency_lock()
    assert {"mujoco", "numpy", "av"} <= set(lock)
    assert lock["mujoco"] == provenance.runtime_versions()["mujoco"]
    assert "humanoidtoolbench" not in lock
    assert re.fullmatch(r"[0-9a-f]{64}", provenance.lock_sha256())
    assert provenance.lock_sha256() == provenance.lock_sha256()


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
