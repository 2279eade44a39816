"""Evaluate one condition: reuse, resume or start a run; run the missing episodes; validate; score.

The score (`benchmark_result.json`) is written only after every episode's
outcome and videos pass validation. One evaluator writes a run directory at a
time (`RunDir.lock`); a run it continues or repairs is checked first, and an
episode whose files fail the checks is discarded and run again.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path

import msgspec

from ..record import records
from ..record.files import remove_temporaries
from ..record.records import BenchmarkResult, EpisodeSummary, RunConfig
from ..robot import assets
from . import provenance
from .backends import LocalBackend, WorkerLost
from .identity import policy_identity, policy_label
from .integrity import verify
from .progress import ProgressReporter
from .result import build_result
from .resume import resumable_run, reusable_result
from .rundir import CONFIG, LOGGER, POLICY_INFO, RunDir, RunLock, RunLocked, RunLog
from .settings import EvalSettings
from .validation import RunCheck, ValidationError, check_run, compact_seeds, summarize_problems, validate_run

log = logging.getLogger(LOGGER)


class RunFailed(RuntimeError):
    """A run that failed as runs can (a worker lost, episodes failing validation): one line naming the
    run's log, where the details and the traceback are."""

    def __init__(self, message: str, log_path: Path) -> None:
        super().__init__(f"{message} (details in {log_path})")


@dataclass(frozen=True)
class ConditionOutcome:
    run: RunDir
    result: BenchmarkResult
    reused: bool


def condition_fingerprint(settings: EvalSettings, policy_info: dict) -> dict:
    manifest = assets.installed().manifest_sha256(settings.visual_detail, settings.robot_variant)
    return provenance.fingerprint(policy_identity(policy_info), manifest, settings.suite)


def evaluate_condition(
    settings: EvalSettings,
    policy,
    output: Path,
    progress: ProgressReporter,
    rerun: bool = False,
    label: str | None = None,
    backend=None,
) -> ConditionOutcome:
    """`backend` runs the missing episodes (default: one at a time in this process, with `policy`)."""
    label = label or settings.condition.name
    backend = backend or LocalBackend(policy)
    fingerprint = condition_fingerprint(settings, policy.info)
    run, damage = None, None
    if not rerun:
        run, damage, reasons = reusable_result(output, settings, fingerprint)
        if run is not None and not damage.problems:
            progress.message(f"{label}: reusing validated result {run.result_path}")
            return ConditionOutcome(run, records.read(run.result_path, BenchmarkResult), reused=True)
        if reasons:
            progress.message(f"{label}: evaluating again because " + "; ".join(reasons))
        run = run or resumable_run(output, settings, fingerprint)

    run, lock, fresh = _claim(run, settings, output, fingerprint, policy.info, label, progress)
    started = time.perf_counter()
    with lock, RunLog(run):
        log.info("condition %s, run %s", settings.condition.name, run.path)
        if not fresh:
            _remove_temporaries(run)
            if _set_aside_strays(run, settings, label, progress) and damage is not None:
                damage = verify(run.path)
                if not damage.problems:  # the stray file was all that was wrong: the result stands
                    progress.message(f"{label}: reusing validated result {run.result_path}")
                    return ConditionOutcome(run, records.read(run.result_path, BenchmarkResult), reused=True)
            if damage is None:
                progress.message(f"{label}: continuing interrupted run {run.path}")
            _restore_policy_info(run, policy.info, label, progress)
            _repair(run, settings, damage, label, progress)
        done = run.completed_seeds() & set(settings.seeds)
        summaries = {seed: run.read_summary(seed) for seed in done}
        missing = [seed for seed in settings.seeds if seed not in done]
        execution = backend.execution(settings.episodes)
        progress.start_condition(label, len(settings.seeds), len(done), sum(s.success for s in summaries.values()),
                                 settings.max_steps, steps=execution["workers"] == 1)

        def finished(summary: EpisodeSummary) -> None:
            summaries[summary.seed] = summary
            log.info("seed %d: %s after %d steps", summary.seed, summary.outcome, summary.step)
            progress.episode_finished(summary.seed, summary.outcome, summary.step, summary.episode_seconds)

        try:
            backend.run(settings, run, missing, progress, finished)
        except WorkerLost as exc:
            log.error("%s", exc, exc_info=True)
            raise RunFailed(str(exc), run.log_path) from None
        finally:
            progress.end_condition()
        problems = validate_run(run.path)
        if problems:
            for p in problems:
                log.error("validation: %s", p)
            raise RunFailed(str(ValidationError(problems)), run.log_path)
        result = build_result(
            settings, run.path, policy.info, fingerprint, list(summaries.values()), time.perf_counter() - started,
            backend.execution(settings.episodes),
        )
        run.write_json("benchmark_result.json", result.to_json())
        log.info("validated: %d/%d successes", result.successes, result.episodes)
    return ConditionOutcome(run, result, reused=False)


