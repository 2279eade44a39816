"""Run-directory validation: outcomes, real probed videos, and the ways they go wrong."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from humanoidtoolbench.eval import validation
from humanoidtoolbench.record.files import write_json_atomic
from humanoidtoolbench.record.probe import VideoError, probe_video
from humanoidtoolbench.record.records import EpisodeSummary, MetricsLine, VideoEntry
from humanoidtoolbench.record.video import VideoWriter
from humanoidtoolbench.robot.cameras import CAMERA_NAMES, HEIGHT, WIDTH

pytestmark = pytest.mark.no_robot  # builds no simulation: runs offline, with no robot asset

STEP = 10  # videos hold STEP + 1 frames
MAX_STEPS = 20


def frames(camera_index: int, n: int, black: bool = False):
    """Moving gradients, different per camera."""
    x = np.arange(WIDTH)[None, :, None]
    y = np.arange(HEIGHT)[:, None, None]
    for i in range(n):
        img = (x + 2 * y + 7 * i + 50 * camera_index + np.arange(3) * 60) % 256
        yield np.zeros((HEIGHT, WIDTH, 3), np.uint8) if black else img.astype(np.uint8)


def write_video(path, camera_index: int, n: int = STEP + 1, black: bool = False) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    writer = VideoWriter(path, WIDTH, HEIGHT)
    for img in frames(camera_index, n, black):
        writer.write(img)
    writer.close()


def write_metrics(root, seed: int, steps: int, ending: str = "success") -> None:
    """One line per step, the last one ending the episode as `ending` (its summary's outcome) says."""
    (root / "metrics").mkdir(exist_ok=True)
    last = {"reward": float(ending == "success"), "terminated": ending != "timeout", "truncated": ending == "timeout"}
    lines = [MetricsLine(episode=seed, step=k, **(last if k == steps else {"reward": 0.0, "terminated": False, "truncated": False}),
                         metrics={}) for k in range(1, steps + 1)]
    (root / "metrics" / f"episode_{seed}.jsonl").write_text("".join(line.encode() for line in lines))


def make_run(root, seeds=(10000,), record_video=True):
    config = {
        "env_id": "humanoidtoolbench/G1BallMove-L0-S",
        "episodes": len(seeds),
        "seed_start": seeds[0],
        "seeds": list(seeds),
        "max_steps": MAX_STEPS,
        "record_video": record_video,
        "cameras": list(CAMERA_NAMES),
        "video": {"fps": 50, "width": WIDTH, "height": HEIGHT, "codec": "h264"},
    }
    write_json_atomic(root / validation.CONFIG_FILE, config)
    for seed in seeds:
        write_metrics(root, seed, STEP)
        videos = []
        if record_video:
            for i, camera in enumerate(CAMERA_NAMES):
                write_video(root / validation.video_path(seed, camera), i)
            videos = [VideoEntry(**v) for v in validation.validate_episode_videos(root, config, seed, STEP)]
        summary = EpisodeSummary(env_id=config["env_id"], seed=seed, instruction="x", step=STEP, success=True,
                                 terminated=True, truncated=False, outcome="success", videos=videos)
        write_json_atomic(root / "summaries" / f"episode_{seed}.json", summary.to_json())
    return config


def edit_summary(root, seed, **changes):
    path = root / "summaries" / f"episode_{seed}.json"
    summary = {**json.loads(path.read_text()), **changes}
    write_json_atomic(path, summary)
    return summary


def reprobe(root, seed, camera):
    """Record fresh facts for a replaced file, as the runner would have."""
    summary = json.loads((root / "summaries" / f"episode_{seed}.json").read_text())
    for entry in summary["videos"]:
        if entry["camera"] == camera:
            entry.update(probe_video(root / entry["path"]).to_json())
    edit_summary(root, seed, videos=summary["videos"])


def problems_mentioning(problems, *words):
    return [p for p in problems if all(w in p for w in words)]


def test_valid_run_passes_and_revalidates(tmp_path):
    config = make_run(tmp_path)
    assert validation.validate_run(tmp_path) == []
    assert validation.revalidate_videos(tmp_path, config) == []
    entry = json.loads((tmp_path / "summaries" / "episode_10000.json").read_text())["videos"][0]
    assert entry["frames"] == STEP + 1 and entry["pts_ok"] and entry["codec"] == "h264"


def test_black_video_rejected(tmp_path):
    config = make_run(tmp_path)
    write_video(tmp_path / validation.video_path(10000, "wrist_left"), 2, black=True)
    with pytest.raises(VideoError, match="wrist_left: is black"):
        validation.validate_episode_videos(tmp_path, config, 10000, STEP)
    reprobe(tmp_path, 10000, "wrist_left")
    assert problems_mentioning(validation.validate_run(tmp_path), "seed 10000", "wrist_left", "black")


def test_missing_video_rejected(tmp_path):
    make_run(tmp_path)
    (tmp_path / validation.video_path(10000, "wrist_right")).unlink()
    assert problems_mentioning(validation.validate_run(tmp_path), "wrist_right", "missing")


def test_missing_video_entry_rejected(tmp_path):
    make_run(tmp_path)
    summary = json.loads((tmp_path / "summaries" / "episode_10000.json").read_text())
    edit_summary(tmp_path, 10000, videos=summary["videos"][1:])
    assert problems_mentioning(validation.validate_run(tmp_path), "no video for camera head_stereo_left")


def test_wrong_frame_count_rejected(tmp_path):
    make_run(tmp_path)
    edit_summary(tmp_path, 10000, step=STEP - 1)
    problems = validation.validate_run(tmp_path)
    assert len(problems_mentioning(problems, f"has {STEP + 1} frames, expected {STEP}")) == 4


def test_video_one_frame_short_rejected(tmp_path):
    make_run(tmp_path)
    write_video(tmp_path / validation.video_path(10000, "head_stereo_right"), 1, n=STEP)
    reprobe(tmp_path, 10000, "head_stereo_right")
    problems = validation.validate_run(tmp_path)
    assert problems == [f"seed 10000: head_stereo_right: has {STEP} frames, expected {STEP + 1}"]


def test_identical_streams_rejected(tmp_path):
    make_run(tmp_path)
    shutil.copyfile(
        tmp_path / validation.video_path(10000, "head_stereo_left"),
        tmp_path / validation.video_path(10000, "head_stereo_right"),
    )
    reprobe(tmp_path, 10000, "head_stereo_right")
    assert validation.validate_run(tmp_path) == [
        "seed 10000: identical decoded streams: head_stereo_left, head_stereo_right"
    ]


def test_file_changed_after_probing_rejected(tmp_path):
    config = make_run(tmp_path)
    write_video(tmp_path / validation.video_path(10000, "wrist_left"), 3)  # another camera's content
    assert problems_mentioning(validation.validate_run(tmp_path), "wrist_left", "sha256 mismatch")
    assert problems_mentioning(validation.revalidate_videos(tmp_path, config), "wrist_left", "decoded_sha256")


def test_missing_and_extra_outcomes_named_by_seed(tmp_path):
    make_run(tmp_path, seeds=(10000, 10001, 10002), record_video=False)
    (tmp_path / "summaries" / "episode_10001.json").unlink()
    extra = {**json.loads((tmp_path / "summaries" / "episode_10000.json").read_text()), "seed": 10999}
    write_json_atomic(tmp_path / "summaries" / "episode_10999.json", extra)
    problems = validation.validate_run(tmp_path)
    assert "missing outcomes for 1 seed: 10001" in problems
    assert "outcomes for 1 seed outside the configured list: 10999" in problems


def test_compact_seed_list():
    assert validation.compact_seeds([10090, 10004, 10017]) == "10004, 10017, 10090"
    assert validation.compact_seeds(list(range(10000, 10050)) + [10077]) == "10000-10049, 10077"


@pytest.mark.parametrize("damage", ["truncate", "corrupt", "text", "empty"])
def test_damaged_file_raises_one_line_video_error(tmp_path, damage):
    path = tmp_path / "v.mp4"
    write_video(path, 0)
    data = path.read_bytes()
    if damage == "truncate":
        data = data[: len(data) // 2]
    elif damage == "corrupt":
        body = bytearray(data)
        for i in range(2000, len(body) - 2000, 50):
            body[i] ^= 0xFF
        data = bytes(body)
    else:
        data = b"not a video\n" if damage == "text" else b""
    path.write_bytes(data)
    with pytest.raises(VideoError) as err:
        probe_video(path)
    assert str(path) in str(err.value) and "\n" not in str(err.value)


def test_run_without_video_needs_none(tmp_path):
    make_run(tmp_path, seeds=(10000, 10001), record_video=False)
    assert validation.validate_run(tmp_path) == []


def test_timeout_must_end_at_max_steps(tmp_path):
    make_run(tmp_path, record_video=False)
    timeout = {"success": False, "terminated": False, "truncated": True, "outcome": "timeout"}
    edit_summary(tmp_path, 10000, **timeout)
    assert problems_mentioning(validation.validate_run(tmp_path), "timeout at step 10", "expected step 20")
    edit_summary(tmp_path, 10000, step=MAX_STEPS)
    assert problems_mentioning(validation.validate_run(tmp_path), "10 lines for 20 steps")
    write_metrics(tmp_path, 10000, MAX_STEPS, ending="timeout")
    assert validation.validate_run(tmp_path) == []


def test_inconsistent_outcome_rejected(tmp_path):
    make_run(tmp_path, record_video=False)
    edit_summary(tmp_path, 10000, terminated=False)
    assert problems_mentioning(validation.validate_run(tmp_path), "inconsistent outcome")
    edit_summary(tmp_path, 10000, terminated=True, step=0)
    assert problems_mentioning(validation.validate_run(tmp_path), "step 0 outside 1..20")


def test_problems_name_the_episode_to_redo(tmp_path):
    """An episode is blamed for its own unreadable or invalid summary and its files; a missing summary blames none."""
    make_run(tmp_path, seeds=(10000, 10001, 10002, 10003), record_video=False)
    (tmp_path / "summaries" / "episode_10000.json").write_text('{"seed": 100')
    (tmp_path / "metrics" / "episode_10001.jsonl").unlink()
    (tmp_path / "summaries" / "episode_10002.json").unlink()
    edit_summary(tmp_path, 10003, step="ten")
    check = validation.check_run(tmp_path)
    assert check.run == ["missing outcomes for 2 seeds: 10000, 10002"]
    assert sorted(check.episodes) == [10000, 10001, 10003]
    assert check.episodes[10000][0].startswith("summaries/episode_10000.json: unreadable")
    assert check.episodes[10001] == ["seed 10001: metrics/episode_10001.jsonl missing"]
    assert check.episodes[10003][0].startswith("seed 10003: summaries/episode_10003.json: not a valid EpisodeSummary")
    assert validation.validate_run(tmp_path) == check.problems


def test_a_summary_that_disagrees_with_its_metrics_file_is_named(tmp_path):
    make_run(tmp_path, record_video=False)
    write_metrics(tmp_path, 10000, STEP, ending="timeout")  # the file says the episode ran out of time
    assert problems_mentioning(validation.validate_run(tmp_path), "seed 10000: summaries/episode_10000.json says success True",
                               "metrics/episode_10000.jsonl gives False")
    write_metrics(tmp_path, 10000, STEP)
    edit_summary(tmp_path, 10000, ever_true={"touched": True})
    assert validation.validate_run(tmp_path) == [
        "seed 10000: summaries/episode_10000.json says ever_true other values than metrics/episode_10000.jsonl"]
