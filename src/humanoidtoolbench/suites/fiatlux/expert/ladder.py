"""S01: move the ladder: lift its steps end on the backs of the hands and drag it on its back feet.

What the physics allows (`benchmarks/diagnostics/ladder_budget.py`): pushed at any height the hands reach,
the ladder tips about its far feet long before its four feet slide (mu W = 160 N); lifted under
step 1's plank and pulled towards the robot, only the back feet drag, and the hands carry 91 N
up and 23 N of pull (62 N, held still). The robot walks to the steps, makes fists, lowers and
leans, brings the backs of its hands in under step 1's plank and lifts the steps end off the
floor (`lift`); then walks back, dragging the ladder on its back feet, to where its tread comes
nearest the socket, and sets it down (`drag`). The walk back is what fails: the robot walks
backwards on the research gains only at 0.03 m/s (it falls within 4-12 s at 0.05-0.1 m/s,
unloaded), too slow for the horizon, and under the lifted ladder it falls within 5 s; on stiffer
legs it walks back at 0.1 m/s but falls under the ladder too (`benchmarks/diagnostics/ladder_diagnostic.py`).
"""

from __future__ import annotations

import math

import numpy as np

from .. import props
from ....planning.kinematics import Reach
from ....planning.skills import CONTROL_DT, Context, Steps, glide, hold_still, together, wait
from .common import UP, move, pose
from .navigate import ENGAGE, go, leg, settle

STAND = 0.64  # m out from the ladder's centre, square to its steps, where the pelvis stands to lift (closer, the hips met step 0)
APPROACH = 0.95  # m: where the walk there ends; the last steps are walked with the arms hanging
HEIGHT, LEAN = 0.66, 0.5  # pelvis height and waist pitch while lifting: the wrists reach 0.3-0.36 m ahead at 0.64 m
GRIP = (0.06, -0.30)  # ladder frame: each wrist this far to the side, and along the depth (the backs of the hands under step 1)
STEP = 1  # the step whose plank the backs of the hands lift
BACK_ABOVE = 0.045  # m: the back of a palm-down hand above its wrist's origin
CLEAR = 0.04  # m below the plank as the hands go in under it
LIFT = 0.06  # m the wrists rise once under the plank
WALK_IN = 0.05  # m/s
SPEED = 0.1  # m/s, the walk to the steps (the navigation errands' speed)
DRAG = 0.03  # m/s backwards: the fastest walk back that stood unloaded (S01 seeds 0-2, 15 s; 0.05 fell at 8.5-12 s)
DRAG_MAX_S = 100.0  # s
SIDES = {"left": -1.0, "right": 1.0}  # facing the ladder's +y, the robot's left is the ladder's -x
# Walking in, the arms hang by the body: the gait sways it 0.1 m either way, and hands held out in
# front met the ladder's front legs; they stay hanging while the body lowers and leans.
ARMS_DOWN = {"shoulder_pitch": 0.0, "shoulder_roll": 0.0, "shoulder_yaw": 0.0, "elbow": 1.5, "wrist_roll": 0.0, "wrist_pitch": 0.0, "wrist_yaw": 0.0}
ENTRY = 0.10  # m: the wrists first come this far short of their grip, the fists just under the plank's front edge
# The hands as fists, the thumbs folded against them (left hand's angles; the right's mirror them):
# palm down, the back of the hand lifts, the curled fingers below it at their flexion limits (an open
# finger under the plank bends at 0.7 N m), and a thumb at rest would hang 0.1 m below the wrist.
FIST = {"thumb_0": -1.0, "thumb_1": 1.0, "thumb_2": 1.3, "index_0": -1.5, "index_1": -1.7, "middle_0": -1.5, "middle_1": -1.7}


def ladder_frame(world: dict) -> tuple[np.ndarray, np.ndarray]:
    """(origin, rotation) of the ladder: origin at its footprint's middle on the floor, +y its back."""
    return pose(world, "ladder")


def stand_point(world: dict) -> tuple[np.ndarray, float]:
    """Where the pelvis stands to lift (xy) and the heading that faces the steps."""
    origin, rot = ladder_frame(world)
    xy = origin[:2] - STAND * rot[:2, 1] / np.linalg.norm(rot[:2, 1])
    return xy, math.atan2(rot[1, 1], rot[0, 1])


def grip_point(world: dict, side: str, ahead: float = 0.0, up: float = 0.0) -> np.ndarray:
    """Where a wrist's origin goes to lift (world), `ahead` and `up` from there in the ladder's frame."""
    origin, rot = ladder_frame(world)
    under = props.STEP_HEIGHTS[STEP] - props.PLANK - BACK_ABOVE
    return origin + rot @ np.array([SIDES[side] * GRIP[0], GRIP[1] + ahead, under + up])


