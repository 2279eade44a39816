"""The find-navigate-sit paper metrics: one episode from its recorded data, a run from its files.

The definitions are the published benchmark's (humanclaw-bench `docs/METRICS.md`),
computed from plain data the runner records, so this module needs neither
MuJoCo nor a language-model client and scores a run anywhere its files are:

- per decision (`DecisionRecord`): the executed skill, the planner's
  `visible_state`, the target's pixel count in the segmentation of the very
  image the planner saw, and the usage of every model call (retries included);
- per motion chunk (`Chunk`): the decision step that produced it, its skill and,
  for each post-physics frame, the robot's contacts (`RobotContact`) and the
  dynamic-dynamic object contacts;
- per episode (`EpisodeData`): the body points at termination, the target boxes
  and body names, the floor ray's hits, the reset contact distances, each
  dynamic object's position per frame and the commanded body points.

Our deliberate differences from the published code: the world is z-up
(`episode_floor_z`); a pelvis contact matches only the exact target bodies (the
original also accepted any instance of the same model); an episode that crashed
writes a `crashed` record that counts as a failure (the original wrote nothing,
so it left every denominator), and an episode found in two shards counts once
(the original counted it twice); the summary's notes name both.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from statistics import fmean
from typing import Any

import msgspec
import numpy as np

from ...record.files import write_json_atomic
from .actions import SIT, STAND

SCHEMA = "humanoidtoolbench_findsit_metrics_v1"
SUMMARY_SCHEMA = "humanoidtoolbench_findsit_metrics_summary_v1"
SCHEMA_VERSION = 1
METRICS_FILE = "metrics.json"
SUMMARY_FILE = "metrics_summary.json"

# Every number of the definitions, in one place.
FIND_PIXEL_THRESHOLD = 100  # target pixels in the 448 x 448 segmentation for objective visibility
NAV_RADIUS_M = 0.2  # NavSR@20cm and GeoNavSR@20cm: distance <= this
NAV_RELAXED_RADIUS_M = 1.0  # NavSR@1m: distance < this
FIXED_CONTACT_MIN_HEIGHT_M = 0.0205  # a fixed contact counts when its height above the floor exceeds this
FLOOR_SELECT_MARGIN_M = 0.05  # the floor is the highest ray hit at most this far above the robot's lowest point
INITIAL_PENETRATION_M = 0.01  # reset penetration deeper than this is flagged (diagnostic only)
FRAME_RATE_HZ = 30.0  # motion frames per second
JERK_STRIDE = 8  # frames between the samples of the third difference
JERK_WINDOW = 3  # centred moving average before differencing
INTERACT_CATEGORIES = frozenset({"bed", "couch", "toilet"})

# The subjective find rule: a sentence of visible_state acknowledges the target
# when it mentions "target" or a word of its category and has none of these
# negations. Reproduced as published, misses included ("doesn't", "nothing",
# a curly apostrophe), and substrings count ("bedside" mentions a bed).
CATEGORY_WORDS = {
    "couch": ("couch", "sofa", "loveseat", "sectional"),
    "bed": ("bed", "mattress"),
    "toilet": ("toilet", "commode"),
    "chair": ("chair", "armchair", "stool", "seat"),
    "tv": ("tv", "television", "screen", "monitor"),
    "potted_plant": ("potted plant", "plant", "flower pot", "flowerpot"),
}
NEGATIONS = ("no", "not", "cannot", "can't", "don't", "isn't", "aren't", "n't", "without", "unable", "none")
_NEGATION = re.compile(r"\b(" + "|".join(map(re.escape, NEGATIONS)) + r")\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")

# Contact kinds the runner reports for the other side of a robot contact.
FIXED = "fixed"  # static geometry: walls, floor, furniture without a free joint
DYNAMIC = "dynamic"  # a free-moving rigid object

# G1 link -> collision body group, first match wins; any other link is torso
# (pelvis, torso_link, waist_*). The G1's head is a mesh on torso_link, so a
# head contact is a torso_link contact above the top of the torso mesh (0.300 m
# in the torso_link frame; the head mesh spans 0.271-0.477 m there). The robot
# variants of this package drop the head mesh from collision (it duplicates the
# torso hull), so with them the head score is 0 by construction.
BODY_GROUPS = (
    ("hand_arm", ("*_shoulder_*_link", "*_elbow_link", "*_wrist_*_link", "*_hand_*")),
    ("leg", ("*_hip_*_link", "*_knee_link", "*_ankle_*_link")),
)
GROUPS = ("hand_arm", "torso", "leg", "head")
HEAD_LINK = "torso_link"
HEAD_MIN_Z_IN_LINK_M = 0.300
PELVIS = "pelvis"

TOKEN_SOURCES = ("provider_exact", "estimated_chars_div_4", "mixed_exact_and_estimated", "unavailable_no_calls")
PROVIDER_EXACT, ESTIMATED, MIXED, NO_CALLS = TOKEN_SOURCES


class MetricsFileError(ValueError):
    """A metrics file that is not the record it claims to be; one line."""


# ---------------------------------------------------------------------------
# What the runner records


@dataclass(frozen=True)
class RobotContact:
    """One robot contact of a post-physics frame (robot self-contacts are not reported)."""

    link: str  # the robot body, a G1 link name
    other: str  # the other body's name
    kind: str  # FIXED or DYNAMIC
    z: float  # world height of the contact point, m
    z_in_link: float | None = None  # height in the link's frame (the head rule on torso_link)


@dataclass(frozen=True)
class Frame:
    robot: tuple[RobotContact, ...] = ()
    dynamic_pairs: tuple[tuple[str, str], ...] = ()  # contacts between two dynamic objects


@dataclass(frozen=True)
class Chunk:
    """The motion of one non-stop decision: its post-physics frames in order."""

    step: int
    skill: str
    frames: tuple[Frame, ...]


class CallUsage(msgspec.Struct, frozen=True, kw_only=True):
    """Tokens of one model call; `exact` when the provider reported them."""

    exact: bool
    input_tokens: int
    visible_output_tokens: int
    reasoning_tokens: int = 0


@dataclass(frozen=True)
class DecisionRecord:
    """One decision step, the final Stop included."""

    step: int
    skill: str  # the executed skill
    visible_state: str
    target_pixels: int | None  # in the segmentation of the image the planner saw; None: none rendered
    calls: tuple[CallUsage, ...] = ()  # every attempt, retries included
    retries: int = 0
    invalid_action: bool = False
    unsupported_action: bool = False
    planner_fallback: bool = False
    verifier_fallback: bool = False


@dataclass(frozen=True)
class EpisodeData:
    """Everything one episode's metrics need, recorded by the runner."""

    episode_id: str
    scene_id: str
    category: str
    decisions: Sequence[DecisionRecord]
    chunks: Sequence[Chunk]
    final_body_points: np.ndarray  # (N, 3): pelvis, free-joint root and every robot body origin at termination
    target_aabbs: np.ndarray  # (K, 2, 3): world min and max corner of each target instance
    targets: frozenset[str]  # body names of the target instances (pelvis contact)
    floor_ray_hits_z: Sequence[float]  # heights hit by one downward ray at the spawn
    robot_min_z: float  # lowest point of the standing robot at the spawn
    reset_contact_distances: Sequence[float] = ()  # signed contact distances before any physics frame
    object_positions: Mapping[str, np.ndarray] = field(default_factory=dict)  # name -> (F, 3), row f after frame f
    commanded_points: np.ndarray | None = None  # (T, J, 3) commanded robot body points at FRAME_RATE_HZ
    rollout_index: int = 0
    profile: str = ""
    planner: str = ""


