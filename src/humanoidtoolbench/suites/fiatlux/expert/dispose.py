"""S06: drop the old bulb, lying on the back of the right hand, into the crate.

The hand carries the bulb over the crate's interior (the nearest point at
least `MARGIN` inside its walls), leaning the waist and lowering the pelvis
to get there, then rolls the wrist so the bulb slides off and falls in; the
arm goes back and the robot stands while the bulb comes to rest.
"""

from __future__ import annotations

import math

import numpy as np

from .. import props
from ...toolbench.expert.kinematics import Reach
from ...toolbench.expert.skills import Context, Steps, glide, hold_still, reach, wait
from .common import UP, move, pose, yaw_of

MARGIN = 0.08  # m: the bulb's centre this far inside the interior walls (its glass radius and more)
LEAN = 0.5  # rad of waist pitch over the crate
HEIGHT = 0.70  # pelvis while leaning
HEIGHTS = (0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0)  # bulb heights tried, lowest reachable first
REACHABLE = 0.02  # IK residual accepted
SPOT = (0.09, -0.05, 0.0)  # the bulb's centre in the right wrist frame (on the back of the hand)
BACK = (0.0, -1.0, 0.0)  # the back of the right hand, wrist frame: kept up while carrying
TIP = -1.6  # rad of wrist roll that tips the bulb off the hand


def drop_point(base_xy: np.ndarray, crate_xy: np.ndarray, crate_yaw: float) -> np.ndarray:
    """The point of the crate's interior nearest the robot, `MARGIN` inside the walls (xy)."""
    c, s = math.cos(crate_yaw), math.sin(crate_yaw)
    rot = np.array([[c, -s], [s, c]])
    local = rot.T @ (base_xy - crate_xy)
    inner = np.array(props.CRATE_INNER_HALF) - MARGIN
    return crate_xy + rot @ np.clip(local, -inner, inner)


def level(pos: np.ndarray) -> Reach:
    """The bulb's spot at `pos`, the back of the hand up (the bulb only rests on it)."""
    return Reach(pos, normal=UP, normal_local=BACK, offset=SPOT, normal_weight=0.3)


def plan(ctx: Context) -> Steps:
    world = ctx.obs.world
    crate, _ = pose(world, "crate")
    xy = drop_point(np.asarray(ctx.obs.base[:2]), crate[:2], yaw_of(world["poses"]["crate"][3:7]))
    start_arm = ctx.cmd[ctx.arm_slots("right")].copy()
    lean, height = ctx.cmd[ctx.slot("waist_pitch_joint")], ctx.cmd[ctx.slot("base_height")]
    ctx.cmd[ctx.slot("waist_pitch_joint")], ctx.cmd[ctx.slot("base_height")] = LEAN, HEIGHT
    goal = np.array([*xy, HEIGHTS[-1]])
    for z in HEIGHTS:  # the lowest drop the arm reaches, leaning
        goal[2] = z
        _, residual = ctx.commanded_kinematics().solve_global("right", level(goal))
        if residual < REACHABLE:
            break
    ctx.cmd[ctx.slot("waist_pitch_joint")], ctx.cmd[ctx.slot("base_height")] = lean, height
    body = {ctx.slot("waist_pitch_joint"): LEAN, ctx.slot("base_height"): HEIGHT}
    yield from move(ctx, "right", level, goal, 3.0, body, pieces=12)
    yield from wait(ctx, 0.4)
    roll = ctx.slot("right_wrist_roll_joint")
    yield from glide(ctx, {roll: ctx.cmd[roll] + TIP}, 0.6)
    yield from wait(ctx, 0.8)
    yield from glide(ctx, {ctx.slot("waist_pitch_joint"): 0.0, ctx.slot("base_height"): 0.74}, 1.2)
    yield from glide(ctx, (ctx.arm_slots("right"), start_arm), 1.2)
    yield from hold_still(ctx)
