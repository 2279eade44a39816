"""Facts about a written video, established by decoding every frame once.

Validation trusts what decoding shows, not what the writer meant to write:
codec, size, rate, frame count, timestamps, whether anything but black was
drawn, and two hashes that tie the facts to the file bytes and to the
decoded pictures. Decoding is single-threaded and aborts on any bitstream
error or frame the decoder flags as corrupt, since FFmpeg otherwise conceals
damage and returns plausible frames.

The pictures are hashed as the decoder returns them (the planes of their
pixel format, rows without padding): converting every frame to RGB and
hashing twice the bytes cost more than decoding. Frames are converted to RGB
only until one pixel reaches 255, which settles the black check.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import asdict, dataclass, fields
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
from av.video.reformatter import VideoReformatter

from ..digest import file_sha256


class VideoError(ValueError):
    """A video that cannot be opened or decoded; the message is one line naming the file."""


@dataclass(frozen=True)
class VideoFacts:
    codec: str
    width: int
    height: int
    fps: float
    frames: int
    sha256: str  # of the file bytes
    decoded_sha256: str  # over all decoded pictures, in order, in the stream's pixel format
    max_pixel: int  # over all frames and channels; <= 1 means black
    pts_ok: bool  # frame i is presented at i / fps

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, obj: dict) -> "VideoFacts":
        """Inverse of `to_json`, ignoring other keys; KeyError names a missing field."""
        return cls(**{f.name: obj[f.name] for f in fields(cls)})


def probe_video(path: str | os.PathLike) -> VideoFacts:
    path = Path(path)
    try:
        return _probe(path)
    except VideoError:
        raise
    except (av.FFmpegError, OSError, ValueError) as exc:  # ValueError: a pixel format NumPy cannot hold
        reason = getattr(exc, "strerror", None) or str(exc)
        raise VideoError(" ".join(f"{path}: cannot decode video: {reason}".splitlines())) from None


def _probe(path: Path) -> VideoFacts:
    digest = file_sha256(path)
    with av.open(str(path)) as container:
        if not container.streams.video:
            raise VideoError(f"{path}: no video stream")
        stream = container.streams.video[0]
        stream.thread_type = "NONE"
        stream.codec_context.thread_count = 1
        stream.codec_context.options = {"err_detect": "explode"}
        rate = stream.average_rate or Fraction(0)
        pixels = hashlib.sha256()
        max_pixel, frames, pts_ok = 0, 0, rate > 0
        # One converter for the whole stream: `to_ndarray(format=...)` builds a new one per
        # frame, which cost three times the decoding itself. The pixels are the same.
        to_rgb = VideoReformatter()
        for frame in container.decode(stream):
            if frame.is_corrupt:  # CABAC damage is concealed without a bitstream error, only flagged
                raise VideoError(f"{path}: frame {frames} is corrupt")
            pixels.update(np.ascontiguousarray(frame.to_ndarray()))  # the planes without row padding
            if max_pixel < 255:  # once saturated the maximum cannot change
                max_pixel = max(max_pixel, int(to_rgb.reformat(frame, format="rgb24").to_ndarray().max()))
            pts_ok = pts_ok and frame.pts is not None and frame.pts * stream.time_base * rate == frames
            frames += 1
        if frames == 0:
            raise VideoError(f"{path}: no frames decoded")
        if stream.frames and stream.frames != frames:
            raise VideoError(f"{path}: decoded {frames} frames but the container lists {stream.frames}")
        return VideoFacts(
            codec=stream.codec_context.name,
            width=stream.codec_context.width,
            height=stream.codec_context.height,
            fps=float(rate),
            frames=frames,
            sha256=digest,
            decoded_sha256=pixels.hexdigest(),
            max_pixel=max_pixel,
            pts_ok=bool(pts_ok),
        )