# ---------------------------------------------------------------------------
# The records written: metrics.json and metrics_summary.json


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


# ---------------------------------------------------------------------------
# Find


def acknowledges_target(visible_state: str, category: str) -> bool:
    """Whether some sentence mentions the target or its category without a negation."""
    words = ("target", *CATEGORY_WORDS.get(category, (category.replace("_", " "),)))
    for sentence in _SENTENCE_END.split(str(visible_state or "").strip()):
        lowered = sentence.lower()
        if any(word in lowered for word in words) and not _NEGATION.search(sentence):
            return True
    return False


def find_success(decisions: Sequence[DecisionRecord], category: str) -> tuple[bool, bool, int]:
    """(FindSR, GeoFindSR, max target pixels): visibility and acknowledgement at the same step."""
    find = geo = False
    max_pixels = 0
    for d in decisions:
        pixels = d.target_pixels or 0
        max_pixels = max(max_pixels, pixels)
        visible = d.target_pixels is not None and pixels >= FIND_PIXEL_THRESHOLD
        geo = geo or visible
        find = find or (visible and acknowledges_target(d.visible_state, category))
    return find, geo, max_pixels


# ---------------------------------------------------------------------------
# Nav


def body_target_distance(points: np.ndarray, aabbs: np.ndarray) -> float:
    """Least 3-D distance from any body point to any target box (0 inside a box)."""
    p = np.asarray(points, dtype=np.float64).reshape(-1, 1, 3)
    boxes = np.asarray(aabbs, dtype=np.float64).reshape(1, -1, 2, 3)
    if p.shape[0] == 0 or boxes.shape[1] == 0:
        raise ValueError("body_target_distance needs at least one body point and one target box")
    gap = np.maximum(np.maximum(boxes[..., 0, :] - p, 0.0), p - boxes[..., 1, :])
    return float(np.linalg.norm(gap, axis=-1).min())


