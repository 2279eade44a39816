"""What a Fiatlux episode randomises, with the original's ranges, and the draws themselves.

Per episode (each reset builds a fresh episode): the lights, the room tint,
the start jitter and, in a dressed look, the colours of the props and
finishes. Per layout seed: the hand friction and, only when asked for, the
prop scale. One switch (`randomize=False`) turns every one of them off and
leaves the nominal scene; the layout itself is what a seed means and always
follows it.

The original's light intensities are Isaac units; here each draw is taken
relative to the middle of its range and multiplies the room's nominal light
(the dome becomes the ambient and fill lights, the key light stays the key).
"""

from __future__ import annotations

import colorsys
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


# -- appearance (per reset; drawn only in a dressed look) ---------------------------------------------
# The original tints the room's materials with one HSV draw per reset (here that tint colours the
# lights, in every look: `Lighting.style`). A dressed look also draws the base colour of every
# finish, prop part and fixture per reset: one entry of the part's palette, then a small HSV jitter
# around it. These draws come from their own generator, so layouts, starts and trajectories are the
# same in every look and with or without them.
RGB = tuple[float, float, float]
PALETTES: dict[str, tuple[RGB, ...]] = {
    # aluminium, then yellow, orange and blue fibreglass stiles
    "ladder_rails": ((0.80, 0.82, 0.85), (0.93, 0.72, 0.12), (0.90, 0.42, 0.12), (0.18, 0.36, 0.70)),
    "ladder_treads": ((0.76, 0.78, 0.80), (0.62, 0.64, 0.66)),
    "ladder_caps": ((0.12, 0.12, 0.13), (0.70, 0.12, 0.10), (0.15, 0.30, 0.60)),  # feet, guard rail and spreaders
    "bench_top": ((0.70, 0.52, 0.32), (0.80, 0.64, 0.44), (0.45, 0.30, 0.18)),  # oak, beech, walnut
    "bench_frame": ((0.30, 0.31, 0.33), (0.20, 0.32, 0.52), (0.22, 0.40, 0.28), (0.62, 0.18, 0.14)),  # painted steel
    "crate": ((0.80, 0.66, 0.45), (0.66, 0.58, 0.48), (0.58, 0.40, 0.24)),  # pine, weathered, stained
    "socket": ((0.93, 0.92, 0.88), (0.12, 0.11, 0.10), (0.72, 0.56, 0.30)),  # porcelain, bakelite, brass
    "shade": ((0.94, 0.93, 0.90), (0.14, 0.15, 0.16), (0.20, 0.38, 0.30), (0.90, 0.84, 0.70)),  # enamel
    "cord": ((0.10, 0.10, 0.10), (0.92, 0.92, 0.90)),
    "floor": ((0.58, 0.57, 0.55), (0.50, 0.49, 0.47), (0.64, 0.60, 0.54)),  # concrete
    "walls": ((0.86, 0.85, 0.81), (0.78, 0.80, 0.80), (0.76, 0.82, 0.86), (0.80, 0.85, 0.76), (0.88, 0.82, 0.70)),
    "ceiling": ((0.93, 0.92, 0.90),),
}
HSV_JITTER = (0.02, 0.08, 0.08)  # +- hue (turns), saturation and value around the palette entry


@dataclass(frozen=True)
class Appearance:
    """Base colours of a dressed scene's parts (the nominal scene: each palette's first entry)."""

    colours: tuple[tuple[str, RGB], ...] = tuple((part, palette[0]) for part, palette in PALETTES.items())

    def __getitem__(self, part: str) -> tuple[float, float, float, float]:
        return (*dict(self.colours)[part], 1.0)


def draw_appearance(rng: np.random.Generator) -> Appearance:
    """Per part, in `PALETTES` order: an entry, then a hue, saturation and value jitter."""
    colours = []
    for part, palette in PALETTES.items():
        h, s, v = colorsys.rgb_to_hsv(*palette[int(rng.integers(len(palette)))])
        dh, ds, dv = (rng.uniform(-j, j) for j in HSV_JITTER)
        rgb = colorsys.hsv_to_rgb((h + dh) % 1.0, min(max(s + ds, 0.0), 1.0), min(max(v + dv, 0.0), 1.0))
        colours.append((part, tuple(round(float(c), 4) for c in rgb)))
    return Appearance(tuple(colours))
