"""What each piece of furniture looks like in a dressed look: variants per category, as visual-only parts.

A piece's collision boxes (scene.py) stay as they are. For the six target
categories and the tables they are hidden (alpha 0) and drawn instead as
their parts (a bed's frame, mattress, blanket and pillows; a couch's base,
cushions and arms; a chair's legs, seat and back; a toilet's bowl, seat and
tank; a TV's thin screen; a plant's pot and leaves), inside the boxes'
extents where one could touch them. The other pieces keep their boxes, in a
material, with a few details on their faces (doors, handles, books).

`VARIANTS[category]` lists a category's builders; `Choice` is one draw: the
variant and its colours, taken from the look's own stream per piece.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from collections.abc import Callable

import mujoco
import numpy as np

from ...angles import yaw_quat
from ...sim.look import visual
from .apartments import Furniture
from .kit import FABRICS, PAINTS, WHITE, WOODS, Kit, frustum, leaves, oval_ring, pick, shade

BLACK = (0.06, 0.06, 0.07)
STEEL = (0.72, 0.73, 0.75)
LEAF_GREENS = ((0.20, 0.48, 0.20), (0.28, 0.55, 0.22), (0.16, 0.40, 0.24), (0.35, 0.55, 0.28))


@dataclass(frozen=True)
class Choice:
    """One piece's draw: which variant, its wood, its fabric and an accent (blanket, cushions, pot)."""

    variant: int
    wood: tuple
    fabric: tuple
    accent: tuple
    seed: int  # for what a variant scatters (leaves)

    @classmethod
    def draw(cls, rng: np.random.Generator, category: str) -> Choice:
        variant = int(rng.integers(len(VARIANTS.get(category, (None,)))))
        fabric = pick(rng, FABRICS)
        accent = pick(rng, [f for f in FABRICS if f != fabric])
        return cls(variant, pick(rng, WOODS), fabric, accent, int(rng.integers(2**31)))


def dress_piece(spec: mujoco.MjSpec, body: mujoco.MjsBody, piece: Furniture, kit: Kit, choice: Choice) -> None:
    """Dress one piece (its body already built with its collision boxes) as `choice` says."""
    geoms = [spec.geom(f"{piece.name}/{k}") for k in range(2) if spec.geom(f"{piece.name}/{k}") is not None]
    builders = VARIANTS.get(piece.category)
    if builders is None:
        PLAIN.get(piece.category, _plain_box)(kit, piece, choice, geoms)
        return
    for geom in geoms:
        geom.rgba = [0.5, 0.5, 0.5, 0.0]  # hidden: the parts below draw the piece
    builders[choice.variant % len(builders)](kit, piece, choice)