# ---------------------------------------------------------------------------
# Interact


def _pelvis_on_target(frame: Frame, targets: frozenset[str]) -> bool:
    return any(c.link == PELVIS and c.other in targets for c in frame.robot)


def interact_success(
    chunks: Sequence[Chunk], targets: frozenset[str], active_stop: bool, is_interact: bool
) -> tuple[bool, bool, int]:
    """(InteractSR, GeoInteractSR, number of Sit chunks), judged on final frames only."""
    sits = [c for c in chunks if c.skill == SIT]
    geo = any(c.frames and _pelvis_on_target(c.frames[-1], targets) for c in sits)
    last = chunks[-1] if chunks else None
    final = bool(last and last.frames and _pelvis_on_target(last.frames[-1], targets))
    return is_interact and active_stop and bool(sits) and final, is_interact and geo, len(sits)


# ---------------------------------------------------------------------------
# Fixed-geometry collision


def episode_floor(ray_hits_z: Sequence[float], robot_min_z: float) -> tuple[float, str]:
    """The highest spawn-ray hit at most FLOOR_SELECT_MARGIN_M above the robot's lowest point."""
    eligible = [z for z in ray_hits_z if z <= robot_min_z + FLOOR_SELECT_MARGIN_M]
    return (max(eligible), "spawn_raycast") if eligible else (robot_min_z, "robot_min_z_fallback")


def body_group(link: str, z_in_link: float | None = None) -> str:
    if link == HEAD_LINK and z_in_link is not None and z_in_link > HEAD_MIN_Z_IN_LINK_M:
        return "head"
    return next((g for g, patterns in BODY_GROUPS if any(fnmatchcase(link, p) for p in patterns)), "torso")


@dataclass(frozen=True)
class Collision:
    step_fraction: float
    collision_steps: int
    motion_steps: int
    groups: BodyGroups


def collision(chunks: Sequence[Chunk], floor_z: float) -> Collision:
    """Fraction of motion decision steps with a fixed contact above the floor rule, overall and per group."""
    motion = {c.step for c in chunks}
    hit: set[int] = set()
    by_group: dict[str, set[int]] = {g: set() for g in GROUPS}
    for chunk in chunks:
        for frame in chunk.frames:
            for c in frame.robot:
                if c.kind == FIXED and c.z - floor_z > FIXED_CONTACT_MIN_HEIGHT_M:
                    hit.add(chunk.step)
                    by_group[body_group(c.link, c.z_in_link)].add(chunk.step)
    n = len(motion)

    def fraction(steps: set[int]) -> float:
        return len(steps) / n if n else 0.0

    return Collision(fraction(hit), len(hit), n, BodyGroups(**{g: fraction(s) for g, s in by_group.items()}))


# ---------------------------------------------------------------------------
# Movable-object disturbance


def _path_length(positions: np.ndarray, first_frame: int) -> float:
    xyz = np.asarray(positions, dtype=np.float64)[first_frame:, :3]
    xyz = xyz[np.isfinite(xyz).all(axis=1)]
    return float(np.linalg.norm(np.diff(xyz, axis=0), axis=1).sum()) if len(xyz) > 1 else 0.0


