"""G1 leg geometry and analytic leg inverse kinematics, shared by the two walking controllers.

The assisted gait poses the legs under its driven base with it; the balanced
controller seeds its whole-body inverse kinematics and places its feet with it.
"""

from __future__ import annotations

import math

import numpy as np

# Leg geometry of the G1 in its zero pose, pelvis frame (metres).
HIP_Z = -0.1332  # hip-roll origin below the pelvis
HIP_Y = 0.1165  # hip-roll origin, lateral
FOOT_Y = 0.1185  # ankle, lateral
THIGH = 0.3061  # hip roll -> knee
SHANK = 0.3000  # knee -> ankle pitch
ANKLE_TO_SOLE = 0.0527  # ankle pitch axis -> sole


def leg_ik(side: str, foot: np.ndarray, foot_yaw: float) -> tuple[float, ...]:
    """Joint angles (hip pitch, roll, yaw, knee, ankle pitch, roll) placing the sole at `foot`.

    `foot` is the sole position in the level pelvis frame. The hip is treated
    as spherical at the hip-roll origin; the error of that approximation is a
    few millimetres over the gait's range.
    """
    s = 1.0 if side == "left" else -1.0
    dx = foot[0]
    dy = foot[1] - s * HIP_Y
    dz = foot[2] + ANKLE_TO_SOLE - HIP_Z  # negative: ankle below hip
    roll = math.atan2(dy - s * (FOOT_Y - HIP_Y), -dz)
    length = math.hypot(dy - s * (FOOT_Y - HIP_Y), dz)
    reach = min(math.hypot(dx, length), THIGH + SHANK - 1e-6)
    cos_knee = (THIGH**2 + SHANK**2 - reach**2) / (2 * THIGH * SHANK)
    knee = math.pi - math.acos(max(-1.0, min(1.0, cos_knee)))
    cos_hip = (THIGH**2 + reach**2 - SHANK**2) / (2 * THIGH * reach)
    pitch = -(math.atan2(dx, length) + math.acos(max(-1.0, min(1.0, cos_hip))))
    return (pitch, roll, foot_yaw, knee, -(pitch + knee), -roll)
