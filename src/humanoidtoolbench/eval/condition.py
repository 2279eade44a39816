"""Evaluate one condition: reuse, resume or start a run; run the missing episodes; validate; score.

The score (`benchmark_result.json`) is written only after every episode's
outcome and videos pass validation.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path

from ..robot import assets
from . import provenance
from .episode_runner import run_episode
from .progress import ProgressReporter
from .result import build_result
from .resume import resumable_run, reusable_result
from .rundir import POLICY_INFO, RunDir
from .settings import EvalSettings
from .validation import ValidationError, validate_run

log = logging.getLogger("humanoidtoolbench.eval")


@dataclass(frozen=True)
class ConditionOutcome:
    run: RunDir
    result: dict
    reused: bool


def policy_identity(policy_info: dict) -> dict:
    """The parts of the policy info that decide whether an earlier result is the same policy's."""
    return {k: policy_info.get(k) for k in ("policy", "checkpoint", "adapter_sha256", "transport", "privileged")}


def condition_fingerprint(settings: EvalSettings, policy_info: dict) -> dict:
    manifest = assets.installed().manifest_sha256(settings.visual_detail)
    return provenance.fingerprint(policy_identity(policy_info), manifest)


class _RunLog:
    """Route the evaluator's log records (policy tracebacks included) into the run's log file."""

    def __init__(self, run: RunDir) -> None:
        self.handler = logging.FileHandler(run.log_path, encoding="utf-8")
        self.handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))

    def __enter__(self):
        log.addHandler(self.handler)
        log.setLevel(logging.INFO)
        return self

    def __exit__(self, *exc):
        log.removeHandler(self.handler)
        self.handler.close()


def evaluate_condition(
    settings: EvalSettings,
    policy,
    output: Path,
    progress: ProgressReporter,
    rerun: bool = False,
    label: str | None = None,
) -> ConditionOutcome:
    label = label or settings.condition.name
    fingerprint = condition_fingerprint(settings, policy.info)
    if not rerun:
        run, reasons = reusable_result(output, settings, fingerprint)
        if run is not None:
            progress.message(f"{label}: reusing validated result {run.result_path}")
            return ConditionOutcome(run, run.read_json("benchmark_result.json"), reused=True)
        if reasons:
            progress.message(f"{label}: evaluating again because " + "; ".join(reasons))

    run = None if rerun else resumable_run(output, settings, fingerprint)
    if run is None:
        run = RunDir.create(output, settings.condition.name)
        run.write_json("evaluation_config.json", {**settings.config(), "fingerprint": fingerprint, "policy_info": policy.info})
        run.write_json(POLICY_INFO, policy.info)
    else:
        progress.message(f"{label}: continuing interrupted run {run.path}")

    started = time.perf_counter()
    with _RunLog(run):
        log.info("condition %s, run %s", settings.condition.name, run.path)
        done = run.completed_seeds() & set(settings.seeds)
        summaries = {seed: run.read_summary(seed) for seed in done}
        progress.start_condition(label, len(settings.seeds), len(done), sum(s["success"] for s in summaries.values()), settings.max_steps)
        try:
            for seed in settings.seeds:
                if seed in done:
                    continue
                progress.episode_started(seed)
                summary = run_episode(settings, policy, seed, run, on_step=progress.step)
                summaries[seed] = summary
                log.info("seed %d: %s after %d steps", seed, summary["outcome"], summary["step"])
                progress.episode_finished(seed, summary["success"], summary["step"], summary["episode_seconds"])
        finally:
            progress.end_condition()
        problems = validate_run(run.path)
        if problems:
            for p in problems:
                log.error("validation: %s", p)
            raise ValidationError(problems)
        result = build_result(
            settings, run.path, policy.info, fingerprint, list(summaries.values()), time.perf_counter() - started
        )
        run.write_json("benchmark_result.json", result)
        log.info("validated: %d/%d successes", result["successes"], result["episodes"])
    return ConditionOutcome(run, result, reused=False)
