"""The Recorder seam: per-step sinks that write everything an episode did into the run directory.

Each sink (`Sink`) receives every step (`StepRecord`: the command row
executed, the policy state just before it, at a request the one the policy was
sent; the step's metrics and ending) and every policy call (with the reply's
own metadata), and writes its file under a `.partial` name or at close, so a
crash leaves no complete-looking file. `close` returns the run-relative files
written; the summary records their sizes and SHA-256. The evaluator's own
sinks are below; a suite adds its own (`Suite.sinks`: Fiatlux's bags,
find-navigate-sit's paper metrics). Offline scoring and dataset export read
these files instead of re-running.

    metrics/episode_<seed>.jsonl          one MetricsLine per step
    steps/episode_<seed>/action.npy       (T, action_dim) float64, the rows executed
    steps/episode_<seed>/state.npy        (T, state_dim) float32, the state before each row, as a
                                          request at that step reads it (at a request, its own)
    policy/episode_<seed>.jsonl           one PolicyCall per request
"""

from __future__ import annotations

import io
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from msgspec import to_builtins

from .files import write_bytes_atomic
from .records import MetricsLine, PolicyCall
from .video import BackgroundEncoder, VideoWriter


@dataclass(frozen=True)
class StepRecord:
    step: int
    action: np.ndarray
    state: np.ndarray
    result: Any  # the suite's StepResult
    metrics: dict  # JSON-ready values of result.metrics
    terminated: bool
    truncated: bool


class Sink:
    """One per-step output of an episode; methods a sink does not need stay no-ops."""

    def step(self, record: StepRecord) -> None:
        pass

    def policy_call(self, call) -> None:
        pass

    def close(self) -> list[Path]:
        """Finish the files; returns their paths."""
        return []

    def abort(self) -> None:
        """Drop partial files after a failure."""


class _LinesSink(Sink):
    """A JSON-lines file written under `.partial` and renamed when complete."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.partial = path.with_name(path.name + ".partial")
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(self.partial, "w")

    def write(self, line: str) -> None:
        self._file.write(line)

    def close(self) -> list[Path]:
        self._file.close()
        os.replace(self.partial, self.path)
        return [self.path]

    def abort(self) -> None:
        self._file.close()
        self.partial.unlink(missing_ok=True)


class MetricsSink(_LinesSink):
    def __init__(self, path: Path, seed: int) -> None:
        super().__init__(path)
        self.seed = seed

    def step(self, record: StepRecord) -> None:
        line = MetricsLine(
            episode=self.seed,
            step=record.step,
            reward=float(record.result.success),
            terminated=record.terminated,
            truncated=record.truncated,
            metrics=record.metrics,
        )
        self.write(line.encode())


class PolicyCallSink(_LinesSink):
    def policy_call(self, call: PolicyCall) -> None:
        self.write(json.dumps(to_builtins(call), allow_nan=False) + "\n")


class StepArraysSink(Sink):
    """Actions and states as .npy files (their bytes depend on the values only)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.actions: list[np.ndarray] = []
        self.states: list[np.ndarray] = []

    def step(self, record: StepRecord) -> None:
        self.actions.append(np.asarray(record.action, dtype=np.float64))
        self.states.append(np.asarray(record.state, dtype=np.float32))

    def close(self) -> list[Path]:
        written = []
        for name, rows in (("action", self.actions), ("state", self.states)):
            buf = io.BytesIO()
            np.save(buf, np.stack(rows))
            written.append(write_bytes_atomic(self.folder / f"{name}.npy", buf.getvalue()))
        return written


class VideoRecorder:
    """Every recorded camera once per step, encoded on one background thread.

    Frame 0 is the settled scene before the first command, so a video has
    `steps + 1` frames. Each render returns a new array, so the encoder owns
    its frame and the policy gets its own copy of the head image.
    """

    def __init__(self, folder: Path, cameras: tuple[str, ...], policy_camera: str, width: int, height: int) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.policy_camera = policy_camera
        self.encoder = BackgroundEncoder()
        self.writers = {c: VideoWriter(folder / f"{c}.mp4", width, height) for c in cameras}

    def frame(self, renderer, data, timings: dict) -> np.ndarray:
        head = None
        for cam, writer in self.writers.items():
            t = time.perf_counter()
            image = renderer.render(data, cam)
            timings["render"] += time.perf_counter() - t
            if cam == self.policy_camera:
                head = image.copy()
            self.encoder.submit(writer, image)
        return head

    def close(self) -> float:
        """Finish every file; returns the encoder's CPU seconds."""
        self.encoder.close(self.writers.values())
        return self.encoder.seconds

    def abort(self) -> None:
        self.encoder.abort(self.writers.values())
