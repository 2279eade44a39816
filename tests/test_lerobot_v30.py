"""The v3.0 dataset writer: the same rows, tasks and frames as v2.1, laid out in LeRobot 0.4's files."""

from __future__ import annotations

import json

import numpy as np
import pytest

pq = pytest.importorskip("pyarrow.parquet")

from humanoidtoolbench.record import lerobot_v30  # noqa: E402
from humanoidtoolbench.record.lerobot_dataset import DatasetSpec, DemoEpisode, decode_frames, write_dataset  # noqa: E402
from humanoidtoolbench.record.lerobot_v30 import write_dataset_v30  # noqa: E402
from humanoidtoolbench.record.video import VideoWriter  # noqa: E402
from humanoidtoolbench.training.demos import decode_span, read_demos  # noqa: E402

TASKS = ("Pick the tool for moving the ball to the target.", "Pick the tool for breaking the ice blocks.")
H, W = 72, 128


def episodes(tmp_path, lengths=(9, 6, 11)):
    out = []
    for e, n in enumerate(lengths):
        paths = {}
        for cam, shade in (("head_stereo_left", 40), ("wrist_left", 200)):
            path = tmp_path / f"src-{cam}-{e}.mp4"
            writer = VideoWriter(path, W, H)
            for t in range(n + 1):  # the recorder's extra last frame
                frame = np.full((H, W, 3), shade, np.uint8)
                frame[:, 8 * t : 8 * t + 8] = (255, 0, 0) if t < n else (0, 255, 0)
                writer.write(frame)
            writer.close()
            paths[cam] = path
        rng = np.random.default_rng(e)
        out.append(DemoEpisode(TASKS[e % 2], rng.normal(size=(n, 32)).astype(np.float32), rng.normal(size=(n, 36)).astype(np.float32),
                               paths, {"seed": 20000 + e}))
    return out


SPEC = DatasetSpec(50, "unitree_g1_dex3", ("head_stereo_left", "wrist_left"))


def test_v30_holds_the_rows_and_frames_of_v21(tmp_path):
    eps = episodes(tmp_path)
    write_dataset(tmp_path / "v21", SPEC, eps, {})
    info = write_dataset_v30(tmp_path / "v30", SPEC, eps, {"about": 1})
    assert info["codebase_version"] == "v3.0" and info["total_frames"] == 26 and info["total_episodes"] == 3
    root = tmp_path / "v30"
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()) == [
        "data/chunk-000/file-000.parquet", "meta/episodes/chunk-000/file-000.parquet", "meta/humanoidtoolbench.json",
        "meta/info.json", "meta/stats.json", "meta/tasks.parquet",
        "videos/observation.images.head_stereo_left/chunk-000/file-000.mp4",
        "videos/observation.images.wrist_left/chunk-000/file-000.mp4",
    ]
    for cam in SPEC.cameras:
        a, b = read_demos(tmp_path / "v21", cam), read_demos(root, cam)
        assert b.version == "v3.0" and b.tasks == a.tasks
        assert np.array_equal(a.states, b.states) and np.array_equal(a.actions, b.actions)
        assert list(a.lengths) == list(b.lengths) and list(b.starts) == [0, 9, 15]
        assert [v.first_frame for v in b.videos][0] == 0 and all(v.first_frame > 0 for v in b.videos[1:])
    # Each episode's span of the concatenated video is its own frames, bit for bit (remuxed, not re-encoded).
    joined = root / "videos/observation.images.head_stereo_left/chunk-000/file-000.mp4"
    b = read_demos(root, "head_stereo_left")
    for ep, video in zip(eps, b.videos):
        span = list(decode_span(joined, video.first_frame, len(ep.states), 50))
        single = list(decode_frames(ep.videos["head_stereo_left"]))[: len(ep.states)]
        assert len(span) == len(ep.states) and all(np.array_equal(x, y) for x, y in zip(span, single))


def test_v30_episode_metadata_places_rows_and_frames(tmp_path):
    write_dataset_v30(tmp_path / "v30", SPEC, episodes(tmp_path), {})
    rows = pq.read_table(tmp_path / "v30/meta/episodes/chunk-000/file-000.parquet").to_pylist()
    key = "videos/observation.images.wrist_left"
    assert [(r["dataset_from_index"], r["dataset_to_index"]) for r in rows] == [(0, 9), (9, 15), (15, 26)]
    spans = [(r[f"{key}/from_timestamp"], r[f"{key}/to_timestamp"]) for r in rows]
    assert spans[0] == (0.0, 0.18) and all(np.isclose(b - a, n / 50) for (a, b), n in zip(spans, (9, 6, 11)))
    assert all(later[0] > earlier[1] for earlier, later in zip(spans, spans[1:]))  # the extra frames lie between
    assert [r["tasks"] for r in rows] == [[TASKS[0]], [TASKS[1]], [TASKS[0]]]
    assert rows[1]["stats/action/count"] == [6] and len(rows[1]["stats/action/mean"]) == 36
    data = pq.read_table(tmp_path / "v30/data/chunk-000/file-000.parquet")
    assert data.column("index").to_pylist() == list(range(26)) and data.column("episode_index").to_pylist()[9] == 1
    info = json.loads((tmp_path / "v30/meta/info.json").read_text())
    assert info["data_path"] == lerobot_v30.DATA_PATH and info["features"]["action"]["shape"] == [36]


def test_tasks_read_as_lerobot_reads_them(tmp_path):
    pd = pytest.importorskip("pandas")
    write_dataset_v30(tmp_path / "v30", SPEC, episodes(tmp_path), {})
    tasks = pd.read_parquet(tmp_path / "v30/meta/tasks.parquet")
    assert list(tasks.index) == list(TASKS) and tasks.loc[TASKS[1], "task_index"] == 1


def test_files_split_at_the_size_limits(tmp_path, monkeypatch):
    monkeypatch.setattr(lerobot_v30, "DATA_FILE_MB", 1e-6)
    monkeypatch.setattr(lerobot_v30, "VIDEO_FILE_MB", 1e-9)
    write_dataset_v30(tmp_path / "v30", SPEC, episodes(tmp_path), {})
    rows = pq.read_table(tmp_path / "v30/meta/episodes/chunk-000/file-000.parquet").to_pylist()
    assert [r["data/file_index"] for r in rows] == [0, 1, 2]
    assert [r["videos/observation.images.head_stereo_left/file_index"] for r in rows] == [0, 1, 2]
    assert [r["videos/observation.images.head_stereo_left/from_timestamp"] for r in rows] == [0.0, 0.0, 0.0]
    b = read_demos(tmp_path / "v30", "head_stereo_left")
    assert [v.path.name for v in b.videos] == ["file-000.mp4", "file-001.mp4", "file-002.mp4"] and b.states.shape == (26, 32)
