"""What encoding and probing a recorded step's videos cost, by x264 setting.

    python benchmarks/video_cost.py [--steps 150] [--condition G1BallMove-L0-S]

Renders the four cameras of a tool-use episode in the protocol's look for
`--steps` control steps of benchmarks/run.py's stand / walk / turn cycle,
keeps the frames, then encodes each camera's frames in memory with every
setting of `SETTINGS` as the recorder does (PyAV, libx264, yuv420p, one
thread) and prints, per recorded step (four frames): the encoder's CPU
milliseconds, the KiB written and the PSNR of the decoded RGB frames against
the rendered ones. Then it writes the recorder's own setting to files and
times `record.probe.probe_video` on them, and decoding alone for reference.
CPU time of this thread, so other processes' load barely moves the figures.
Human-readable lines first; the last line is one JSON object.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import humanoidtoolbench  # noqa: F401  (headless GL before MuJoCo loads)
import av
import numpy as np

from humanoidtoolbench import suites
from humanoidtoolbench.record import video
from humanoidtoolbench.record.probe import probe_video
from humanoidtoolbench.sim.render import CameraRenderer

sys.path.insert(0, str(Path(__file__).parent))
from run import DEFAULT_ENV, toolbench_cycle

# (preset, crf): the recorder's setting before (veryfast, 23) and the candidates around the one it uses.
SETTINGS = (("veryfast", 23), ("superfast", 23), ("superfast", 26), ("ultrafast", 23), ("ultrafast", 25),
            ("ultrafast", 27), ("ultrafast", 28), ("ultrafast", 27, "cabac=1:bframes=3"),
            ("ultrafast", 27, "cabac=1:bframes=3:rc-lookahead=10:mbtree=1"),
            ("ultrafast", 27, "cabac=1:rc-lookahead=10:mbtree=1"),
            ("ultrafast", 27, "bframes=3:rc-lookahead=10:mbtree=1"),
            ("ultrafast", 26, "cabac=1:bframes=3:rc-lookahead=5:mbtree=1"),
            ("ultrafast", 24, "cabac=1:bframes=3:rc-lookahead=5:mbtree=1"),
            ("ultrafast", 23, "cabac=1:bframes=3:rc-lookahead=5:mbtree=1"))


def render_frames(condition: str, steps: int) -> dict[str, list[np.ndarray]]:
    cond = suites.parse(condition)
    suite = suites.suite_of(cond)
    ep = suite.make_episode(cond, suite.protocol.seed_start, suite.make_controller(suite.protocol.controller),
                            suite.protocol.visual_detail, look=suite.protocol.look)
    ep.reset()
    rows = [row for chunk in toolbench_cycle(ep) for row in chunk]
    frames: dict[str, list[np.ndarray]] = {}
    with CameraRenderer(ep.model) as cams:
        for step in range(steps + 1):
            for cam, image in cams.render_all(ep.data).items():
                frames.setdefault(cam, []).append(image)
            if step < steps:
                ep.step(rows[step % len(rows)])
    return frames


def encode(frames: list[np.ndarray], options: dict) -> tuple[bytes, float]:
    """The MP4 bytes and the CPU seconds of encoding (conversion to YUV included), as `VideoWriter` encodes."""
    height, width = frames[0].shape[:2]
    buf = io.BytesIO()
    container = av.open(buf, mode="w", format="mp4")
    stream = container.add_stream(video.CODEC, rate=video.FPS)
    stream.width, stream.height, stream.pix_fmt = width, height, video.PIX_FMT
    stream.time_base = Fraction(1, video.FPS)
    stream.options = dict(options)
    stream.codec_context.thread_count = 1
    started = time.thread_time()
    for i, rgb in enumerate(frames):
        frame = av.VideoFrame.from_ndarray(rgb, format="rgb24")
        frame.pts = i
        container.mux(stream.encode(frame))
    container.mux(stream.encode(None))
    seconds = time.thread_time() - started
    container.close()
    return buf.getvalue(), seconds


def psnr(frames: list[np.ndarray], data: bytes) -> float:
    squared, count = 0.0, 0
    with av.open(io.BytesIO(data)) as container:
        for rgb, frame in zip(frames, container.decode(video=0)):
            squared += float(((frame.to_ndarray(format="rgb24").astype(np.int32) - rgb) ** 2).sum())
            count += rgb.size
    return 10 * np.log10(255**2 / (squared / count))


def decode_only(path: Path) -> None:
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        stream.thread_type = "NONE"
        stream.codec_context.thread_count = 1
        for _ in container.decode(stream):
            pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=150, help="recorded control steps (default 150)")
    parser.add_argument("--condition", default=DEFAULT_ENV, help="a tool-use condition (default %(default)s)")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}; {args.condition}, {args.steps} steps, four cameras")
    frames = render_frames(args.condition, args.steps)
    n = args.steps + 1
    rows = []
    for preset, crf, *params in SETTINGS:
        options = {"crf": str(crf), "preset": preset, **({"x264-params": params[0]} if params else {})}
        cpu = size = 0.0
        quality = []
        for cam_frames in frames.values():
            data, seconds = encode(cam_frames, options)
            cpu, size = cpu + seconds, size + len(data)
            quality.append(psnr(cam_frames, data))
        used = options == video.X264_OPTIONS
        rows.append({"preset": preset, "crf": crf, "x264_params": params[0] if params else None, "encode_cpu_ms_per_step": round(1e3 * cpu / n, 2),
                     "kib_per_step": round(size / 1024 / n, 1), "psnr_db": round(float(np.mean(quality)), 2), "recorder": used})
        r = rows[-1]
        print(f"  {preset:9s} crf {crf}{' ' + params[0] if params else ''}: encoding {r['encode_cpu_ms_per_step']:5.2f} ms CPU, {r['kib_per_step']:5.1f} KiB, "
              f"PSNR {r['psnr_db']:.2f} dB per recorded step{'  <- the recorder' if used else ''}")
    with tempfile.TemporaryDirectory(prefix="htb-video-") as folder:
        paths = []
        for cam, cam_frames in frames.items():
            path = Path(folder) / f"{cam}.mp4"
            path.write_bytes(encode(cam_frames, video.X264_OPTIONS)[0])
            paths.append(path)
        started = time.thread_time()
        for path in paths:
            probe_video(path)
        probe = time.thread_time() - started
        started = time.thread_time()
        for path in paths:
            decode_only(path)
        decode = time.thread_time() - started
    print(f"probe (record.probe.probe_video) of the recorder's four videos: {1e3 * probe / n:.2f} ms CPU per recorded step "
          f"(decoding alone {1e3 * decode / n:.2f})")
    print(json.dumps({"condition": args.condition, "steps": args.steps, "load_average": round(os.getloadavg()[0], 2),
                      "settings": rows, "probe_cpu_ms_per_step": round(1e3 * probe / n, 2),
                      "decode_cpu_ms_per_step": round(1e3 * decode / n, 2)}))


if __name__ == "__main__":
    main()
