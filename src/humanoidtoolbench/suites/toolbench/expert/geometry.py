"""What the expert assumes about the scene and its own reach: heights, sizes, where to stand."""

from __future__ import annotations

import numpy as np

UP = np.array([0.0, 0.0, 1.0])
DOWN = -UP
BENCH_TOP = 0.70
ARM_FLOOR = BENCH_TOP + 0.04  # elbow and wrist links stay this high
BALL_Z = BENCH_TOP + 0.03  # ball centre height
CONTACT = 0.045  # ball radius plus a stick's half-width
ROLL_DECELERATION = 0.11  # m/s^2 of a ball rolling on the bench (its rolling friction)
STOP_SHORT = 0.02  # stop driving a ball this much before its roll would carry it home
SETTLED_IN_RING = 0.08  # close enough: the ring's radius is 0.12
MAX_TIP_STEP = 0.015  # m per 0.1 s a tool tip may move sideways to follow a ball
NEAREST_STAND = 0.50  # pelvis y for working at the bench ...
CLOSEST_STAND = 0.46  # ... and for a long reach, the torso just clear of the bench edge
HAND_LEFT_OF_PELVIS = 0.08  # where the left hand works best, relative to the pelvis
TOOL_REACH = 0.45  # hand to a stick's working end, roughly, for choosing where to stand
BENCH_LEG_X = 0.84  # the bench's legs stand at x = +-0.84, under its front and back edges


def flat(v) -> np.ndarray:
    """The horizontal unit vector along v."""
    v = np.array([v[0], v[1], 0.0])
    return v / np.linalg.norm(v)


def stand_for(hand_at: np.ndarray, closest: float = NEAREST_STAND) -> tuple[float, float]:
    """Where the pelvis goes for the left hand to work at `hand_at`."""
    return hand_at[0] - HAND_LEFT_OF_PELVIS, max(closest, hand_at[1] + 0.25)
