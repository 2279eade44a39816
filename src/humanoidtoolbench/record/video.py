"""H.264 MP4 writing with PyAV: one stream per camera, 50 frames/s, written atomically.

Frames go to `<name>.partial` and the file is renamed on `close`, so a crash
never leaves a truncated video under its final name. x264 runs on one
thread, which makes the bytes a deterministic function of the frames.
"""

from __future__ import annotations

import os
from fractions import Fraction
from pathlib import Path

import av
import numpy as np

FPS = 50
CODEC = "libx264"
PIX_FMT = "yuv420p"
X264_OPTIONS = {"crf": "23", "preset": "veryfast"}


class VideoWriter:
    def __init__(self, path: str | os.PathLike, width: int, height: int, fps: int = FPS) -> None:
        self.path = Path(path)
        self._partial = self.path.with_name(self.path.name + ".partial")
        self._container = av.open(str(self._partial), mode="w", format="mp4")
        self._stream = self._container.add_stream(CODEC, rate=fps)
        self._stream.width = width
        self._stream.height = height
        self._stream.pix_fmt = PIX_FMT
        self._stream.time_base = Fraction(1, fps)
        self._stream.options = dict(X264_OPTIONS)
        self._stream.codec_context.thread_count = 1
        self.frames = 0

    def write(self, rgb: np.ndarray) -> None:
        frame = av.VideoFrame.from_ndarray(np.ascontiguousarray(rgb), format="rgb24")
        frame.pts = self.frames
        self._container.mux(self._stream.encode(frame))
        self.frames += 1

    def close(self) -> Path:
        """Flush, close and move the file to its final name."""
        if self._container is not None:
            self._container.mux(self._stream.encode(None))
            self._container.close()
            self._container = None
            os.replace(self._partial, self.path)
        return self.path

    def abort(self) -> None:
        """Drop the partial file (used when an episode fails)."""
        if self._container is not None:
            self._container.close()
            self._container = None
        self._partial.unlink(missing_ok=True)
