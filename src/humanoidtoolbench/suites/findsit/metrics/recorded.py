"""What the runner records of an episode: the plain data its metrics are computed from.

Kept free of MuJoCo and of the language-model client, so that the episode
writes these and the scoring reads them anywhere.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import msgspec
import numpy as np

# Contact kinds the runner reports for the other side of a robot contact.
FIXED = "fixed"  # static geometry: walls, floor, furniture without a free joint
DYNAMIC = "dynamic"  # a free-moving rigid object


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