# -- targets ---------------------------------------------------------------------------------------
def _bed(kit: Kit, p: Furniture, c: Choice, style: int) -> None:
    hx, hy, hz = p.half_extents
    z0, top = -hz, hz
    head = -hx
    if style == 0:  # wooden frame, panel headboard
        kit.box("wood", c.wood, (-hx, -hy, z0), (hx, hy, z0 + 0.30))
        kit.box("wood", c.wood, (head, -hy, z0), (head + 0.05, hy, z0 + 1.0))
        mattress = (z0 + 0.30, top - 0.04)
    elif style == 1:  # upholstered platform and padded, channelled headboard
        kit.box("upholstery", c.fabric, (-hx, -hy, z0 + 0.04), (hx, hy, z0 + 0.26))
        kit.box("wood", shade(c.wood, 0.5), (-hx + 0.05, -hy + 0.05, z0), (hx - 0.05, hy - 0.05, z0 + 0.04))
        for k in range(4):
            y0 = -hy + k * hy / 2
            kit.box("upholstery", c.fabric, (head, y0 + 0.01, z0 + 0.26), (head + 0.09, y0 + hy / 2 - 0.01, z0 + 1.15))
        mattress = (z0 + 0.26, top - 0.04)
    else:  # metal frame on legs, a railed head
        for sx in (-1, 1):
            for sy in (-1, 1):
                kit.cylinder("brushed_metal", BLACK, (sx * (hx - 0.04), sy * (hy - 0.04), z0 + 0.12), 0.02, 0.12)
        kit.box("brushed_metal", BLACK, (-hx, -hy, z0 + 0.20), (hx, hy, z0 + 0.24))
        for sy in (-1, 1):
            kit.cylinder("brushed_metal", BLACK, (head + 0.02, sy * (hy - 0.02), z0 + 0.5), 0.02, 0.5)
        kit.cylinder("brushed_metal", BLACK, (head + 0.02, 0.0, z0 + 0.98), 0.02, hy, axis="y")
        for k in range(1, 6):
            kit.cylinder("brushed_metal", BLACK, (head + 0.02, -hy + k * hy / 3, z0 + 0.65), 0.012, 0.33)
        mattress = (z0 + 0.24, top - 0.04)
    kit.box("linen", WHITE, (-hx + 0.02, -hy + 0.02, mattress[0]), (hx - 0.02, hy - 0.02, mattress[1]))
    # The blanket over the foot two thirds, hanging over the sides and the foot.
    fold = -hx + 0.55
    kit.box("fabric", c.accent, (fold, -hy - 0.01, top - 0.04), (hx + 0.01, hy + 0.01, top))
    kit.box("fabric", shade(c.accent, 1.15), (fold - 0.18, -hy - 0.01, top - 0.035), (fold, hy + 0.01, top - 0.005))
    for sy in (-1, 1):
        kit.box("fabric", c.accent, (fold, sy * hy - 0.01, top - 0.25), (hx + 0.01, sy * hy + 0.01, top - 0.04))
    kit.box("fabric", c.accent, (hx - 0.01, -hy - 0.01, top - 0.25), (hx + 0.01, hy + 0.01, top - 0.04))
    pillows = 2 if hy > 0.55 else 1
    for k in range(pillows):
        y = 0.0 if pillows == 1 else (k - 0.5) * hy
        kit.ellipsoid("linen", shade(WHITE, 0.97), (head + 0.28, y, top + 0.02), (0.17, min(0.32, hy / pillows - 0.04), 0.07))


def _couch(kit: Kit, p: Furniture, c: Choice, style: int) -> None:
    hx, hy, hz = p.half_extents
    z0 = -hz
    seat = z0 + p.seat_height
    back = -hx + p.backrest
    arm = (0.16, 0.09, 0.18)[style]
    arm_top = seat + (0.18, 0.12, 0.22)[style]
    legs = (0.08, 0.0, 0.10)[style]
    surface = "leather" if style == 2 else "upholstery"
    colour = shade(c.wood, 0.55) if style == 2 else c.fabric
    if legs:
        for sx in (-1, 1):
            for sy in (-1, 1):
                kit.cylinder("wood", shade(c.wood, 0.6), (sx * (hx - 0.06), sy * (hy - 0.08), z0 + legs / 2), 0.025, legs / 2)
    else:
        kit.box("wood", BLACK, (-hx + 0.04, -hy + 0.04, z0), (hx - 0.04, hy - 0.04, z0 + 0.04))
    base = z0 + max(legs, 0.04)
    kit.box(surface, colour, (-hx, -hy + arm, base), (hx, hy - arm, seat - 0.12))
    kit.box(surface, colour, (-hx, -hy + arm, base), (back, hy - arm, hz - 0.06))  # back frame
    for y0, y1 in ((-hy, -hy + arm), (hy - arm, hy)):  # the arms
        kit.box(surface, colour, (-hx, y0, base), (hx, y1, arm_top))
        if style == 2:  # rolled
            kit.cylinder(surface, colour, (0.0, (y0 + y1) / 2, arm_top), arm / 2 + 0.01, hx, axis="x")
    inner = hy - arm
    n = 3 if 2 * inner > 1.5 else 2
    if style == 1:
        n = 1
    w = 2 * inner / n
    for k in range(n):  # seat cushions
        y0 = -inner + k * w
        kit.box(surface, shade(colour, 1.06), (back, y0 + 0.006, seat - 0.12), (hx + 0.02, y0 + w - 0.006, seat))
    nb = 3 if style == 1 else n
    wb = 2 * inner / nb
    for k in range(nb):  # back cushions, leaning on the back
        y0 = -inner + k * wb
        kit.box(surface, shade(colour, 1.06), (back, y0 + 0.008, seat), (back + 0.14, y0 + wb - 0.008, hz - 0.02))
        if style == 2:
            for j in range(2):
                kit.sphere(surface, shade(colour, 0.6), (back + 0.142, y0 + wb * (j + 1) / 3, seat + 0.2), 0.012)
    if style != 2:  # a throw cushion in the accent colour
        kit.box("fabric", c.accent, (back + 0.12, -inner + 0.05, seat), (back + 0.26, -inner + 0.45, seat + 0.36),
                quat=(math.cos(0.15), math.sin(0.15), 0.0, 0.0))


