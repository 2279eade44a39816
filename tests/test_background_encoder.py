"""Encoding off the simulation thread: the same bytes, and failures reach the caller."""

from __future__ import annotations

import time

import numpy as np
import pytest

from humanoidtoolbench.record.video import BackgroundEncoder, VideoWriter
from humanoidtoolbench.robot.cameras import HEIGHT, WIDTH

pytestmark = pytest.mark.no_robot  # builds no simulation: runs offline, with no robot asset


def frames(n: int = 12) -> list[np.ndarray]:
    """Frames at the cameras' size: x264's output for tiny frames (64 x 36) can depend on
    uninitialised heap memory, so a process that ran other work first encodes them differently."""
    rng = np.random.default_rng(3)
    return [rng.integers(0, 256, (HEIGHT, WIDTH, 3), dtype=np.uint8) for _ in range(n)]


def test_background_encoding_writes_the_same_bytes(tmp_path):
    direct = VideoWriter(tmp_path / "direct.mp4", WIDTH, HEIGHT)
    for f in frames():
        direct.write(f)
    direct.close()
    writers = [VideoWriter(tmp_path / f"bg{k}.mp4", WIDTH, HEIGHT) for k in range(2)]
    encoder = BackgroundEncoder(depth=2)
    for f in frames():
        for w in writers:
            encoder.submit(w, f)
    encoder.close(writers)
    assert encoder.seconds > 0
    for k in range(2):
        assert (tmp_path / f"bg{k}.mp4").read_bytes() == (tmp_path / "direct.mp4").read_bytes()


class Failing:
    def __init__(self) -> None:
        self.aborted = False

    def write(self, rgb) -> None:
        raise OSError("disk full")

    def close(self) -> None:
        raise AssertionError("a failed writer must not be closed")

    def abort(self) -> None:
        self.aborted = True


def test_an_encoder_failure_is_raised_by_close_which_aborts_the_writers():
    writer, encoder = Failing(), BackgroundEncoder(depth=4)
    encoder.submit(writer, frames(1)[0])
    with pytest.raises(OSError, match="disk full"):
        encoder.close([writer])
    assert writer.aborted


def test_after_an_encoder_failure_a_later_submit_raises_it():
    writer, encoder = Failing(), BackgroundEncoder(depth=4)
    frame = frames(1)[0]
    with pytest.raises(OSError, match="disk full"):
        for _ in range(1000):  # close() is never reached: the error must come from submit()
            encoder.submit(writer, frame)
            time.sleep(0.001)
    encoder.abort([writer])
    assert writer.aborted


def _scene(n: int) -> list[np.ndarray]:
    """A smooth, slowly panning scene with a moving block: what a camera of a standing robot sees."""
    y, x = np.mgrid[0:HEIGHT, 0:WIDTH]
    out = []
    for k in range(n):
        img = np.stack([(x + 2 * k) % 256, (y + x // 3) % 256, (128 + 60 * np.sin((x + k) / 40.0))], -1)
        img[100:160, 50 + 3 * k:110 + 3 * k] = (200, 40, 40)
        out.append(img.astype(np.uint8))
    return out


def test_the_recorders_videos_are_near_veryfast_crf_23_in_size(tmp_path):
    import av

    scene = _scene(100)
    mine = VideoWriter(tmp_path / "mine.mp4", WIDTH, HEIGHT)
    for f in scene:
        mine.write(f)
    size = mine.close().stat().st_size
    with av.open(str(tmp_path / "old.mp4"), mode="w", format="mp4") as container:  # the size the disk was sized for
        stream = container.add_stream("libx264", rate=50)
        stream.width, stream.height, stream.pix_fmt = WIDTH, HEIGHT, "yuv420p"
        stream.options = {"crf": "23", "preset": "veryfast"}
        stream.thread_count = 1
        for f in scene:
            container.mux(stream.encode(av.VideoFrame.from_ndarray(f, format="rgb24")))
        container.mux(stream.encode())
    assert size < 1.5 * (tmp_path / "old.mp4").stat().st_size
