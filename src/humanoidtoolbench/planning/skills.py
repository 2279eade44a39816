"""Closed-loop building blocks of the scripted experts, written as generators over `decoupled_v1` rows.

A skill is a generator that edits the command row in `Context.cmd` and
yields once per 50 Hz step; the driver (`PlanFollower`) collects a chunk of
rows and hands the skill a fresh observation (`Context.obs`) at the next
request. Skills compose with `yield from`, so a plan reads as the sequence of
what the robot does. How careful they are on a controller is the `Caution`
the suite's expert hands the context.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from ..control.contracts import decoupled_v1 as contract
from ..sim.scene import CONTROL_DT
from .caution import Caution
from .kinematics import Kinematics, Reach

SLICES = contract.SLICES
SEARCH_ABOVE = 0.02  # IK residual above which a reach searches other postures
STANDING_HEIGHT = 0.7  # pelvis commands below this are low (the tool-use work posture is 0.66)
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
    """What skills share: the latest observation, the command being built, the kinematic model and
    the caution for the controller the robot runs on (the suite's expert picks its row)."""

    def __init__(self, kin: Kinematics, obs: Observation, caution: Caution) -> None:
        self.kin = kin
        self.obs = obs
        self.caution = caution
        self.cmd = contract.hold_action(obs.state)
        if self.caution.clip_start:
            space = contract.DECOUPLED_V1.action_space()
            self.cmd = np.clip(self.cmd, space.low, space.high)
        self.carrying = False  # set by the plans while a load is in hand
        self.turning = False  # set by a plan that turns in place: the heading flag stays on while standing

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
            # The footsteps drift forward while side-stepping: the world y (the distance from a
            # bench the robot faces) gets the speed it needs first, movement along x what is left.
            vy = np.clip(v[1], -speed, speed)
            room = math.sqrt(speed * speed - vy * vy)
            set_world_velocity(ctx, (np.clip(v[0], -room, room), vy))
        else:
            set_world_velocity(ctx, v if norm <= speed else v * speed / norm)
        yield
    ctx.cmd[32:34] = 0.0


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
