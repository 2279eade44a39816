"""Closed-loop building blocks of the expert, written as generators.

A skill is a generator that edits the command row in `Context.cmd` and
yields once per 50 Hz step; the driver collects a chunk of rows and hands
the skill a fresh observation (`Context.obs`) at the next request. Skills
compose with `yield from`, so a plan reads as the sequence of what the
robot does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterator

import mujoco
import numpy as np

from ....control.contracts import decoupled_v1 as contract
from .caution import STANDING_HEIGHT, caution_for
from .kinematics import Kinematics, Reach

SLICES = contract.SLICES
HEADING = -math.pi / 2  # facing the bench
SEARCH_ABOVE = 0.02  # IK residual above which a reach searches other postures
CONTROL_DT = 0.02

# Dex3 postures, in each hand's own slot order (left thumb/middle/index; right thumb/index/middle).
# `open`: thumb swung back and fingers bent down, so the hand can come down over a handle that
# lies on the bench; `closed`: thumb and fingertips pinch the handle at its mid-height.
HAND_POSTURES = {
    "left": {
        "relaxed": (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
        "open": (0.0, -0.72, 1.2, -1.4, 0.0, -1.4, 0.0),
        "closed": (0.0, 0.3, 1.2, -1.4, -1.0, -1.4, -1.0),
    },
}
Steps = Iterator[None]


@dataclass
class Observation:
    state: np.ndarray  # the 32-value policy state
    world: dict  # the privileged simulator truth

    @property
    def base(self) -> np.ndarray:
        return np.asarray(self.world["base"])

    def obj(self, name: str) -> dict:
        return self.world["objects"][name]


class Context:
    """What skills share: the latest observation, the command being built, the kinematic model."""

    def __init__(self, kin: Kinematics, obs: Observation) -> None:
        self.kin = kin
        self.obs = obs
        self.caution = caution_for(obs.world.get("controller"))
        self.cmd = contract.hold_action(obs.state)
        if self.caution.clip_start:
            space = contract.DECOUPLED_V1.action_space()
            self.cmd = np.clip(self.cmd, space.low, space.high)
        self.cmd[34], self.cmd[35] = 1.0, HEADING  # always hold the heading
        self.carrying = False  # set by the plans while the tool is in hand
        self.turning = False  # set by `face_bench`: the heading flag stays on while standing

    def row(self) -> np.ndarray:
        """The command to send: the heading flag drops while standing where the caution asks."""
        row = self.cmd.copy()
        if not self.caution.hold_heading_standing and not self.turning and not row[32:34].any():
            row[34] = 0.0
        return row

    def slot(self, name: str) -> int:
        return contract.ACTION_SLOTS.index(name)

    def arm_slots(self, side: str) -> slice:
        return SLICES[f"{side}_arm"]

    def hand_slots(self, side: str) -> slice:
        return SLICES[f"{side}_hand"]

    def measured_kinematics(self) -> Kinematics:
        """The kinematic model set to the measured base and joints."""
        self.kin.set_state(self.obs.base, self.obs.state)
        return self.kin

    def commanded_kinematics(self) -> Kinematics:
        """The kinematic model set to the measured base and the commanded joints."""
        self.kin.set_state(self.obs.base, self.cmd)
        return self.kin


def together(*skills: Steps) -> Steps:
    """Advance several skills in step until all are done."""
    active = list(skills)
    while active:
        active = [s for s in active if next(s, StopIteration) is not StopIteration]
        if active:
            yield


def hold_still(ctx: Context) -> Steps:
    """Keep the current command for the rest of the episode."""
    while True:
        yield


def wait(ctx: Context, seconds: float) -> Steps:
    for _ in range(max(1, round(seconds / CONTROL_DT))):
        yield


class PlanFollower:
    """A scripted policy: a plan (a generator of skill steps) started on an episode's first request,
    fed each later request's observation, `chunk` rows per request; a finished plan holds its last
    command. Subclasses say how a request starts a plan and what it observes."""

    chunk = 5  # rows per request: 0.1 s between observations

    def __init__(self) -> None:
        self.kin = Kinematics()
        self.ctx: Context | None = None
        self.plan: Steps | None = None

    def start(self, request: dict) -> tuple[Context, Steps]:
        raise NotImplementedError

    def observe(self, request: dict) -> Observation:
        raise NotImplementedError

    def row(self) -> np.ndarray:
        return self.ctx.row()

    @classmethod
    def predictor(cls):
        """A module's `predict`: one follower, made on the first request (its kinematics load then)."""
        made: list[PlanFollower] = []

        def predict(request: dict) -> np.ndarray:
            if not made:
                made.append(cls())
            return made[0](request)

        return predict

    def __call__(self, request: dict) -> np.ndarray:
        if request["history"].get("reset", False) or self.ctx is None:
            self.ctx, self.plan = self.start(request)
        else:
            self.ctx.obs = self.observe(request)
        rows = []
        for _ in range(self.chunk):
            next(self.plan, None)
            rows.append(self.row())
        return np.array(rows)


