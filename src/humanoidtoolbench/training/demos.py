"""A LeRobot dataset on disk as training arrays, and its policy-camera frames as a uint8 cache.

Both layouts `htb-dataset` writes are read: v2.1 (one parquet file and one
MP4 per episode, `meta/episodes.jsonl`) and v3.0 (episodes concatenated in
files, `meta/episodes/*.parquet` naming each episode's rows and frames).
The frame cache holds every row's frame after the checkpoint's resize and
crop (`resize_crop`, the function inference applies to the rendered
image); it is written aside and renamed when complete, keyed by the
dataset's digest and the transform, so an interrupted run rebuilds only
what is missing.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from ..policies.model.runconfig import ImageTransform
from ..policies.model.transforms import resize_crop
import av

from ..record.lerobot_dataset import ACTION, STATE, video_key


class DemoDataError(RuntimeError):
    """A dataset that cannot be trained on as asked; the message is one line."""


@dataclass(frozen=True)
class EpisodeVideo:
    path: Path
    first_frame: int  # the episode's first frame in that file (0 in v2.1)


@dataclass
class Demos:
    """Rows of every episode, concatenated; episode e is rows starts[e] .. starts[e] + lengths[e] - 1."""

    root: Path
    states: np.ndarray  # (N, state_dim) float32
    actions: np.ndarray  # (N, action_dim) float32
    starts: np.ndarray  # (E,) int64
    lengths: np.ndarray  # (E,) int64
    tasks: list[str]  # per episode
    videos: list[EpisodeVideo]  # per episode, the camera's video
    camera: str
    version: str
    fps: int
    digest: str  # SHA-256 of the metadata, the rows and the camera's videos
    action_names: list[str] | None = None

    @property
    def episode_of_row(self) -> np.ndarray:
        return np.repeat(np.arange(len(self.starts)), self.lengths)

    @property
    def instructions(self) -> list[str]:
        return list(dict.fromkeys(self.tasks))


def _json(path: Path):
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise DemoDataError(f"{path}: no such file (not a LeRobot dataset?)") from None
    except (OSError, ValueError) as exc:
        raise DemoDataError(f"{path}: unreadable ({exc})") from None


def _lines(path: Path) -> list[dict]:
    try:
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    except (OSError, ValueError) as exc:
        raise DemoDataError(f"{path}: unreadable ({exc})") from None


def read_demos(root: str | os.PathLike, camera: str) -> Demos:
    """The dataset at `root` with `camera`'s video; a missing piece is one line naming it."""
    import pyarrow.parquet as pq

    root = Path(root)
    info = _json(root / "meta" / "info.json")
    version, key = info.get("codebase_version"), video_key(camera)
    features = info.get("features") or {}
    missing = [k for k in (STATE, ACTION, key) if k not in features]
    if missing:
        cams = sorted(k.split(".", 2)[-1] for k in features if k.startswith("observation.images."))
        raise DemoDataError(f"{root}: the dataset has no {missing[0]} feature (its cameras: {', '.join(cams) or 'none'})")
    if version == "v2.1":
        episodes = _lines(root / "meta" / "episodes.jsonl")
        chunk = int(info.get("chunks_size", 1000))
        data_files = [root / info["data_path"].format(episode_chunk=e["episode_index"] // chunk, episode_index=e["episode_index"]) for e in episodes]
        videos = [
            EpisodeVideo(root / info["video_path"].format(episode_chunk=e["episode_index"] // chunk, video_key=key, episode_index=e["episode_index"]), 0)
            for e in episodes
        ]
        tasks = [e["tasks"][0] for e in episodes]
    elif version == "v3.0":
        files = sorted((root / "meta" / "episodes").glob("chunk-*/file-*.parquet"))
        if not files:
            raise DemoDataError(f"{root}/meta/episodes: no episode metadata files")
        episodes = sorted((row for f in files for row in pq.read_table(f).to_pylist()), key=lambda e: e["episode_index"])
        data_files = sorted({root / info["data_path"].format(chunk_index=e["data/chunk_index"], file_index=e["data/file_index"]) for e in episodes})
        fps = float(info["fps"])
        videos = [
            EpisodeVideo(
                root / info["video_path"].format(video_key=key, chunk_index=e[f"videos/{key}/chunk_index"], file_index=e[f"videos/{key}/file_index"]),
                int(round(e[f"videos/{key}/from_timestamp"] * fps)),
            )
            for e in episodes
        ]
        tasks = [e["tasks"][0] for e in episodes]
    else:
        raise DemoDataError(f"{root}: dataset format {version!r} is not v2.1 or v3.0")
    for f in [*data_files, *(v.path for v in videos)]:
        if not f.is_file():
            raise DemoDataError(f"{root}: {f.relative_to(root)} is missing")
    table = [pq.read_table(f, columns=[STATE, ACTION, "episode_index", "frame_index"]) for f in data_files]
    episode = np.concatenate([t.column("episode_index").to_numpy() for t in table])
    frame = np.concatenate([t.column("frame_index").to_numpy() for t in table])
    order = np.lexsort((frame, episode))
    states = np.concatenate([np.stack(t.column(STATE).to_numpy(zero_copy_only=False)) for t in table])[order].astype(np.float32)
    actions = np.concatenate([np.stack(t.column(ACTION).to_numpy(zero_copy_only=False)) for t in table])[order].astype(np.float32)
    lengths = np.array([int(e["length"]) for e in episodes], np.int64)
    if lengths.sum() != len(states):
        raise DemoDataError(f"{root}: the episodes list {int(lengths.sum())} rows, the data files hold {len(states)}")
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    digest = hashlib.sha256()
    for f in [root / "meta" / "info.json", *data_files, *dict.fromkeys(v.path for v in videos)]:
        digest.update(f.relative_to(root).as_posix().encode())
        with open(f, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    names = features[ACTION].get("names")
    return Demos(root, states, actions, starts, lengths, tasks, videos, camera, version, int(info["fps"]), digest.hexdigest(),
                 list(names) if isinstance(names, list) else None)


def decode_span(path: Path, first: int, count: int, fps: int):
    """The RGB frames presented at positions first .. first + count - 1 (time x fps) of an MP4, in order."""
    with av.open(str(path)) as container:
        for frame in container.decode(video=0):
            at = round(frame.time * fps)
            if at >= first + count:
                return
            if at >= first:
                yield frame.to_ndarray(format="rgb24")


def frame_cache(demos: Demos, transform: ImageTransform, folder: Path, on_episode: Callable[[int], None] | None = None) -> np.ndarray:
    """Every row's frame after `transform`'s resize and crop, (N, h, w, 3) uint8, memory-mapped from `folder`."""
    h, w = transform.center_crop
    key = hashlib.sha256(json.dumps([demos.digest, list(transform.resize), list(transform.center_crop)]).encode()).hexdigest()[:16]
    path = folder / f"frames-{key}.npy"
    if path.is_file():
        return np.load(path, mmap_mode="r")
    folder.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial.npy")
    cache = np.lib.format.open_memmap(partial, mode="w+", dtype=np.uint8, shape=(len(demos.states), h, w, 3))
    for e, (start, length, video) in enumerate(zip(demos.starts, demos.lengths, demos.videos)):
        n = 0
        for n, image in enumerate(decode_span(video.path, video.first_frame, int(length), demos.fps), 1):
            cache[start + n - 1] = resize_crop(image, transform)
        if n != length:
            raise DemoDataError(f"{video.path}: {n} frames from frame {video.first_frame}, the episode has {length} rows")
        if on_episode is not None:
            on_episode(e)
    cache.flush()
    del cache
    os.replace(partial, path)
    return np.load(path, mmap_mode="r")