def _chair(kit: Kit, p: Furniture, c: Choice, style: int) -> None:
    hx, hy, hz = p.half_extents
    z0 = -hz
    seat = z0 + p.seat_height
    back = -hx + p.backrest
    if style == 0:  # wooden dining chair: four legs, the back ones rising into a slatted back
        for sx, x in ((1, hx - 0.03), (-1, -hx + 0.03)):
            for sy in (-1, 1):
                h = seat - 0.04 if sx > 0 else hz
                kit.box("wood", c.wood, (x - 0.02, sy * (hy - 0.03) - 0.02, z0), (x + 0.02, sy * (hy - 0.03) + 0.02, h))
        kit.box("varnished_wood", c.wood, (-hx, -hy, seat - 0.04), (hx, hy, seat))
        for k in range(3):
            z = seat + 0.12 + k * (hz - seat - 0.14) / 2
            kit.box("wood", c.wood, (-hx + 0.01, -hy + 0.03, z - 0.03), (-hx + 0.05, hy - 0.03, z + 0.03))
    elif style == 1:  # upholstered seat and back on slim steel legs
        for sx in (-1, 1):
            for sy in (-1, 1):
                kit.cylinder("brushed_metal", STEEL, (sx * (hx - 0.04), sy * (hy - 0.04), (z0 + seat - 0.07) / 2), 0.012,
                             (seat - 0.07 - z0) / 2)
        kit.box("upholstery", c.fabric, (-hx + 0.01, -hy, seat - 0.08), (hx, hy, seat))
        kit.box("upholstery", c.fabric, (-hx, -hy + 0.01, seat - 0.02), (back + 0.02, hy - 0.01, hz))
    else:  # an office chair: a star base on a column, seat and back in one colour
        r = min(hx, hy) - 0.02
        for k in range(5):
            a = 2 * math.pi * k / 5
            ca, sa = math.cos(a), math.sin(a)
            visual.add_geom(kit.body, "box", (r / 2, 0.015, 0.015), pos=(ca * r / 2, sa * r / 2, z0 + 0.065), quat=yaw_quat(a),
                            material=kit.mat("plastic", BLACK))
            kit.sphere("plastic", BLACK, (r * ca, r * sa, z0 + 0.025), 0.025)
        kit.cylinder("brushed_metal", STEEL, (0.0, 0.0, (z0 + 0.08 + seat - 0.08) / 2), 0.025, (seat - 0.16 - z0) / 2)
        kit.box("upholstery", c.fabric, (-hx + 0.02, -hy + 0.02, seat - 0.08), (hx, hy - 0.02, seat))
        kit.box("plastic", BLACK, (-hx + 0.01, -0.03, seat - 0.06), (-hx + 0.04, 0.03, seat + 0.12))
        kit.box("upholstery", c.fabric, (-hx, -hy + 0.04, seat + 0.10), (back, hy - 0.04, hz))


