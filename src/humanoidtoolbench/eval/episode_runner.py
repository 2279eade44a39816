"""One recorded episode of any suite: the policy loop, the per-step sinks, the videos, the summary.

The policy sees the suite's request (head image, contract state,
instruction) each time its previous chunk is used up; the rollout
(`suites/rollout.py`) validates each chunk, hands it to the episode and
executes its rows, one 50 Hz command each. The episode ends on the step a
suite's termination fires (success, a fall, or the suite's own), else at
the step budget. The summary is written last: its presence marks the
episode complete.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np

from ..control.contracts.base import ActionError
from ..digest import file_sha256
from ..policies.errors import PolicyCallError, PolicyError
from ..policies.reply import EPISODE_SEED_KEY, REQUEST_INDEX_KEY
from ..record.files import write_json_atomic
from ..record.recorder import MetricsSink, PolicyCallSink, StepArraysSink, StepRecord, VideoRecorder
from ..record.records import EpisodeSummary, PolicyCall, VideoEntry, convert
from ..sim.render import CameraRenderer, backend_info
from ..suites.base import FELL, SUCCESS, TIMEOUT
from ..suites.rollout import Rollout
from .derive import MetricTracker
from .rundir import LOGGER, RunDir
from .settings import EvalSettings
from .validation import validate_episode_videos


log = logging.getLogger(LOGGER)


def failed_call(exc: PolicyError, condition: str, seed: int, step: int, request: int, log_path) -> PolicyCallError:
    """`exc` with where it happened, to raise; logged with its traceback to the run log."""
    error = PolicyCallError(condition, seed, step, request, str(exc), str(log_path))
    log.error("%s", error.failure, exc_info=exc)
    return error


def _jsonable(values: dict) -> dict:
    return {k: (bool(v) if isinstance(v, (bool, np.bool_)) else float(v) if isinstance(v, float) else int(v)) for k, v in values.items()}


def _file_entry(run: RunDir, path: Path) -> tuple[str, dict]:
    return path.relative_to(run.path).as_posix(), {"size": path.stat().st_size, "sha256": file_sha256(path)}


def run_episode(settings: EvalSettings, policy, seed: int, run: RunDir, on_step=None) -> EpisodeSummary:
    """Run, record and validate one episode; returns its summary (also written to disk)."""
    started = time.perf_counter()
    suite, cond = settings.suite, settings.condition
    contract = suite.action_contract(settings.controller)
    cams_spec = suite.cameras
    episode = suite.make_episode(cond, seed, suite.make_controller(settings.controller), settings.visual_detail,
                                 look=settings.look, **settings.options)
    episode.paper_metrics = settings.paper_metrics
    episode.reset()
    run.discard_episode(seed)
    tracker = MetricTracker()
    rollout = Rollout(episode, contract)
    timings = {"policy": 0.0, "render": 0.0, "encode": 0.0, "physics": 0.0, "probe": 0.0}
    outcome, step = None, 0
    chunk_lengths: set[int] = set()
    sinks = [MetricsSink(run.metrics(seed), seed), StepArraysSink(run.steps(seed)), PolicyCallSink(run.policy_calls(seed))]
    sinks += suite.sinks(episode, run.path, seed)
    video = None
    with CameraRenderer(episode.model, settings.cameras, cams_spec.width, cams_spec.height) as cams:
        try:
            if settings.record_video:
                video = VideoRecorder(run.videos(seed), settings.cameras, cams_spec.policy_camera, cams_spec.width, cams_spec.height)
            head = video.frame(cams, episode.data, timings) if video else None
            for step in range(1, settings.max_steps + 1):
                state = episode.state()  # before a chunk arrives: at a request, the request's own state
                if rollout.needs_request:
                    requests = rollout.requests
                    if head is None:
                        t = time.perf_counter()
                        head = cams.render(episode.data, cams_spec.policy_camera)
                        timings["render"] += time.perf_counter() - t
                    request = suite.build_request(episode, head, reset=requests == 0)
                    if getattr(policy, "transport", "") == "in-process":
                        request[EPISODE_SEED_KEY] = seed
                        request[REQUEST_INDEX_KEY] = requests
                        if policy.privileged:
                            request["privileged"] = episode.privileged()
                    t = time.perf_counter()
                    try:
                        reply = policy.act(request)
                    except PolicyError as exc:
                        raise failed_call(exc, cond.name, seed, step, requests, run.log_path) from None
                    seconds = time.perf_counter() - t
                    try:
                        chunk = rollout.accept(reply.action, reply.metadata)
                    except ActionError as exc:
                        raise failed_call(PolicyError(f"Policy {exc}"), cond.name, seed, step, requests, run.log_path) from None
                    timings["policy"] += seconds
                    call = PolicyCall(request=requests, step=step, rows=len(chunk), seconds=round(seconds, 6), metadata=reply.metadata)
                    for sink in sinks:
                        sink.policy_call(call)
                    chunk_lengths.add(len(chunk))
                t = time.perf_counter()
                row, result = rollout.step()
                timings["physics"] += time.perf_counter() - t
                outcome = result.outcome
                values = _jsonable(result.metrics)
                tracker.update(values, step)
                record = StepRecord(
                    step, row, state, result, values,
                    terminated=outcome is not None,
                    truncated=outcome is None and step == settings.max_steps,
                )
                for sink in sinks:
                    sink.step(record)
                head = video.frame(cams, episode.data, timings) if video else None
                if on_step is not None:
                    on_step(step)
                if outcome is not None:
                    break
        except BaseException:
            if video is not None:
                video.abort()
            for sink in sinks:
                sink.abort()
            raise
        if video is not None:
            timings["encode"] = video.close()
    files = dict(_file_entry(run, path) for sink in sinks for path in sink.close())
    t = time.perf_counter()
    config = settings.config().to_json()
    videos = [convert(v, VideoEntry) for v in validate_episode_videos(run.path, config, seed, step)] if video else []
    timings["probe"] = time.perf_counter() - t
    outcome = outcome or TIMEOUT
    summary = EpisodeSummary(
        env_id=cond.env_id,
        seed=seed,
        instruction=cond.instruction,
        step=step,
        success=outcome == SUCCESS,
        terminated=outcome != TIMEOUT,
        truncated=outcome == TIMEOUT,
        outcome=outcome,
        episode_seconds=round(time.perf_counter() - started, 3),
        settle_steps=episode.settle_steps,
        policy_requests=rollout.requests,
        chunk_lengths=sorted(chunk_lengths),
        renderer=backend_info().get("renderer"),
        seconds={k: round(v, 3) for k, v in timings.items()},
        final_metrics=values,
        ever_true=tracker.ever_true,
        first_true_step=tracker.first_true_step,
        numeric_min=tracker.numeric_min,
        numeric_max=tracker.numeric_max,
        videos=videos,
        files=files,
        fell=outcome == FELL,
        fall_step=step if outcome == FELL else None,
    )
    write_json_atomic(run.summary(seed), summary.to_json())
    return summary
