"""Atomic writes: all or nothing, no temporary left behind, ordinary permissions."""

from __future__ import annotations

import json
import os
import stat

import pytest

from humanoidtoolbench.record import files
from humanoidtoolbench.record.files import write_bytes_atomic, write_json_atomic

pytestmark = pytest.mark.no_robot  # builds no simulation: runs offline, with no robot asset


def test_json_is_written_whole_with_the_permissions_of_any_new_file(tmp_path):
    path = write_json_atomic(tmp_path / "deep" / "result.json", {"b": 1, "a": [1.5]})
    assert json.loads(path.read_text()) == {"a": [1.5], "b": 1}
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask
    assert list(path.parent.iterdir()) == [path]


def test_a_failed_replace_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    path = write_bytes_atomic(tmp_path / "result.json", b"old")

    def refuse(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(files.os, "replace", refuse)
    with pytest.raises(OSError, match="disk full"):
        write_bytes_atomic(path, b"new")
    assert path.read_bytes() == b"old"
    assert list(tmp_path.iterdir()) == [path]


def test_nan_is_refused_before_anything_is_written(tmp_path):
    with pytest.raises(ValueError):
        write_json_atomic(tmp_path / "result.json", {"x": float("nan")})
    assert list(tmp_path.iterdir()) == []
