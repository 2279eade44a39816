"""S11: put the fresh bulb into the fixture, standing on the ladder's top tread.

The start holds the bulb as the pinch leaves it, its cap out of the hand where
the socket is (up for a ceiling socket, forward for a wall one). The plan is
S03's in reverse: leaning as the pinch does, the hand turns the bulb's axis
onto the socket's and brings the cap to a standoff out along that axis,
corrects from the measured bulb, then slides the cap in along the axis in
short pieces, each corrected across the axis, until the seat captures it.
The magnet then holds the bulb; the fingers and thumb open, the hand
draws back along the axis, off the glass, and the robot holds still while
the bulb comes to rest on its cap.
"""

from __future__ import annotations

import math

import numpy as np

from .. import props
from ....planning.kinematics import Reach
from ....planning.skills import Context, Steps, glide, hold_still, wait
from .common import heading_axes, move, pose
from ..start import GRIP_FINGERS
from .grab import HEIGHT, LEAN, PALM

STANDOFF = 0.06  # m: the cap this far out along the socket's axis before it goes in
STEP_IN = 0.01  # m along the axis per corrected piece of the final approach
DEPTH = 0.003  # m past the seat: the capture window is 0.004 m either side of it
CORRECTIONS = 3  # at the standoff, from the measured bulb
SETTLE = 0.3  # s, open-handed before withdrawing: the magnet takes the bulb's weight
CLEAR = 0.07  # m sideways, palm away from the glass, before drawing back
WITHDRAW = 0.12  # m back along the axis: the open hand clears the glass's tip
BULB = "fresh_bulb"


def plug(world: dict) -> tuple[np.ndarray, np.ndarray]:
    """(plug position, the bulb's axis from cap to glass) of the held bulb, measured."""
    pos, rot = pose(world, BULB)
    return pos + rot[:, 2] * props.PLUG_OFFSET, rot[:, 2]


def plan(ctx: Context) -> Steps:
    world = ctx.obs.world
    for joint, v in GRIP_FINGERS.items():  # keep the start's grip (the command starts at the measured fingers)
        ctx.cmd[ctx.slot(joint)] = v
    seat, out = np.asarray(world["seat"], float), np.asarray(world["seat_axis"], float)  # out of the socket
    _, left = heading_axes(ctx)
    # The bulb as it lies in the hand (wrist frame): the plan steers its plug and axis.
    at, axis = plug(world)
    wrist, rot = ctx.measured_kinematics().frame("right")
    offset, axis_local = rot.T @ (at - wrist), rot.T @ axis

    def hand(pos: np.ndarray) -> Reach:
        return Reach(pos, axis=out, axis_local=axis_local, normal=left, normal_local=PALM, offset=offset,
                     axis_weight=1.0, normal_weight=0.2)

    base = np.asarray(ctx.obs.base)
    ahead = seat[:2] - base[:2]
    fwd, _ = heading_axes(ctx)
    turn = math.atan2(float(ahead @ left[:2]), float(ahead @ fwd[:2]))
    lean = {ctx.slot("base_height"): HEIGHT, ctx.slot("waist_pitch_joint"): LEAN, ctx.slot("waist_yaw_joint"): turn}
    yield from move(ctx, "right", hand, seat + STANDOFF * out, 2.5, lean)
    yield from wait(ctx, 0.3)
    for _ in range(CORRECTIONS):
        yield from _correct(ctx, hand, seat + STANDOFF * out)
    depth = STANDOFF
    while depth > -DEPTH and not world_seated(ctx):
        depth = max(depth - STEP_IN, -DEPTH)
        yield from _correct(ctx, hand, seat + depth * out, seconds=0.4)
    yield from wait(ctx, 0.3)
    yield from glide(ctx, {ctx.slot(joint): 0.0 for joint in GRIP_FINGERS}, 0.6)
    yield from wait(ctx, SETTLE)
    # Off the glass sideways first, the palm away from it: drawn straight back along the axis the
    # open hand passes over the widening glass and pulls the bulb out of the magnet's 1.5 N.
    yield from move(ctx, "right", hand, ctx.commanded_kinematics().point("right", offset) - CLEAR * left, 1.0, pieces=4)
    yield from move(ctx, "right", hand, ctx.commanded_kinematics().point("right", offset) + WITHDRAW * out, 1.5, pieces=6)
    yield from hold_still(ctx)


def world_seated(ctx: Context) -> bool:
    return bool(ctx.obs.world["seated"][BULB])


def _correct(ctx: Context, hand, goal: np.ndarray, seconds: float = 0.5) -> Steps:
    """Move the commanded plug by the measured plug's miss of `goal`, then let the arm settle."""
    miss = goal - plug(ctx.obs.world)[0]
    target = ctx.commanded_kinematics().point("right", hand(goal).offset) + miss
    yield from move(ctx, "right", hand, target, seconds, pieces=2)
    yield from wait(ctx, 0.2)
