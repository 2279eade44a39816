"""The four robot cameras, as data: mount body, position, viewing direction, field of view.

All render at 640 x 360. Which of them a policy sees is its suite's choice
(`Suite.cameras`); the others are recorded.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

WIDTH, HEIGHT = 640, 360


def fovy_from_fovx(fovx_deg: float, width: int = WIDTH, height: int = HEIGHT) -> float:
    half = math.radians(fovx_deg) / 2
    return math.degrees(2 * math.atan(math.tan(half) * height / width))


@dataclass(frozen=True)
class CameraMount:
    name: str
    body: str
    pos: tuple[float, float, float]
    forward: tuple[float, float, float]  # viewing direction in the body frame
    up: tuple[float, float, float]  # image-up direction in the body frame
    fovx_deg: float

    @property
    def fovy_deg(self) -> float:
        return fovy_from_fovx(self.fovx_deg)

    def xyaxes(self) -> list[float]:
        """MuJoCo camera frame: looks along -z with y up, so x = forward x up."""
        f = np.asarray(self.forward, float)
        f /= np.linalg.norm(f)
        u = np.asarray(self.up, float)
        u = u - f * (u @ f)
        u /= np.linalg.norm(u)
        return [*np.cross(f, u), *u]


_PITCH = math.radians(47.6)  # head cameras look down about 47.6 degrees
_HEAD_FWD = (math.cos(_PITCH), 0.0, -math.sin(_PITCH))
_HEAD_UP = (math.sin(_PITCH), 0.0, math.cos(_PITCH))
_BASELINE = 0.05  # stereo baseline, metres


def _wrist(side: str) -> CameraMount:
    s = 1.0 if side == "left" else -1.0
    # Beside the index finger, looking down the hand at the grasp region.
    return CameraMount(
        name=f"wrist_{side}",
        body=f"{side}_wrist_yaw_link",
        pos=(0.02, -0.03 * s, 0.08),
        forward=(0.10, -0.03 * s, -0.08),
        up=(0.0, s, 0.0),
        fovx_deg=79.61,
    )


CAMERAS: tuple[CameraMount, ...] = (
    CameraMount("head_stereo_left", "torso_link", (0.0576, 0.0175, 0.4299), _HEAD_FWD, _HEAD_UP, 110.0),
    CameraMount("head_stereo_right", "torso_link", (0.0576, 0.0175 - _BASELINE, 0.4299), _HEAD_FWD, _HEAD_UP, 110.0),
    _wrist("left"),
    _wrist("right"),
)
CAMERA_NAMES = tuple(c.name for c in CAMERAS)
