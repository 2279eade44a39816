"""Picking a tool up from the bench: raising the arm clear of the bench, the pinch grasp, the lift."""

from __future__ import annotations

import numpy as np

from ....planning.kinematics import Reach
from ....planning.skills import Context, Steps, glide, reach, together, wait, walk
from .geometry import DOWN, NEAREST_STAND, UP
from .skills import go_to_bench, shape_hand

WORK_HEIGHT = 0.66  # pelvis height while working at the bench
WORK_PITCH = 0.2  # waist pitch while picking
STAND_BACK = 0.22  # pelvis this far behind a grasp point (towards the robot)
STAND_SIDE = 0.06  # ... and this far to its right
ABOVE = 0.25
PREGRASP = 0.12
LIFT = 0.15
GRIP_TRIES = 3
HELD_WITHIN = 0.06  # the handle is in the hand while this close to the grasp point


def raise_arm(ctx: Context, side: str = "left") -> Steps:
    """Bring the hand up in front of the chest without sweeping it through the bench edge:
    step back a little while the shoulder goes back and the hand curls, then forearm up,
    then forward."""
    s = {n: ctx.slot(f"{side}_{n}_joint") for n in ("shoulder_pitch", "elbow", "wrist_pitch")}
    yield from together(
        walk(ctx, -ctx.caution.step_back, 0.0, 0.6),
        glide(ctx, {s["shoulder_pitch"]: 0.5, s["wrist_pitch"]: 1.5}, 0.5),
    )
    yield from glide(ctx, {s["elbow"]: -0.8}, 0.6)
    yield from glide(ctx, {s["shoulder_pitch"]: -0.3, s["wrist_pitch"]: 0.0, s["elbow"]: -0.3}, 0.6)


def work_posture(ctx: Context, height: float = WORK_HEIGHT, pitch: float = WORK_PITCH) -> Steps:
    yield from glide(ctx, {ctx.slot("base_height"): height, ctx.slot("waist_pitch_joint"): pitch}, 0.6)


def pick(ctx: Context, name: str = "tool", side: str = "left") -> Steps:
    """Grasp a tool lying on the bench by its handle and lift it; retries if it stays behind."""
    for _ in range(GRIP_TRIES):
        tool = ctx.obs.obj(name)
        grasp, axis = np.asarray(tool["grasp"]), np.asarray(tool["axis"])
        yield from go_to_bench(ctx, (grasp[0] - STAND_SIDE, max(grasp[1] + STAND_BACK, NEAREST_STAND + ctx.caution.stand_back)))
        yield from work_posture(ctx)
        tool = ctx.obs.obj(name)
        grasp, axis = np.asarray(tool["grasp"]), np.asarray(tool["axis"])
        yield from shape_hand(ctx, side, "open")
        yield from reach(ctx, side, Reach(grasp + ABOVE * UP, axis=axis, normal=DOWN), 1.0, ctx.caution.arm_floor, search=True)
        yield from reach(ctx, side, Reach(grasp + PREGRASP * UP, axis=axis, normal=DOWN), 0.6, ctx.caution.arm_floor, settle=True)
        yield from reach(ctx, side, Reach(grasp, axis=axis, normal=DOWN), 0.8, ctx.caution.arm_floor, settle=True)
        yield from shape_hand(ctx, side, "closed", 0.5)
        yield from wait(ctx, 0.2)
        z0 = ctx.obs.obj(name)["pos"][2]
        yield from reach(ctx, side, Reach(grasp + LIFT * UP, axis=axis, normal=DOWN), 1.0, ctx.caution.arm_floor, settle=True)
        yield from wait(ctx, 0.3)
        if ctx.obs.obj(name)["pos"][2] - z0 > 0.6 * LIFT:
            ctx.carrying = True
            return
        yield from shape_hand(ctx, side, "open")
        yield from reach(ctx, side, Reach(grasp + PREGRASP * UP, axis=axis, normal=DOWN), 0.6, ctx.caution.arm_floor, settle=True)


def holding(ctx: Context, name: str = "tool", side: str = "left") -> bool:
    """Is the tool's handle still in the hand?"""
    hand = ctx.measured_kinematics().point(side)
    return float(np.linalg.norm(hand - np.asarray(ctx.obs.obj(name)["grasp"]))) < HELD_WITHIN
