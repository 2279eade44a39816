"""S05, S07, S09: walk to the crate, the fresh bulb or the ladder under the balanced controller.

On the research servos the balanced robot walks 30 s straight on at 0.07,
0.1 and 0.13 m/s wherever the way is clear, and on 5 of 6 seeds falls
within 9 s at the gait's 0.157 m/s (`benchmarks/diagnostics/fiatlux_balance.py --walks`);
carrying a bulb at 0.13 m/s the fingers crushed or dropped it on 6 of 20
S09 seeds, so the errands walk at 0.1. Starting again after a stop fell
more often than walking on (an earlier controller, stop-and-go at S07),
and a sideways velocity, even 0.04 m/s to correct a drift, fells it. So
each leg of the route is one steady walk, its heading following the
bearing to the leg's end and swung slowly; at a waypoint the robot turns
in place, stands until its legs stop stepping, and plans again from where
it stands. A leg far off the robot's heading, or whose walked arc would
cut into the furniture's clearance, begins with that turn in place. Routes
are shortest paths through a visibility graph of the furniture's
footprints, each grown by the room the robot needs beside it; the goal is
the candidate stand point, near and facing the target, that the quickest
route (turns counted) reaches. S05 and S09 carry a bulb in the right
fingers the whole way, at the start's grip, the index and middle fingers'
squeeze eased while the glass feels more than GRIP_FORCE's upper bound and
firmed up below its lower one.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator
from dataclasses import dataclass

import numpy as np
from scipy.sparse.csgraph import shortest_path

from ....angles import wrap
from ....control.contracts.decoupled_v1 import JOINT_SLOTS
from ....control.contracts.joint_position import JOINT_NAMES
from ....robot.joints import LEG_JOINTS
from ....planning.navgrid import Rect
from ....planning.skills import CONTROL_DT, Context, Steps, hold_still
from ..gates import LADDER_REACH
from ..start import GRIP_FINGERS, GRIP_POSE, PINCH_CURL
from .common import pose
from .grab import glass_centre

ENGAGE = 0.5  # turn flag: the heading is held while walking
SETTLE_S = 3.0  # s standing after a turn in place, at least: two of the slow gait's steps, the steps to a stop
STILL = 0.02  # rad: legs whose joints all stand within this of where they stood STILL_S before have stopped stepping
STILL_S = 0.5  # s, shorter than SETTLE_S (the comparison reaches back this far)
SETTLE_MAX_S = 8.0  # s standing after a turn in place, at most
LEG_INDEX = [JOINT_NAMES.index(n) for joints in LEG_JOINTS.values() for n in joints]  # in the privileged joint angles
IN_PLACE = 1.2  # rad: a larger turn is made standing, a smaller one walking
TURN_TOL = 0.3  # rad: close enough to a heading to walk (the walk re-aims the rest)
TURN_TIMEOUT_S = 30.0  # the controller turns the feet 0.2 rad a step (1.4 s)
WALK_TURN_RATE = 0.1  # rad/s: how fast the heading asked while walking swings to a new leg's
RE_AIM = 0.5  # m: a leg's heading follows the bearing to its end while the end is further than this
GOAL_TOL = 0.12  # m: within the gates' slack around every stand point
STOP_AHEAD = 0.04  # m short of a waypoint where a leg stops (the last step still lands)
TURN_COST = 0.75  # m of walking one radian of turning in place costs (time, at these speeds)
CLEARANCE = {"workbench": 0.33, "ladder": 0.40, "crate": 0.30}  # m kept from each footprint
WALL = 0.35  # m kept from the walls
CHUNK_S = 0.1  # s between the observations a carry re-grips at
CORNER = 0.05  # m beyond a grown footprint's corner: the graph's waypoints
SAMPLE = 0.05  # m between the points a segment is checked at
CANDIDATES = 16  # stand points tried around a target
# N on the carried glass: the squeeze eases above the band and firms up below it. The start's grip
# presses 10-24 N at reset, 10-20 N once the glass has settled, and creeps up on long carries (the
# bulb works into the palm; 40 N after 80 s); a footfall adds up to 30 N for a moment: crushed past 50 N.
GRIP_FORCE = (6.0, 14.0)
# The index and middle fingers ease; the thumb keeps the start's target. Eased too, it let go of the
# glass, which then slid between the two fingertips and wedged there past 50 N (S09 seeds 4, 17).
# The squeeze has no floor: while the thumb or palm alone presses past the band, the two fingers
# follow wherever the glass pushes them (S09 seed 5 crushed so; a floor of 0.3 crushed as often).
EASED = frozenset(PINCH_CURL)
SQUEEZE_RATE = 0.9  # the squeeze's factor per observation (0.1 s) outside the band
# A bulb held cap forward (a wall socket's grip: the cap out past the fingertips) has its neck
# between the index and middle fingertips, in a slot narrower than the glass: the thumb on the dome
# and every footfall's jolt drove it further in, friction (1 against the neck's 15 degree taper)
# held it there, and the two fingertips' squeeze ratcheted up 0.5 N/s to the 50 N limit (S09 seed
# 5: 9 N at the start, 41 N after 60 s, 64 N in one jolt; neither the band, a thumb pressing at
# most 0.15-0.25 N m, nor the hand turned cap up or sideways helped). For such a grip the index
# finger opens, over INDEX_OPEN_S, as the carry starts: the middle finger, thumb and palm hold the
# glass, and no slot is left. Over S09 seeds 0-19 the nine wall-socket carries then pressed at most
# 15-36 N (21.7-63.7 N before) and all arrived (8 of 9 before; the ceiling grips keep their fingers).
INDEX = tuple(n for n in PINCH_CURL if "index" in n)
INDEX_OPEN_S = 2.0
CAP_FORWARD = 0.7  # a carried bulb whose axis lies within 45 degrees of level (|vertical part| below this) is held cap forward


@dataclass(frozen=True)
class Errand:
    speed: float  # m/s
    target: str  # what to face at the end
    standoff: float  # m, pelvis from the target: the fresh bulb (square to the bench edge) or a footprint
    carries: str | None = None  # the bulb in the right fingers, held as the start gripped it


# 0.1 m/s: over seeds 0-19, S07 20/20, S05 20/20, S09 18/20 (at 0.07: 18, 20, 17; at 0.13: 19, 20,
# 13). Stand-offs against the gates: bulb 0.45 m (0.63), crate 0.3 m from its footprint (0.5),
# ladder 0.41 m from its footprint (0.85 from its origin).
ERRANDS = {
    "S05": Errand(0.1, "crate", 0.3, carries="old_bulb"),
    "S07": Errand(0.1, "fresh_bulb", 0.45),
    "S09": Errand(0.1, "ladder", 0.41, carries="fresh_bulb"),
}
BULB_SLIDE = (0.0, 0.1, -0.1, 0.2, -0.2)  # m along the edge, if the square spot is taken


def footprints(world: dict) -> dict[str, Rect]:
    return {n: Rect(*f) for n, f in world["footprints"].items()}


def clear(a, b, rects: dict[str, Rect], leaving: bool = True) -> bool:
    """Whether the segment a-b keeps its clearance from every footprint; with `leaving`, a segment
    that starts too close to one may move away from it (the robot stands where it stands)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    n = max(2, int(math.ceil(np.linalg.norm(b - a) / SAMPLE)) + 1)
    pts = a + np.linspace(0.0, 1.0, n)[:, None] * (b - a)
    for name, rect in rects.items():
        d = rect.distance(pts)
        if (d < CLEARANCE[name]).any() and not (leaving and d[0] < CLEARANCE[name] and (np.diff(d) >= -1e-9).all()):
            return False
    return True


