"""What the expert does in each scenario, as sequences of skills."""

from __future__ import annotations

import numpy as np

from .kinematics import Reach
from .skills import Context, Steps, glide, hand, reach, together, wait, walk, walk_to

UP = np.array([0.0, 0.0, 1.0])
DOWN = -UP
BENCH_TOP = 0.70
ARM_FLOOR = BENCH_TOP + 0.04  # elbow and wrist links stay this high
WORK_HEIGHT = 0.66  # pelvis height while working at the bench
WORK_PITCH = 0.2  # waist pitch while working
STAND_BACK = 0.22  # pelvis this far behind a grasp point (towards the robot)
STAND_SIDE = 0.06  # ... and this far to its right
NEAREST_STAND = 0.50  # pelvis y: closer than this the torso meets the bench edge
ABOVE = 0.25
PREGRASP = 0.12
LIFT = 0.15
GRIP_TRIES = 3


def raise_arm(ctx: Context, side: str = "left") -> Steps:
    """Bring the hand up in front of the chest without sweeping it through the bench edge:
    step back a little while the shoulder goes back and the hand curls, then forearm up,
    then forward."""
    s = {n: ctx.slot(f"{side}_{n}_joint") for n in ("shoulder_pitch", "elbow", "wrist_pitch")}
    yield from together(
        walk(ctx, -0.2, 0.0, 0.6),
        glide(ctx, {s["shoulder_pitch"]: 0.5, s["wrist_pitch"]: 1.5}, 0.5),
    )
    yield from glide(ctx, {s["elbow"]: -0.8}, 0.6)
    yield from glide(ctx, {s["shoulder_pitch"]: -0.3, s["wrist_pitch"]: 0.0, s["elbow"]: -0.3}, 0.6)


def work_posture(ctx: Context) -> Steps:
    yield from glide(ctx, {ctx.slot("base_height"): WORK_HEIGHT, ctx.slot("waist_pitch_joint"): WORK_PITCH}, 0.6)


def pick(ctx: Context, name: str = "tool", side: str = "left") -> Steps:
    """Grasp a tool lying on the bench by its handle and lift it; retries if it stays behind."""
    for _ in range(GRIP_TRIES):
        tool = ctx.obs.obj(name)
        grasp, axis = np.asarray(tool["grasp"]), np.asarray(tool["axis"])
        yield from walk_to(ctx, (grasp[0] - STAND_SIDE, max(grasp[1] + STAND_BACK, NEAREST_STAND)))
        yield from work_posture(ctx)
        tool = ctx.obs.obj(name)
        grasp, axis = np.asarray(tool["grasp"]), np.asarray(tool["axis"])
        yield from hand(ctx, side, "open")
        yield from reach(ctx, side, Reach(grasp + ABOVE * UP, axis=axis, normal=DOWN), 1.0, ARM_FLOOR, search=True)
        yield from reach(ctx, side, Reach(grasp + PREGRASP * UP, axis=axis, normal=DOWN), 0.6, ARM_FLOOR)
        yield from reach(ctx, side, Reach(grasp, axis=axis, normal=DOWN), 0.8, ARM_FLOOR)
        yield from hand(ctx, side, "closed", 0.5)
        yield from wait(ctx, 0.2)
        z0 = ctx.obs.obj(name)["pos"][2]
        yield from reach(ctx, side, Reach(grasp + LIFT * UP, axis=axis, normal=DOWN), 1.0, ARM_FLOOR)
        yield from wait(ctx, 0.3)
        if ctx.obs.obj(name)["pos"][2] - z0 > 0.6 * LIFT:
            return
        yield from hand(ctx, side, "open")
        yield from reach(ctx, side, Reach(grasp + PREGRASP * UP, axis=axis, normal=DOWN), 0.6, ARM_FLOOR)


def hold_still(ctx: Context) -> Steps:
    while True:
        yield


def select(ctx: Context) -> Steps:
    """L0: pick the correct tool and hold it up."""
    yield from raise_arm(ctx)
    yield from pick(ctx)
    yield from hold_still(ctx)




# -- BallMove ----------------------------------------------------------------------------------------
BALL_Z = BENCH_TOP + 0.03  # ball centre height
TIP_Z = BENCH_TOP + 0.016  # the stick's tip skims the bench
PUSH_SPEED = 0.10  # m/s
MAX_TIP_STEP = 0.015  # m per 0.1 s: the tip never jumps at the ball
APPROACH_GAP = 0.07  # the paddle starts this far behind the ball centre
OVERHANG = 0.02  # the tip reaches this far past the ball, so the stick meets it below its centre
TILT = np.radians(20)  # the stick slopes down from the hand
TOOL_REACH = 0.45  # hand to working end, roughly, for choosing where to stand
HAND_LEFT_OF_PELVIS = 0.08
CONTACT = 0.045  # ball radius plus the stick's half-width
STOP_SHORT = 0.04  # the ball rolls on a little after the push stops
SETTLED_IN_RING = 0.06


