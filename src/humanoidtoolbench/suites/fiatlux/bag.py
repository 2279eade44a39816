"""One Fiatlux episode as an HDF5 bag: what the offline scorer reads instead of a simulator.

`<run>/bags/episode_<seed>.h5` holds one group, `episode_<seed>`, with one
gzip-compressed dataset per column, every one T rows long (one row per control
step), and the episode's meta as a JSON string in the group's `meta` attribute.
A bag describes itself: the meta names the gate conjuncts, each bulb's drop
floor and the glass contact limit, so scoring needs neither MuJoCo nor the
task definitions that produced the bag.

The writer keeps the episode in memory and writes the file once, under a
temporary name that is then renamed, so a bag on disk is always a whole
episode and an interrupted one leaves nothing behind.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import h5py
import msgspec
import numpy as np
from numpy.typing import ArrayLike

from ...record.files import FILE_MODE, temp_sibling

BAG_GLOB = "**/bags/episode_*.h5"
GATE_PREFIX = "gate_"
REWARD_PREFIX = "reward_"  # one column per reward term the meta's `reward_terms` names

_F32, _F64, _BOOL, _I32 = np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.bool_), np.dtype(np.int32)

# Columns every bag holds: dtype and the shape of one row. "A" is the meta's
# action_dim, "J" the number of its joint names, None any size (the bodies a
# contact sensor is filtered to).
COLUMNS: Mapping[str, tuple[np.dtype, tuple[int | str | None, ...]]] = {
    "actions": (_F32, ("A",)),
    "joint_pos": (_F32, ("J",)),
    "joint_vel": (_F32, ("J",)),
    "robot_root_pos": (_F32, (3,)),
    "robot_root_quat": (_F32, (4,)),
    "robot_root_lin_vel": (_F32, (3,)),
    "robot_root_ang_vel": (_F32, (3,)),
    "contact_force": (_F32, (None, 3)),
    "contact_force_left": (_F32, (None, 3)),
    "grip_force": (_F32, ()),
    "success_term": (_BOOL, ()),
    "dropped_term": (_BOOL, ()),
    "timeout_term": (_BOOL, ()),
    "terminated": (_BOOL, ()),
    "truncated": (_BOOL, ()),
    "step_in_episode": (_I32, ()),
}
# Columns of each named rigid object (`<obj>_pos`, ...); required for every bulb with a drop floor.
OBJECT_COLUMNS: Mapping[str, tuple[int, ...]] = {"_pos": (3,), "_quat": (4,), "_lin_vel": (3,), "_ang_vel": (3,)}


class BagError(ValueError):
    """A bag that cannot be written or read as one whole episode; one line."""


class BagMeta(msgspec.Struct, frozen=True, kw_only=True):
    """The fields a bag's meta must have; others are kept as they are."""

    task_id: str
    gate_conjuncts: list[str]
    seed: int
    code: dict[str, Any]
    joint_names: list[str]
    drop_min_height_by_bulb: dict[str, float]
    glass_contact_limit_n: float
    action_dim: int
    reward_terms: list[str] = []  # weighted per-step terms, one `reward_<term>` column each, and their total `reward`


def bag_path(run_dir: str | os.PathLike, seed: int) -> Path:
    return Path(run_dir) / "bags" / f"episode_{seed}.h5"


def column_dtype(name: str) -> np.dtype:
    """The dtype a column is stored as: its entry in COLUMNS, bool for gates, float64 for rewards (their
    sums are the score breakdown), float32 otherwise."""
    if name in COLUMNS:
        return COLUMNS[name][0]
    if name == "reward" or name.startswith(REWARD_PREFIX):
        return _F64
    return _BOOL if name.startswith(GATE_PREFIX) else _F32


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _checked_meta(meta: Mapping[str, Any], where: Path) -> BagMeta:
    try:
        typed = msgspec.convert(dict(meta), BagMeta)
    except msgspec.ValidationError as exc:
        raise BagError(f"{where}: bad meta: {_one_line(exc)}") from None
    names = typed.gate_conjuncts
    if not names or len(set(names)) != len(names) or not all(n.isidentifier() for n in names):
        raise BagError(f"{where}: gate_conjuncts must be distinct identifiers, at least one; got {names}")
    return typed


def _expected(meta: BagMeta) -> dict[str, tuple[np.dtype, tuple[int | None, ...]]]:
    sizes = {"A": meta.action_dim, "J": len(meta.joint_names)}
    expected = {name: (dtype, tuple(sizes.get(d, d) for d in row)) for name, (dtype, row) in COLUMNS.items()}
    expected |= {f"{GATE_PREFIX}{c}": (_BOOL, ()) for c in meta.gate_conjuncts}
    if meta.reward_terms:
        expected |= {"reward": (_F64, ())} | {f"{REWARD_PREFIX}{t}": (_F64, ()) for t in meta.reward_terms}
    for bulb in meta.drop_min_height_by_bulb:
        expected |= {f"{bulb}{suffix}": (_F32, row) for suffix, row in OBJECT_COLUMNS.items()}
    return expected


