"""What a Fiatlux episode randomises, with the original's ranges, and the draws themselves.

Per episode (each reset builds a fresh episode): the lights, the room tint and
the start jitter. Per layout seed: the hand friction and, only when asked for,
the prop scale. One switch (`randomize=False`) turns every one of them off and
leaves the nominal scene; the layout itself is what a seed means and always
follows it.

The original's light intensities are Isaac units; here each draw is taken
relative to the middle of its range and multiplies the room's nominal light
(the dome becomes the ambient and fill lights, the key light stays the key).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...sim.scene import RoomStyle

DOME = (600.0, 1400.0)  # dome intensity range
KEY = (800.0, 2200.0)  # key light intensity range
KEY_TILT = math.radians(40.0)  # from the vertical
KEY_PITCH, KEY_YAW = math.radians(15.0), math.radians(30.0)  # +- around that tilt and the nominal heading
HAND_FRICTION = (0.8, 1.2)
LADDER_XY, LADDER_Z = (0.95, 1.05), (0.95, 1.10)
SOCKET, FRESH_BULB = (0.9, 1.1), (0.9, 1.1)


def _relative(rng: np.random.Generator, span: tuple[float, float]) -> float:
    return float(rng.uniform(*span)) / (0.5 * (span[0] + span[1]))


@dataclass(frozen=True)
class Lighting:
    """Multipliers of the nominal room light and the key light's direction."""

    dome: float = 1.0
    key: float = 1.0
    key_dir: tuple[float, float, float] = RoomStyle.key_dir

    def style(self, tint: tuple[float, float, float] = (1.0, 1.0, 1.0)) -> RoomStyle:
        nominal = RoomStyle()
        return RoomStyle(key_dir=self.key_dir, key=nominal.key * self.key, fill=nominal.fill * self.dome,
                         ambient=nominal.ambient * self.dome, tint=tint)


def draw_lighting(rng: np.random.Generator) -> Lighting:
    dome, key = _relative(rng, DOME), _relative(rng, KEY)
    tilt = KEY_TILT + rng.uniform(-KEY_PITCH, KEY_PITCH)
    x, y, _ = RoomStyle.key_dir
    heading = math.atan2(y, x) + rng.uniform(-KEY_YAW, KEY_YAW)
    down = (math.sin(tilt) * math.cos(heading), math.sin(tilt) * math.sin(heading), -math.cos(tilt))
    return Lighting(dome, key, down)


@dataclass(frozen=True)
class PropScale:
    """Scale factors of the props' geometry (masses stay the original's)."""

    ladder: tuple[float, float, float] = (1.0, 1.0, 1.0)  # width, depth, height
    socket: float = 1.0
    fresh_bulb: float = 1.0

    def bulb(self, name: str) -> float:
        return self.fresh_bulb if name == "fresh_bulb" else 1.0


def draw_prop_scale(rng: np.random.Generator) -> PropScale:
    xy = float(rng.uniform(*LADDER_XY))
    return PropScale((xy, xy, float(rng.uniform(*LADDER_Z))), float(rng.uniform(*SOCKET)), float(rng.uniform(*FRESH_BULB)))
