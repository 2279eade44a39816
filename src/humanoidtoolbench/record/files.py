"""Crash-safe file writes: write to a temporary sibling, fsync, rename."""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path

# `mkstemp` creates files readable by their owner only; a result should get the
# permissions any other file gets here (0644 under the usual umask of 022), so a
# results directory can be shared. The umask is read once: reading it means
# setting it, which would race with threads creating files.
_UMASK = os.umask(0)
os.umask(_UMASK)
FILE_MODE = 0o666 & ~_UMASK
# What `temp_sibling` names the temporary file of NAME: `.NAME.`, mkstemp's 8 characters of [a-z0-9_], `.tmp`.
TEMP_NAME = re.compile(r"\..+\.[a-z0-9_]{8}\.tmp")


def temp_sibling(path: Path) -> tuple[int, str]:
    """A new temporary file beside `path`, to be renamed onto it (fd, name)."""
    return tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)


def remove_temporaries(root: str | os.PathLike) -> list[Path]:
    """Remove the temporary files that writers killed before their rename left under `root`; the paths removed.

    Only for a caller that knows nobody writes under `root` now: a live writer's file would vanish under it.
    """
    found = sorted(p for p in Path(root).rglob(".*.tmp") if TEMP_NAME.fullmatch(p.name) and p.is_file())
    for path in found:
        path.unlink(missing_ok=True)
    return found


def write_bytes_atomic(path: str | os.PathLike, data: bytes) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = temp_sibling(path)
    try:
        os.fchmod(fd, FILE_MODE)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def write_json_atomic(path: str | os.PathLike, obj) -> Path:
    return write_bytes_atomic(path, (json.dumps(obj, indent=2, sort_keys=True, allow_nan=False) + "\n").encode())
