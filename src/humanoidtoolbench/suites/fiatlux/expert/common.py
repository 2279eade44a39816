"""The planning skills on the Fiatlux robot: their context built from Fiatlux's privileged state.

The skills (`planning.skills`) edit a `decoupled_v1` row and read a
base pose and the 31 commanded joints; Fiatlux's privileged observation
carries both (`FiatluxEpisode.privileged`), so the same arm inverse
kinematics and glides drive this robot under the balanced controller.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from ....control.contracts.decoupled_v1 import DEFAULT_BASE_HEIGHT, JOINT_SLOTS, STATE_DIM
from ....control.contracts.joint_position import JOINT_NAMES
from ....planning.caution import caution_for
from ....planning.kinematics import Kinematics, Reach
from ....planning.skills import Context, Observation, Steps, glide
from .caution import CAUTIONS

SLOT_INDEX = np.array([JOINT_NAMES.index(n) for n in JOINT_SLOTS])
UP = np.array([0.0, 0.0, 1.0])


def observe(world: dict) -> Observation:
    """The privileged state as the skills' observation: measured joints in slot order, default height."""
    state = np.zeros(STATE_DIM)
    state[:31] = np.asarray(world["joints"], float)[SLOT_INDEX]
    state[31] = DEFAULT_BASE_HEIGHT
    return Observation(state, world)


def context(kin: Kinematics, world: dict) -> Context:
    ctx = Context(kin, observe(world), caution_for(CAUTIONS, world["controller"]))
    ctx.cmd[32:36] = 0.0  # stand where the subtask starts: no steps, no heading to hold
    return ctx


def yaw_of(quat) -> float:
    """The heading of a (w, x, y, z) quaternion of a body turned about z only."""
    w, x, y, z = (float(v) for v in quat)
    return math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))


def pose(world: dict, name: str) -> tuple[np.ndarray, np.ndarray]:
    """(position, rotation matrix) of a body of the privileged poses."""
    import mujoco

    p = np.asarray(world["poses"][name], float)
    mat = np.empty(9)
    mujoco.mju_quat2Mat(mat, p[3:7])
    return p[:3].copy(), mat.reshape(3, 3)


def heading_axes(ctx: Context) -> tuple[np.ndarray, np.ndarray]:
    """(forward, left) horizontal unit vectors of the robot's heading."""
    yaw = float(ctx.obs.base[3])
    return np.array([math.cos(yaw), math.sin(yaw), 0.0]), np.array([-math.sin(yaw), math.cos(yaw), 0.0])


def move(ctx: Context, side: str, target: Callable[[np.ndarray], Reach], goal, seconds: float,
         body: dict[int, float] | None = None, pieces: int = 10) -> Steps:
    """Move the hand's reach point to `goal` along a straight line in short solved pieces, the body
    slots (waist, pelvis height) going to `body` alongside; each piece starts from the last
    solution, so the arm never jumps to another posture and sweeps through the furniture."""
    body = body or {}
    start = ctx.commanded_kinematics().point(side, target(np.zeros(3)).offset)
    goal = np.asarray(goal, float)
    first = {k: float(ctx.cmd[k]) for k in body}
    arm = np.arange(len(ctx.cmd))[ctx.arm_slots(side)]
    for k in range(1, pieces + 1):
        s = k / pieces
        now = {i: first[i] + (v - first[i]) * s for i, v in body.items()}
        held = {i: float(ctx.cmd[i]) for i in body}
        for i, v in now.items():  # solve with the body where this piece ends
            ctx.cmd[i] = v
        q, _ = ctx.commanded_kinematics().solve(side, target(start + (goal - start) * s))
        for i, v in held.items():
            ctx.cmd[i] = v
        yield from glide(ctx, {**dict(zip(arm.tolist(), q)), **now}, seconds / pieces)

