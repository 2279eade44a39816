"""The rooms of a dressed apartment: floors and walls by room kind, door frames and doors, rugs, ceiling
lights. All visual-only, on the world body; the walls' collision boxes only get a paint.

Floors are thin boxes over each room's floor (boards in living rooms,
bedrooms and studies, tiles in kitchens and bathrooms), walls in one paint
per apartment with a tiled dado in bathrooms and kitchens and a skirting
board elsewhere, cut at the doorways. A doorway gets a frame, a threshold
and, where the wall beside it is free of furniture, a door swung open flat
against it. `FINISHES` says which surfaces a room kind is drawn in; every
colour and choice comes from the look's own stream.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mujoco
import numpy as np

from ...sim.look import visual
from ...planning.navgrid import Rect
from .apartments import DOOR_HEIGHT, WALL_HEIGHT, WALL_THICKNESS, Apartment, Doorway, Room
from .kit import FABRICS, PAINTS, WHITE, WOODS, Kit, frustum, pick, shade

FLOOR_TOP = 0.002  # m: a room's floor finish over the ground plane
RUG_TOP = 0.006
SKIRTING = (0.08, 0.012)  # height, depth (m)
DADO = 1.2  # m: top of the wall tiles
FRAME = (0.06, 0.015)  # casing width and depth (m)
LEAF = 0.04  # door thickness (m)
GLOW = 0.9  # emission of a ceiling light's shade
# A panel's local (x, y, z) as (along the wall, up, across): for walls x = const and y = const.
WALL_QUATS = {0: (0.5, 0.5, 0.5, 0.5), 1: (math.sqrt(0.5), math.sqrt(0.5), 0.0, 0.0)}


@dataclass(frozen=True)
class Finish:
    """How a room kind is drawn: its floor surface and colours to draw from, and its wall dado (None: skirting)."""

    floor: str
    floor_colours: tuple
    dado: str | None = None
    dado_colours: tuple = ()
    rug: tuple[float, float] | None = None  # (depth, width) of a rug in the middle; None: no rug


TILE_COLOURS = ((0.92, 0.92, 0.90), (0.78, 0.80, 0.82), (0.70, 0.78, 0.80), (0.86, 0.80, 0.72))
FINISHES = {
    "living_room": Finish("floorboards", WOODS, rug=(1.6, 2.2)),
    "bedroom": Finish("floorboards", WOODS, rug=(1.2, 1.8)),
    "study": Finish("floorboards", WOODS),
    "kitchen": Finish("floor_tiles", ((0.62, 0.58, 0.54), (0.80, 0.78, 0.74), (0.55, 0.35, 0.25)), "wall_tiles",
                      TILE_COLOURS),
    "bathroom": Finish("small_tiles", ((0.85, 0.86, 0.86), (0.55, 0.60, 0.64), (0.80, 0.76, 0.70)), "wall_tiles",
                       TILE_COLOURS),
}


def dress_rooms(spec: mujoco.MjSpec, apartment: Apartment, kit: Kit, rng: np.random.Generator) -> None:
    paint = pick(rng, PAINTS)
    for k in range(len(apartment.walls)):
        kit.wardrobe.dress(spec.geom(f"wall/{k}"), "paint", (*paint, 1.0))
    trim = pick(rng, (WHITE, shade(pick(rng, WOODS), 1.0)))
    lamp = spec.add_material(name="findsit/lamp", rgba=[1.0, 0.97, 0.88, 1.0], emission=GLOW)
    for room in apartment.rooms:
        finish = FINISHES[room.kind]
        x0, y0, x1, y1 = room.interior
        kit.box(finish.floor, pick(rng, finish.floor_colours), (x0, y0, 0.0), (x1, y1, FLOOR_TOP))
        dado = pick(rng, finish.dado_colours) if finish.dado else None
        for edge in _edges(room, apartment.doorways):
            _wall_finish(kit, edge, finish, dado, trim)
        if finish.rug:
            _rug(kit, room, apartment, finish.rug, rng)
        _ceiling_light(kit, room, lamp.name, int(rng.integers(2)))
    for doorway in apartment.doorways:
        _door(kit, doorway, apartment, trim, pick(rng, WOODS + (WHITE,)), rng)


@dataclass(frozen=True)
class Edge:
    """One side of a room's floor: the wall face at `face` along axis `axis` (0: a face x = face), its
    inward normal sign, the interior span along the other axis, and the doorway gaps on it."""

    axis: int
    face: float
    normal: float
    span: tuple[float, float]
    gaps: tuple[tuple[float, float], ...]

    def point(self, depth: float, along: float) -> tuple[float, float]:
        """World xy at `depth` in from the face and `along` the wall."""
        u = self.face + self.normal * depth
        return (u, along) if self.axis == 0 else (along, u)

    def box(self, kit: Kit, surface: str, colour, d0: float, d1: float, s0: float, s1: float, z0: float, z1: float):
        a, b = self.point(d0, s0), self.point(d1, s1)
        lo = (min(a[0], b[0]), min(a[1], b[1]), z0)
        hi = (max(a[0], b[0]), max(a[1], b[1]), z1)
        return kit.box(surface, colour, lo, hi)

    def panel(self, kit: Kit, surface: str, colour, depth: float, s0: float, s1: float, z0: float, z1: float):
        """A box on the wall whose own z axis is the wall's normal: MuJoCo maps a 2D texture on a box by its
        local x and y, so tiles drawn on the wall come out square."""
        x, y = self.point(depth / 2, (s0 + s1) / 2)
        return visual.add_geom(kit.body, "box", ((s1 - s0) / 2, (z1 - z0) / 2, depth / 2), pos=(x, y, (z0 + z1) / 2),
                               quat=WALL_QUATS[self.axis], material=kit.mat(surface, colour))

    def solid(self) -> list[tuple[float, float]]:
        """The stretches of wall between the doorway gaps."""
        out, start = [], self.span[0]
        for g0, g1 in self.gaps:
            out.append((start, g0))
            start = g1
        return [(a, b) for a, b in out + [(start, self.span[1])] if b - a > 1e-3]


def _edges(room: Room, doorways: tuple[Doorway, ...]) -> list[Edge]:
    x0, y0, x1, y1 = room.interior
    bx0, by0, bx1, by1 = room.bounds
    out = []
    for axis, face, line, normal, span in ((0, x0, bx0, 1.0, (y0, y1)), (0, x1, bx1, -1.0, (y0, y1)),
                                           (1, y0, by0, 1.0, (x0, x1)), (1, y1, by1, -1.0, (x0, x1))):
        gaps = sorted(
            (d.centre[1 - axis] - d.width / 2, d.centre[1 - axis] + d.width / 2)
            for d in doorways
            if d.axis == axis and math.isclose(d.centre[axis], line) and span[0] < d.centre[1 - axis] < span[1]
        )
        out.append(Edge(axis, face, normal, span, tuple(gaps)))
    return out


def _wall_finish(kit: Kit, edge: Edge, finish: Finish, dado, trim) -> None:
    for s0, s1 in edge.solid():
        if finish.dado:
            edge.panel(kit, finish.dado, dado, 0.004, s0, s1, 0.0, DADO)
        else:
            edge.box(kit, "paint", trim, 0.0, SKIRTING[1], s0, s1, 0.0, SKIRTING[0])


def _rug(kit: Kit, room: Room, apartment: Apartment, size: tuple[float, float], rng: np.random.Generator) -> None:
    """A rug in the middle of the room (its long side along the room's), a border in a second colour."""
    x0, y0, x1, y1 = room.interior
    long_x = (x1 - x0) >= (y1 - y0)
    w, d = (size[1], size[0]) if long_x else size
    w, d = min(w, x1 - x0 - 0.8), min(d, y1 - y0 - 0.8)
    if w < 0.6 or d < 0.6:
        return
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    field, border = pick(rng, FABRICS), pick(rng, FABRICS)
    kit.box("rug", border, (cx - w / 2, cy - d / 2, 0.0), (cx + w / 2, cy + d / 2, RUG_TOP - 0.001))
    kit.box("rug", field, (cx - w / 2 + 0.1, cy - d / 2 + 0.1, 0.0), (cx + w / 2 - 0.1, cy + d / 2 - 0.1, RUG_TOP))


def _ceiling_light(kit: Kit, room: Room, lamp: str, style: int) -> None:
    """A glowing flush disc, or a pendant shade on a cord, in the middle of the room's ceiling."""
    x0, y0, x1, y1 = room.interior
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    if style == 0:
        kit.cylinder("paint", WHITE, (cx, cy, WALL_HEIGHT - 0.01), 0.22, 0.01)
        geom = kit.cylinder("paint", WHITE, (cx, cy, WALL_HEIGHT - 0.035), 0.18, 0.025)
    else:
        kit.cylinder("paint", (0.2, 0.2, 0.2), (cx, cy, WALL_HEIGHT - 0.3), 0.004, 0.3)
        kit.mesh("plastic", (0.85, 0.84, 0.80), frustum(0.20, 0.07, 0.16), pos=(cx, cy, WALL_HEIGHT - 0.76))
        geom = kit.sphere("paint", WHITE, (cx, cy, WALL_HEIGHT - 0.72), 0.05)
    geom.material = lamp


def _door(kit: Kit, doorway: Doorway, apartment: Apartment, trim, leaf_rgb, rng: np.random.Generator) -> None:
    a = doorway.axis  # the axis one walks along; the wall runs along the other
    t = WALL_THICKNESS / 2
    c = doorway.centre[1 - a]
    w = doorway.width
    line = doorway.centre[a]

    def box(surface, colour, u0, u1, v0, v1, z0, z1):
        lo, hi = [0.0, 0.0, z0], [0.0, 0.0, z1]
        lo[a], hi[a] = line + min(u0, u1), line + max(u0, u1)
        lo[1 - a], hi[1 - a] = c + min(v0, v1), c + max(v0, v1)
        return kit.box(surface, colour, lo, hi)

    fw, fd = FRAME
    box("wood", shade(leaf_rgb, 0.8), -t, t, -w / 2, w / 2, 0.0, 0.008)  # threshold
    for s in (-1, 1):  # linings in the opening, and casings on both faces
        box("paint", trim, -t - 0.002, t + 0.002, s * (w / 2 - 0.012), s * w / 2, 0.0, DOOR_HEIGHT)
        for f in (-1, 1):
            box("paint", trim, f * t, f * (t + fd), s * (w / 2 - 0.01), s * (w / 2 + fw), 0.0, DOOR_HEIGHT + fw)
    box("paint", trim, -t - 0.002, t + 0.002, -w / 2, w / 2, DOOR_HEIGHT - 0.012, DOOR_HEIGHT)
    for f in (-1, 1):
        box("paint", trim, f * t, f * (t + fd), -w / 2 - fw, w / 2 + fw, DOOR_HEIGHT, DOOR_HEIGHT + fw)
    # The door: swung open flat against the wall beside the opening, on a side where it fits.
    leaf_w = w - 0.02
    sides = [(f, s) for f in (-1, 1) for s in (-1, 1)]
    for k in rng.permutation(len(sides)):
        f, s = sides[int(k)]
        v0, v1 = s * (w / 2 + fw + 0.01), s * (w / 2 + fw + 0.01 + leaf_w)
        u0, u1 = f * (t + 0.003), f * (t + 0.003 + LEAF)
        if _leaf_fits(apartment, doorway, f, (c + min(v0, v1), c + max(v0, v1)), line + min(u0, u1), line + max(u0, u1)):
            box("wood", leaf_rgb, u0, u1, v0, v1, 0.01, DOOR_HEIGHT - 0.01)
            grip = s * (w / 2 + fw + leaf_w - 0.06)
            kit.cylinder("brushed_metal", (0.72, 0.73, 0.75),
                         _at(a, line + f * (t + 0.003 + LEAF + 0.03), c + grip, 1.0), 0.012, 0.03, axis="xy"[a])
            return


def _at(a: int, u: float, v: float, z: float) -> tuple[float, float, float]:
    return (u, v, z) if a == 0 else (v, u, z)


def _leaf_fits(apartment: Apartment, doorway: Doorway, side: int, span: tuple[float, float], u0: float, u1: float) -> bool:
    """Whether an open door covering `span` along the wall (u0-u1 across it) stays on a free stretch of the
    wall of the room on that side: inside the room, clear of other doorways and of static furniture."""
    a = doorway.axis
    probe = doorway.centre[a] + side * WALL_THICKNESS
    room = next(apartment.rooms[i] for i in doorway.rooms if apartment.rooms[i].bounds[a] < probe < apartment.rooms[i].bounds[a + 2])
    lo, hi = (room.interior[1], room.interior[3]) if a == 0 else (room.interior[0], room.interior[2])
    if span[0] < lo + 0.02 or span[1] > hi - 0.02:
        return False
    for other in apartment.doorways:
        if other is not doorway and other.axis == a and math.isclose(other.centre[a], doorway.centre[a]):
            c = other.centre[1 - a]
            if span[0] < c + other.width / 2 + 0.1 and c - other.width / 2 - 0.1 < span[1]:
                return False
    mid_u, mid_v = (u0 + u1) / 2, (span[0] + span[1]) / 2
    x, y = (mid_u, mid_v) if a == 0 else (mid_v, mid_u)
    hx, hy = ((u1 - u0) / 2 + 0.05, (span[1] - span[0]) / 2) if a == 0 else ((span[1] - span[0]) / 2, (u1 - u0) / 2 + 0.05)
    leaf = Rect(x, y, hx, hy)
    return not any(Rect.of(f).overlaps(leaf) for f in apartment.furniture if not f.movable)
