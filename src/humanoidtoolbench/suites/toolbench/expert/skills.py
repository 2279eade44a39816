"""The tool-use expert's own skills: at the bench (facing it, stands, walks along it) and with a held tool.

They build on the generic skills of `planning.skills`; the context they run
in is `bench_context`'s: the caution row of the observed controller
(`caution.CAUTIONS`) and the heading held facing the bench.
"""

from __future__ import annotations

import math
from typing import Iterator

import mujoco
import numpy as np

from ....angles import wrap
from ....planning.kinematics import Kinematics, Reach
from ....planning.skills import CONTROL_DT, Context, Observation, Steps, glide, reach, wait, walk_to
from .caution import CAUTIONS

HEADING = -math.pi / 2  # facing the bench

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


def bench_context(kin: Kinematics, obs: Observation) -> Context:
    """A context for the plans at the bench: the observed controller's caution, the heading always held."""
    ctx = Context(kin, obs, CAUTIONS[obs.world.get("controller")])
    ctx.cmd[34], ctx.cmd[35] = 1.0, HEADING
    return ctx


def shape_hand(ctx: Context, side: str, posture: str, seconds: float = 0.4) -> Steps:
    yield from glide(ctx, (ctx.hand_slots(side), np.array(HAND_POSTURES[side][posture])), seconds)


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
    return wrap(ctx.obs.base[3] - HEADING)


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
