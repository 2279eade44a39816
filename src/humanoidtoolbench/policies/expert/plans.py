"""What the expert does in each scenario, as sequences of skills."""

from __future__ import annotations

import numpy as np

from .kinematics import Reach
from .skills import Context, Steps, glide, reach, shape_hand, together, wait, walk, walk_to

UP = np.array([0.0, 0.0, 1.0])
DOWN = -UP
BENCH_TOP = 0.70
ARM_FLOOR = BENCH_TOP + 0.04  # elbow and wrist links stay this high
WORK_HEIGHT = 0.66  # pelvis height while working at the bench
WORK_PITCH = 0.2  # waist pitch while picking
REACH_HEIGHT = 0.62  # pelvis height while using a tool ...
REACH_PITCH = 0.4  # ... and waist pitch: leaning over the bench
STAND_BACK = 0.22  # pelvis this far behind a grasp point (towards the robot)
STAND_SIDE = 0.06  # ... and this far to its right
NEAREST_STAND = 0.50  # pelvis y for working at the bench ...
CLOSEST_STAND = 0.46  # ... and for a long reach, the torso just clear of the bench edge
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


def work_posture(ctx: Context, height: float = WORK_HEIGHT, pitch: float = WORK_PITCH) -> Steps:
    yield from glide(ctx, {ctx.slot("base_height"): height, ctx.slot("waist_pitch_joint"): pitch}, 0.6)


def pick(ctx: Context, name: str = "tool", side: str = "left") -> Steps:
    """Grasp a tool lying on the bench by its handle and lift it; retries if it stays behind."""
    for _ in range(GRIP_TRIES):
        tool = ctx.obs.obj(name)
        grasp, axis = np.asarray(tool["grasp"]), np.asarray(tool["axis"])
        yield from walk_to(ctx, (grasp[0] - STAND_SIDE, max(grasp[1] + STAND_BACK, NEAREST_STAND)))
        yield from work_posture(ctx)
        tool = ctx.obs.obj(name)
        grasp, axis = np.asarray(tool["grasp"]), np.asarray(tool["axis"])
        yield from shape_hand(ctx, side, "open")
        yield from reach(ctx, side, Reach(grasp + ABOVE * UP, axis=axis, normal=DOWN), 1.0, ARM_FLOOR, search=True)
        yield from reach(ctx, side, Reach(grasp + PREGRASP * UP, axis=axis, normal=DOWN), 0.6, ARM_FLOOR)
        yield from reach(ctx, side, Reach(grasp, axis=axis, normal=DOWN), 0.8, ARM_FLOOR)
        yield from shape_hand(ctx, side, "closed", 0.5)
        yield from wait(ctx, 0.2)
        z0 = ctx.obs.obj(name)["pos"][2]
        yield from reach(ctx, side, Reach(grasp + LIFT * UP, axis=axis, normal=DOWN), 1.0, ARM_FLOOR)
        yield from wait(ctx, 0.3)
        if ctx.obs.obj(name)["pos"][2] - z0 > 0.6 * LIFT:
            return
        yield from shape_hand(ctx, side, "open")
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
OVERHANG = 0.01  # the tip reaches this far past the ball, so the stick meets it below its centre
TILT = np.radians(20)  # the stick slopes down from the hand ...
ROW_TILT = np.radians(40)  # ... steeper where it passes over the tool row, to clear the objects there
ROW_START_X = -0.15  # tips beyond this x are at the tool row
TOOL_REACH = 0.45  # hand to working end, roughly, for choosing where to stand
HAND_LEFT_OF_PELVIS = 0.08
CONTACT = 0.045  # ball radius plus the stick's half-width
STOP_SHORT = 0.02
ROLL_DECELERATION = 0.11  # m/s^2 of a ball rolling on the bench (its rolling friction)
SETTLED_IN_RING = 0.08  # close enough: the ring's radius is 0.12


def flat(v) -> np.ndarray:
    v = np.array([v[0], v[1], 0.0])
    return v / np.linalg.norm(v)


def paddle(u: np.ndarray, tip_x: float = -1.0) -> tuple[np.ndarray, np.ndarray]:
    """A stick pushing along u with its side: across u, reaching towards the far side of the
    bench, sloping down to the tip (more steeply at the tool row). Returns (horizontal direction,
    pointing direction)."""
    across = np.array([u[1], -u[0], 0.0])
    if across[1] > 0:
        across = -across
    tilt = np.interp(tip_x, (ROW_START_X, ROW_START_X + 0.15), (TILT, ROW_TILT))
    pointing = np.cos(tilt) * across - np.sin(tilt) * UP
    return across, pointing


