"""BallMove: sweep the ball into the ring with the side of the long stick."""

from __future__ import annotations

import numpy as np

from ....planning.skills import CONTROL_DT, Context, Steps, hold_still, set_world_velocity, wait
from .geometry import (
    BENCH_TOP, CONTACT, MAX_TIP_STEP, NEAREST_STAND, ROLL_DECELERATION, SETTLED_IN_RING, STOP_SHORT,
    TOOL_REACH, UP, flat, stand_for,
)
from .pick import pick, raise_arm
from .skills import go_to_bench, leave_bench, tool_reach

TIP_Z = BENCH_TOP + 0.016  # the stick's tip skims the bench
PUSH_SPEED = 0.10  # m/s
APPROACH_GAP = 0.07  # the paddle starts this far behind the ball centre
APPROACH_LIFT = 0.10  # m above its start the stick comes in, before it comes down behind the ball ...
CROSSING_LIFT = 0.15  # ... or where a strike's stick passes over the ball (at its slope it knocked the ball back)
OVERHANG = 0.01  # the tip reaches this far past the ball, so the stick meets it below its centre
TILT = np.radians(20)  # the stick slopes down from the hand ...
ROW_TILT = np.radians(40)  # ... steeper where it passes over the tool row, to clear the objects there
ROW_START_X = -0.15  # tips beyond this x are at the tool row
STALL_STEPS = 10  # 0.1 s commands a held-back push or pull waits for a tool that does not advance
STALL_ADVANCE = 0.003  # m per 0.1 s command: a tool end advancing less than this is stuck, not slow
# A strike swings the stick at a shallower slope than a push. At 20 degrees the shaft rises 0.36 m
# per metre inward from its tip; at a far reach such a stick met the ball above its centre, pressed
# it on the bench and carried it without spin, and the ball stopped with the stick (22 of 64
# strikes over 36 BallMove L2 episodes rolled under 0.15 m; 10 of 56 at 10 degrees).
STRIKE_TILT = np.radians(10)
# The stick's commanded speed through the ball (m/s) and how far the ball then rolled (m) on
# `balanced`, for an episode's first strike: medians of 12 first strikes at each fixed speed at
# seeds 10000-10005 of both BallMove L2 conditions (spread 0.11-0.33, 0.12-0.45, 0.16-0.64,
# 0.34-0.91, 0.63-1.09). Once the stroke ends the ball rolls about v^2 / 0.23 m/s^2 from its speed
# v then; the arm's speed through the ball, and whether the ball still rides on the stick (sliding,
# without spin), set the spread.
FIRST_STRIKE_ROLL = ((0.20, 0.25), (0.25, 0.345), (0.30, 0.505), (0.35, 0.80), (0.40, 0.97))
# The same for the strikes after it, which roll 16-40 % less at the same speed: medians of the
# later strikes the plan made over seeds 10000-10029 of both L2 conditions, binned by speed (17,
# 17, 25 and 12 strikes; the top row the 116 first strikes at 0.40). There the ball lies on the
# bench's far strip and the arm reaches further.
LATER_STRIKE_ROLL = ((0.20, 0.15), (0.254, 0.215), (0.301, 0.32), (0.337, 0.595), (0.40, 0.81))
FOLLOW_THROUGH = 0.06  # m the stick goes on past where the ball stood
AT_REST = 0.01  # m/s: a ball slower than this has stopped rolling


def push_tilt(tip_x: float) -> float:
    """A pushing stick's slope: steeper where its tip is at the tool row, so the shaft clears the objects there."""
    return float(np.interp(tip_x, (ROW_START_X, ROW_START_X + 0.15), (TILT, ROW_TILT)))


def paddle(u: np.ndarray, tilt: float = TILT) -> tuple[np.ndarray, np.ndarray]:
    """A stick moving along u with its side: across u, reaching towards the far side of the
    bench, sloping down to the tip by `tilt`. Returns (horizontal direction, pointing direction)."""
    across = np.array([u[1], -u[0], 0.0])
    if across[1] > 0:
        across = -across
    pointing = np.cos(tilt) * across - np.sin(tilt) * UP
    return across, pointing