def _check_columns(meta: BagMeta, columns: Mapping[str, np.ndarray], where: Path) -> None:
    """Every column T >= 1 rows long; every expected column present with its dtype and row shape."""
    steps = {name: (a.shape[0] if a.ndim else 0) for name, a in columns.items()}
    if len(set(steps.values())) > 1:
        raise BagError(f"{where}: columns disagree on the number of steps: {steps}")
    if not steps or 0 in steps.values():
        raise BagError(f"{where}: the episode has no steps")
    expected = _expected(meta)
    missing = sorted(set(expected) - set(columns))
    if missing:
        raise BagError(f"{where}: missing columns {missing}")
    for name, (dtype, row) in expected.items():
        got = columns[name]
        if got.dtype != dtype or len(got.shape) != len(row) + 1 or any(
            want is not None and have != want for have, want in zip(got.shape[1:], row)
        ):
            shape = ", ".join(["T", *("*" if d is None else str(d) for d in row)])
            raise BagError(f"{where}: column {name} is {got.dtype} {got.shape}, expected {dtype} ({shape})")


class BagWriter:
    """Collects one episode's steps and writes its bag when the episode ends.

    `append(step)` copies one row of every column (the same columns each step);
    `close()` checks the episode as `read_bag` would and writes it atomically;
    `abort()` drops it. Used as a context manager it closes on success and
    aborts on an exception.
    """

    def __init__(self, path: str | os.PathLike, meta: Mapping[str, Any]):
        self.path = Path(path)
        self._typed = _checked_meta(meta, self.path)
        try:
            self._meta_json = json.dumps(dict(meta), sort_keys=True, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise BagError(f"{self.path}: meta is not JSON ({_one_line(exc)})") from None
        self._rows: list[dict[str, np.ndarray]] = []
        self._done = False

    def __enter__(self) -> BagWriter:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()

    def _require_open(self) -> None:
        if self._done:
            raise BagError(f"{self.path}: the bag is already closed or aborted")

    def append(self, step: Mapping[str, ArrayLike]) -> None:
        self._require_open()
        row = {}
        for name, value in step.items():
            try:
                row[name] = np.asarray(value).astype(column_dtype(name), casting="same_kind")
            except TypeError:
                raise BagError(f"{self.path}: column {name} cannot be stored as {column_dtype(name)}") from None
        if self._rows:
            first = self._rows[0]
            if row.keys() != first.keys():
                diff = sorted(row.keys() ^ first.keys())
                raise BagError(f"{self.path}: step {len(self._rows)} does not have step 0's columns (differ: {diff})")
            for name, value in row.items():
                if value.shape != first[name].shape:
                    raise BagError(
                        f"{self.path}: step {len(self._rows)} column {name} has shape {value.shape}, "
                        f"step 0 had {first[name].shape}"
                    )
        self._rows.append(row)

    def close(self) -> Path:
        """Write the bag (temporary sibling, fsync, rename) and return its path."""
        self._require_open()
        names = self._rows[0].keys() if self._rows else ()
        columns = {name: np.stack([r[name] for r in self._rows]) for name in names}
        _check_columns(self._typed, columns, self.path)
        self._done, self._rows = True, []
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = temp_sibling(self.path)
        try:
            os.fchmod(fd, FILE_MODE)
            os.close(fd)
            with h5py.File(tmp, "w") as f:
                group = f.create_group(f"episode_{self._typed.seed}")
                group.attrs["meta"] = self._meta_json
                for name, data in columns.items():
                    # Checksummed, so a damaged bag fails to read instead of scoring wrong numbers;
                    # no timestamps, so the same episode gives the same bytes.
                    group.create_dataset(name, data=data, compression="gzip", fletcher32=True, track_times=False)
            with open(tmp, "rb") as f:
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return self.path

    def abort(self) -> None:
        """Drop the episode; nothing was written. Harmless after `close()`."""
        self._done, self._rows = True, []


def read_bag(path: str | os.PathLike) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The meta and the columns of a bag, checked as the writer checks them."""
    path = Path(path)
    try:
        with h5py.File(path, "r") as f:
            if len(f) != 1:
                raise BagError(f"{path}: expected one episode group, found {sorted(f)}")
            name, group = next(iter(f.items()))
            if not isinstance(group, h5py.Group) or "meta" not in group.attrs:
                raise BagError(f"{path}: {name} is not an episode group with a meta attribute")
            raw = group.attrs["meta"]
            columns = {column: data[()] for column, data in group.items()}
    except BagError:
        raise
    except (OSError, RuntimeError, KeyError, TypeError, ValueError) as exc:  # what HDF5 raises on a damaged file
        raise BagError(f"{path}: not a readable HDF5 bag ({_one_line(exc)})") from None
    try:
        meta = json.loads(raw)
    except (TypeError, ValueError) as exc:
        raise BagError(f"{path}: meta is not JSON ({_one_line(exc)})") from None
    if not isinstance(meta, dict):
        raise BagError(f"{path}: meta is not a JSON object")
    typed = _checked_meta(meta, path)
    if name != f"episode_{typed.seed}":
        raise BagError(f"{path}: group {name} does not hold seed {typed.seed}")
    _check_columns(typed, columns, path)
    return meta, columns