def paddle_tip(ball: np.ndarray, u: np.ndarray, behind: float) -> np.ndarray:
    across, _ = paddle(u)
    tip = ball - u * behind + across * OVERHANG
    tip[2] = TIP_Z
    return tip


def push(ctx: Context, ring: np.ndarray, side: str = "left") -> Steps:
    """Sweep the ball towards the ring with the side of the stick at a steady speed, walking
    along. The push line is re-aimed at the ring every 0.1 s, so a ball that drifts is steered
    back; the push stops where the ball's own roll will carry it to the ring centre."""
    from .skills import set_world_velocity, tool_reach

    tip = np.asarray(ctx.obs.obj("tool")["tip"], float)
    first = flat(ring - np.asarray(ctx.obs.obj("ball")["pos"])[:2])
    for _ in range(int(4.0 / PUSH_SPEED / 0.1)):
        ball = np.asarray(ctx.obs.obj("ball")["pos"], float)
        speed = np.linalg.norm(np.asarray(ctx.obs.obj("ball")["linvel"])[:2])
        gap = ring - ball[:2]
        if gap @ first[:2] < speed**2 / (2 * ROLL_DECELERATION) + STOP_SHORT:
            break
        u = flat(gap)
        tip_now = np.asarray(ctx.obs.obj("tool")["tip"], float)
        across, pointing = paddle(u, tip_now[0])
        if (tip_now - ball) @ u > 0.0 or abs((tip_now - ball) @ across) > 0.12 or tip_now[2] > TIP_Z + 0.025:
            break  # the paddle lost the ball or rides on it: approach again
        goal = paddle_tip(ball, u, CONTACT)
        # Steady along u; across u (along the stick) follow the ball.
        tip = tip + u * PUSH_SPEED * 0.1 + across * np.clip((goal - tip) @ across, -MAX_TIP_STEP, MAX_TIP_STEP)
        tip[2] = TIP_Z
        set_world_velocity(ctx, u[:2] * PUSH_SPEED)
        yield from tool_reach(ctx, side, "tool", tip, pointing, 0.1, ARM_FLOOR, corrections=0)
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
        start = paddle_tip(ball, u, APPROACH_GAP)
        _, pointing = paddle(u, start[0])
        hand_at = start - TOOL_REACH * pointing
        yield from walk_to(ctx, (hand_at[0] - HAND_LEFT_OF_PELVIS, NEAREST_STAND))
        yield from tool_reach(ctx, "left", "tool", start + 0.10 * UP, pointing, 1.0, ARM_FLOOR, search=True)
        yield from tool_reach(ctx, "left", "tool", start, pointing, 0.5, ARM_FLOOR)
        yield from push(ctx, ring)
        tip = np.asarray(ctx.obs.obj("tool")["tip"], float)
        yield from tool_reach(ctx, "left", "tool", tip - 0.04 * u + 0.12 * UP, pointing, 0.5, ARM_FLOOR, corrections=0)
        yield from wait(ctx, 1.0)
    yield from hold_still(ctx)


# -- BallRetrieve -------------------------------------------------------------------------------------
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


def pull(ctx: Context, ring: np.ndarray, side: str = "left") -> Steps:
    """Draw the hook towards the robot at a steady speed, walking back with it; its arm keeps
    the ball in front of it. Stops where the ball's own roll carries it to the ring centre."""
    from .skills import set_world_velocity, tool_reach

    u = np.array([0.0, 1.0, 0.0])
    tip = np.asarray(ctx.obs.obj("tool")["tip"], float)
    for _ in range(int(3.0 / PULL_SPEED / 0.1)):
        ball = np.asarray(ctx.obs.obj("ball")["pos"], float)
        speed = abs(np.asarray(ctx.obs.obj("ball")["linvel"])[1])
        if (ring[1] - ball[1]) < speed**2 / (2 * ROLL_DECELERATION) + STOP_SHORT:
            break
        tool = ctx.obs.obj("tool")
        tip_now = np.asarray(tool["tip"], float)
        goal = hook_tip(ball, 0.0, hook_side(tool))
        if abs(tip_now[0] - goal[0]) > 0.05 or tip_now[1] > ball[1] + 0.02:
            break  # the ball slipped off the hook: approach again
        tip = tip + u * PULL_SPEED * 0.1
        tip[0] += np.clip(goal[0] - tip[0], -MAX_TIP_STEP, MAX_TIP_STEP)
        tip[2] = BALL_Z
        set_world_velocity(ctx, u[:2] * PULL_SPEED)
        yield from tool_reach(ctx, side, "tool", tip, hook_pointing(), 0.1, ARM_FLOOR, corrections=0, tool_up=UP)
    ctx.cmd[32:34] = 0.0


