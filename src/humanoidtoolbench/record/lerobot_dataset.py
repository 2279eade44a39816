"""Write recorded episodes as a LeRobot dataset (codebase version v2.1, the format `lerobot` 0.3 loads).

    meta/info.json                 fps, features (dtype, shape, names, video info), totals, path patterns
    meta/tasks.jsonl               one task (an instruction) per line
    meta/episodes.jsonl            index, tasks and length of each episode
    meta/episodes_stats.jsonl      min / max / mean / std / count of every feature, per episode
    meta/stats.json                the same over the whole dataset
    data/chunk-000/episode_000000.parquet             one row per control step
    videos/chunk-000/observation.images.<camera>/episode_000000.mp4

Row i of an episode is the state the policy saw and the command it chose;
frame i of each video is the scene at that moment, so the recorder's H.264
files are copied unchanged (they hold one more frame, the scene after the
last command, which no row references). The dataset is assembled in a
hidden sibling directory and renamed into place, so a dataset directory is
either complete or absent. pyarrow is imported when a dataset is written.
"""

from __future__ import annotations

import json
import os
import shutil
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

import av
import numpy as np

from .files import write_bytes_atomic

CODEBASE_VERSION = "v2.1"
CHUNK_SIZE = 1000  # episodes per chunk directory, LeRobot's default
DATA_PATH = "data/chunk-{episode_chunk:03d}/episode_{episode_index:06d}.parquet"
VIDEO_PATH = "videos/chunk-{episode_chunk:03d}/{video_key}/episode_{episode_index:06d}.mp4"
IMAGE_PREFIX = "observation.images."
STATE, ACTION = "observation.state", "action"
INDEX_COLUMNS = ("timestamp", "frame_index", "episode_index", "index", "task_index")
# Image statistics from a sample of frames, shrunk as LeRobot's own writer does
# (about 100 frames per episode, images above 300 pixels reduced to about 150).
STATS_FRAMES, STATS_SIZE, STATS_SHRINK_ABOVE = 100, 150, 300


class DatasetError(RuntimeError):
    """An episode that cannot go into the dataset as given; the message is one line."""


@dataclass(frozen=True)
class DatasetSpec:
    fps: int
    robot_type: str
    cameras: tuple[str, ...]
    state_names: tuple[str, ...] | None = None
    action_names: tuple[str, ...] | None = None


@dataclass(frozen=True)
class DemoEpisode:
    """One episode to export: row i of `states` and `actions` goes with frame i of every video."""

    task: str
    states: np.ndarray  # (T, state_dim)
    actions: np.ndarray  # (T, action_dim)
    videos: dict[str, Path]  # camera -> MP4 with at least T frames
    source: dict = field(default_factory=dict)  # provenance, written to meta/humanoidtoolbench.json


def video_key(camera: str) -> str:
    return IMAGE_PREFIX + camera


def write_dataset(
    root: Path, spec: DatasetSpec, episodes: Iterable[DemoEpisode], about: dict,
    on_episode: Callable[[int, DemoEpisode], None] | None = None,
) -> dict:
    """Write every episode into a new dataset at `root` (which must not exist); returns its info.json.

    `about` (what produced the episodes) and each episode's `source` go to
    meta/humanoidtoolbench.json, a file LeRobot ignores.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    with building(root) as partial:
        tasks: dict[str, int] = {}
        listed, stats, sources = [], [], []
        video_info: dict[str, dict] = {}
        features = None
        total = 0
        for index, ep in enumerate(episodes):
            length = _check(ep, spec, index)
            if features is None:
                video_info = {cam: probe_video(ep.videos[cam]) for cam in spec.cameras}
                features = _features(spec, ep, video_info)
            task_index = tasks.setdefault(ep.task, len(tasks))
            columns = _columns(ep, index, total, task_index, spec.fps)
            chunk = index // CHUNK_SIZE
            table = episode_table(pa, columns, features)
            data_path = partial / DATA_PATH.format(episode_chunk=chunk, episode_index=index)
            data_path.parent.mkdir(parents=True, exist_ok=True)
            pq.write_table(table, data_path)
            ep_stats = {k: _stats(v) for k, v in columns.items()}
            for cam in spec.cameras:
                key = video_key(cam)
                dest = partial / VIDEO_PATH.format(episode_chunk=chunk, video_key=key, episode_index=index)
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(ep.videos[cam], dest)
                ep_stats[key] = image_stats(dest, length)
            listed.append({"episode_index": index, "tasks": [ep.task], "length": length})
            stats.append({"episode_index": index, "stats": _lists(ep_stats)})
            sources.append({"episode_index": index, **ep.source})
            total += length
            if on_episode is not None:
                on_episode(index, ep)
        if features is None:
            raise DatasetError("no episodes to export")
        layout = {"total_videos": len(listed) * len(spec.cameras), "total_chunks": (len(listed) - 1) // CHUNK_SIZE + 1,
                  "chunks_size": CHUNK_SIZE}
        info = info_json(CODEBASE_VERSION, spec, len(listed), total, len(tasks), layout, DATA_PATH, VIDEO_PATH, features)
        meta = partial / "meta"
        _write_json(meta / "info.json", info)
        _write_lines(meta / "tasks.jsonl", [{"task_index": i, "task": t} for t, i in tasks.items()])
        _write_lines(meta / "episodes.jsonl", listed)
        _write_lines(meta / "episodes_stats.jsonl", stats)
        write_totals(meta, [_arrays(s["stats"]) for s in stats], about, sources)
    return info


@contextmanager
def building(root: Path):
    """A `.NAME.partial` folder beside `root` to write a dataset into: synced and renamed onto `root` when the
    block ends, removed when it raises, so `root` is either complete or absent."""
    root = Path(root)
    if root.exists():
        raise DatasetError(f"{root} already exists")
    partial = root.with_name(f".{root.name}.partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    try:
        yield partial
        _fsync_tree(partial)
        os.rename(partial, root)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise


def episode_table(pa, columns: dict[str, np.ndarray], features: dict):
    """One episode's frames as an Arrow table carrying the Hugging Face features LeRobot reads back."""
    table = pa.table({k: _arrow(pa, v) for k, v in columns.items()})
    return table.replace_schema_metadata({"huggingface": json.dumps(_hf_features(features))})


