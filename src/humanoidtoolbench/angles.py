"""Planar angles, shared by controllers, planners and scenes: wrapping and a heading as a quaternion."""

from __future__ import annotations

import math


def wrap(angle: float) -> float:
    """`angle` in [-pi, pi)."""
    return (angle + math.pi) % (2 * math.pi) - math.pi


def yaw_quat(yaw: float) -> list[float]:
    """The (w, x, y, z) quaternion of a rotation by `yaw` about +z, as MuJoCo stores orientations."""
    return [math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2)]