def ball_retrieve(ctx: Context) -> Steps:
    from .skills import tool_reach

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
        yield from walk_to(ctx, (hand_at[0] - HAND_LEFT_OF_PELVIS, max(CLOSEST_STAND, hand_at[1] + 0.25)))
        yield from tool_reach(ctx, "left", "tool", start + 0.12 * UP, pointing, 1.0, ARM_FLOOR, search=True, tool_up=UP)
        yield from tool_reach(ctx, "left", "tool", start, pointing, 0.5, ARM_FLOOR, tool_up=UP)
        yield from tool_reach(ctx, "left", "tool", hook_tip(ball, CONTACT, side), pointing, 0.6, ARM_FLOOR, tool_up=UP)
        yield from pull(ctx, ring)
        tip = np.asarray(ctx.obs.obj("tool")["tip"], float)
        yield from tool_reach(ctx, "left", "tool", tip + 0.12 * UP, pointing, 0.5, ARM_FLOOR, corrections=0, tool_up=UP)
        yield from wait(ctx, 1.0)
    yield from hold_still(ctx)


# -- IceBreak ----------------------------------------------------------------------------------------
ICE_TOP = BENCH_TOP + 0.16
HAMMER_TILT = np.radians(15)
WIND_UP = 0.18  # head this far above the block before a blow
FOLLOW_THROUGH = 0.03  # ... and aimed this far into it
BLOW_TIME = 0.10  # s for the head to come down
HAMMER_REACH = 0.34  # hand to head centre, roughly


def head_centre(tool: dict) -> np.ndarray:
    """Centre of the hammer's head: the striking face, moved onto the handle's line."""
    return np.asarray(tool["tip"], float) - hook_side(tool)


def hammer_pointing() -> np.ndarray:
    return np.array([0.0, -np.cos(HAMMER_TILT), -np.sin(HAMMER_TILT)])


def holding(ctx: Context, name: str = "tool", side: str = "left") -> bool:
    """Is the tool's handle still in the hand?"""
    hand = ctx.measured_kinematics().point(side)
    return float(np.linalg.norm(hand - np.asarray(ctx.obs.obj(name)["grasp"]))) < 0.06


def broken(ctx: Context, block: str) -> bool:
    """A fractured block leaves the scene (its shards take its place)."""
    return ctx.obs.obj(block)["pos"][2] < 0.0


def ice_break(ctx: Context) -> Steps:
    from .skills import tool_reach

    yield from raise_arm(ctx)
    yield from pick(ctx)
    pointing = hammer_pointing()
    blocks = sorted(n for n in ctx.obs.world["objects"] if n.startswith("ice_"))
    for block in blocks:
        for _ in range(4):
            if broken(ctx, block):
                break
            if not holding(ctx):
                yield from shape_hand(ctx, "left", "open")
                yield from pick(ctx)
            centre = np.asarray(ctx.obs.obj(block)["pos"], float)
            above = np.array([centre[0], centre[1], ICE_TOP + WIND_UP])
            hand_at = above - HAMMER_REACH * pointing
            yield from walk_to(ctx, (hand_at[0] - HAND_LEFT_OF_PELVIS, max(NEAREST_STAND, hand_at[1] + 0.25)))
            held_as = dict(tool_up=UP, point=head_centre)
            bias = yield from tool_reach(ctx, "left", "tool", above, pointing, 1.0, ARM_FLOOR, search=True, **held_as)
            into = np.array([centre[0], centre[1], ICE_TOP - FOLLOW_THROUGH])
            yield from tool_reach(ctx, "left", "tool", into, pointing, BLOW_TIME, ARM_FLOOR, corrections=0, bias=bias, **held_as)
            yield from wait(ctx, 0.06)
            # Straight back up: a head left on the shards would hold them together.
            yield from tool_reach(ctx, "left", "tool", above, pointing, 0.3, ARM_FLOOR, corrections=0, bias=bias, **held_as)
            yield from wait(ctx, 0.3)
    yield from hold_still(ctx)


def plan_for(ctx: Context) -> Steps:
    world = ctx.obs.world
    if world["level"] == 0:
        return select(ctx)
    return {"BallMove": ball_move, "BallRetrieve": ball_retrieve, "IceBreak": ice_break}[world["scenario"]](ctx)