def paddle_tip(ball: np.ndarray, u: np.ndarray, behind: float) -> np.ndarray:
    across, _ = paddle(u)
    tip = ball - u * behind + across * OVERHANG
    tip[2] = TIP_Z
    return tip


def held_back(
    ctx: Context, tip: np.ndarray, tip_now: np.ndarray, tip_before: np.ndarray, u: np.ndarray, stalled: int,
) -> tuple[np.ndarray, int]:
    """Where the caution asks, the commanded tool end waits for the measured one along u: an arm
    that lags and then catches up flicks the ball far past the ring. Returns the command and how
    many commands in a row were held back while the tool end (at `tip_before` one command ago)
    did not advance. A stick's end dragging on the bench is slow, not stuck: counting every
    held-back command ended pushes after 0-4 cm of the ball's travel."""
    if ctx.caution.work_lead is None:
        return tip, stalled
    lead = (tip - tip_now) @ u - ctx.caution.work_lead
    stuck = lead > 0.0 and (tip_now - tip_before) @ u < STALL_ADVANCE
    return tip - u * max(lead, 0.0), stalled + 1 if stuck else 0


def push(ctx: Context, ring: np.ndarray, side: str = "left") -> Steps:
    """Sweep the ball towards the ring with the side of the stick at a steady speed, walking
    along (where the caution allows; else as far as the arm reaches). The push line is re-aimed at the ring every 0.1 s, so a ball that drifts is steered
    back; the push stops where the ball's own roll will carry it to the ring centre."""
    tip = np.asarray(ctx.obs.obj("tool")["tip"], float)
    start = tip.copy()
    first = flat(ring - np.asarray(ctx.obs.obj("ball")["pos"])[:2])
    stalled, tip_now = 0, start
    for _ in range(int(4.0 / PUSH_SPEED / 0.1)):
        ball = np.asarray(ctx.obs.obj("ball")["pos"], float)
        speed = np.linalg.norm(np.asarray(ctx.obs.obj("ball")["linvel"])[:2])
        gap = ring - ball[:2]
        if gap @ first[:2] < speed**2 / (2 * ROLL_DECELERATION) + STOP_SHORT:
            break
        u = flat(gap)
        tip_before, tip_now = tip_now, np.asarray(ctx.obs.obj("tool")["tip"], float)
        across, pointing = paddle(u, push_tilt(tip_now[0]))
        if (tip_now - ball) @ u > 0.0 or abs((tip_now - ball) @ across) > 0.12 or tip_now[2] > TIP_Z + 0.025:
            break  # the paddle lost the ball or rides on it: approach again
        if not ctx.caution.walk_while_working and np.linalg.norm((tip - start)[:2]) >= ctx.caution.work_reach:
            break  # as far as the arm goes from where the robot stands: stand closer and push again
        goal = paddle_tip(ball, u, CONTACT)
        # Steady along u; across u (along the stick) follow the ball.
        tip = tip + u * PUSH_SPEED * 0.1 + across * np.clip((goal - tip) @ across, -MAX_TIP_STEP, MAX_TIP_STEP)
        tip[2] = TIP_Z
        tip, stalled = held_back(ctx, tip, tip_now, tip_before, u, stalled)
        if stalled > STALL_STEPS:
            break
        if ctx.caution.walk_while_working:
            set_world_velocity(ctx, u[:2] * PUSH_SPEED)
        yield from tool_reach(ctx, side, "tool", tip, pointing, 0.1, ctx.caution.arm_floor, corrections=0)
    ctx.cmd[32:34] = 0.0


def strike_speed(roll: float, table) -> float:
    """The stick speed whose strike rolls the ball about `roll` (at most the table's longest roll)."""
    speeds, rolls = zip(*table)
    return float(np.interp(roll, rolls, speeds))


def strike(ctx: Context, ring: np.ndarray, table, side: str = "left") -> Steps:
    """Swing the stick along the ring's line through the ball as it lies now, at the shallow slope
    (see STRIKE_TILT) and the speed whose roll ends `strike_short` before the ring centre (or the
    table's longest roll): one stroke carries the ball as far as several pushes from as many
    stands would."""
    ball = np.asarray(ctx.obs.obj("ball")["pos"], float)
    tip = np.asarray(ctx.obs.obj("tool")["tip"], float)
    u = flat(ring - ball[:2])
    _, pointing = paddle(u, STRIKE_TILT)
    speed = strike_speed(float(np.linalg.norm(ring - ball[:2])) - ctx.caution.strike_short, table)
    travel = (ball - tip) @ u + FOLLOW_THROUGH
    for _ in range(int(np.ceil(travel / (speed * CONTROL_DT)))):
        tip = tip + u * speed * CONTROL_DT
        tip[2] = TIP_Z
        yield from tool_reach(ctx, side, "tool", tip, pointing, CONTROL_DT, ctx.caution.arm_floor, corrections=0)