def route(start, goal, rects: dict[str, Rect], room) -> list[np.ndarray] | None:
    """The shortest collision-free polyline start -> goal through the grown footprints' corners."""
    x0, y0, x1, y1 = room
    nodes = [np.asarray(start, float), np.asarray(goal, float)]
    for name, r in rects.items():
        grown = Rect(r.cx, r.cy, r.hx + CLEARANCE[name] + CORNER, r.hy + CLEARANCE[name] + CORNER, r.yaw)
        nodes += [c for c in grown.corners() if x0 + WALL <= c[0] <= x1 - WALL and y0 + WALL <= c[1] <= y1 - WALL]
    n = len(nodes)
    cost = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            if clear(nodes[i], nodes[j], rects, leaving=i == 0):
                cost[i, j] = cost[j, i] = max(float(np.linalg.norm(nodes[i] - nodes[j])), 1e-6)
    _, pred = shortest_path(cost, directed=False, indices=0, return_predecessors=True)
    if pred[1] < 0:
        return None
    path, k = [nodes[1]], 1
    while k != 0:
        k = int(pred[k])
        path.append(nodes[k])
    return path[::-1]


def turning(path: list[np.ndarray], yaw: float, face: float) -> float:
    """Radians turned in place along a route: to each leg's heading, then to `face`."""
    total = 0.0
    for a, b in zip(path[:-1], path[1:]):
        heading = math.atan2(*(b - a)[::-1])
        total += abs(wrap(heading - yaw))
        yaw = heading
    return total + abs(wrap(face - yaw))