def info_json(version: str, spec: DatasetSpec, episodes: int, frames: int, tasks: int, layout: dict,
              data_path: str, video_path: str, features: dict) -> dict:
    """meta/info.json: the fields every format version has, around `layout` (the version's own counts and sizes)."""
    return {"codebase_version": version, "robot_type": spec.robot_type, "total_episodes": episodes,
            "total_frames": frames, "total_tasks": tasks, **layout, "fps": spec.fps,
            "splits": {"train": f"0:{episodes}"}, "data_path": data_path, "video_path": video_path, "features": features}


def write_totals(meta: Path, episode_stats: list[dict], about: dict, sources: list[dict]) -> None:
    """meta/stats.json (aggregated over the episodes) and meta/humanoidtoolbench.json (what produced them)."""
    _write_json(meta / "stats.json", _lists(aggregate_stats(episode_stats)))
    _write_json(meta / "humanoidtoolbench.json", {**about, "episodes": sources})


def _check(ep: DemoEpisode, spec: DatasetSpec, index: int) -> int:
    states, actions = np.asarray(ep.states), np.asarray(ep.actions)
    if states.ndim != 2 or actions.ndim != 2 or len(states) != len(actions) or not len(states):
        raise DatasetError(f"episode {index}: states {states.shape} and actions {actions.shape} must be (T, n) with the same T >= 1")
    for name, names, arr in (("state", spec.state_names, states), ("action", spec.action_names, actions)):
        if names is not None and arr.shape[1] != len(names):
            raise DatasetError(f"episode {index}: {arr.shape[1]} {name} values, {len(names)} names")
    missing = [c for c in spec.cameras if c not in ep.videos]
    if missing:
        raise DatasetError(f"episode {index}: no video of camera {missing[0]}")
    return len(states)


def _features(spec: DatasetSpec, ep: DemoEpisode, video_info: dict[str, dict]) -> dict:
    features = {}
    for cam in spec.cameras:
        v = video_info[cam]
        features[video_key(cam)] = {
            "dtype": "video",
            "shape": [v["video.height"], v["video.width"], v["video.channels"]],
            "names": ["height", "width", "channels"],
            "info": v,
        }
    for key, arr, names in ((STATE, ep.states, spec.state_names), (ACTION, ep.actions, spec.action_names)):
        features[key] = {"dtype": "float32", "shape": [int(np.shape(arr)[1])], "names": list(names) if names else None}
    features["timestamp"] = {"dtype": "float32", "shape": [1], "names": None}
    for key in INDEX_COLUMNS[1:]:
        features[key] = {"dtype": "int64", "shape": [1], "names": None}
    return features


def _columns(ep: DemoEpisode, episode_index: int, first_index: int, task_index: int, fps: int) -> dict[str, np.ndarray]:
    """The parquet columns of one episode; frame i is at i / fps seconds."""
    n = len(ep.states)
    frames = np.arange(n, dtype=np.int64)
    return {
        STATE: np.asarray(ep.states, dtype=np.float32),
        ACTION: np.asarray(ep.actions, dtype=np.float32),
        "timestamp": (frames / fps).astype(np.float32),
        "frame_index": frames,
        "episode_index": np.full(n, episode_index, dtype=np.int64),
        "index": frames + first_index,
        "task_index": np.full(n, task_index, dtype=np.int64),
    }


def _arrow(pa, values: np.ndarray):
    if values.ndim == 1:
        return pa.array(values)
    return pa.FixedSizeListArray.from_arrays(pa.array(values.reshape(-1)), values.shape[1])


