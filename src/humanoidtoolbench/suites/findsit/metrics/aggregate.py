"""A run's paper numbers over its episodes: success over all of them, the rest over the completed ones."""

from __future__ import annotations

from collections.abc import Sequence
from statistics import fmean

from .definitions import GROUPS, INTERACT_CATEGORIES
from .files import RunRecords
from .schema import (
    BodySceneSummary,
    CostSummary,
    Counts,
    EpisodeMetrics,
    GroupPercent,
    MetricsSummary,
    QualitySummary,
    Success,
    SuccessPercent,
)

_SUCCESS_KEYS = ("find_sr", "geo_find_sr", "nav_sr_20cm", "geo_nav_sr_20cm", "nav_sr_1m")
_INTERACT_KEYS = ("interact_sr", "geo_interact_sr")


def _percent(rows: Sequence[Success | None], key: str) -> float | None:
    return 100.0 * sum(bool(r and getattr(r, key)) for r in rows) / len(rows) if rows else None


def _mean(values: Sequence[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return fmean(kept) if kept else None


def summarize(run: RunRecords) -> MetricsSummary:
    """The run's paper numbers: success over all episodes (a crash is a failure), the rest over completed ones."""
    complete = [r for r in run.records if isinstance(r, EpisodeMetrics)]
    success: list[Success | None] = [r.success if isinstance(r, EpisodeMetrics) else None for r in run.records]
    interact = [
        s
        for r, s in zip(run.records, success)
        if (s.is_interact_episode if s else r.episode.object_category in INTERACT_CATEGORIES)
    ]
    physical = [r.body_scene for r in complete if r.body_scene.physical_metrics_eligible]
    costs = [r.cost for r in complete]
    steps = sum(c.decision_steps for c in costs)
    mapped = sum(b.mapped_affected_dynamic_object_count for b in physical)

    def collision_percent(get) -> float | None:
        return 100.0 * fmean(get(b) for b in physical) if physical else None

    return MetricsSummary(
        counts=Counts(
            episodes=len(run.records),
            interact_episodes=len(interact),
            physical_metric_episodes=len(physical),
            initial_penetration_excluded=sum(b.initial_penetration_excluded for b in physical),
            initial_penetration_detected=sum(b.initial_penetration_detected for b in physical),
            crashed_episodes=len(run.records) - len(complete),
            duplicate_episodes=run.duplicates,
        ),
        high_level_success_percent=SuccessPercent(
            **{k: _percent(success, k) for k in _SUCCESS_KEYS}, **{k: _percent(interact, k) for k in _INTERACT_KEYS}
        ),
        body_scene=BodySceneSummary(
            collision_step_percent=collision_percent(lambda b: b.collision_step_fraction),
            collision_by_body_group_percent=GroupPercent(
                **{g: collision_percent(lambda b, g=g: getattr(b.by_body_group_step_fraction, g)) for g in GROUPS}
            ),
            disturbed_objects_per_episode=_mean([b.affected_dynamic_object_count for b in physical]),
            disturbed_object_path_length_mean_m=(
                sum(b.affected_object_path_length_sum_m for b in physical) / mapped if mapped else None
            ),
        ),
        action_quality=QualitySummary(motion_jerk_m_s3=_mean([r.action_quality.motion_jerk_m_s3 for r in complete])),
        cost=CostSummary(
            average_steps=_mean([c.decision_steps for c in costs]),
            input_tokens_per_step=sum(c.input_tokens for c in costs) / steps if steps else None,
            visible_output_tokens_per_step=sum(c.visible_output_tokens for c in costs) / steps if steps else None,
            token_sources=tuple(sorted({c.token_source for c in costs})),
            planner_fallbacks=sum(c.planner_fallbacks for c in costs),
            verifier_fallbacks=sum(c.verifier_fallbacks for c in costs),
            retries=sum(c.retries for c in costs),
            invalid_actions=sum(c.invalid_actions for c in costs),
        ),
        notes=run.notes,
    )
