"""The video probe: what it reads from a written file, beyond the checks of test_validation."""

from __future__ import annotations

import numpy as np
import pytest

from humanoidtoolbench.record.probe import probe_video
from humanoidtoolbench.record.video import VideoWriter

pytestmark = pytest.mark.no_robot  # builds no simulation: runs offline, with no robot asset

W, H = 64, 48


def write(path, images) -> None:
    writer = VideoWriter(path, W, H)
    for img in images:
        writer.write(img)
    writer.close()


def shade(level: int) -> np.ndarray:
    return np.full((H, W, 3), level, np.uint8)


def test_black_check_reads_past_black_frames(tmp_path):
    """Frames are converted to RGB until one pixel saturates: a late bright frame still counts."""
    write(tmp_path / "late.mp4", [shade(0)] * 6 + [shade(255)])
    write(tmp_path / "dark.mp4", [shade(0)] * 6 + [shade(40)])
    late, dark = probe_video(tmp_path / "late.mp4"), probe_video(tmp_path / "dark.mp4")
    assert late.frames == dark.frames == 7 and late.pts_ok
    assert late.max_pixel == 255
    assert 30 < dark.max_pixel < 50  # never saturated: every frame was read


def test_decoded_hash_covers_every_frame_and_repeats(tmp_path):
    grey = [shade(10 * i) for i in range(8)]
    write(tmp_path / "a.mp4", grey)
    write(tmp_path / "b.mp4", grey)
    write(tmp_path / "c.mp4", grey[:-1] + [shade(200)])  # only the last frame differs
    a, b, c = (probe_video(tmp_path / f"{n}.mp4") for n in "abc")
    assert a.decoded_sha256 == b.decoded_sha256 and a.sha256 == b.sha256
    assert c.decoded_sha256 != a.decoded_sha256