def _claim(run, settings, output, fingerprint, policy_info, label, progress) -> tuple[RunDir, RunLock, bool]:
    """(run, its lock, whether it is new): `run` unless another evaluator holds it, else a new one."""
    if run is not None:
        try:
            return run, run.lock(), False
        except RunLocked as exc:
            progress.message(f"{label}: {exc}; starting a new run")
    run = RunDir.create(output, settings.condition.name)
    lock = run.lock()  # before the configuration, which is what makes the run resumable by others
    protocol = settings.suite.protocol
    label = policy_label(policy_info, settings.controller, protocol.controller, settings.look, protocol.look)
    config = RunConfig(**msgspec.structs.asdict(settings.config()), fingerprint=fingerprint, policy_info=policy_info,
                       policy_label=label)
    run.write_json(CONFIG, config.to_json())
    run.write_json(POLICY_INFO, policy_info)
    return run, lock, True


def _remove_temporaries(run: RunDir) -> None:
    """Remove the temporary files of writes a killed evaluator or worker left in the run: they are no part of
    it, and holding its lock, this evaluator is the only writer."""
    for path in remove_temporaries(run.path):
        log.info("removed %s, left by a write that was killed before its rename", path.relative_to(run.path))


def _set_aside_strays(run: RunDir, settings: EvalSettings, label: str, progress: ProgressReporter) -> bool:
    """Rename summaries of no configured seed out of the run (`RunDir.set_aside_strays`): an extra file
    must not cost a valid result, nor fail the run's validation on every rerun."""
    moved = run.set_aside_strays(settings.seeds)
    for path, target in moved:
        log.warning("stray summary %s set aside as %s", path, target.name)
    if moved:
        names = ", ".join(f"{p.name} -> {t.name}" for p, t in moved[:3]) + (f" and {len(moved) - 3} more" if len(moved) > 3 else "")
        progress.message(f"{label}: set aside stray summaries in {run.path / 'summaries'} naming no configured seed: {names}")
    return bool(moved)


def _restore_policy_info(run: RunDir, policy_info: dict, label: str, progress: ProgressReporter) -> None:
    """Write `policy_info.json` again where a run was killed between its configuration and it: the result
    hashes it, so without it the run could never be finished. Its configuration holds the same info."""
    if (run.path / POLICY_INFO).is_file():
        return
    config = run.read_json(CONFIG) or {}
    run.write_json(POLICY_INFO, config.get("policy_info") or policy_info)
    progress.message(f"{label}: {run.path / POLICY_INFO} was missing; written again from {CONFIG}")


def _repair(run: RunDir, settings: EvalSettings, damage: RunCheck | None, label: str,
            progress: ProgressReporter) -> None:
    """Discard what failed its checks in a run this evaluator holds, so that the missing seeds redo it.

    `damage`: what no longer matches in a finished run (`integrity.verify`), whose result goes first,
    with the episodes it names (their files, or summaries the result no longer matches); an
    unfinished run is checked here, and only a damaged episode is news.
    """
    if damage is not None:
        run.result_path.unlink(missing_ok=True)  # no result may stand for files about to change
        damaged = damage.episodes
    else:
        damaged = check_run(run.path).episodes
    for seed in damaged:
        run.forget_episode(seed)
    problems = damage.problems if damage is not None else [p for seed in sorted(damaged) for p in damaged[seed]]
    if not problems:
        return
    for p in problems:
        log.warning("damaged: %s", p)
    redo = sorted(set(settings.seeds) - run.completed_seeds())
    what = f"validated result {run.result_path} cannot be reused" if damage is not None else f"run {run.path} has damaged episodes"
    todo = f"redoing {_seeds(redo)} in that run" if redo else "validating that run again"
    progress.message(f"{label}: {what}: {summarize_problems(problems)}; {todo}")


def _seeds(seeds: list[int]) -> str:
    return ("seed " if len(seeds) == 1 else "seeds ") + compact_seeds(seeds)
