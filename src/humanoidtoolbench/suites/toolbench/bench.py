"""The bench and the robot's place at it, in world coordinates.

One 1.80 x 0.80 m slab centred at the origin, top at 0.70 m. The robot stands
on the +y side facing -y, so its left is +x: the tool half is x > 0, the task
half x < 0. L2 items go on the far end of the tool half, beyond the tool row.
"""

from __future__ import annotations

import math

import mujoco

from ...robot import collision
from ...sim.look import Wardrobe
from .props.base import Vec3

SIZE = (1.80, 0.80)
TOP = 0.70
THICKNESS = 0.035
LEG = 0.05  # square legs, inset from the corners
BENCH_CONTACT = dict(friction=(2.0, 0.04, 0.02), condim=6, priority=10)

SPAWN_XY = (0.0, 0.75)
SPAWN_YAW = -math.pi / 2  # facing the bench
SPAWN_JITTER = 0.03  # metres, uniform in x and y
SPAWN_YAW_JITTER = 0.03  # rad

TOOL_ROW_DEPTH = 0.63  # tool centres this far in front of the nominal spawn
TOOL_ROW_X = (0.04, 0.64)  # the row of tools and irrelevant objects on the tool half
ROW_GAP = 0.06
ROW_YAW_JITTER = 0.06
FAR_STRIP_X = (0.74, 0.80)  # L2 items: far end of the tool half
EDGE_MARGIN = 0.02


def half_extent() -> tuple[float, float]:
    return SIZE[0] / 2, SIZE[1] / 2


def on_bench(xy, half: tuple[float, float], margin: float = EDGE_MARGIN) -> bool:
    hx, hy = half_extent()
    return abs(xy[0]) + half[0] <= hx - margin and abs(xy[1]) + half[1] <= hy - margin


# A dressed look: a varnished top of the layout's wood colour on legs a shade darker.
LEG_SHADE = 0.7


def add_bench(spec: mujoco.MjSpec, rgba: Vec3 | tuple[float, ...], wardrobe: Wardrobe | None = None) -> None:
    """The slab and four legs, all static scenery; with a wardrobe, wood."""
    sx, sy = SIZE
    mat = spec.add_material(name="bench_mat", rgba=list(rgba), specular=0.2, shininess=0.2)
    body = spec.worldbody.add_body(name="bench")
    top = body.add_geom(
        name="bench_top",
        type=mujoco.mjtGeom.mjGEOM_BOX,
        size=[sx / 2, sy / 2, THICKNESS / 2],
        pos=[0, 0, TOP - THICKNESS / 2],
        material=mat.name,
    )
    collision.assign(top, collision.WORLD)
    collision.set_contact(top, BENCH_CONTACT)
    leg_h = TOP - THICKNESS
    for i, (x, y) in enumerate(((1, 1), (1, -1), (-1, 1), (-1, -1))):
        leg = body.add_geom(
            name=f"bench_leg_{i}",
            type=mujoco.mjtGeom.mjGEOM_BOX,
            size=[LEG / 2, LEG / 2, leg_h / 2],
            pos=[x * (sx / 2 - 0.06), y * (sy / 2 - 0.06), leg_h / 2],
            material=mat.name,
        )
        collision.assign(leg, collision.WORLD)
        if wardrobe is not None:
            wardrobe.dress(leg, "wood", (*(LEG_SHADE * c for c in rgba[:3]), 1.0))
    if wardrobe is not None:
        wardrobe.dress(top, "varnished_wood", rgba)