def _toilet(kit: Kit, p: Furniture, c: Choice, style: int) -> None:
    hx, hy, hz = p.half_extents
    z0 = -hz
    seat = z0 + p.seat_height
    back = -hx + p.backrest
    front = hx - 0.02
    cx = (back + front) / 2
    rx, ry = (front - back) / 2, hy - 0.01
    if style != 1:  # on a pedestal
        kit.mesh("ceramic", WHITE, frustum(0.10, 0.13, seat - 0.10 - z0, scale_x=1.4), pos=(cx - 0.03, 0.0, z0))
        bowl_z = seat - 0.10
    else:  # wall-hung: no pedestal, a flush plate on the cistern
        bowl_z = seat - 0.16
        kit.box("ceramic", WHITE, (-hx, -hy + 0.03, bowl_z - 0.02), (back, hy - 0.03, bowl_z + 0.14))
    kit.mesh("ceramic", WHITE, frustum(min(rx, ry) * 0.75, min(rx, ry), seat - 0.015 - bowl_z, scale_x=rx / ry),
             pos=(cx, 0.0, bowl_z))
    kit.mesh("ceramic", (0.78, 0.80, 0.82), frustum(0.01, min(rx, ry) * 0.8, 0.004, scale_x=rx / ry),
             pos=(cx, 0.0, seat - 0.02))  # the water
    seat_rgb = (WHITE, BLACK, c.wood)[style]
    kit.mesh("plastic" if style < 2 else "varnished_wood", seat_rgb, oval_ring(rx - 0.02, ry - 0.03, 0.02),
             pos=(cx, 0.0, seat - 0.01))
    # The lid, raised against the cistern.
    kit.box("plastic" if style < 2 else "varnished_wood", seat_rgb, (back + 0.005, -ry + 0.04, seat),
            (back + 0.03, ry - 0.04, seat + 2 * rx - 0.06))
    tank_top = hz if style != 1 else hz - 0.05
    kit.box("ceramic", WHITE, (-hx, -hy, seat - 0.05 if style != 1 else z0 + 0.2), (back, hy, tank_top - 0.03))
    kit.box("ceramic", WHITE, (-hx - 0.005, -hy - 0.01, tank_top - 0.03), (back + 0.01, hy + 0.01, tank_top))
    if style == 1:
        kit.box("brushed_metal", STEEL, (back, -0.09, seat + 0.15), (back + 0.008, 0.09, seat + 0.27))
    else:
        kit.cylinder("brushed_metal", STEEL, ((-hx + back) / 2, 0.0, tank_top + 0.004), 0.025, 0.004)


def _tv(kit: Kit, p: Furniture, c: Choice, style: int) -> None:
    hx, hy, hz = p.half_extents
    z0 = -hz
    on_stand = p.support is not None
    panel = (z0 + 0.08 if on_stand else z0, hz)
    thick = (0.025, 0.05, 0.04)[style]
    bezel = (0.012, 0.03, 0.06)[style]
    frame = (("plastic", BLACK), ("brushed_metal", STEEL), ("varnished_wood", c.wood))[style]
    x1 = hx - 0.02
    kit.box(*frame, (x1 - thick, -hy, panel[0]), (x1, hy, panel[1]))
    kit.box("screen", None, (x1, -hy + bezel, panel[0] + bezel), (x1 + 0.003, hy - bezel, panel[1] - bezel))
    if not on_stand:  # a wall bracket behind
        kit.box("brushed_metal", BLACK, (-hx, -0.15, -0.12), (x1 - thick, 0.15, 0.12))
        return
    if style == 1:  # two feet at the ends
        for sy in (-1, 1):
            y = sy * (hy - 0.15)
            kit.box("brushed_metal", STEEL, (x1 - thick - 0.01, y - 0.012, z0), (x1 - 0.01, y + 0.012, panel[0]))
            kit.box("brushed_metal", STEEL, (-hx + 0.01, y - 0.03, z0), (hx - 0.01, y + 0.03, z0 + 0.012))
    else:  # a pedestal: a neck on a base plate
        kit.box(*frame, (x1 - thick - 0.015, -0.03, z0 + 0.01), (x1 - thick, 0.03, panel[0] + 0.05))
        kit.box(*frame, (-hx + 0.01, -0.20, z0), (hx - 0.01, 0.20, z0 + 0.012))


