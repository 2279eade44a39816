"""H.264 MP4 writing with PyAV: one stream per camera, 50 frames/s, written atomically.

Frames go to `<name>.partial` and the file is renamed on `close`, so a crash
never leaves a truncated video under its final name. x264 runs on one
thread, which makes the bytes a deterministic function of the frames.
`BackgroundEncoder` moves the encoding off the simulation thread without
changing a byte: one thread, frames in submission order.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from fractions import Fraction
from pathlib import Path

import av
import numpy as np

FPS = 50
CODEC = "libx264"
PIX_FMT = "yuv420p"
# x264's fastest preset, with CABAC, three B-frames and a five-frame macroblock tree back on: on the tool-use
# cameras 2.6 KiB per recorded step against 7.5 for plain ultrafast crf 27 and 2.3 for veryfast crf 23, for
# the encoder CPU of plain ultrafast (4.9 ms; veryfast 9.2) at PSNR 36.5 dB (veryfast 37.2) (benchmarks/video_cost.py).
X264_OPTIONS = {"crf": "24", "preset": "ultrafast", "x264-params": "cabac=1:bframes=3:rc-lookahead=5:mbtree=1"}


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


class BackgroundEncoder:
    """Encode frames for several writers on one background thread, in submission order.

    PyAV releases the GIL inside x264, so physics and rendering go on while a
    frame is encoded; the bounded queue caps the frames held in memory. A
    submitted frame must not be modified afterwards. An error on the encoder
    thread is raised by the next `submit` or by `close`.
    """

    def __init__(self, depth: int = 16) -> None:
        self._queue: queue.Queue = queue.Queue(maxsize=depth)
        self._error: BaseException | None = None
        self.seconds = 0.0  # CPU time spent encoding (the thread's, so waiting for a core is not counted)
        self._thread = threading.Thread(target=self._run, name="video-encoder", daemon=True)
        self._thread.start()

    def submit(self, writer: VideoWriter, rgb: np.ndarray) -> None:
        if self._error is not None:
            raise self._error
        self._queue.put((writer, rgb))

    def _run(self) -> None:
        while (item := self._queue.get()) is not None:
            if self._error is not None:
                continue  # drain after a failure; `submit` or `close` reports it
            writer, rgb = item
            started = time.thread_time()
            try:
                writer.write(rgb)
            except BaseException as exc:  # handed to the simulation thread
                self._error = exc
            self.seconds += time.thread_time() - started

    def close(self, writers) -> None:
        """Encode what is queued, then flush and close `writers` (aborting them on failure)."""
        self._stop()
        started = time.thread_time()
        try:
            if self._error is not None:
                raise self._error
            for w in writers:
                w.close()
        except BaseException:
            self.abort(writers)
            raise
        finally:
            self.seconds += time.thread_time() - started

    def abort(self, writers) -> None:
        """Stop encoding and drop the writers' partial files."""
        self._stop()
        for w in writers:
            w.abort()

    def _stop(self) -> None:
        if self._thread.is_alive():
            self._queue.put(None)
            self._thread.join()