def affected_objects(chunks: Sequence[Chunk], object_positions: Mapping[str, np.ndarray]) -> tuple[AffectedObject, ...]:
    """Objects the robot moved, directly or through a chain of objects, in first-affected order.

    Frames are numbered across chunks from 0. In each frame a robot contact
    affects a dynamic object directly; then affected status spreads over that
    frame's dynamic-dynamic contacts from objects already affected. A contact
    between two objects before either was affected affects nothing, even if
    one of them is affected later.
    """
    first: dict[str, tuple[str, int, int]] = {}  # name -> (source, step, frame)
    touched: set[str] = set()
    frame_index = 0
    for chunk in chunks:
        for frame in chunk.frames:
            for c in frame.robot:
                if c.kind == DYNAMIC:
                    touched.add(c.other)
                    first.setdefault(c.other, ("direct", chunk.step, frame_index))
            graph: dict[str, set[str]] = defaultdict(set)
            for a, b in frame.dynamic_pairs:
                if a != b:
                    graph[a].add(b)
                    graph[b].add(a)
            queue = deque(name for name in graph if name in first)
            seen = set(queue)
            while queue:
                for neighbour in graph[queue.popleft()]:
                    first.setdefault(neighbour, ("indirect", chunk.step, frame_index))
                    if neighbour not in seen:
                        seen.add(neighbour)
                        queue.append(neighbour)
            frame_index += 1
    return tuple(
        AffectedObject(
            name=name,
            source="direct" if name in touched else source,
            first_affected_step=step,
            first_affected_frame=f,
            path_length_m=_path_length(object_positions[name], f) if name in object_positions else None,
        )
        for name, (source, step, f) in first.items()
    )


# ---------------------------------------------------------------------------
# Motion jerk


def jerk_vectors(points: np.ndarray, fps: float = FRAME_RATE_HZ) -> np.ndarray:
    """Third finite differences (stride JERK_STRIDE) of the smoothed (T, J, 3) points, m/s^3."""
    p = np.asarray(points, dtype=np.float64)
    if p.ndim != 3 or p.shape[2] != 3:
        raise ValueError(f"body points must have shape (T, J, 3), got {p.shape}")
    pad = JERK_WINDOW // 2
    padded = np.pad(p, ((pad, pad), (0, 0), (0, 0)), mode="edge")
    smooth = np.lib.stride_tricks.sliding_window_view(padded, JERK_WINDOW, axis=0).mean(axis=-1)
    s = JERK_STRIDE
    return (smooth[3 * s :] - 3 * smooth[2 * s : -s] + 3 * smooth[s : -2 * s] - smooth[: -3 * s]) / (s / fps) ** 3


def motion_jerk(points: np.ndarray | None, fps: float = FRAME_RATE_HZ) -> float | None:
    """Mean jerk magnitude over body points and frames; None below 3 * stride + 1 frames."""
    if points is None or len(points) < 3 * JERK_STRIDE + 1:
        return None
    return float(np.linalg.norm(jerk_vectors(points, fps), axis=-1).mean())


# ---------------------------------------------------------------------------
# Cost


def _count(usage: Mapping[str, Any], *keys: str) -> int | None:
    for key in keys:
        value = usage.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
            return int(value)
    return None


def normalize_usage(usage: Any) -> CallUsage | None:
    """Provider usage as (input, visible output, reasoning) tokens; None when it lacks the counts.

    A provider that reports a visible-output count is taken at its word;
    otherwise the completion count is taken to include hidden reasoning, which
    is subtracted so that visible output excludes it.
    """
    if not isinstance(usage, Mapping):
        return None
    prompt = _count(usage, "input_tokens", "prompt_tokens", "prompt_token_count")
    visible = _count(usage, "output_tokens", "visible_output_tokens", "candidates_token_count")
    completion = _count(usage, "completion_tokens")
    reasoning = _count(usage, "reasoning_tokens", "num_reasoning_tokens", "thoughts_token_count", "thinking_tokens")
    if reasoning is None:
        details = usage.get("completion_tokens_details") or usage.get("output_tokens_details")
        reasoning = _count(details, "reasoning_tokens") if isinstance(details, Mapping) else None
    if prompt is None or (visible is None and completion is None):
        return None
    reasoning = reasoning or 0
    if visible is None:
        visible = max(0, completion - reasoning)
    return CallUsage(exact=True, input_tokens=prompt, visible_output_tokens=visible, reasoning_tokens=reasoning)


