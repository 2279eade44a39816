"""benchmark_result.json: the score of a validated run, derived from its episodes, and everything that produced it, sealed."""

from __future__ import annotations

import datetime as _dt

from ..record.records import BenchmarkResult, EpisodeSummary, convert
from ..robot import assets
from ..sim.render import backend_info
from . import integrity, provenance
from .settings import EvalSettings


def policy_reasons(policy_info: dict) -> list[str]:
    """Why a policy's results cannot be reported, whatever the settings."""
    reasons = []
    if policy_info.get("diagnostic"):
        reasons.append(f"policy {policy_info.get('policy')!r} is a diagnostic example")
    if policy_info.get("privileged"):
        reasons.append("the policy read privileged simulator state")
    if not policy_info.get("checkpoint"):
        reasons.append("no checkpoint identifier (pass --checkpoint)")
    return reasons


def chunk_size(summaries: list[EpisodeSummary]) -> int | list[int] | None:
    sizes = sorted({n for s in summaries for n in s.chunk_lengths})
    return sizes[0] if len(sizes) == 1 else (sizes or None)


def build_result(
    settings: EvalSettings,
    run_path,
    policy_info: dict,
    fingerprint: dict,
    summaries: list[EpisodeSummary],
    wall_seconds: float,
    execution: dict | None = None,
) -> BenchmarkResult:
    """`execution`: how the episodes ran (backend, workers); recorded, never compared on resume."""
    summaries = sorted(summaries, key=lambda s: s.seed)
    derived = integrity.figures(settings.seeds, summaries)
    reasons = settings.diagnostic_reasons() + policy_reasons(policy_info)
    robot = assets.installed()
    hashes = provenance.source_hashes(settings.suite)
    config = settings.config()
    body = dict(
        protocol=config.protocol,
        status="validated",
        suite=config.suite,
        env_id=settings.condition.env_id,
        condition=settings.condition.name,
        configuration=config.to_json(),
        **derived,
        reportable=not reasons,
        reasons=reasons,
        policy_info={**policy_info, "chunk_size": chunk_size(summaries)},
        controller=settings.controller,
        look=settings.look,
        robot_variant=config.robot_variant,
        control_hz=config.control_hz,
        action_schema=config.action_schema,
        videos=[
            # Absolute, as the protocol has every path in this file; episode summaries keep them relative.
            {"path": str(run_path.resolve() / v.path), "frames": v.frames, "sha256": v.sha256, "decoded_sha256": v.decoded_sha256}
            for s in summaries
            for v in s.videos
        ],
        source_sha256=hashes,
        source_digest=provenance.source_digest(hashes),
        assets={
            "name": robot.record["name"],
            "upstream": robot.record["upstream"],
            "robot_variant": config.robot_variant,
            "visual_detail": settings.visual_detail,
            "manifest_sha256": robot.manifest_sha256(settings.visual_detail, config.robot_variant),
        },
        lock_sha256=provenance.lock_sha256(),
        code=provenance.code_info(),
        python=provenance.runtime_versions()["python"],
        versions=provenance.runtime_versions(),
        execution_environment=provenance.execution_environment(),
        render=backend_info(),
        execution={
            **(execution or {"backend": "local", "workers": 1}),
            "renderers": sorted({s.renderer for s in summaries if s.renderer}),
        },
        fingerprint=fingerprint,
        run_dir=str(run_path.resolve()),
        wall_seconds=round(wall_seconds, 3),
        episodes_per_second=round(len(summaries) / wall_seconds, 5) if wall_seconds > 0 else None,
        # Microseconds: which of two runs of one output finished last decides which one a report scores.
        finished_at=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="microseconds"),
        files=integrity.anchored_files(run_path, settings.seeds),
    )
    return convert(integrity.seal(BenchmarkResult(**body, record_sha256="").to_json()), BenchmarkResult)