def palm_down(world: dict, side: str):
    """The reach of a wrist held palm down, the hand pointing into the ladder: the flat back of the
    hand lifts (palm up, the thumb stands 0.1 m proud of it), the fingers end inside the ladder."""
    _, rot = ladder_frame(world)
    into = rot[:, 1]

    def hand(pos: np.ndarray) -> Reach:
        return Reach(pos, offset=np.zeros(3), normal=-UP, normal_weight=0.6, axis=into, axis_local=(1.0, 0.0, 0.0), axis_weight=0.3)
    return hand


def both(ctx: Context, goals: dict, seconds: float, body: dict | None = None, pieces: int = 8) -> Steps:
    """Both wrists along straight lines to their goals together (the body slots with the right arm's)."""
    world = ctx.obs.world
    yield from together(*(move(ctx, side, palm_down(world, side), goals[side], seconds, body if side == "right" else None, pieces) for side in SIDES))


def lift(ctx: Context) -> Steps:
    """From standing APPROACH out from the steps, facing them: fists made and arms hanging, walk in to
    STAND; lower and lean, the hanging hands coming forward below step 1; the backs of the hands in
    under its plank, then up by LIFT: the steps end comes off the floor and the hands carry it."""
    world = ctx.obs.world
    arms = {ctx.slot(f"{s}_{j}_joint"): v * (SIDES[s] if j == "shoulder_roll" else 1.0) for s in SIDES for j, v in ARMS_DOWN.items()}
    fists = {ctx.slot(f"{s}_hand_{j}_joint"): v * (1.0 if s == "left" else -1.0) for s in SIDES for j, v in FIST.items()}
    yield from glide(ctx, arms | fists, 1.5)
    xy, _ = stand_point(world)
    yield from leg(ctx, xy, WALK_IN)
    yield from settle(ctx)
    yield from glide(ctx, {ctx.slot("base_height"): HEIGHT, ctx.slot("waist_pitch_joint"): LEAN}, 2.0)
    yield from wait(ctx, 0.5)
    yield from both(ctx, {s: grip_point(world, s, -ENTRY, -CLEAR) for s in SIDES}, 1.5)
    yield from both(ctx, {s: grip_point(world, s, 0.0, -CLEAR) for s in SIDES}, 1.5)
    yield from both(ctx, {s: grip_point(world, s) for s in SIDES}, 0.8)
    yield from both(ctx, {s: grip_point(world, s, 0.0, LIFT) for s in SIDES}, 1.5)
    yield from wait(ctx, 1.0)


def approach_point(world: dict) -> np.ndarray:
    """Where the walk to the steps ends: APPROACH out from the ladder's centre, square to its steps."""
    origin, rot = ladder_frame(world)
    return origin[:2] - APPROACH * rot[:2, 1] / np.linalg.norm(rot[:2, 1])


def tread_centre(world: dict) -> np.ndarray:
    origin, rot = ladder_frame(world)
    return (origin + rot @ np.array([*props.TREAD_CENTRE, 0.0]))[:2]


def drag(ctx: Context, speed: float = DRAG) -> Steps:
    """Walk straight back at `speed`, the lifted ladder dragging on its back feet, until its tread is
    level with the socket along the walk (the nearest it comes), then lower it and draw the hands out."""
    world = ctx.obs.world
    heading = float(ctx.obs.base[3])
    back = -np.array([math.cos(heading), math.sin(heading)])
    to_go = float((np.asarray(world["seat"], float)[:2] - tread_centre(world)) @ back)
    start = tread_centre(world)
    ctx.cmd[32:36] = (-speed, 0.0, ENGAGE, heading)
    for _ in range(round(DRAG_MAX_S / CONTROL_DT)):
        if float((tread_centre(ctx.obs.world) - start) @ back) >= to_go:
            break
        yield
    yield from settle(ctx)
    world = ctx.obs.world
    yield from both(ctx, {s: grip_point(world, s, 0.0, -LIFT - CLEAR) for s in SIDES}, 1.5)
    yield from both(ctx, {s: grip_point(world, s, -ENTRY - 0.1, -LIFT - CLEAR) for s in SIDES}, 1.5)


def plan(ctx: Context) -> Steps:
    yield from go(ctx, lambda w: [approach_point(w)], lambda w: ladder_frame(w)[0][:2], SPEED)
    yield from lift(ctx)
    yield from drag(ctx)
    yield from hold_still(ctx)