def call_usage(usage: Any, prompt: str, output: str) -> CallUsage:
    """The provider's counts, else ceil(characters / 4) of the prompt text and the raw output (images not counted)."""
    exact = normalize_usage(usage)
    if exact is not None:
        return exact
    return CallUsage(exact=False, input_tokens=math.ceil(len(prompt) / 4), visible_output_tokens=math.ceil(len(output) / 4))


def token_source(calls: Sequence[CallUsage]) -> str:
    if not calls:
        return NO_CALLS
    exact = sum(c.exact for c in calls)
    if exact == len(calls):
        return PROVIDER_EXACT
    return ESTIMATED if exact == 0 else MIXED


def cost(decisions: Sequence[DecisionRecord]) -> Cost:
    calls = [c for d in decisions for c in d.calls]
    steps = len(decisions)
    tokens_in = sum(c.input_tokens for c in calls)
    tokens_out = sum(c.visible_output_tokens for c in calls)
    return Cost(
        decision_steps=steps,
        vlm_calls=len(calls),
        retries=sum(d.retries for d in decisions),
        token_source=token_source(calls),
        input_tokens=tokens_in,
        visible_output_tokens=tokens_out,
        reasoning_tokens=sum(c.reasoning_tokens for c in calls),
        input_tokens_per_step=tokens_in / max(1, steps),
        visible_output_tokens_per_step=tokens_out / max(1, steps),
        invalid_actions=sum(d.invalid_action for d in decisions),
        unsupported_actions=sum(d.unsupported_action for d in decisions),
        planner_fallbacks=sum(d.planner_fallback for d in decisions),
        verifier_fallbacks=sum(d.verifier_fallback for d in decisions),
    )


# ---------------------------------------------------------------------------
# One episode


def initial_penetration_depth(contact_distances: Sequence[float]) -> float:
    return max(0.0, -min(contact_distances, default=0.0))


def episode_metrics(data: EpisodeData) -> EpisodeMetrics:
    """The metrics.json record of one finished episode."""
    active_stop = any(d.skill == STAND for d in data.decisions)
    is_interact = data.category in INTERACT_CATEGORIES
    find, geo_find, max_pixels = find_success(data.decisions, data.category)
    distance = body_target_distance(data.final_body_points, data.target_aabbs)
    interact, geo_interact, n_sit = interact_success(data.chunks, data.targets, active_stop, is_interact)
    floor_z, floor_source = episode_floor(data.floor_ray_hits_z, data.robot_min_z)
    hits = collision(data.chunks, floor_z)
    objects = affected_objects(data.chunks, data.object_positions)
    lengths = [o.path_length_m for o in objects if o.path_length_m is not None]
    direct = sum(o.source == "direct" for o in objects)
    depth = initial_penetration_depth(data.reset_contact_distances)
    return EpisodeMetrics(
        profile=data.profile,
        planner=data.planner,
        episode=EpisodeKey(
            episode_id=data.episode_id,
            scene_id=data.scene_id,
            object_category=data.category,
            rollout_index=data.rollout_index,
        ),
        success=Success(
            find_sr=find,
            geo_find_sr=geo_find,
            max_target_pixel_count=max_pixels,
            find_pixel_threshold=FIND_PIXEL_THRESHOLD,
            nav_sr_20cm=active_stop and distance <= NAV_RADIUS_M,
            geo_nav_sr_20cm=distance <= NAV_RADIUS_M,
            nav_sr_1m=active_stop and distance < NAV_RELAXED_RADIUS_M,
            final_body_target_aabb_distance_m=distance,
            active_stop=active_stop,
            is_interact_episode=is_interact,
            interact_sr=interact,
            geo_interact_sr=geo_interact,
            n_sit=n_sit,
        ),
        body_scene=BodyScene(
            initial_penetration_depth_m=depth,
            initial_penetration_detected=depth > INITIAL_PENETRATION_M,
            episode_floor_z=floor_z,
            episode_floor_source=floor_source,
            collision_step_fraction=hits.step_fraction,
            collision_steps=hits.collision_steps,
            motion_steps=hits.motion_steps,
            by_body_group_step_fraction=hits.groups,
            affected_dynamic_object_count=len(objects),
            direct_dynamic_object_count=direct,
            indirect_dynamic_object_count=len(objects) - direct,
            mapped_affected_dynamic_object_count=len(lengths),
            affected_object_path_length_sum_m=float(sum(lengths)),
            affected_object_path_length_mean_m=sum(lengths) / len(lengths) if lengths else None,
            affected_dynamic_objects=objects,
        ),
        action_quality=ActionQuality(motion_jerk_m_s3=motion_jerk(data.commanded_points)),
        cost=cost(data.decisions),
    )


