"""Reuse a validated result, or continue an interrupted run, when nothing that matters changed.

A result is reused only when its settings and its fingerprint (policy
identity, source digest, asset manifest, runtime versions, dependency lock)
equal the current ones; the newest such result wins. A policy without a
checkpoint identifier is never reused or continued: nothing would prove it
is the same policy.
"""

from __future__ import annotations

from pathlib import Path

from .provenance import fingerprint_differences
from .rundir import RESULT, RunDir
from .settings import EvalSettings


def settings_differences(old: dict, new: dict) -> list[str]:
    return [f"setting {k} changed: {old.get(k)!r} -> {new.get(k)!r}" for k in sorted(new) if old.get(k) != new.get(k)]


def _differences(config: dict | None, settings: EvalSettings, fingerprint: dict) -> list[str]:
    if not config:
        return ["no readable configuration"]
    return settings_differences(config, settings.config().to_json()) + fingerprint_differences(
        config.get("fingerprint", {}), fingerprint
    )


def reusable_result(output: Path, settings: EvalSettings, fingerprint: dict) -> tuple[RunDir | None, list[str]]:
    """(run to reuse, None) or (None, reasons the newest validated result cannot be reused)."""
    if not fingerprint["policy"].get("checkpoint"):
        return None, ["the policy has no checkpoint identifier, so an earlier result cannot be matched to it"]
    reasons: list[str] = []
    for run in RunDir.all_runs(output, settings.condition.name):
        result = run.read_json(RESULT)
        if not result or result.get("status") != "validated":
            continue
        diff = _differences(run.read_json("evaluation_config.json"), settings, fingerprint)
        if not diff:
            return run, []
        reasons = reasons or diff
    return None, reasons


def resumable_run(output: Path, settings: EvalSettings, fingerprint: dict) -> RunDir | None:
    """The newest unfinished run of the same settings and fingerprint, to complete."""
    if not fingerprint["policy"].get("checkpoint"):
        return None
    for run in RunDir.all_runs(output, settings.condition.name):
        if run.result_path.exists():
            continue
        if not _differences(run.read_json("evaluation_config.json"), settings, fingerprint):
            return run
    return None