def glide(ctx: Context, targets: dict[int, float] | tuple[slice, np.ndarray], seconds: float) -> Steps:
    """Move command slots linearly to their targets over `seconds` (smoothstep timing)."""
    if isinstance(targets, tuple):
        sl, values = targets
        idx = np.arange(contract.ACTION_DIM)[sl]
        targets = dict(zip(idx.tolist(), np.asarray(values, float).tolist()))
    keys = np.array(list(targets))
    start = ctx.cmd[keys].copy()
    goal = np.array(list(targets.values()))
    limit = ctx.caution.joint_speed
    if limit is not None:  # no joint faster than the caution allows on average
        joints = keys < len(contract.JOINT_SLOTS)
        seconds = max(seconds, float(np.abs(goal - start)[joints].max(initial=0.0)) / limit)
    n = max(1, round(seconds / CONTROL_DT))
    for k in range(1, n + 1):
        s = k / n
        ctx.cmd[keys] = start + (goal - start) * (3 * s * s - 2 * s * s * s)
        yield


def shape_hand(ctx: Context, side: str, posture: str, seconds: float = 0.4) -> Steps:
    yield from glide(ctx, (ctx.hand_slots(side), np.array(HAND_POSTURES[side][posture])), seconds)


def walk(ctx: Context, vx: float, vy: float, seconds: float) -> Steps:
    """Walk at a fixed velocity in the robot's frame for a while."""
    ctx.cmd[32:34] = (vx, vy)
    yield from wait(ctx, seconds)
    ctx.cmd[32:34] = 0.0


def set_world_velocity(ctx: Context, v_xy) -> None:
    """Command a base velocity given in world coordinates (converted to the robot's frame)."""
    yaw = ctx.obs.base[3]
    c, s = math.cos(yaw), math.sin(yaw)
    ctx.cmd[32:34] = (c * v_xy[0] + s * v_xy[1], -s * v_xy[0] + c * v_xy[1])


def walk_speed(ctx: Context) -> float:
    """The caution's speed: slower when low or carrying."""
    low = ctx.cmd[31] < STANDING_HEIGHT or ctx.carrying
    return ctx.caution.low_speed if low else ctx.caution.walk_speed


def walk_to(ctx: Context, xy, tol: float | None = None) -> Steps:
    """Walk the pelvis to `xy` (world) keeping the heading; closed loop on the measured base,
    within the caution's tolerance unless given."""
    xy = np.asarray(xy, float)
    tol = ctx.caution.walk_tol if tol is None else tol
    speed = walk_speed(ctx)
    for _ in range(round(ctx.caution.walk_timeout / CONTROL_DT)):
        err = xy - ctx.obs.base[:2]
        if np.linalg.norm(err) < tol:
            break
        v = 2.0 * err
        norm = np.linalg.norm(v)
        if ctx.caution.distance_first:
            # The footsteps drift forward while side-stepping: the distance from the bench (y)
            # gets the speed it needs first, movement along it (x) what is left.
            vy = np.clip(v[1], -speed, speed)
            room = math.sqrt(speed * speed - vy * vy)
            set_world_velocity(ctx, (np.clip(v[0], -room, room), vy))
        else:
            set_world_velocity(ctx, v if norm <= speed else v * speed / norm)
        yield
    ctx.cmd[32:34] = 0.0


def along_bench_at(ctx: Context, xy) -> float | None:
    """The y a walk to `xy` keeps while moving along the bench, where the caution backs away from
    it for such a walk (at least `clear_bench` behind `xy`, further if the robot is already
    there), rather than side-stepping along its edge; None for a walk straight in."""
    cn = ctx.caution
    if cn.clear_bench > 0.0 and abs(xy[0] - ctx.obs.base[0]) > cn.along_bench:
        return max(ctx.obs.base[1], xy[1] + cn.clear_bench)
    return None


def leave_bench(ctx: Context, xy) -> Steps:
    """Where the caution asks for it, rise to the walking height for a walk of some length to
    `xy` and back away from the bench for a walk along it (see `along_bench_at`)."""
    xy = np.asarray(xy, float)
    cn = ctx.caution
    if cn.walk_height is not None and ctx.cmd[31] < cn.walk_height and np.linalg.norm(xy - ctx.obs.base[:2]) > cn.along_bench:
        yield from glide(ctx, {ctx.slot("base_height"): cn.walk_height}, 0.4)
    if (away := along_bench_at(ctx, xy)) is not None:
        yield from walk_to(ctx, (ctx.obs.base[0], away), tol=0.03)