def _plant(kit: Kit, p: Furniture, c: Choice, style: int) -> None:
    hx, hy, hz = p.half_extents
    z0 = -hz
    r = min(hx, hy) * 0.85
    rng = np.random.default_rng(c.seed)
    green = pick(rng, LEAF_GREENS)
    pot = ((0.72, 0.40, 0.26), WHITE, c.accent)[style]
    pot_surface = ("terracotta", "ceramic", "fabric")[style]
    height = (0.30, 0.32, 0.26)[style]
    kit.mesh(pot_surface, pot, frustum(r * 0.72, r, height), pos=(0.0, 0.0, z0))
    kit.cylinder(pot_surface, shade(pot, 0.9), (0.0, 0.0, z0 + height - 0.015), r + 0.01, 0.015)
    kit.cylinder("soil", None, (0.0, 0.0, z0 + height - 0.02), r - 0.01, 0.005)
    soil = z0 + height - 0.02
    top = hz
    if style == 0:  # a broad-leaf plant: stems and drooping oval leaves
        blades = []
        for k in range(14):
            a = rng.uniform(-math.pi, math.pi)
            z = soil + rng.uniform(0.15, top - soil - 0.15)
            stem = np.array([0.03 * math.cos(a), 0.03 * math.sin(a), z])
            blades.append((stem, a, rng.uniform(0.1, 0.6), rng.uniform(0.16, 0.24), rng.uniform(0.08, 0.12),
                           rng.uniform(0.02, 0.06)))
        kit.mesh("leaf", green, leaves(blades))
        for k in range(3):
            kit.cylinder("leaf", shade(green, 0.6), (0.015 * (k - 1), 0.0, (soil + top - 0.15) / 2), 0.008,
                         (top - 0.15 - soil) / 2)
    elif style == 1:  # a snake plant: upright sword leaves
        blades = []
        for k in range(11):
            a = 2 * math.pi * k / 11 + rng.uniform(-0.2, 0.2)
            length = rng.uniform(0.55, 1.0) * (top - soil)
            base = np.array([0.05 * math.cos(a), 0.05 * math.sin(a), soil])
            blades.append((base, a, math.radians(rng.uniform(72, 86)), length, rng.uniform(0.05, 0.07), 0.0))
        kit.mesh("leaf", green, leaves(blades))
    else:  # a round bush of foliage clumps
        for k in range(9):
            a = rng.uniform(-math.pi, math.pi)
            d = rng.uniform(0.0, r * 0.9)
            z = rng.uniform(soil + 0.15, top - 0.12)
            size = rng.uniform(0.09, 0.14)
            kit.ellipsoid("leaf", shade(green, rng.uniform(0.85, 1.15)), (d * math.cos(a), d * math.sin(a), z),
                          (size, size, size * 0.85))
        kit.cylinder("wood", shade(c.wood, 0.6), (0.0, 0.0, (soil + top - 0.2) / 2), 0.015, (top - 0.2 - soil) / 2)


