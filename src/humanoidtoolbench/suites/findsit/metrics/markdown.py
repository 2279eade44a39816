"""A run's summary as the paper prints it: three one-row Markdown tables under a line of counts."""

from __future__ import annotations

from collections.abc import Sequence

from .schema import MetricsSummary


def _cell(value: float | None, digits: int, suffix: str = "") -> str:
    return "--" if value is None else f"{value:.{digits}f}{suffix}"


def _table(cells: Sequence[tuple[str, str]]) -> str:
    heads, values = zip(*cells)
    return "\n".join(
        ("| " + " | ".join(heads) + " |", "|" + "|".join("---:" for _ in heads) + "|", "| " + " | ".join(values) + " |")
    )


def format_summary(summary: MetricsSummary) -> str:
    """The paper's three one-row Markdown tables under a line of counts; `--` where a value is missing."""
    n, s, b, c = summary.counts, summary.high_level_success_percent, summary.body_scene, summary.cost
    g = b.collision_by_body_group_percent
    lines = [
        "Find-navigate-sit paper metrics",
        f"Episodes: {n.episodes} | Interact: {n.interact_episodes} | Physical: {n.physical_metric_episodes}"
        f" | Initial-penetration excluded: {n.initial_penetration_excluded}"
        f" | Crashed: {n.crashed_episodes} | Duplicates: {n.duplicate_episodes}",
        "",
        "Main",
        _table(
            [
                ("FindSR", _cell(s.find_sr, 1, "%")),
                ("NavSR@20cm", _cell(s.nav_sr_20cm, 1, "%")),
                ("InteractSR", _cell(s.interact_sr, 1, "%")),
                ("Coll.", _cell(b.collision_step_percent, 1, "%")),
                ("#Dtb/ep", _cell(b.disturbed_objects_per_episode, 2)),
                ("dDtb(m)", _cell(b.disturbed_object_path_length_mean_m, 2)),
                ("Motion Jerk", _cell(summary.action_quality.motion_jerk_m_s3, 2)),
                ("avg steps", _cell(c.average_steps, 1)),
                ("in tok/step", _cell(c.input_tokens_per_step, 0)),
                ("out tok/step", _cell(c.visible_output_tokens_per_step, 0)),
            ]
        ),
        "",
        "Variants",
        _table(
            [
                ("GeoFindSR", _cell(s.geo_find_sr, 1, "%")),
                ("GeoNavSR@20cm", _cell(s.geo_nav_sr_20cm, 1, "%")),
                ("NavSR@1m", _cell(s.nav_sr_1m, 1, "%")),
                ("GeoInteractSR", _cell(s.geo_interact_sr, 1, "%")),
            ]
        ),
        "",
        "Collision by body group",
        _table(
            [
                ("Arm/Hand", _cell(g.hand_arm, 1, "%")),
                ("Torso", _cell(g.torso, 1, "%")),
                ("Leg/Foot", _cell(g.leg, 1, "%")),
                ("Head", _cell(g.head, 1, "%")),
            ]
        ),
        "",
        f"Token source: {', '.join(c.token_sources) or '--'}",
        f"Planner fallbacks: {c.planner_fallbacks} | Verifier fallbacks: {c.verifier_fallbacks}"
        f" | Retries: {c.retries} | Invalid actions: {c.invalid_actions}",
    ]
    if summary.notes:
        lines += ["", "Notes", *(f"- {note}" for note in summary.notes)]
    return "\n".join(lines)
