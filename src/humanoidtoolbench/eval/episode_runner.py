"""One recorded episode: the policy loop, the per-step metrics file, the four videos, the summary.

The policy sees the head image, the 32-value state and the instruction each
time its previous chunk is used up; every row of a chunk is one 50 Hz
command. Frame 0 of each video is the settled scene before the first
command, so a video has `steps + 1` frames. The summary is written last: its
presence marks the episode complete.
"""

from __future__ import annotations

import json
import os
import time
from collections import deque

import numpy as np

from ..control import make_controller
from ..policies.errors import PolicyError
from ..record.files import write_json_atomic
from ..record.video import BackgroundEncoder, VideoWriter
from ..robot.cameras import HEIGHT, POLICY_CAMERA, WIDTH
from ..sim.render import CameraRenderer, backend_info
from ..tasks.episode import TaskEpisode
from .policy_source import failed_call
from .rundir import RunDir
from .settings import EvalSettings
from .validation import validate_episode_videos

SCHEMA_VERSION = 1
EPISODE_SEED_KEY = "humanoidtoolbench_episode_seed"
REQUEST_INDEX_KEY = "humanoidtoolbench_request_index"


class MetricTracker:
    """ever_true / first_true_step for flags, min / max for numbers, over an episode."""

    def __init__(self) -> None:
        self.ever_true: dict[str, bool] = {}
        self.first_true_step: dict[str, int | None] = {}
        self.numeric_min: dict[str, float] = {}
        self.numeric_max: dict[str, float] = {}

    def update(self, values: dict, step: int) -> None:
        for name, v in values.items():
            if isinstance(v, (bool, np.bool_)):
                if name not in self.ever_true:
                    self.ever_true[name], self.first_true_step[name] = False, None
                if v and not self.ever_true[name]:
                    self.ever_true[name], self.first_true_step[name] = True, step
            else:
                self.numeric_min[name] = min(self.numeric_min.get(name, v), v)
                self.numeric_max[name] = max(self.numeric_max.get(name, v), v)


def _jsonable(values: dict) -> dict:
    return {k: (bool(v) if isinstance(v, (bool, np.bool_)) else float(v) if isinstance(v, float) else int(v)) for k, v in values.items()}


# The public protocol names the policy's image by its camera with an `rgb_` prefix.
IMAGE_KEY = f"rgb_{POLICY_CAMERA}"


def build_request(image: np.ndarray, state: np.ndarray, instruction: str, reset: bool) -> dict:
    """The public request: exactly the fields a policy written for the protocol expects."""
    return {
        "image": {IMAGE_KEY: image},
        "state": {"states": state.reshape(1, -1).astype(np.float32)},
        "instruction": instruction,
        # No image history is kept; like the original client, one empty list per image key.
        "history": {IMAGE_KEY: [], "reset": reset},
    }