def _table(kit: Kit, p: Furniture, c: Choice, style: int) -> None:
    """Tables and desks: a top on four legs (wooden or steel)."""
    hx, hy, hz = p.half_extents
    z0 = -hz
    kit.box("varnished_wood", c.wood, (-hx, -hy, hz - 0.04), (hx, hy, hz))
    for sx in (-1, 1):
        for sy in (-1, 1):
            x, y = sx * (hx - 0.05), sy * (hy - 0.05)
            if style == 0:
                kit.box("wood", shade(c.wood, 0.85), (x - 0.025, y - 0.025, z0), (x + 0.025, y + 0.025, hz - 0.04))
            else:
                kit.cylinder("brushed_metal", BLACK, (x, y, (z0 + hz - 0.04) / 2), 0.018, (hz - 0.04 - z0) / 2)
    if p.category == "desk":  # a drawer unit under one end
        kit.box("wood", shade(c.wood, 0.9), (-hx + 0.03, hy - 0.42, z0 + 0.02), (hx - 0.03, hy - 0.06, hz - 0.04))
        for k in range(3):
            z = z0 + 0.02 + (k + 0.5) * (hz - 0.06 - z0) / 3
            kit.box("brushed_metal", STEEL, (hx - 0.03, hy - 0.30, z - 0.008), (hx - 0.015, hy - 0.18, z + 0.008))


def _variants(fn: Callable, count: int) -> tuple[Callable, ...]:
    return tuple((lambda kit, p, c, s=s: fn(kit, p, c, s)) for s in range(count))


VARIANTS: dict[str, tuple[Callable, ...]] = {
    "bed": _variants(_bed, 3),
    "couch": _variants(_couch, 3),
    "chair": _variants(_chair, 3),
    "toilet": _variants(_toilet, 3),
    "tv": _variants(_tv, 3),
    "potted_plant": _variants(_plant, 3),
    "coffee_table": _variants(_table, 2),
    "dining_table": _variants(_table, 2),
    "desk": _variants(_table, 2),
}
VARIANT_NAMES = {
    "bed": ("wooden frame", "upholstered", "metal frame"),
    "couch": ("classic", "low modern", "leather"),
    "chair": ("wooden", "upholstered", "office"),
    "toilet": ("pedestal", "wall-hung", "wooden seat"),
    "tv": ("slim", "silver", "framed"),
    "potted_plant": ("broad-leaf", "snake plant", "bush"),
    "coffee_table": ("wooden legs", "steel legs"),
    "dining_table": ("wooden legs", "steel legs"),
    "desk": ("wooden legs", "steel legs"),
}


# -- other pieces: their boxes in a material, a few details on the front ---------------------------
def _front(kit: Kit, p: Furniture, rgb, lo_yz, hi_yz, surface: str = "wood"):
    hx = p.half_extents[0]
    return kit.box(surface, rgb, (hx, lo_yz[0], lo_yz[1]), (hx + 0.006, hi_yz[0], hi_yz[1]))


def _cabinet(kit: Kit, p: Furniture, c: Choice, geoms, doors: int, surface: str = "wood", colour=None) -> None:
    hx, hy, hz = p.half_extents
    colour = colour or c.wood
    for geom in geoms:
        kit.wardrobe.dress(geom, surface, (*colour, 1.0))
    w = 2 * hy / doors
    for k in range(doors):
        y0 = -hy + k * w
        _front(kit, p, shade(colour, 1.05), (y0 + 0.012, -hz + 0.06), (y0 + w - 0.012, hz - 0.03), surface)
        hy_ = y0 + (w - 0.08 if k % 2 == 0 else 0.08)
        kit.box("brushed_metal", STEEL, (hx + 0.006, hy_ - 0.01, hz - 0.25), (hx + 0.02, hy_ + 0.01, hz - 0.10))


def _wardrobe(kit, p, c, geoms):
    _cabinet(kit, p, c, geoms, 2, "wood", pick(np.random.default_rng(c.seed), (c.wood, PAINTS[0])))


def _tv_stand(kit, p, c, geoms):
    _cabinet(kit, p, c, geoms, 3, "wood", shade(c.wood, 0.8))


def _nightstand(kit, p, c, geoms):
    hx, hy, hz = p.half_extents
    for geom in geoms:
        kit.wardrobe.dress(geom, "wood", (*c.wood, 1.0))
    for z in (hz - 0.2, hz - 0.02):
        _front(kit, p, shade(c.wood, 1.08), (-hy + 0.02, z - 0.16), (hy - 0.02, z))
        kit.sphere("brushed_metal", STEEL, (hx + 0.02, 0.0, z - 0.08), 0.015)


