"""Reuse a validated result, or continue an interrupted run, when nothing that matters changed.

A result is reused only when its settings and its fingerprint (policy
identity, source digest, asset manifest, runtime versions, dependency lock)
equal the current ones and its files still match what validation recorded;
the newest such result wins. A policy without a checkpoint identifier is
never reused or continued: nothing would prove it is the same policy.
"""

from __future__ import annotations

from pathlib import Path

from ..record import records
from ..record.records import BenchmarkResult, RecordError
from .provenance import fingerprint_differences
from .rundir import CONFIG, RESULT, RunDir
from .settings import EvalSettings
from .validation import validate_run


def settings_differences(old: dict, new: dict) -> list[str]:
    return [f"setting {k} changed: {old.get(k)!r} -> {new.get(k)!r}" for k in sorted(new) if old.get(k) != new.get(k)]


def _differences(config: dict | None, settings: EvalSettings, fingerprint: dict) -> list[str]:
    if not config:
        return ["no readable configuration"]
    return settings_differences(config, settings.config().to_json()) + fingerprint_differences(
        config.get("fingerprint", {}), fingerprint
    )


def reusable_result(
    output: Path, settings: EvalSettings, fingerprint: dict
) -> tuple[RunDir | None, list[str], list[str]]:
    """(run, damage, reasons): the newest finished run of these settings and fingerprint (None if there is none),
    what no longer matches in it (empty: reuse it), and why the newest validated result of other settings or
    fingerprint cannot be reused.

    A run is finished once it has a `benchmark_result.json`, readable or not.
    Before it is reused its result must parse as a validated one and every
    file must still match what validation recorded (`validate_run`): a file
    deleted or changed since is one line of damage, which the caller redoes
    in that run rather than trusting or silently abandoning it.
    """
    if not fingerprint["policy"].get("checkpoint"):
        return None, [], ["the policy has no checkpoint identifier, so an earlier result cannot be matched to it"]
    reasons: list[str] = []
    for run in RunDir.all_runs(output, settings.condition.name):
        if not run.result_path.exists():
            continue
        config = run.read_json(CONFIG)
        diff = _differences(config, settings, fingerprint)
        if not diff:
            return run, _damage(run, config), []
        if not reasons and (run.read_json(RESULT) or {}).get("status") == "validated":
            reasons = diff
    return None, [], reasons


def _damage(run: RunDir, config: dict) -> list[str]:
    """What no longer matches in a finished run: its result, then its episodes' files."""
    try:
        result = records.read(run.result_path, BenchmarkResult, RESULT)
        problems = [] if result.status == "validated" else [f"{RESULT}: status {result.status!r}, not 'validated'"]
    except RecordError as exc:
        problems = [str(exc)]
    return problems + validate_run(run.path, config)


def resumable_run(output: Path, settings: EvalSettings, fingerprint: dict) -> RunDir | None:
    """The newest unfinished run of the same settings and fingerprint, to complete."""
    if not fingerprint["policy"].get("checkpoint"):
        return None
    for run in RunDir.all_runs(output, settings.condition.name):
        if run.result_path.exists():
            continue
        if not _differences(run.read_json(CONFIG), settings, fingerprint):
            return run
    return None