def run_episode(settings: EvalSettings, policy, seed: int, run: RunDir, on_step=None) -> dict:
    """Run, record and validate one episode; returns its summary (also written to disk)."""
    started = time.perf_counter()
    cond = settings.condition
    episode = TaskEpisode(cond, seed, controller=make_controller(settings.controller), detail=settings.visual_detail)
    episode.reset()
    run.discard_episode(seed)
    writers: dict[str, VideoWriter] = {}
    metrics_path = run.metrics(seed)
    metrics_path.parent.mkdir(parents=True, exist_ok=True)
    partial_metrics = metrics_path.with_name(metrics_path.name + ".partial")
    tracker = MetricTracker()
    timings = {"policy": 0.0, "render": 0.0, "encode": 0.0, "physics": 0.0, "probe": 0.0}
    success, step = False, 0
    chunk_lengths: set[int] = set()
    encoder = None
    with CameraRenderer(episode.model, settings.cameras) as cams, open(partial_metrics, "w") as lines:
        try:
            if settings.record_video:
                encoder = BackgroundEncoder()
                run.videos(seed).mkdir(parents=True, exist_ok=True)
                writers = {c: VideoWriter(run.videos(seed) / f"{c}.mp4", WIDTH, HEIGHT) for c in settings.cameras}
            head = _record_frame(cams, episode, writers, encoder, timings)
            queue: deque = deque()
            requests = 0
            for step in range(1, settings.max_steps + 1):
                if not queue:
                    if head is None:
                        t = time.perf_counter()
                        head = cams.render(episode.data, POLICY_CAMERA)
                        timings["render"] += time.perf_counter() - t
                    request = build_request(head, episode.state(), cond.instruction, reset=requests == 0)
                    if getattr(policy, "transport", "") == "in-process":
                        request[EPISODE_SEED_KEY] = seed
                        request[REQUEST_INDEX_KEY] = requests
                        if policy.privileged:
                            request["privileged"] = episode.privileged()
                    t = time.perf_counter()
                    try:
                        chunk = policy.act(request)
                    except PolicyError as exc:
                        raise failed_call(exc, cond.name, seed, step, requests, run.log_path) from None
                    timings["policy"] += time.perf_counter() - t
                    requests += 1
                    chunk_lengths.add(len(chunk))
                    queue.extend(chunk)
                    episode.previous_height = float(chunk[-1, 31])
                t = time.perf_counter()
                result = episode.step(queue.popleft())
                timings["physics"] += time.perf_counter() - t
                success = result.success
                truncated = not success and step == settings.max_steps
                values = _jsonable(result.metrics)
                tracker.update(values, step)
                lines.write(
                    json.dumps(
                        {
                            "schema_version": SCHEMA_VERSION,
                            "episode": seed,
                            "step": step,
                            "reward": float(success),
                            "terminated": success,
                            "truncated": truncated,
                            "metrics": values,
                        },
                        allow_nan=False,
                    )
                    + "\n"
                )
                head = _record_frame(cams, episode, writers, encoder, timings)
                if on_step is not None:
                    on_step(step)
                if success:
                    break
        except BaseException:
            if encoder is not None:
                encoder.abort(writers.values())
            raise
        if encoder is not None:
            encoder.close(writers.values())
            timings["encode"] = encoder.seconds
    os.replace(partial_metrics, metrics_path)
    t = time.perf_counter()
    videos = validate_episode_videos(run.path, settings.config(), seed, step) if writers else []
    timings["probe"] = time.perf_counter() - t
    summary = {
        "schema_version": SCHEMA_VERSION,
        "env_id": cond.env_id,
        "seed": seed,
        "instruction": cond.instruction,
        "step": step,
        "success": success,
        "terminated": success,
        "truncated": not success,
        "outcome": "success" if success else "timeout",
        "episode_seconds": round(time.perf_counter() - started, 3),
        "settle_steps": episode.settle_steps,
        "policy_requests": requests,
        "chunk_lengths": sorted(chunk_lengths),
        "renderer": backend_info().get("renderer"),
        "seconds": {k: round(v, 3) for k, v in timings.items()},
        "final_metrics": values,
        "ever_true": tracker.ever_true,
        "first_true_step": tracker.first_true_step,
        "numeric_min": tracker.numeric_min,
        "numeric_max": tracker.numeric_max,
        "videos": videos,
    }
    write_json_atomic(run.summary(seed), summary)
    return summary


def _record_frame(cams: CameraRenderer, episode: TaskEpisode, writers: dict, encoder, timings: dict) -> np.ndarray | None:
    """Render every recorded camera once and queue the frames for encoding; returns the head image.

    Each render returns a new array, so the encoder owns its frame and the
    policy gets its own copy of the head image.
    """
    if not writers:
        return None
    head = None
    for cam, writer in writers.items():
        t = time.perf_counter()
        image = cams.render(episode.data, cam)
        timings["render"] += time.perf_counter() - t
        if cam == POLICY_CAMERA:
            head = image.copy()
        encoder.submit(writer, image)
    return head