def _counter(kit, p, c, geoms):
    hx, hy, hz = p.half_extents
    paint = pick(np.random.default_rng(c.seed), PAINTS[1:] + ((0.30, 0.36, 0.42),))
    _cabinet(kit, p, c, geoms, max(2, round(2 * hy / 0.5)), "paint", paint)
    kit.box("plastic", (0.25, 0.24, 0.23), (-hx, -hy, hz), (hx + 0.03, hy, hz + 0.004))


def _bookshelf(kit, p, c, geoms):
    hx, hy, hz = p.half_extents
    for geom in geoms:
        kit.wardrobe.dress(geom, "wood", (*c.wood, 1.0))
    rng = np.random.default_rng(c.seed)
    shelves = 5
    gap = 2 * hz / shelves
    for s in range(shelves):
        z = -hz + s * gap
        kit.box("wood", c.wood, (hx, -hy, z), (hx + 0.02, hy, z + 0.025))
        kit.box("paint", shade(c.wood, 0.45), (hx, -hy + 0.02, z + 0.025), (hx + 0.003, hy - 0.02, z + gap))
        y = -hy + 0.03
        while y < hy - 0.06:
            w = rng.uniform(0.02, 0.05)
            h = gap * rng.uniform(0.55, 0.85)
            kit.box("plastic", pick(rng, FABRICS), (hx, y, z + 0.025), (hx + 0.012, y + w, z + 0.025 + h))
            y += w + 0.004


def _sink(kit, p, c, geoms):
    hx, hy, hz = p.half_extents
    for geom in geoms:
        kit.wardrobe.dress(geom, "paint", (*pick(np.random.default_rng(c.seed), PAINTS), 1.0))
    kit.box("ceramic", WHITE, (-hx, -hy, hz - 0.08), (hx + 0.02, hy, hz + 0.01))
    kit.ellipsoid("ceramic", (0.80, 0.82, 0.84), (0.04, 0.0, hz + 0.008), (hx * 0.6, hy * 0.6, 0.006))
    kit.cylinder("brushed_metal", STEEL, (-hx + 0.06, 0.0, hz + 0.08), 0.015, 0.07)
    kit.box("brushed_metal", STEEL, (-hx + 0.05, -0.012, hz + 0.14), (-hx + 0.18, 0.012, hz + 0.16))
    kit.box("glass", (0.85, 0.90, 0.92, 0.6), (-hx - 0.005, -hy * 0.8, hz + 0.25), (-hx + 0.003, hy * 0.8, hz + 0.95))


def _bathtub(kit, p, c, geoms):
    hx, hy, hz = p.half_extents
    for geom in geoms:
        kit.wardrobe.dress(geom, "ceramic", (*WHITE, 1.0))
    kit.box("ceramic", (0.86, 0.88, 0.90), (-hx + 0.07, -hy + 0.07, hz), (hx - 0.07, hy - 0.07, hz + 0.002))
    kit.cylinder("brushed_metal", STEEL, (-hx + 0.04, hy - 0.15, hz + 0.06), 0.015, 0.06)
    kit.box("brushed_metal", STEEL, (-hx + 0.03, hy - 0.165, hz + 0.11), (-hx + 0.15, hy - 0.135, hz + 0.13))


def _surface(surface: str, colours):
    def dress(kit, p, c, geoms):
        rgb = pick(np.random.default_rng(c.seed), colours)
        for geom in geoms:
            kit.wardrobe.dress(geom, surface, (*rgb[:3], rgb[3] if len(rgb) > 3 else 1.0))
    return dress


