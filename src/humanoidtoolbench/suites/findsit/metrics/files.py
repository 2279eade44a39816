"""Writing and reading the metrics files: one episode's record, a run's episodes each once, its summary.

Where the scoring meets the disk: a file that is not a record of this
schema is a one-line `MetricsFileError`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import msgspec

from ....record.files import write_json_atomic
from .schema import SCHEMA, SCHEMA_VERSION, CrashedEpisode, EpisodeMetrics, EpisodeRecord, MetricsSummary

METRICS_FILE = "metrics.json"
SUMMARY_FILE = "metrics_summary.json"


class MetricsFileError(ValueError):
    """A metrics file that is not the record it claims to be; one line."""


def write_episode_metrics(path: str | Path, record: EpisodeRecord) -> Path:
    return write_json_atomic(path, record.to_json())


def read_episode_metrics(path: str | Path) -> EpisodeRecord:
    path = Path(path)
    try:
        record = msgspec.json.decode(path.read_bytes(), type=EpisodeRecord)
    except (OSError, msgspec.DecodeError) as exc:
        raise MetricsFileError(f"{path}: not a findsit metrics record ({exc})") from None
    if record.schema != SCHEMA or record.schema_version != SCHEMA_VERSION:
        found = f"{record.schema!r} v{record.schema_version}"
        raise MetricsFileError(f"{path}: schema {found}, expected {SCHEMA!r} v{SCHEMA_VERSION}")
    return record


@dataclass(frozen=True)
class RunRecords:
    """The unique episodes under a directory, and what the reader had to decide about them."""

    records: tuple[EpisodeRecord, ...]
    duplicates: int
    notes: tuple[str, ...]


def _key(record: EpisodeRecord) -> tuple:
    e = record.episode
    return (record.profile, record.planner, e.scene_id, e.episode_id, e.object_category, e.rollout_index)


def _label(record: EpisodeRecord) -> str:
    e = record.episode
    return f"{e.scene_id}/{e.episode_id} ({e.object_category}, rollout {e.rollout_index})"


def read_run(root: str | Path) -> RunRecords:
    """Every metrics.json under `root` (one run or a parent of shards of one planner), each episode once."""
    root = Path(root)
    return read_records(sorted(root.rglob(METRICS_FILE)), root)


def read_records(paths: Sequence[str | Path], root: str | Path | None = None) -> RunRecords:
    """These metrics files (named relative to `root` in notes), each episode once.

    An episode found in several files counts once: a complete record over a
    crashed one, else the first path in sorted order; the note names them all.
    Records of two planners are never summarised together: that is refused.
    """
    found: dict[tuple, list[tuple[str, EpisodeRecord]]] = defaultdict(list)
    for path in sorted(Path(p) for p in paths):
        record = read_episode_metrics(path)
        found[_key(record)].append((str(path.relative_to(root)) if root is not None else str(path), record))
    planners = sorted({r.planner for copies in found.values() for _, r in copies} - {""})
    if len(planners) > 1:
        where = f"{root}: " if root is not None else ""
        raise MetricsFileError(f"{where}records of {len(planners)} planners ({', '.join(planners)}); score each planner's runs apart")
    records, notes, duplicates = [], [], 0
    for copies in found.values():
        path, record = next(((p, r) for p, r in copies if isinstance(r, EpisodeMetrics)), copies[0])
        records.append(record)
        if len(copies) > 1:
            duplicates += 1
            agree = "identical" if all(r == record for _, r in copies) else "records differ"
            others = ", ".join(p for p, _ in copies if p != path)
            notes.append(f"duplicate {_label(record)}: counted once from {path}; also in {others} ({agree})")
        if isinstance(record, CrashedEpisode):
            notes.append(f"crashed {_label(record)}: counted as a failure: {record.note}")
    return RunRecords(tuple(records), duplicates, tuple(notes))


def write_summary(root: str | Path, summary: MetricsSummary) -> Path:
    return write_json_atomic(Path(root) / SUMMARY_FILE, summary.to_json())
