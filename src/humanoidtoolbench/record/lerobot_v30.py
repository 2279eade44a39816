"""Write recorded episodes as a LeRobot dataset in codebase version v3.0 (the format LeRobot 0.4 and later load).

    meta/info.json                                   fps, features, totals, path templates, file size limits
    meta/tasks.parquet                               task_index per task, the task as the pandas index
    meta/episodes/chunk-000/file-000.parquet         per episode: tasks, length, its rows' and frames' places, stats
    meta/stats.json                                  min / max / mean / std / count over the whole dataset
    data/chunk-000/file-000.parquet                  the rows of many episodes, in order
    videos/<key>/chunk-000/file-000.mp4              many episodes' frames, one file per camera

Episodes are concatenated: a data file takes episodes until it holds
`DATA_FILE_MB`, a video file until `VIDEO_FILE_MB`, then the next file
starts (`file_index`; `chunk_index` every `CHUNK_SIZE` files). Each
episode's videos are the recorder's H.264 files remuxed packet by packet
(no re-encoding; their extra last frame stays, unreferenced, as in v2.1),
each placed after the last so decoding times stay increasing where
B-frames reorder them; episode e's frames are those presented from
`from_timestamp` (its first frame's position in the file / fps). The rows, features and statistics are
the v2.1 writer's (`lerobot_dataset`); the dataset is assembled aside and
renamed into place.
"""

from __future__ import annotations

import json
from contextlib import ExitStack, closing
from fractions import Fraction
from pathlib import Path
from typing import Callable, Iterable

import av
import numpy as np

from .lerobot_dataset import (
    DatasetError, DatasetSpec, DemoEpisode, _check, _columns, _features, _stats, _write_json, building, episode_table,
    image_stats, info_json, probe_video, video_key, write_totals,
)

CODEBASE_VERSION = "v3.0"
CHUNK_SIZE = 1000  # files per chunk directory, LeRobot's default
DATA_FILE_MB, VIDEO_FILE_MB = 100, 500  # LeRobot's defaults
DATA_PATH = "data/chunk-{chunk_index:03d}/file-{file_index:03d}.parquet"
VIDEO_PATH = "videos/{video_key}/chunk-{chunk_index:03d}/file-{file_index:03d}.mp4"
EPISODES_PATH = "meta/episodes/chunk-{chunk_index:03d}/file-{file_index:03d}.parquet"