def go_to_bench(ctx: Context, xy, work_height: float | None = None) -> Steps:
    """Walk to a place at the bench (see `leave_bench`), coming in straight, and come down to the
    work height (the height now, unless given) standing."""
    xy = np.asarray(xy, float)
    cn = ctx.caution
    height = ctx.cmd[31] if work_height is None else work_height
    yield from leave_bench(ctx, xy)
    if (away := along_bench_at(ctx, xy)) is not None:
        yield from walk_to(ctx, (xy[0], away), tol=0.03)
    yield from walk_to(ctx, xy)
    if ctx.cmd[31] > height:
        if cn.settle_walk > 0.0:
            yield from wait(ctx, cn.settle_walk)
        yield from face_bench(ctx)
        yield from glide(ctx, {ctx.slot("base_height"): height}, cn.lower_time)


def face_bench(ctx: Context, timeout: float = 3.0) -> Steps:
    """Where the caution asks, turn back to face the bench when the yaw has slipped beyond its
    tolerance: with the heading flag off while standing, a stance foot that spun at a walk's last
    step stays turned, and an arm reaching from a turned body falls short."""
    tol = ctx.caution.face_tol
    if tol is None or abs(yaw_error(ctx)) < tol:
        return
    ctx.turning = True
    for _ in range(round(timeout / CONTROL_DT)):
        if abs(yaw_error(ctx)) < tol / 2:
            break
        yield
    ctx.turning = False


def yaw_error(ctx: Context) -> float:
    """The measured yaw's difference from facing the bench (wrapped)."""
    return (ctx.obs.base[3] - HEADING + math.pi) % (2 * math.pi) - math.pi


def tool_rotation(tool: dict) -> np.ndarray:
    mat = np.empty(9)
    mujoco.mju_quat2Mat(mat, np.asarray(tool["quat"], float))
    return mat.reshape(3, 3)


def working_end(tool: dict) -> np.ndarray:
    return np.asarray(tool["tip"], float)


def held(ctx: Context, name: str, side: str, point=working_end) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A point of a held tool (default its working end), its axis (towards the handle) and its
    up direction (its resting frame's z), in the wrist frame, as measured."""
    pos, rot = ctx.measured_kinematics().frame(side)
    tool = ctx.obs.obj(name)
    up = tool_rotation(tool)[:, 2]
    return rot.T @ (point(tool) - pos), rot.T @ np.asarray(tool["axis"]), rot.T @ up


def tool_reach(
    ctx: Context,
    side: str,
    name: str,
    tip,
    pointing,
    seconds: float,
    floor: float | None,
    search: bool = False,
    corrections: int = 2,
    tool_up=None,
    point=working_end,
    bias=None,
) -> Iterator[None]:
    """Put a held tool's working end (or another `point` of it) at `tip`, the tool pointing along
    `pointing` (handle to tip) and, if given, its own up direction along `tool_up`.

    The arm sags under the tool and the grip is not rigid, so after each move the measured
    tip error is added to the target and the arm moves again (`corrections` times). Returns the
    correction it ended with (aim minus target), which a following move can start from (`bias`)."""
    tip = np.asarray(tip, float)
    aim = tip + (0.0 if bias is None else np.asarray(bias, float))
    for k in range(corrections + 1):
        tip_local, axis_local, up_local = held(ctx, name, side, point)
        turn = {} if tool_up is None else dict(normal=np.asarray(tool_up, float), normal_local=up_local, normal_weight=0.4)
        target = Reach(aim, axis=-np.asarray(pointing, float), offset=tip_local, axis_local=axis_local, **turn)
        yield from reach(ctx, side, target, seconds if k == 0 else 0.2, floor, search and k == 0)
        if k == corrections:
            break
        yield from wait(ctx, 0.1)
        error = tip - point(ctx.obs.obj(name))
        if np.linalg.norm(error) < 0.008:
            break
        aim = aim + np.clip(error, -0.05, 0.05)
    return aim - tip


def reach(
    ctx: Context,
    side: str,
    target: Reach,
    seconds: float,
    floor: float | None = None,
    search: bool = False,
    settle: bool = False,
) -> Steps:
    """Solve the arm for `target` from the commanded posture and glide there; with `settle`,
    solve again from the measured base as many times as the caution asks (where the pelvis
    sways under the arm's motion, the first solution misses)."""
    kin = ctx.commanded_kinematics()
    q, residual = kin.solve(side, target, floor=floor)
    if search and residual > SEARCH_ABOVE:
        # Far from the current posture: search, accepting the jump a new posture brings.
        ctx.commanded_kinematics()
        q, _ = kin.solve_global(side, target, floor=floor)
    yield from glide(ctx, (ctx.arm_slots(side), q), seconds)
    for _ in range(ctx.caution.resolve_reach if settle else 0):
        yield from wait(ctx, 0.1)
        q, _ = ctx.commanded_kinematics().solve(side, target, floor=floor)
        yield from glide(ctx, (ctx.arm_slots(side), q), 0.2)
