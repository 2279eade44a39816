"""The records written: one episode's metrics.json (complete or crashed) and a run's metrics_summary.json.

Typed rows (msgspec structs) with their schema names, so that a record is
written and read back the same way wherever it goes.
"""

from __future__ import annotations

from typing import Any

import msgspec

from .definitions import FIXED_CONTACT_MIN_HEIGHT_M, INITIAL_PENETRATION_M

SCHEMA = "humanoidtoolbench_findsit_metrics_v1"
SUMMARY_SCHEMA = "humanoidtoolbench_findsit_metrics_summary_v1"
SCHEMA_VERSION = 1


class _Record(msgspec.Struct, frozen=True):
    def to_json(self) -> dict[str, Any]:
        return msgspec.to_builtins(self)


class EpisodeKey(_Record):
    episode_id: str
    scene_id: str
    object_category: str
    rollout_index: int = 0


class Success(_Record):
    find_sr: bool
    geo_find_sr: bool
    max_target_pixel_count: int
    find_pixel_threshold: int
    nav_sr_20cm: bool
    geo_nav_sr_20cm: bool
    nav_sr_1m: bool
    final_body_target_aabb_distance_m: float
    active_stop: bool
    is_interact_episode: bool
    interact_sr: bool
    geo_interact_sr: bool
    n_sit: int


class BodyGroups(_Record):
    hand_arm: float
    torso: float
    leg: float
    head: float


class AffectedObject(_Record):
    name: str
    source: str  # "direct" (touched by the robot) or "indirect" (pushed by an affected object)
    first_affected_step: int
    first_affected_frame: int
    path_length_m: float | None  # None: no trajectory recorded (counted in #Dtb, not in dDtb)


class BodyScene(_Record, kw_only=True):
    physical_metrics_eligible: bool = True  # every episode counts; penetration is a diagnostic
    initial_penetration_depth_m: float
    initial_penetration_threshold_m: float = INITIAL_PENETRATION_M
    initial_penetration_detected: bool
    initial_penetration_excluded: bool = False
    episode_floor_z: float
    episode_floor_source: str  # "spawn_raycast" or "robot_min_z_fallback"
    collision_contact_source: str = "post_physics_frames"
    collision_step_fraction: float
    collision_steps: int
    motion_steps: int
    fixed_contact_min_height_m: float = FIXED_CONTACT_MIN_HEIGHT_M
    by_body_group_step_fraction: BodyGroups
    affected_dynamic_object_count: int
    direct_dynamic_object_count: int
    indirect_dynamic_object_count: int
    mapped_affected_dynamic_object_count: int
    affected_object_path_length_sum_m: float
    affected_object_path_length_mean_m: float | None
    affected_dynamic_objects: tuple[AffectedObject, ...] = ()


class ActionQuality(_Record):
    motion_jerk_m_s3: float | None


class Cost(_Record):
    decision_steps: int  # the final Stop included
    vlm_calls: int  # every attempt
    retries: int  # attempts after the first of a stage
    token_source: str  # one of TOKEN_SOURCES
    input_tokens: int
    visible_output_tokens: int
    reasoning_tokens: int
    input_tokens_per_step: float
    visible_output_tokens_per_step: float
    invalid_actions: int  # answers outside the vocabulary, executed as Stop
    unsupported_actions: int  # climbs, executed as a no-motion step
    planner_fallbacks: int  # five failed planner attempts: Walk<forward><slow>
    verifier_fallbacks: int  # five failed verifier attempts: the proposal accepted


class EpisodeMetrics(_Record, kw_only=True, tag_field="status", tag="complete"):
    schema: str = SCHEMA
    schema_version: int = SCHEMA_VERSION
    profile: str
    planner: str
    episode: EpisodeKey
    success: Success
    body_scene: BodyScene
    action_quality: ActionQuality
    cost: Cost


class CrashedEpisode(_Record, kw_only=True, tag_field="status", tag="crashed"):
    """An episode that raised: a failure on every success metric, never a missing row."""

    schema: str = SCHEMA
    schema_version: int = SCHEMA_VERSION
    profile: str
    planner: str
    episode: EpisodeKey
    note: str  # one line: why it crashed


EpisodeRecord = EpisodeMetrics | CrashedEpisode


class Counts(_Record):
    episodes: int  # unique episodes, crashed ones included
    interact_episodes: int
    physical_metric_episodes: int
    initial_penetration_excluded: int
    initial_penetration_detected: int
    crashed_episodes: int
    duplicate_episodes: int  # episodes found in more than one file, each counted once


class SuccessPercent(_Record):
    find_sr: float | None
    geo_find_sr: float | None
    nav_sr_20cm: float | None
    geo_nav_sr_20cm: float | None
    nav_sr_1m: float | None
    interact_sr: float | None  # over interact episodes
    geo_interact_sr: float | None


class GroupPercent(_Record):
    hand_arm: float | None
    torso: float | None
    leg: float | None
    head: float | None


class BodySceneSummary(_Record):
    collision_step_percent: float | None
    collision_by_body_group_percent: GroupPercent
    disturbed_objects_per_episode: float | None
    disturbed_object_path_length_mean_m: float | None  # pooled over objects, not a mean of episode means


class QualitySummary(_Record):
    motion_jerk_m_s3: float | None


class CostSummary(_Record, kw_only=True):
    average_steps: float | None
    input_tokens_per_step: float | None  # pooled: total tokens / total decision steps
    visible_output_tokens_per_step: float | None
    token_sources: tuple[str, ...]
    # Totals over the completed episodes: how often the planner's model did not answer usably.
    planner_fallbacks: int = 0
    verifier_fallbacks: int = 0
    retries: int = 0
    invalid_actions: int = 0


class MetricsSummary(_Record, kw_only=True):
    schema: str = SUMMARY_SCHEMA
    schema_version: int = SCHEMA_VERSION
    counts: Counts
    high_level_success_percent: SuccessPercent
    body_scene: BodySceneSummary
    action_quality: QualitySummary
    cost: CostSummary
    notes: tuple[str, ...] = ()  # crashed and duplicate episodes, one line each