def flat(v) -> np.ndarray:
    v = np.array([v[0], v[1], 0.0])
    return v / np.linalg.norm(v)


def paddle(u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A stick pushing along u with its side: across u, reaching towards the far side of the
    bench, sloping down to the tip. Returns (horizontal direction, pointing direction)."""
    across = np.array([u[1], -u[0], 0.0])
    if across[1] > 0:
        across = -across
    pointing = np.cos(TILT) * across - np.sin(TILT) * UP
    return across, pointing


def paddle_tip(ball: np.ndarray, u: np.ndarray, behind: float) -> np.ndarray:
    across, _ = paddle(u)
    tip = ball - u * behind + across * OVERHANG
    tip[2] = TIP_Z
    return tip


def push(ctx: Context, ring: np.ndarray, side: str = "left") -> Steps:
    """Sweep the ball towards the ring with the side of the stick, walking along. The push line
    is re-aimed at the ring every 0.1 s, so a ball that drifts is steered back."""
    from .skills import set_world_velocity, tool_reach

    tip = np.asarray(ctx.obs.obj("tool")["tip"], float)
    first = flat(ring - np.asarray(ctx.obs.obj("ball")["pos"])[:2])
    bias = np.zeros(3)  # integral of the horizontal tip error: the arm gives way under the push
    for _ in range(int(4.0 / PUSH_SPEED / 0.1)):
        ball = np.asarray(ctx.obs.obj("ball")["pos"], float)
        gap = ring - ball[:2]
        if gap @ first[:2] < STOP_SHORT:  # level with the ring centre: stop, never push past it
            break
        u = flat(gap)
        tip_now = np.asarray(ctx.obs.obj("tool")["tip"], float)
        across, pointing = paddle(u)
        if (tip_now - ball) @ u > 0.0 or abs((tip_now - ball) @ across) > 0.12 or tip_now[2] > TIP_Z + 0.025:
            break  # the paddle lost the ball or rides on it: approach again
        bias[:2] = np.clip(bias[:2] + 0.5 * (tip - tip_now)[:2], -0.06, 0.06)
        goal = paddle_tip(ball, u, CONTACT - PUSH_SPEED * 0.1)
        tip = tip + np.clip(goal - tip, -MAX_TIP_STEP, MAX_TIP_STEP)
        set_world_velocity(ctx, u[:2] * PUSH_SPEED)
        yield from tool_reach(ctx, side, "tool", tip + bias, pointing, 0.1, ARM_FLOOR, corrections=0)
    ctx.cmd[32:34] = 0.0


def ball_move(ctx: Context) -> Steps:
    from .skills import tool_reach

    yield from raise_arm(ctx)
    yield from pick(ctx)
    ring = np.asarray(ctx.obs.world["ring"], float)
    for _ in range(6):
        ball = np.asarray(ctx.obs.obj("ball")["pos"], float)
        gap = ring - ball[:2]
        if np.linalg.norm(gap) < SETTLED_IN_RING:
            break
        u = flat(gap)
        _, pointing = paddle(u)
        start = paddle_tip(ball, u, APPROACH_GAP)
        hand = start - TOOL_REACH * pointing
        yield from walk_to(ctx, (hand[0] - HAND_LEFT_OF_PELVIS, NEAREST_STAND))
        yield from tool_reach(ctx, "left", "tool", start + 0.10 * UP, pointing, 1.0, ARM_FLOOR, search=True)
        yield from tool_reach(ctx, "left", "tool", start, pointing, 0.5, ARM_FLOOR)
        yield from push(ctx, ring)
        tip = np.asarray(ctx.obs.obj("tool")["tip"], float)
        yield from tool_reach(ctx, "left", "tool", tip + 0.08 * UP, pointing, 0.4, ARM_FLOOR, corrections=0)
        yield from wait(ctx, 1.0)
    yield from hold_still(ctx)


def plan_for(ctx: Context) -> Steps:
    world = ctx.obs.world
    if world["level"] == 0:
        return select(ctx)
    return {"BallMove": ball_move}.get(world["scenario"], select)(ctx)
