"""Whole-body differential inverse kinematics (mink + daqp) on the robot alone.

The kinematic "control robot": a configuration integrated from one QP per
control step, tracking the feet (6-D), the centre of mass (horizontal), the
pelvis height and orientation, with the waist, arms and hands frozen at the
policy's targets. Because those joints are part of the model, their mass
moves the CoM task's Jacobian and the legs and hips take up the shift.
"""

from __future__ import annotations

import math
from ctypes import c_int
from dataclasses import dataclass
from functools import lru_cache

import daqp
import mink
import mujoco
import numpy as np
from mink.lie import _lie_ops_c as lie

from ...robot.joints import LEG_JOINTS, PELVIS
from ..contracts.decoupled_v1 import JOINT_SLOTS

FEET = {"left": "left_ankle_roll_link", "right": "right_ankle_roll_link"}
UNBOUNDED = -1e30  # daqp's lower bound of a one-sided constraint
EQUALITY = 5  # daqp's sense flag of an equality row


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """`np.cross` of two 3-vectors with the products and differences it takes, so the same bits
    (without its axis handling, which costs more than the product)."""
    a0, a1, a2 = a.tolist()
    b0, b1, b2 = b.tolist()
    return np.array([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0])


def _place(target: np.ndarray, yaw: float, position) -> None:
    """A task's target pose (wxyz_xyz), in place: heading `yaw` at `position`."""
    target[:4] = heading(yaw).wxyz
    target[4:] = position


def heading(yaw: float) -> mink.SO3:
    """The rotation by `yaw` about the vertical (a foot or the pelvis upright): feet keep their
    heading for many steps, so most targets reuse one."""
    return _heading(float(yaw), math.copysign(1.0, yaw))  # -0.0 and 0.0 give different bits


@lru_cache(maxsize=64)
def _heading(yaw: float, sign: float) -> mink.SO3:
    return mink.SO3.from_rpy_radians(0.0, 0.0, yaw)


@dataclass(frozen=True)
class Weights:
    """Task costs: feet above all, then the CoM, then the pelvis."""

    foot_position: float = 1000.0
    foot_orientation: float = 300.0
    com: float = 300.0
    pelvis_height: float = 100.0
    pelvis_orientation: float = 30.0
    leg_posture: float = 0.05
    damping: float = 1e-3


