"""A kinematic stepping gait for the assisted base: where the feet go (`control.legs` poses the legs).

The stance foot moves backwards under the pelvis at the commanded base
velocity (so it stays put on the floor while the base tracks that velocity)
and the swing foot travels to the mirrored placement with a lift. When the
command stops, the feet finish their steps back to the home stance. Legs do
not carry the robot in the assisted controller; the gait keeps what the
cameras see consistent with the base motion.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..legs import FOOT_Y, leg_ik

PERIOD = 0.7  # seconds for a full left+right stride
SWING_HEIGHT = 0.05
SETTLED = 1e-4  # offsets below this count as home


@dataclass
class _Foot:
    offset: np.ndarray = field(default_factory=lambda: np.zeros(3))  # x, y, yaw relative to home
    start: np.ndarray = field(default_factory=lambda: np.zeros(3))
    goal: np.ndarray = field(default_factory=lambda: np.zeros(3))


class SteppingGait:
    """Alternating steps whose length follows the commanded base velocity."""

    def __init__(self) -> None:
        self.feet = {"left": _Foot(), "right": _Foot()}
        self.swing: str | None = None
        self.t = 0.0
        self._moves = 0  # counts updates that moved a foot: keys the cached leg angles
        self._cached: tuple[tuple, dict] | None = None

    def reset(self) -> None:
        self.__init__()

    @property
    def half(self) -> float:
        return PERIOD / 2

    def _start_step(self, side: str, rate: np.ndarray) -> None:
        foot = self.feet[side]
        foot.start = foot.offset.copy()
        foot.goal = rate * self.half / 2  # mirror of where the stance foot will end
        self.swing, self.t = side, 0.0

    def update(self, dt: float, rate, walking: bool) -> None:
        """Advance by dt; `rate` is the base (vx, vy, yaw rate) in the pelvis frame."""
        if self.swing is None and not walking:
            return
        rate = np.array(rate, dtype=float) if walking else np.zeros(3)
        if self.swing is None:
            self._start_step("left", rate)
        self._moves += 1
        self.t += dt
        stance = "right" if self.swing == "left" else "left"
        self.feet[stance].offset -= rate * dt
        foot = self.feet[self.swing]
        s = min(self.t / self.half, 1.0)
        blend = 0.5 - 0.5 * math.cos(math.pi * s)
        foot.offset = foot.start + (foot.goal - foot.start) * blend
        if s >= 1.0:
            home = all(np.abs(f.offset).max() < SETTLED for f in self.feet.values())
            if not walking and home:
                self.swing = None
            else:
                self._start_step(stance, rate)

    def joint_targets(self, height: float) -> dict[str, tuple[float, ...]]:
        """Leg angles per side; recomputed only when a foot or the height moved (standing
        still is the common case, and the inverse kinematics runs every control step)."""
        key = (height, self._moves)
        if self._cached is None or self._cached[0] != key:
            self._cached = (key, self._solve(height))
        return self._cached[1]

    def _solve(self, height: float) -> dict[str, tuple[float, ...]]:
        out = {}
        for side, foot in self.feet.items():
            s = 1.0 if side == "left" else -1.0
            lift = 0.0
            if side == self.swing:
                lift = SWING_HEIGHT * math.sin(math.pi * min(self.t / self.half, 1.0))
            x, y, yaw = foot.offset
            home = np.array([0.0, s * FOOT_Y])
            c, sn = math.cos(yaw), math.sin(yaw)
            pos = np.array([c * home[0] - sn * home[1] + x, sn * home[0] + c * home[1] + y, -height + lift])
            out[side] = leg_ik(side, pos, yaw)
        return out