def _place(n: int) -> dict:
    return {"chunk_index": n // CHUNK_SIZE, "file_index": n % CHUNK_SIZE}


class VideoFile:
    """One camera's current MP4, taking episodes' packets one after another with shifted timestamps."""

    def __init__(self, root: Path, key: str, fps: int) -> None:
        self.root, self.key, self.fps = root, key, fps
        self.number, self.out, self.stream, self.path = -1, None, None, None
        self.frames, self.last_dts = 0, None  # the file's next free frame position; the last decoding time written

    def _open(self, template) -> None:
        self.number += 1
        self.path = self.root / VIDEO_PATH.format(video_key=self.key, **_place(self.number))
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.out = av.open(str(self.path), "w")
        self.stream = self.out.add_stream_from_template(template)
        self.stream.time_base = Fraction(1, self.fps)
        self.frames, self.last_dts = 0, None

    def add(self, source: Path, frames: int) -> dict:
        """Append every packet of `source` after what the file holds; returns the episode's video columns
        (its first `frames` frames: the recorder's extra last frame stays in the file, unreferenced)."""
        if self.out is not None and self.path.stat().st_size > VIDEO_FILE_MB * 2**20:
            self.close()
        with av.open(str(source)) as src:
            s = src.streams.video[0]
            if self.out is None:
                self._open(s)
            packets = [p for p in src.demux(s) if p.size and p.pts is not None and p.dts is not None]
            if len(packets) < frames:
                raise DatasetError(f"{source}: {len(packets)} frames, the episode needs {frames}")
            start, ticks = min(p.pts for p in packets), s.time_base * self.fps
            pts = [round((p.pts - start) * ticks) for p in packets]
            dts = [round((p.dts - start) * ticks) for p in packets]  # B-frames: decoding may start before 0
            first = self.frames if self.last_dts is None else max(self.frames, self.last_dts + 1 - min(dts))
            for p, a, b in zip(packets, pts, dts):
                p.pts, p.dts = first + a, first + b
                p.time_base = Fraction(1, self.fps)  # frame units; the muxer rescales to its own time base
                p.stream = self.stream
                self.out.mux(p)
            self.last_dts, self.frames = first + max(dts), first + max(pts) + 1
        place = _place(self.number)
        return {f"videos/{self.key}/chunk_index": place["chunk_index"], f"videos/{self.key}/file_index": place["file_index"],
                f"videos/{self.key}/from_timestamp": first / self.fps, f"videos/{self.key}/to_timestamp": (first + frames) / self.fps}

    def close(self) -> None:
        if self.out is not None:
            self.out.close()
            self.out = None


def _tasks_table(pa, tasks: dict[str, int]):
    """tasks.parquet as pandas writes a DataFrame indexed by task, which is how LeRobot reads it."""
    table = pa.table({"task_index": pa.array(list(tasks.values()), pa.int64()), "task": pa.array(list(tasks), pa.string())})
    pandas = {
        "index_columns": ["task"], "column_indexes": [],
        "columns": [
            {"name": "task_index", "field_name": "task_index", "pandas_type": "int64", "numpy_type": "int64", "metadata": None},
            {"name": "task", "field_name": "task", "pandas_type": "unicode", "numpy_type": "object", "metadata": None},
        ],
        "creator": {"library": "pyarrow", "version": pa.__version__}, "pandas_version": "2.2.0",
    }
    return table.replace_schema_metadata({"pandas": json.dumps(pandas)})


def write_dataset_v30(
    root: Path, spec: DatasetSpec, episodes: Iterable[DemoEpisode], about: dict,
    on_episode: Callable[[int, DemoEpisode], None] | None = None,
) -> dict:
    """Write every episode into a new v3.0 dataset at `root` (which must not exist); returns its info.json."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    with building(root) as partial, ExitStack() as open_videos:
        videos = {cam: open_videos.enter_context(closing(VideoFile(partial, video_key(cam), spec.fps))) for cam in spec.cameras}
        tasks: dict[str, int] = {}
        rows, stats, sources = [], [], []
        pending, pending_bytes, data_file = [], 0, 0
        features, total = None, 0

        def flush() -> None:
            nonlocal pending, pending_bytes, data_file
            if pending:
                path = partial / DATA_PATH.format(**_place(data_file))
                path.parent.mkdir(parents=True, exist_ok=True)
                pq.write_table(pa.concat_tables(pending), path)
                pending, pending_bytes, data_file = [], 0, data_file + 1

        for index, ep in enumerate(episodes):
            length = _check(ep, spec, index)
            if features is None:
                features = _features(spec, ep, {cam: probe_video(ep.videos[cam]) for cam in spec.cameras})
            task_index = tasks.setdefault(ep.task, len(tasks))
            columns = _columns(ep, index, total, task_index, spec.fps)
            table = episode_table(pa, columns, features)
            if pending_bytes + table.nbytes > DATA_FILE_MB * 2**20:
                flush()
            place = _place(data_file)
            pending.append(table)
            pending_bytes += table.nbytes
            ep_stats = {k: _stats(v) for k, v in columns.items()}
            row = {"episode_index": index, "tasks": [ep.task], "length": length,
                   "data/chunk_index": place["chunk_index"], "data/file_index": place["file_index"],
                   "dataset_from_index": total, "dataset_to_index": total + length}
            for cam in spec.cameras:
                row.update(videos[cam].add(ep.videos[cam], length))
                ep_stats[video_key(cam)] = image_stats(ep.videos[cam], length)
            row.update({f"stats/{k}/{s}": np.asarray(v).reshape(-1).tolist() for k, d in ep_stats.items() for s, v in d.items()})
            row.update({"meta/episodes/chunk_index": 0, "meta/episodes/file_index": 0})
            rows.append(row)
            stats.append(ep_stats)
            sources.append({"episode_index": index, **ep.source})
            total += length
            if on_episode is not None:
                on_episode(index, ep)
        if features is None:
            raise DatasetError("no episodes to export")
        flush()
        for v in videos.values():
            v.close()
        episodes_path = partial / EPISODES_PATH.format(chunk_index=0, file_index=0)
        episodes_path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.Table.from_pylist(rows), episodes_path)
        pq.write_table(_tasks_table(pa, tasks), partial / "meta" / "tasks.parquet")
        layout = {"chunks_size": CHUNK_SIZE, "data_files_size_in_mb": DATA_FILE_MB, "video_files_size_in_mb": VIDEO_FILE_MB}
        info = info_json(CODEBASE_VERSION, spec, len(rows), total, len(tasks), layout, DATA_PATH, VIDEO_PATH, features)
        meta = partial / "meta"
        _write_json(meta / "info.json", info)
        write_totals(meta, stats, about, sources)
    return info