class WholeBodyIK:
    """The control robot: mink tasks on a robot-only model, one QP step per control period."""

    def __init__(self, model: mujoco.MjModel, weights: Weights = Weights()) -> None:
        self.model = model
        self.cfg = mink.Configuration(model)
        w = weights
        self.velocity = np.zeros(model.nv)
        self.feet = {
            s: mink.FrameTask(b, "body", position_cost=w.foot_position, orientation_cost=w.foot_orientation)
            for s, b in FEET.items()
        }
        self.com = mink.ComTask(cost=[w.com, w.com, 0.0])
        self.pelvis = mink.FrameTask(PELVIS, "body", position_cost=[0.0, 0.0, w.pelvis_height], orientation_cost=w.pelvis_orientation)
        cost = np.zeros(model.nv)
        self.leg_dof = np.array([model.jnt_dofadr[model.joint(n).id] for s in LEG_JOINTS for n in LEG_JOINTS[s]])
        cost[self.leg_dof] = w.leg_posture
        self.posture = mink.PostureTask(model, cost=cost)
        self.slot_qpos = np.array([model.jnt_qposadr[model.joint(n).id] for n in JOINT_SLOTS])
        hand_arm_waist = [int(model.jnt_dofadr[model.joint(n).id]) for n in JOINT_SLOTS]
        self.freeze = mink.DofFreezingTask(model, dof_indices=hand_arm_waist)
        self.limits = [mink.ConfigurationLimit(model, gain=0.95)]
        self.tasks = [*self.feet.values(), self.com, self.pelvis, self.posture]
        for task in (*self.feet.values(), self.pelvis):  # targets `solve` writes in place
            task.set_target(mink.SE3.identity())
        self.com.set_target(np.zeros(3))
        self._pelvis = model.body(PELVIS).id
        self.damping = w.damping
        # The QP's constraint rows: the limits (one-sided, their rows constant) above the frozen
        # joints (equalities, their error always zero).
        limit = self.limits[0].compute_qp_inequalities(self.cfg, 0.0)
        rows = len(limit.h)
        self._constraints = np.vstack([limit.G, self.freeze.compute_jacobian(self.cfg)])
        self._upper = np.empty(len(self._constraints))
        self._upper[rows:] = -self.freeze.gain * self.freeze.compute_error(self.cfg)
        self._lower = np.full(len(self._constraints), UNBOUNDED)
        self._sense = np.zeros(len(self._constraints), dtype=c_int)
        self._sense[rows:] = EQUALITY
        self._limit_rows = rows
        self._delta = np.empty((2, model.nv))  # to the upper limits, from the lower ones
        # The objective's stacked residual: feet, CoM, pelvis, then the posture rows, which are constant.
        frames = [*self.feet.values(), self.pelvis]
        self._frames = [(t, model.body(t.frame_name).id, 6 * i if i < 2 else 15) for i, t in enumerate(frames)]
        self._W = np.zeros((21 + model.nv, model.nv))
        self._e = np.zeros(21 + model.nv)
        self._W[21:] = self.posture.cost[:, None] * self.posture.compute_jacobian(self.cfg)
        self._jac = np.empty((6, model.nv))
        self._posture_error = np.empty(model.nv)

    @property
    def q(self) -> np.ndarray:
        return self.cfg.q

    def set_q(self, q: np.ndarray, posture: bool = True) -> None:
        """Put the control robot at `q`, by default also the posture the legs are held near."""
        self.cfg.update(q)
        if posture:
            self.posture.set_target(q)

    def foot_pose(self, side: str) -> mink.SE3:
        return self.cfg.get_transform_frame_to_world(FEET[side], "body")

    def solve(self, upper: np.ndarray, feet: dict, com_xy, pelvis_z: float, pelvis_yaw: float, dt: float) -> np.ndarray:
        """One QP step of the control robot towards the targets (upper-body joints set to `upper`;
        each foot's a heading and a position); returns its configuration and keeps the step's
        joint velocity in `velocity`. The targets are written into the tasks' own poses."""
        d = self.cfg.data
        d.qpos[self.slot_qpos] = upper
        self.cfg.update()
        for side, (yaw, position) in feet.items():
            _place(self.feet[side].transform_target_to_world.wxyz_xyz, yaw, position)
        target = self.com.target_com
        target[0], target[1], target[2] = com_xy[0], com_xy[1], 0.0
        # mink measures a frame's error in the frame itself (an SE(3) log), so the target sits over the
        # pelvis: one at the world's origin would mix the pelvis's distance from it into the height and
        # attitude errors of a slightly tilted pelvis.
        xy = d.xpos[self._pelvis]
        _place(self.pelvis.transform_target_to_world.wxyz_xyz, pelvis_yaw, (xy[0], xy[1], pelvis_z))
        step = self._qp()
        # Infeasible limits this step (a joint pushed past its range): hold still.
        self.velocity = np.zeros(self.model.nv) if step is None else step / dt
        self.cfg.integrate_inplace(self.velocity, dt)
        return self.cfg.q

    def _qp(self) -> np.ndarray | None:
        """The configuration step of `mink.solve_ik` with daqp, None where there is none.

        The same objective, limits, equality rows and solver call as mink's `build_ik` and
        qpsolvers' daqp interface build, so the same bits, without their per-call objects:
        the tasks' weighted residuals stacked (H = W'W plus the damping on its diagonal,
        c = -e'W) in place, each task's the operations its `compute_qp_residual` takes; the
        configuration limits' rows then the frozen joints' as equalities. (mink's limit check
        before it only logs.)"""
        m, d, nv = self.model, self.cfg.data, self.model.nv
        W, e, jac = self._W, self._e, self._jac
        (left, right, pelvis), com = self._frames, self.com
        mu = 0.0 + self._frame_residual(*left)
        mu += self._frame_residual(*right)
        mujoco.mj_jacSubtreeCom(m, d, jac[:3], 1)  # ComTask
        mu += self._residual(com, d.subtree_com[1] - com.target_com, jac[:3], 12)
        mu += self._frame_residual(*pelvis)
        posture = self.posture  # PostureTask: its weighted Jacobian is constant
        mujoco.mj_differentiatePos(m, self._posture_error, 1.0, posture.target_q, d.qpos)
        weighted = posture.cost * (-posture.gain * self._posture_error)
        e[21:] = weighted
        mu += posture.lm_damping * float(weighted @ weighted)
        H = W.T @ W
        c = -(e @ W)
        H.flat[:: nv + 1] += self.damping + mu
        limit, rows, delta = self.limits[0], self._limit_rows, self._delta
        mujoco.mj_differentiatePos(m, delta[0], 1.0, d.qpos, limit.upper)
        mujoco.mj_differentiatePos(m, delta[1], 1.0, limit.lower, d.qpos)
        self._upper[: rows // 2] = limit.gain * delta[0][limit.indices]
        self._upper[rows // 2 : rows] = limit.gain * delta[1][limit.indices]
        x, _, exitflag, _ = daqp.solve(H, c, self._constraints, self._upper, self._lower, self._sense, primal_start=None)
        return x if exitflag > 0 else None

    def _frame_residual(self, task: mink.FrameTask, body: int, row: int) -> float:
        """A FrameTask's rows, its error and Jacobian from one frame transform as mink takes them."""
        m, d, jac = self.model, self.cfg.data, self._jac
        frame = lie.xmat_xpos_to_wxyz_xyz(d.xmat[body], d.xpos[body])
        mujoco.mj_jacBody(m, d, jac[:3], jac[3:], body)
        local = lie.se3_rotation_adjoint_from_xmat(d.xmat[body]) @ jac
        target = task.transform_target_to_world.wxyz_xyz
        error = lie.se3_rminus(target, frame)
        jacobian = -lie.se3_jlog(lie.se3_inverse_multiply(target, frame)) @ local
        return self._residual(task, error, jacobian, row)

    def _residual(self, task: mink.Task, error: np.ndarray, jacobian: np.ndarray, row: int) -> float:
        """A task's rows of the stacked residual, as mink's `_weighted_residual`; returns its LM term."""
        weighted = task.cost * (-task.gain * error)
        self._e[row : row + len(weighted)] = weighted
        np.multiply(task.cost[:, None], jacobian, out=self._W[row : row + len(weighted)])
        return task.lm_damping * float(weighted @ weighted)


class StaticFeedforward:
    """Joint torques that hold the control robot's pose on its feet with chosen centres of pressure.

    Each foot carries `share` of the robot's weight through the floor at `cop`
    (a world point on the ground, at height `ground`); the wrench this puts on the ankle, less the
    gravity torques, is what each joint must supply. The ankles' part is the
    torque that places the centre of pressure; the rest of the leg holds the load.
    """

    def __init__(self, model: mujoco.MjModel) -> None:
        self.model = model
        self.bodies = {s: model.body(FEET[s]).id for s in ("left", "right")}
        self.wrists = {s: model.body(f"{s}_wrist_yaw_link").id for s in ("left", "right")}
        self._jacp = np.zeros((3, model.nv))
        self._jacr = np.zeros((3, model.nv))
        self._bias = np.zeros(model.nv)
        self.mass = float(model.body_subtreemass[1])

    def torques(self, d: mujoco.MjData, share: dict, cop: dict, com_acc=(0.0, 0.0), ground: float = 0.0, loads=()) -> np.ndarray:
        """At the pose of `d` (the robot's data, its kinematics and mj_comPos computed there, at
        rest: the control robot's, as `WholeBodyIK.solve` leaves it)."""
        m = self.model
        mujoco.mj_rne(m, d, 0, self._bias)
        tau = self._bias.copy()
        # The floor pushes back the robot's weight and accelerates its CoM as planned.
        weight = self._bias[:3] + self.mass * np.array([com_acc[0], com_acc[1], 0.0])
        for load in loads:  # what the arms are pushed or pulled by, the floor need not supply
            weight = weight - load.force
            mujoco.mj_jacBody(m, d, self._jacp, self._jacr, self.wrists[load.side])
            tau -= self._jacp.T @ load.force + self._jacr.T @ load.torque
        for side, body in self.bodies.items():
            if share[side] <= 0.0:
                continue
            force = share[side] * weight
            torque = cross(np.array([cop[side][0], cop[side][1], ground]) - d.xpos[body], force)
            mujoco.mj_jacBody(m, d, self._jacp, self._jacr, body)
            tau -= self._jacp.T @ force + self._jacr.T @ torque
        return tau
