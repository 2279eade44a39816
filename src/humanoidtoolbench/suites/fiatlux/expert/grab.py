"""S08: pick the fresh bulb up from the workbench between the right thumb and fingers.

The bench top is at the G1's chest, so the hand first rises in front of the
chest, then comes to the bulb's right side held like a handshake (fingers
forward, palm facing the bulb), slides over it so the glass sits between the
thumb and the straight fingers, and the index and middle fingers curl round
it. Their servos press only as hard as their angle error asks, well under the
glass's 50 N. Then the hand lifts the bulb clear of the bench and holds.
"""

from __future__ import annotations

import math
from typing import Callable, Generator

import numpy as np

from .. import props
from ....planning.kinematics import Reach
from ....planning.skills import Context, Steps, glide, hold_still, wait
from ..start import PINCH_CURL
from .common import UP, heading_axes, move, pose

LEAN = 0.55  # rad of waist pitch towards the bench: the bulb is about 0.6 m ahead of the pelvis
HEIGHT = 0.76  # pelvis while reaching
GRASP = (0.135, 0.075, 0.0)  # the glass centre in the right wrist frame: between thumb and fingers
PALM = (0.0, 1.0, 0.0)  # the right palm's normal, wrist frame
SIDE = 0.10  # m to the right of the bulb before sliding over it
BACK_OFF, OUT = 0.10, 0.05  # m: the hand's first move, back from the bench and out to the right
TUCK = (0.25, -0.15, 0.35)  # the hand in front of the chest, over the bench top (forward, left, up from the pelvis)
APPROACH = 0.08  # m from the glass on the way in, away from its support: the hand comes beside the bulb
LIFT = 0.08  # m
REACH = np.array([-2.2, -0.6, 0.4, 1.4, 0.6, 0.4, 0.1])  # right arm: raised forward, elbow bent, a start for the solver


def glass_centre(world: dict, bulb: str = "fresh_bulb") -> np.ndarray:
    pos, rot = pose(world, bulb)
    return pos + rot[:, 2] * props.BULB_CENTRE


def pinch(ctx: Context, bulb: str, away: np.ndarray) -> Generator[None, None, Callable[[np.ndarray], Reach]]:
    """Close the right hand round `bulb`'s glass, coming in from `away` (a unit vector from the
    glass, clear of what it stands on or hangs from); returns the hand's reach for what follows."""
    fwd, left = heading_axes(ctx)
    centre = glass_centre(ctx.obs.world, bulb)

    def hand(pos: np.ndarray) -> Reach:
        return Reach(pos, axis=UP, normal=left, offset=GRASP, normal_local=PALM, axis_weight=0.5, normal_weight=0.5)

    base = np.array([*ctx.obs.base[:2], ctx.obs.base[2] - ctx.cmd[ctx.slot("base_height")] + HEIGHT])
    at = ctx.commanded_kinematics().point("right", GRASP)
    # The hanging fingers may start under the bench's edge: back and out first, then up at the side.
    away_from_bench = at - BACK_OFF * fwd - OUT * left
    yield from move(ctx, "right", hand, away_from_bench, 0.6, pieces=3)
    yield from move(ctx, "right", hand, np.array([*away_from_bench[:2], base[2] + TUCK[2]]), 0.8, pieces=4)
    # Into the tuck straight in joint space, to the reaching posture's family (upper arm raised
    # forward, elbow bent): from there a solved line reaches every bulb; from the side's own
    # family it stalls about 0.2 m short of some.
    kin = ctx.commanded_kinematics()
    kin.data.qpos[kin.arm_qpos["right"]] = REACH
    q, _ = kin.solve("right", hand(base + fwd * TUCK[0] + left * TUCK[1] + UP * TUCK[2]))
    yield from glide(ctx, (ctx.arm_slots("right"), q), 1.2)
    ahead = centre[:2] - base[:2]  # the torso turns to face the bulb: one to the left is otherwise out of reach
    turn = math.atan2(float(ahead @ left[:2]), float(ahead @ fwd[:2]))
    lean = {ctx.slot("base_height"): HEIGHT, ctx.slot("waist_pitch_joint"): LEAN, ctx.slot("waist_yaw_joint"): turn}
    yield from move(ctx, "right", hand, centre - SIDE * left + APPROACH * away, 2.0, lean)
    yield from move(ctx, "right", hand, centre - SIDE * left + 0.01 * away, 0.8, pieces=4)
    yield from wait(ctx, 0.3)
    for _ in range(3):  # close in on the glass from the measured hand, not the commanded one
        miss = glass_centre(ctx.obs.world, bulb) + 0.01 * away - ctx.measured_kinematics().point("right", GRASP)
        goal = ctx.commanded_kinematics().point("right", GRASP) + miss
        yield from move(ctx, "right", hand, goal, 0.6, pieces=3)
        yield from wait(ctx, 0.2)
    yield from glide(ctx, {ctx.slot(joint): v for joint, v in PINCH_CURL.items()}, 0.8)
    yield from wait(ctx, 0.3)
    return hand


def plan(ctx: Context) -> Steps:
    hand = yield from pinch(ctx, "fresh_bulb", UP)
    yield from move(ctx, "right", hand, ctx.commanded_kinematics().point("right", GRASP) + LIFT * UP, 1.0, pieces=5)
    yield from hold_still(ctx)
