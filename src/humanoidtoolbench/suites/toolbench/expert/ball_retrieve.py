"""BallRetrieve: reach the hook past the ball and draw it back into the ring."""

from __future__ import annotations

import numpy as np

from ....planning.skills import Context, Steps, hold_still, set_world_velocity, wait
from .geometry import (
    BALL_Z, CLOSEST_STAND, CONTACT, MAX_TIP_STEP, ROLL_DECELERATION, SETTLED_IN_RING, STOP_SHORT,
    TOOL_REACH, UP, flat, stand_for,
)
from .ball_move import STALL_STEPS, held_back
from .pick import pick, raise_arm
from .skills import go_to_bench, tool_reach

HOOK_TILT = np.radians(25)  # the hook's shaft slopes down from the hand to the hook
HOOK_BEYOND = 0.08  # the hook comes down this far beyond the ball
PULL_SPEED = 0.10  # m/s


def hook_pointing() -> np.ndarray:
    """Handle towards the robot (+y), sloping down to the hook at the far end."""
    return np.array([0.0, -np.cos(HOOK_TILT), -np.sin(HOOK_TILT)])


HOOK_CORNER = 0.058  # ball centre to the shaft's centre line: nestled in the hook's corner


def hook_side(tool: dict) -> np.ndarray:
    """Horizontal offset from the shaft's centre line to the hook's catch point."""
    axis = flat(tool["axis"])
    d = np.asarray(tool["tip"], float) - np.asarray(tool["grasp"], float)
    d[2] = 0.0
    return d - axis * (d @ axis)


def hook_tip(ball: np.ndarray, beyond: float, side: np.ndarray) -> np.ndarray:
    """Where the catch point goes so the ball sits in the hook's corner, `beyond` past its centre."""
    reach = np.linalg.norm(side)
    shift = side / reach * max(reach - HOOK_CORNER, 0.0)
    return np.array([ball[0] + shift[0], ball[1] - beyond, BALL_Z])


def pull_stand(ctx: Context, hand_at: np.ndarray) -> tuple[float, float]:
    """Where the pelvis goes for a pull with the hand at `hand_at`: further back for a longer
    stroke, and no nearer a bench leg than the caution allows. Kept in from the leg on the hand's
    side (+x: the robot faces -y with the tool in its left hand), the arm reaches out sideways
    instead of back, and the stand keeps its own distance from the bench."""
    cn = ctx.caution
    x, y = stand_for(hand_at, CLOSEST_STAND + cn.stand_back)
    kept = cn.clear_of_legs(x)
    return kept, y + (cn.side_reach_back if kept < x else cn.pull_stand_back)


def pull(ctx: Context, ring: np.ndarray, side: str = "left") -> Steps:
    """Draw the hook towards the robot at a steady speed, walking back with it (where the caution
    allows; else as far as the arm reaches); its arm keeps
    the ball in front of it. Stops where the ball's own roll carries it to the ring centre."""
    u = np.array([0.0, 1.0, 0.0])
    tip = np.asarray(ctx.obs.obj("tool")["tip"], float)
    start = tip.copy()
    stalled, tip_now = 0, start
    for _ in range(int(3.0 / PULL_SPEED / 0.1)):
        ball = np.asarray(ctx.obs.obj("ball")["pos"], float)
        speed = abs(np.asarray(ctx.obs.obj("ball")["linvel"])[1])
        if (ring[1] - ball[1]) < speed**2 / (2 * ROLL_DECELERATION) + STOP_SHORT:
            break
        tool = ctx.obs.obj("tool")
        tip_before, tip_now = tip_now, np.asarray(tool["tip"], float)
        goal = hook_tip(ball, 0.0, hook_side(tool))
        if abs(tip_now[0] - goal[0]) > 0.05 or tip_now[1] > ball[1] + 0.02:
            break  # the ball slipped off the hook: approach again
        if ctx.caution.pull_on_ring_line:
            # Following the ball sideways lets the hook's corner drag it further off the line.
            goal = hook_tip(np.array([ring[0], ball[1]]), 0.0, hook_side(tool))
        if not ctx.caution.walk_while_working and np.linalg.norm((tip - start)[:2]) >= ctx.caution.work_reach:
            break  # as far as the arm goes from where the robot stands: stand anew and pull again
        tip = tip + u * PULL_SPEED * 0.1
        # On the ring's line the measured hook is held there (the arm drifts under the pull).
        across = tip_now if ctx.caution.pull_on_ring_line else tip
        tip[0] += np.clip(goal[0] - across[0], -MAX_TIP_STEP, MAX_TIP_STEP)
        tip[2] = BALL_Z
        tip, stalled = held_back(ctx, tip, tip_now, tip_before, u, stalled)
        if stalled > STALL_STEPS:
            break
        if ctx.caution.walk_while_working:
            set_world_velocity(ctx, u[:2] * PULL_SPEED)
        yield from tool_reach(ctx, side, "tool", tip, hook_pointing(), 0.1, ctx.caution.arm_floor, corrections=0, tool_up=UP)
    ctx.cmd[32:34] = 0.0


def ball_retrieve(ctx: Context) -> Steps:
    yield from raise_arm(ctx)
    yield from pick(ctx)
    ring = np.asarray(ctx.obs.world["ring"], float)
    pointing = hook_pointing()
    for _ in range(6):
        ball = np.asarray(ctx.obs.obj("ball")["pos"], float)
        if np.linalg.norm(ring - ball[:2]) < SETTLED_IN_RING:
            break
        side = hook_side(ctx.obs.obj("tool"))
        start = hook_tip(ball, HOOK_BEYOND, side)
        hand_at = start - TOOL_REACH * pointing
        yield from go_to_bench(ctx, pull_stand(ctx, hand_at))
        yield from tool_reach(ctx, "left", "tool", start + 0.12 * UP, pointing, 1.0, ctx.caution.arm_floor, search=True, tool_up=UP)
        yield from tool_reach(ctx, "left", "tool", start, pointing, 0.5, ctx.caution.arm_floor, tool_up=UP)
        yield from tool_reach(ctx, "left", "tool", hook_tip(ball, CONTACT, side), pointing, 0.6, ctx.caution.arm_floor, tool_up=UP)
        yield from pull(ctx, ring)
        tip = np.asarray(ctx.obs.obj("tool")["tip"], float)
        if ctx.caution.release > 0.0:
            # A ball wedged in the hook's corner rises with a hook lifted straight up.
            tip = tip - ctx.caution.release * np.array([0.0, 1.0, 0.0])
            yield from tool_reach(ctx, "left", "tool", tip, pointing, 0.4, ctx.caution.arm_floor, corrections=0, tool_up=UP)
        yield from tool_reach(ctx, "left", "tool", tip + 0.12 * UP, pointing, 0.5, ctx.caution.arm_floor, corrections=0, tool_up=UP)
        yield from wait(ctx, 1.0)
    yield from hold_still(ctx)


