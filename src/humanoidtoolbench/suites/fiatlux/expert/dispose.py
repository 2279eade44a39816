"""S06: drop the old bulb, lying on the back of the right hand, into the crate.

The robot leans its waist and lowers its pelvis first, so the balanced
controller has moved the hips back before the arm plans from the measured
pelvis; the hand then carries the bulb, kept level, over the crate's
interior (the point deepest towards its centre that the arm reaches) at the
lowest height it reaches, corrects once from the bulb's measured position, and
pitches the fingers down so the bulb rolls off them and falls in. A bulb let
go 0.85 m above the crate floor lands and stays (seeds 0-2). The arm comes
back and the robot stands while the bulb comes to rest.
"""

from __future__ import annotations

import math

import numpy as np

from .. import props
from ....planning.kinematics import Reach
from ....planning.skills import Context, Steps, glide, hold_still, wait
from .common import UP, move, pose, yaw_of

MARGIN = 0.06  # m: the bulb's centre this far inside the interior walls (its glass radius, 0.04, and more)
SHOULDER_Y = -0.15  # m: the right shoulder, left of the pelvis
TURN = 0.5  # rad: the most waist yaw used
LEAN = 0.5  # rad of waist pitch over the crate
HEIGHT = 0.70  # pelvis while leaning
HEIGHTS = (0.6, 0.7, 0.8, 0.9)  # bulb heights tried, lowest reachable first
DEEPER = (0.5, 0.25, 0.0)  # shares of the way from the nearest interior point to the crate's centre, tried first
REACHABLE = 0.02  # IK residual accepted
CORRECT = 0.02  # m: a measured miss this large is corrected once
SPOT = (0.09, -0.05, 0.0)  # the bulb's centre in the right wrist frame (on the back of the hand)
BACK = (0.0, -1.0, 0.0)  # the back of the right hand, wrist frame: kept up while carrying
TIP = 1.2  # rad of wrist pitch that tips the bulb off the fingers


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


def bulb_centre(world: dict) -> np.ndarray:
    pos, rot = pose(world, "old_bulb")
    return pos + rot[:, 2] * props.BULB_CENTRE


def lowest_reach(ctx: Context, near: np.ndarray, centre: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(drop point, arm joints holding the bulb over it at the lowest height in `HEIGHTS` reached):
    the point deepest towards the crate's centre the arm reaches, from `DEEPER`, else the nearest
    reach over `near` at the highest. A bulb let go over the interior's near corner can bounce out."""
    for k in DEEPER:
        xy = near + (centre - near) * k
        for z in HEIGHTS:
            q, residual = ctx.commanded_kinematics().solve_global("right", level(np.array([*xy, z])))
            if residual < REACHABLE:
                return xy, q
    return xy, q


def turn_towards(ctx: Context, xy: np.ndarray) -> float:
    """Waist yaw that turns the right shoulder towards `xy` (the drop point lies ahead and left of it)."""
    base = ctx.obs.base
    d = xy - base[:2]
    yaw = float(base[3])
    fwd = d[0] * math.cos(yaw) + d[1] * math.sin(yaw)
    left = -d[0] * math.sin(yaw) + d[1] * math.cos(yaw)
    return float(np.clip(math.atan2(left - SHOULDER_Y, fwd), -TURN, TURN))


def plan(ctx: Context) -> Steps:
    world = ctx.obs.world
    crate, _ = pose(world, "crate")
    crate_yaw = yaw_of(world["poses"]["crate"][3:7])
    start_arm = ctx.cmd[ctx.arm_slots("right")].copy()
    pitch, yaw, height = ctx.slot("waist_pitch_joint"), ctx.slot("waist_yaw_joint"), ctx.slot("base_height")
    stand = {k: float(ctx.cmd[k]) for k in (pitch, yaw, height)}
    xy = drop_point(np.asarray(ctx.obs.base[:2]), crate[:2], crate_yaw)
    held = ctx.commanded_kinematics().point("right", SPOT)
    body = {pitch: LEAN, yaw: turn_towards(ctx, xy), height: HEIGHT}
    yield from move(ctx, "right", level, held, 1.5, body)  # the hand stays level while the body leans
    yield from wait(ctx, 0.5)
    xy = drop_point(np.asarray(ctx.obs.base[:2]), crate[:2], crate_yaw)  # the hips have moved back
    # Straight in joint space to the best posture: from the carrying arm this keeps the back of
    # the hand within 30 degrees of up (seed 0), where a solved line jumps between postures.
    xy, q = lowest_reach(ctx, xy, crate[:2])
    yield from glide(ctx, (ctx.arm_slots("right"), q), 2.5)
    yield from wait(ctx, 0.5)
    miss = xy - bulb_centre(ctx.obs.world)[:2]
    if np.linalg.norm(miss) > CORRECT:
        goal = ctx.commanded_kinematics().point("right", SPOT) + np.array([*miss, 0.0])
        q, _ = ctx.commanded_kinematics().solve("right", level(goal))
        yield from glide(ctx, (ctx.arm_slots("right"), q), 0.8)
        yield from wait(ctx, 0.3)
    wrist = ctx.slot("right_wrist_pitch_joint")
    yield from glide(ctx, {wrist: ctx.cmd[wrist] + TIP}, 0.6)
    yield from wait(ctx, 1.0)
    yield from glide(ctx, (ctx.arm_slots("right"), start_arm), 1.5)
    yield from glide(ctx, stand, 1.5)
    yield from hold_still(ctx)
