"""Reuse a validated result, or continue an interrupted run, when nothing that matters changed.

A result is reused only when its settings and its fingerprint (policy
identity, source digest, asset manifest, runtime versions, dependency lock)
equal the current ones and the chain from its figures down to its episodes'
files still holds (`integrity`); the newest such result wins. A policy without a checkpoint identifier is
never reused or continued: nothing would prove it is the same policy.
"""

from __future__ import annotations

from pathlib import Path

from .integrity import changed_anchors, verify
from .provenance import fingerprint_differences
from .rundir import CONFIG, RESULT, RunDir
from .settings import EvalSettings
from .validation import RunCheck


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
) -> tuple[RunDir | None, RunCheck | None, list[str]]:
    """(run, damage, reasons): the newest finished run of these settings and fingerprint (None if there is none),
    what no longer matches in it (no problems: reuse it), and why the newest validated result of other settings
    or fingerprint cannot be reused.

    A run is finished once it has a `benchmark_result.json`, readable or not.
    Before it is reused the whole chain is checked (`integrity.verify`): the
    result parses, is sealed and its figures are its episodes', every summary
    matches the hash the result recorded and every episode file the hash its
    summary recorded. What does not is damage, each line naming its file,
    which the caller redoes in that run rather than trusting or silently
    abandoning it.
    """
    if not fingerprint["policy"].get("checkpoint"):
        return None, None, ["the policy has no checkpoint identifier, so an earlier result cannot be matched to it"]
    reasons: list[str] = []
    for run in RunDir.all_runs(output, settings.condition.name):
        if not run.result_path.exists():
            continue
        config = run.read_json(CONFIG)
        diff = _differences(config, settings, fingerprint) + [
            f"{name} changed after its result was written" for name in changed_anchors(run.path)]
        if not diff:
            return run, verify(run.path, config), []
        if not reasons and (run.read_json(RESULT) or {}).get("status") == "validated":
            reasons = diff
    return None, None, reasons


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