def target_point(world: dict, errand: Errand) -> np.ndarray:
    if errand.target == "fresh_bulb":
        return glass_centre(world)[:2]
    return pose(world, errand.target)[0][:2]


def stand_points(world: dict, errand: Errand, rects: dict[str, Rect]) -> list[np.ndarray]:
    """Where the pelvis may end: near its target by the gate's measure, clear of the furniture."""
    aim = target_point(world, errand)
    if errand.target == "fresh_bulb":  # square to the bench edge nearest the bulb
        bench = rects["workbench"]
        u, v = bench.local(aim)
        gaps = {(1, 0): bench.hx - u, (-1, 0): bench.hx + u, (0, 1): bench.hy - v, (0, -1): bench.hy + v}
        out = np.array(min(gaps, key=gaps.get), float)
        along = np.array([-out[1], out[0]])
        return [np.array(bench.local_to_world((u, v) + out * errand.standoff + along * s)) for s in BULB_SLIDE]
    rect = rects[errand.target]  # out from the footprint along each ray from its centre
    # The ladder's rays are fanned from its own axes: the gate's radius leaves only the middle 0.3 m of
    # each long side, which a fan fixed in the world missed at some ladder yaws (S09 seeds 203, 204 and
    # 209: no stand point, the robot stood the 120 s out).
    angles = np.linspace(-math.pi, math.pi, CANDIDATES, endpoint=False) + (rect.yaw if errand.target == "ladder" else 0.0)
    points = []
    for a in angles:
        ray = np.array([math.cos(a), math.sin(a)])
        t = np.arange(0.0, 2.0, 0.01)
        d = rect.distance(aim + t[:, None] * ray)
        points.append(aim + t[np.argmax(d >= errand.standoff)] * ray)
    if errand.target == "ladder":  # the gate counts from the ladder's origin: only its long sides are near enough
        points = [p for p in points if np.linalg.norm(p - aim) < LADDER_REACH - GOAL_TOL]
    return points


def best_route(world: dict, errand: Errand) -> list[np.ndarray] | None:
    """The route to the errand's stand point that is quickest to reach, walking and turning counted."""
    return quickest_route(world, stand_points(world, errand, footprints(world)), target_point(world, errand))


def quickest_route(world: dict, goals: list[np.ndarray], aim: np.ndarray) -> list[np.ndarray] | None:
    """Of the routes to `goals` clear of the furniture, the one quickest to walk and then turn to face `aim`."""
    rects = footprints(world)
    base = np.asarray(world["base"], float)
    best, cost = None, math.inf
    for goal in goals:
        if not all(r.distance(goal) >= CLEARANCE[n] - 1e-6 for n, r in rects.items()):
            continue
        path = route(base[:2], goal, rects, world["room"])
        if path is None:
            continue
        face = math.atan2(*(aim - goal)[::-1])
        c = sum(float(np.linalg.norm(b - a)) for a, b in zip(path[:-1], path[1:])) + TURN_COST * turning(path, base[3], face)
        if c < cost:
            best, cost = path, c
    return best