def write_episode_metrics(path: str | Path, record: EpisodeRecord) -> Path:
    return write_json_atomic(path, record.to_json())


def read_episode_metrics(path: str | Path) -> EpisodeRecord:
    path = Path(path)
    try:
        record = msgspec.json.decode(path.read_bytes(), type=EpisodeRecord)
    except (OSError, msgspec.DecodeError) as exc:
        raise MetricsFileError(f"{path}: not a findsit metrics record ({exc})") from None
    if record.schema != SCHEMA or record.schema_version != SCHEMA_VERSION:
        found = f"{record.schema!r} v{record.schema_version}"
        raise MetricsFileError(f"{path}: schema {found}, expected {SCHEMA!r} v{SCHEMA_VERSION}")
    return record


# ---------------------------------------------------------------------------
# A run: files, aggregation, tables


@dataclass(frozen=True)
class RunRecords:
    """The unique episodes under a directory, and what the reader had to decide about them."""

    records: tuple[EpisodeRecord, ...]
    duplicates: int
    notes: tuple[str, ...]


def _key(record: EpisodeRecord) -> tuple:
    e = record.episode
    return (record.profile, record.planner, e.scene_id, e.episode_id, e.object_category, e.rollout_index)


def _label(record: EpisodeRecord) -> str:
    e = record.episode
    return f"{e.scene_id}/{e.episode_id} ({e.object_category}, rollout {e.rollout_index})"


def read_run(root: str | Path) -> RunRecords:
    """Every metrics.json under `root` (one run or a parent of shards of one planner), each episode once."""
    root = Path(root)
    return read_records(sorted(root.rglob(METRICS_FILE)), root)


def read_records(paths: Sequence[str | Path], root: str | Path | None = None) -> RunRecords:
    """These metrics files (named relative to `root` in notes), each episode once.

    An episode found in several files counts once: a complete record over a
    crashed one, else the first path in sorted order; the note names them all.
    Records of two planners are never summarised together: that is refused.
    """
    found: dict[tuple, list[tuple[str, EpisodeRecord]]] = defaultdict(list)
    for path in sorted(Path(p) for p in paths):
        record = read_episode_metrics(path)
        found[_key(record)].append((str(path.relative_to(root)) if root is not None else str(path), record))
    planners = sorted({r.planner for copies in found.values() for _, r in copies} - {""})
    if len(planners) > 1:
        where = f"{root}: " if root is not None else ""
        raise MetricsFileError(f"{where}records of {len(planners)} planners ({', '.join(planners)}); score each planner's runs apart")
    records, notes, duplicates = [], [], 0
    for copies in found.values():
        path, record = next(((p, r) for p, r in copies if isinstance(r, EpisodeMetrics)), copies[0])
        records.append(record)
        if len(copies) > 1:
            duplicates += 1
            agree = "identical" if all(r == record for _, r in copies) else "records differ"
            others = ", ".join(p for p, _ in copies if p != path)
            notes.append(f"duplicate {_label(record)}: counted once from {path}; also in {others} ({agree})")
        if isinstance(record, CrashedEpisode):
            notes.append(f"crashed {_label(record)}: counted as a failure: {record.note}")
    return RunRecords(tuple(records), duplicates, tuple(notes))


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


def write_summary(root: str | Path, summary: MetricsSummary) -> Path:
    return write_json_atomic(Path(root) / SUMMARY_FILE, summary.to_json())


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