def rolled(ctx: Context) -> np.ndarray:
    """How far (x, y) the ball will roll on from where it is, at the bench's deceleration."""
    v = np.asarray(ctx.obs.obj("ball")["linvel"], float)[:2]
    return v * np.linalg.norm(v) / (2 * ROLL_DECELERATION)


def ball_at_rest(ctx: Context, timeout: float = 8.0) -> Steps:
    """Wait for a struck ball to stop, so the next stand is chosen where it lies."""
    for _ in range(round(timeout / CONTROL_DT)):
        if np.linalg.norm(np.asarray(ctx.obs.obj("ball")["linvel"])[:2]) < AT_REST:
            return
        yield


def stroke_stand(ctx: Context, hand_at: np.ndarray, u: np.ndarray) -> tuple[float, float]:
    """Where the pelvis goes for a stroke along u with the hand at `hand_at`: ahead along it (where
    the caution asks) and, where it asks, no nearer a bench leg's x than `leg_room`: standing there
    the knee met the leg and the robot fell walking in."""
    cn = ctx.caution
    return cn.clear_of_legs(stand_for(hand_at)[0] + cn.push_stand_ahead * u[0]), NEAREST_STAND + cn.stand_back


def ball_move(ctx: Context) -> Steps:
    yield from raise_arm(ctx)
    yield from pick(ctx)
    ring = np.asarray(ctx.obs.world["ring"], float)
    work_height, strikes = None, 0
    for _ in range(6):
        ball = np.asarray(ctx.obs.obj("ball")["pos"], float)
        gap = ring - ball[:2]
        distance = np.linalg.norm(gap)
        if distance < SETTLED_IN_RING:
            break
        u = flat(gap)
        struck = ctx.caution.strike_beyond is not None and distance > ctx.caution.strike_beyond
        start = paddle_tip(ball, u, APPROACH_GAP + ctx.caution.approach_gap)
        # A strike keeps its shallow slope even over the tool row (see STRIKE_TILT).
        _, pointing = paddle(u, STRIKE_TILT if struck else push_tilt(start[0]))
        hand_at = start - TOOL_REACH * pointing
        yield from go_to_bench(ctx, stroke_stand(ctx, hand_at, u), work_height)
        crossing = struck and (np.asarray(ctx.obs.obj("tool")["tip"]) - ball) @ u > 0.0
        lift = CROSSING_LIFT if crossing else APPROACH_LIFT
        yield from tool_reach(ctx, "left", "tool", start + lift * UP, pointing, 1.0, ctx.caution.arm_floor, search=True)
        yield from tool_reach(ctx, "left", "tool", start, pointing, 0.5, ctx.caution.arm_floor)
        if struck:
            yield from strike(ctx, ring, LATER_STRIKE_ROLL if strikes else FIRST_STRIKE_ROLL)
            strikes += 1
        else:
            yield from push(ctx, ring)
        tip = np.asarray(ctx.obs.obj("tool")["tip"], float)
        yield from tool_reach(ctx, "left", "tool", tip - 0.04 * u + 0.12 * UP, pointing, 0.5, ctx.caution.arm_floor, corrections=0)
        yield from wait(ctx, 1.0)
        if struck:
            # Rise and back away while the ball still rolls, for a stand where its roll ends; only
            # after the second standing still: rising at once after the stroke swayed the robot 6 cm
            # sideways as it backed away, and 2 of 60 L2 episodes fell in the walk that followed.
            work_height = ctx.cmd[31]
            yield from leave_bench(ctx, (ctx.obs.base[0] + rolled(ctx)[0], NEAREST_STAND + ctx.caution.stand_back))
            yield from ball_at_rest(ctx)
    yield from hold_still(ctx)