def walked_clear(start, yaw: float, to, speed: float, rects: dict[str, Rect]) -> bool:
    """Whether a leg walked from `start` facing `yaw`, its heading swinging to the bearing to `to` at
    `WALK_TURN_RATE`, keeps the furniture's clearance all the way (a start inside it may only move
    away). The route's straight segment does not say: at S09 seed 5 the first leg began 0.87 rad off
    its bearing beside the workbench, the arc walked into the bench, and the robot fell. The arc
    re-aims all the way (a leg holds its heading for the last `RE_AIM`); one that circles a point
    inside its turning circle (0.7 m) counts as clear when the bound ends it."""
    to, p, heading = np.asarray(to, float), np.asarray(start, float), yaw
    step = 0.05  # m walked between checks
    for _ in range(int(4 * np.linalg.norm(to - p) / step) + 1):  # a bound: the arc closes on `to` long before
        if np.linalg.norm(to - p) < step:
            break
        bearing = math.atan2(*(to - p)[::-1])
        swing = WALK_TURN_RATE * step / speed
        heading += float(np.clip(wrap(bearing - heading), -swing, swing))
        nxt = p + step * np.array([math.cos(heading), math.sin(heading)])
        if not clear(p, nxt, rects):
            return False
        p = nxt
    return True


def turn_to(ctx: Context, heading: float) -> Steps:
    """Turn in place to `heading` in one command, held until the measured heading is within half the
    tolerance, then stand. The controller bounds each step's turn and counts the feet's slip; asked
    0.3 rad at a time with the flag dropped between (the robot standing 1 s after each), the steps in
    progress ended as idle steps and the next turn began on them: 5 of S07's 8 falls in 20 seeds were
    in the turn to face the bulb."""
    ctx.cmd[32:36] = (0.0, 0.0, ENGAGE, wrap(heading))
    for _ in range(round(TURN_TIMEOUT_S / CONTROL_DT)):
        if abs(wrap(heading - ctx.obs.base[3])) < TURN_TOL / 2:
            break
        yield
    yield from settle(ctx)


def settle(ctx: Context) -> Steps:
    """Stand until the legs have stopped stepping (every joint within `STILL` of where it stood
    `STILL_S` before), `SETTLE_S` at least and `SETTLE_MAX_S` at most. After a 1.4 rad turn at S09
    (seed 12) the steps to a stop went on past 3 s, and a walk asked of a robot still stepping fell
    within a second."""
    ctx.cmd[32:36] = 0.0
    legs = []
    window = round(STILL_S / CONTROL_DT)
    for k in range(round(SETTLE_MAX_S / CONTROL_DT)):
        legs.append(np.asarray(ctx.obs.world["joints"], float)[LEG_INDEX])
        if k * CONTROL_DT >= SETTLE_S and np.abs(legs[-1] - legs[-1 - window]).max() < STILL:
            break
        yield


def leg(ctx: Context, to: np.ndarray, speed: float) -> Generator[None, None, bool]:
    """Walk towards `to` until (nearly) level with it; whether it took a step. The heading is the
    bearing to `to`, taken again every step while `to` is more than `RE_AIM` away and then held;
    the commanded heading swings to it at `WALK_TURN_RATE`. Aimed once at the start, the gait's
    sideways drift left a leg's end 9-23 cm to the side (S07 seeds 10, 12 and 18), and the turn in
    place that made it up (1.2-1.4 rad) fell."""
    heading = math.atan2(*(to - ctx.obs.base[:2])[::-1])
    now = float(ctx.obs.base[3]) if ctx.cmd[34] == 0.0 else float(ctx.cmd[35])
    walked = False
    while (to - ctx.obs.base[:2]) @ np.array([math.cos(heading), math.sin(heading)]) >= STOP_AHEAD:
        if np.linalg.norm(to - ctx.obs.base[:2]) > RE_AIM:
            heading = math.atan2(*(to - ctx.obs.base[:2])[::-1])
        now += float(np.clip(wrap(heading - now), -WALK_TURN_RATE * CONTROL_DT, WALK_TURN_RATE * CONTROL_DT))
        ctx.cmd[32:36] = (speed, 0.0, ENGAGE, wrap(now))
        walked = True
        yield
    return walked