def _hf_features(features: dict) -> dict:
    """The Hugging Face `datasets` feature description it stores in a parquet schema, so the loader
    restores fixed-length vectors and exact dtypes."""
    out = {}
    for key, ft in features.items():
        if ft["dtype"] == "video":
            continue
        value = {"dtype": ft["dtype"], "_type": "Value"}
        out[key] = value if ft["shape"] == [1] else {"feature": value, "length": ft["shape"][0], "_type": "Sequence"}
    return {"info": {"features": out}}


def _stats(values: np.ndarray) -> dict[str, np.ndarray]:
    """Per-dimension statistics over the rows (a scalar column keeps shape (1,))."""
    v = values.reshape(len(values), -1).astype(np.float64)
    return {
        "min": v.min(axis=0), "max": v.max(axis=0), "mean": v.mean(axis=0), "std": v.std(axis=0),
        "count": np.array([len(values)]),
    }


def image_stats(path: Path, frames: int) -> dict[str, np.ndarray]:
    """Per-channel statistics in [0, 1], shape (3, 1, 1), from up to STATS_FRAMES evenly spaced frames of the
    first `frames`."""
    wanted = np.unique(np.round(np.linspace(0, frames - 1, min(frames, STATS_FRAMES))).astype(int))
    images = np.stack(list(decode_frames(path, wanted))).astype(np.float64) / 255.0  # (n, h, w, 3)
    if len(images) != len(wanted):
        raise DatasetError(f"{path}: {len(images)} of the {len(wanted)} sampled frames decode")
    h, w = images.shape[1:3]
    if max(h, w) >= STATS_SHRINK_ABOVE:
        step = int(max(h, w) / STATS_SIZE)
        images = images[:, ::step, ::step]
    axes = (0, 1, 2)
    return {
        "min": images.min(axis=axes).reshape(3, 1, 1),
        "max": images.max(axis=axes).reshape(3, 1, 1),
        "mean": images.mean(axis=axes).reshape(3, 1, 1),
        "std": images.std(axis=axes).reshape(3, 1, 1),
        "count": np.array([len(images)]),
    }


def decode_frames(path: Path, indices=None):
    """RGB frames (h, w, 3) uint8 of an MP4's first video stream in order: all, or those at `indices`."""
    keep = None if indices is None else {int(i) for i in indices}
    last = None if keep is None else max(keep)
    with av.open(str(path)) as container:
        for i, frame in enumerate(container.decode(video=0)):
            if keep is None or i in keep:
                yield frame.to_ndarray(format="rgb24")
            if last is not None and i >= last:
                return


def probe_video(path: Path) -> dict:
    """The `info` LeRobot keeps for a video feature."""
    with av.open(str(path)) as container:
        s = container.streams.video[0]
        if "yuv" not in s.pix_fmt and "rgb" not in s.pix_fmt:
            raise DatasetError(f"{path}: pixel format {s.pix_fmt} is not a colour format")
        return {
            "video.height": s.height,
            "video.width": s.width,
            "video.codec": s.codec.canonical_name,
            "video.pix_fmt": s.pix_fmt,
            "video.is_depth_map": False,
            "video.fps": int(s.base_rate),
            "video.channels": 3,
            "has_audio": bool(container.streams.audio),
        }


def aggregate_stats(per_episode: list[dict[str, dict[str, np.ndarray]]]) -> dict[str, dict[str, np.ndarray]]:
    """Whole-dataset statistics from per-episode ones (count-weighted mean, pooled variance), as LeRobot
    combines them."""
    out = {}
    for key in per_episode[0]:
        parts = [s[key] for s in per_episode]
        means = np.stack([p["mean"] for p in parts])
        counts = np.array([float(p["count"][0]) for p in parts]).reshape((-1,) + (1,) * (means.ndim - 1))
        total = counts.sum()
        mean = (means * counts).sum(axis=0) / total
        var = ((np.stack([p["std"] for p in parts]) ** 2 + (means - mean) ** 2) * counts).sum(axis=0) / total
        out[key] = {
            "min": np.min(np.stack([p["min"] for p in parts]), axis=0),
            "max": np.max(np.stack([p["max"] for p in parts]), axis=0),
            "mean": mean, "std": np.sqrt(var), "count": np.array([int(total)]),
        }
    return out


def _lists(stats: dict) -> dict:
    return {k: {s: np.asarray(v).tolist() for s, v in d.items()} for k, d in stats.items()}


def _arrays(stats: dict) -> dict:
    return {k: {s: np.asarray(v) for s, v in d.items()} for k, d in stats.items()}


def _write_json(path: Path, obj) -> None:
    write_bytes_atomic(path, (json.dumps(obj, indent=4, allow_nan=False) + "\n").encode())


def _write_lines(path: Path, rows: list[dict]) -> None:
    write_bytes_atomic(path, "".join(json.dumps(r, allow_nan=False) + "\n" for r in rows).encode())


def _fsync_tree(root: Path) -> None:
    """Flush every file and directory to disk before the rename that publishes them."""
    for folder, _, files in os.walk(root):
        for name in files:
            fd = os.open(os.path.join(folder, name), os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
