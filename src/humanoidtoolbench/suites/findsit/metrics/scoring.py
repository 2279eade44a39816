"""One episode's paper metrics from its recorded data: find, nav, interact, collision, disturbance, jerk, cost.

The maths of the definitions, from `recorded` data to a `schema` record.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

import numpy as np

from ..actions import SIT, STAND
from .definitions import (
    BODY_GROUPS,
    CATEGORY_WORDS,
    ESTIMATED,
    FIND_PIXEL_THRESHOLD,
    FIXED_CONTACT_MIN_HEIGHT_M,
    FLOOR_SELECT_MARGIN_M,
    FRAME_RATE_HZ,
    GROUPS,
    HEAD_LINK,
    HEAD_MIN_Z_IN_LINK_M,
    INITIAL_PENETRATION_M,
    INTERACT_CATEGORIES,
    JERK_STRIDE,
    JERK_WINDOW,
    MIXED,
    NAV_RADIUS_M,
    NAV_RELAXED_RADIUS_M,
    NEGATIONS,
    NO_CALLS,
    PELVIS,
    PROVIDER_EXACT,
)
from .recorded import DYNAMIC, FIXED, CallUsage, Chunk, DecisionRecord, EpisodeData, Frame
from .schema import (
    ActionQuality,
    AffectedObject,
    BodyGroups,
    BodyScene,
    Cost,
    EpisodeKey,
    EpisodeMetrics,
    Success,
)

_NEGATION = re.compile(r"\b(" + "|".join(map(re.escape, NEGATIONS)) + r")\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


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