def grip(ctx: Context, squeeze: float, opened: float = 0.0) -> None:
    """Command the carrying arm and thumb as the start commanded them, and the EASED fingers
    `squeeze` of the way from where they are to where the start commanded them: they stop at the
    glass, and their targets beyond it are the squeeze (standing at S05's start, seed 0: 10 N on the
    glass at 1, against 8 N commanding where they stopped); once it `opened` at all, the index
    finger that share of the way from the start's target to straight."""
    joints = ctx.obs.world["joints"]
    for name, v in GRIP_POSE.items():
        ctx.cmd[JOINT_SLOTS.index(name)] = v
    for name, v in GRIP_FINGERS.items():
        now = float(joints[JOINT_NAMES.index(name)])
        eased = squeeze if name in EASED else 1.0
        target = v - (1.0 - eased) * (v - now)
        ctx.cmd[JOINT_SLOTS.index(name)] = v * (1.0 - opened) if name in INDEX and opened else target


def cap_forward(world: dict, bulb: str) -> bool:
    """Whether `bulb` is held cap forward: its axis nearer level than upright."""
    return abs(float(pose(world, bulb)[1][2, 2])) < CAP_FORWARD


def holding(ctx: Context, bulb: str, steps: Steps) -> Steps:
    """`steps`, the grip on `bulb` re-squeezed at every new observation to keep its force in GRIP_FORCE
    (a grip that holds the bulb cap forward first opening its index finger)."""
    squeeze, opened, seen, opens = 1.0, 0.0, None, None
    for _ in steps:
        if ctx.obs is not seen:
            seen, force = ctx.obs, ctx.obs.world["grip_force"][bulb]
            if opens is None:
                opens = cap_forward(ctx.obs.world, bulb)
            low, high = GRIP_FORCE
            factor = SQUEEZE_RATE if force > high else 1.0 / SQUEEZE_RATE if force < low else 1.0
            squeeze = min(1.0, squeeze * factor)
            if opens:
                opened = min(1.0, opened + CHUNK_S / INDEX_OPEN_S)
            grip(ctx, squeeze, opened)
        yield


def plan(ctx: Context) -> Steps:
    errand = ERRANDS[ctx.obs.world["subtask"]]
    if errand.carries:
        yield from holding(ctx, errand.carries, walk(ctx, errand))
    else:
        yield from walk(ctx, errand)


def walk(ctx: Context, errand: Errand) -> Steps:
    """The route to the errand's stand point, leg by leg, then the turn to face its target; stand."""
    yield from go(ctx, lambda w: stand_points(w, errand, footprints(w)), lambda w: target_point(w, errand), errand.speed)
    ctx.cmd[32:36] = 0.0
    yield from hold_still(ctx)


def go(ctx: Context, goals: Callable[[dict], list[np.ndarray]], aim: Callable[[dict], np.ndarray], speed: float) -> Steps:
    """Walk the quickest route to one of `goals` (planned again at every waypoint), leg by leg, then
    turn to face `aim` (each a function of the privileged state)."""
    while True:
        path = quickest_route(ctx.obs.world, goals(ctx.obs.world), aim(ctx.obs.world))
        if path is None:  # nowhere to go: stand rather than walk into the furniture
            break
        nxt = path[1] if len(path) > 1 else path[0]
        if len(path) <= 2 and np.linalg.norm(nxt - ctx.obs.base[:2]) < GOAL_TOL:
            break
        bearing = math.atan2(*(nxt - ctx.obs.base[:2])[::-1])
        off = abs(wrap(bearing - ctx.obs.base[3]))
        turn = off > IN_PLACE or (off > TURN_TOL and not walked_clear(ctx.obs.base[:2], ctx.obs.base[3], nxt, speed, footprints(ctx.obs.world)))
        if turn:
            yield from turn_to(ctx, bearing)
        if not (yield from leg(ctx, nxt, speed)) and not turn and len(path) > 2:
            # A round without a row: within STOP_AHEAD of a corner the route still lists, planning
            # again from the same state would repeat it for ever. On to the corner after it.
            yield from leg(ctx, path[2], speed)
    target = aim(ctx.obs.world)
    yield from turn_to(ctx, math.atan2(*(target - ctx.obs.base[:2])[::-1]))