def _round(surface: str, colours, taper: float):
    """Cups, bottles and bowls: the box hidden, drawn as a (tapered) round vessel that fills it."""
    def dress(kit, p, c, geoms):
        hx, hy, hz = p.half_extents
        for geom in geoms:
            geom.rgba = [0.5, 0.5, 0.5, 0.0]
        rgb = pick(np.random.default_rng(c.seed), colours)
        r = min(hx, hy)
        if p.category == "bottle":
            kit.cylinder(surface, rgb, (0.0, 0.0, -hz * 0.3), r, hz * 0.7)
            kit.mesh(surface, rgb, frustum(r, r * 0.35, hz * 0.6), pos=(0.0, 0.0, hz * 0.4))
            kit.cylinder("plastic", (0.85, 0.15, 0.10), (0.0, 0.0, hz - 0.012), r * 0.38, 0.012)
        else:
            kit.mesh(surface, rgb, frustum(r * taper, r, 2 * hz), pos=(0.0, 0.0, -hz))
    return dress


def _stool(kit, p, c, geoms):
    """A round wooden seat on four splayed legs, the box hidden."""
    hx, hy, hz = p.half_extents
    for geom in geoms:
        geom.rgba = [0.5, 0.5, 0.5, 0.0]
    r = min(hx, hy)
    kit.cylinder("varnished_wood", c.wood, (0.0, 0.0, hz - 0.02), r, 0.02)
    for k in range(4):
        a = math.pi / 4 + k * math.pi / 2
        kit.cylinder("wood", shade(c.wood, 0.85), (0.7 * r * math.cos(a), 0.7 * r * math.sin(a), -0.02), 0.018, hz - 0.02)


def _basket(kit, p, c, geoms):
    """A woven basket: the box in a wicker weave, a dark inside and a rim."""
    hx, hy, hz = p.half_extents
    wicker = pick(np.random.default_rng(c.seed), ((0.70, 0.55, 0.35), (0.60, 0.48, 0.30), (0.85, 0.78, 0.62)))
    for geom in geoms:
        kit.wardrobe.dress(geom, "fabric", (*wicker, 1.0), repeat=14.0)
    kit.box("fabric", shade(wicker, 0.35), (-hx + 0.02, -hy + 0.02, hz), (hx - 0.02, hy - 0.02, hz + 0.002))
    for lo, hi in (((-hx - 0.01, -hy - 0.01), (hx + 0.01, -hy + 0.02)), ((-hx - 0.01, hy - 0.02), (hx + 0.01, hy + 0.01)),
                   ((-hx - 0.01, -hy), (-hx + 0.02, hy)), ((hx - 0.02, -hy), (hx + 0.01, hy))):
        kit.box("fabric", shade(wicker, 0.8), (*lo, hz - 0.03), (*hi, hz + 0.004))


def _plain_box(kit, p, c, geoms):
    for geom in geoms:
        kit.wardrobe.dress(geom, "wood", (*c.wood, 1.0))


PLAIN: dict[str, Callable] = {
    "wardrobe": _wardrobe,
    "tv_stand": _tv_stand,
    "nightstand": _nightstand,
    "counter": _counter,
    "bookshelf": _bookshelf,
    "sink": _sink,
    "bathtub": _bathtub,
    "box": _surface("cardboard", ((0.70, 0.52, 0.32), (0.62, 0.45, 0.28))),
    "shoebox": _surface("cardboard", ((0.80, 0.30, 0.15), (0.25, 0.35, 0.60), (0.85, 0.85, 0.82))),
    "stool": _stool,
    "basket": _basket,
    "book": _surface("plastic", FABRICS),
    "cup": _round("ceramic", ((0.95, 0.95, 0.94), (0.30, 0.45, 0.70), (0.80, 0.35, 0.25)), 0.85),
    "bottle": _round("glass", ((0.35, 0.60, 0.40, 0.8), (0.55, 0.75, 0.85, 0.7)), 1.0),
    "bowl": _round("ceramic", ((0.95, 0.95, 0.94), (0.85, 0.75, 0.55)), 0.55),
}
