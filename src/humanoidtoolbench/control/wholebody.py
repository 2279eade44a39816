"""Whole-body differential inverse kinematics (mink + daqp) on the robot alone.

The kinematic "control robot": a configuration integrated from one QP per
control step, tracking the feet (6-D), the centre of mass (horizontal), the
pelvis height and orientation, with the waist, arms and hands frozen at the
policy's targets. Because those joints are part of the model, their mass
moves the CoM task's Jacobian and the legs and hips take up the shift.
"""

from __future__ import annotations

from dataclasses import dataclass

import mink
import mujoco
import numpy as np

from ..robot.joints import LEG_JOINTS, PELVIS
from .decoupled_v1 import JOINT_SLOTS

FEET = {"left": "left_ankle_roll_link", "right": "right_ankle_roll_link"}
SOLVER = "daqp"


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
    def __init__(self, model: mujoco.MjModel, weights: Weights = Weights()) -> None:
        self.model = model
        self.cfg = mink.Configuration(model)
        w = weights
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
        self.damping = w.damping

    @property
    def q(self) -> np.ndarray:
        return self.cfg.q

    def set_q(self, q: np.ndarray) -> None:
        self.cfg.update(q)
        self.posture.set_target(q)

    def foot_pose(self, side: str) -> mink.SE3:
        return self.cfg.get_transform_frame_to_world(FEET[side], "body")

    def com_position(self) -> np.ndarray:
        return self.cfg.data.subtree_com[1].copy()

    def solve(self, upper: np.ndarray, feet: dict, com_xy, pelvis_z: float, pelvis_yaw: float, dt: float, iterations: int = 1) -> np.ndarray:
        """Move the control robot towards the targets; returns its configuration."""
        q = self.cfg.q.copy()
        q[self.slot_qpos] = upper
        self.cfg.update(q)
        for side, pose in feet.items():
            self.feet[side].set_target(pose)
        self.com.set_target(np.array([com_xy[0], com_xy[1], 0.0]))
        self.pelvis.set_target(mink.SE3.from_rotation_and_translation(mink.SO3.from_rpy_radians(0.0, 0.0, pelvis_yaw), np.array([0.0, 0.0, pelvis_z])))
        for _ in range(iterations):
            v = mink.solve_ik(self.cfg, self.tasks, dt, SOLVER, damping=self.damping, limits=self.limits, constraints=[self.freeze])
            self.cfg.integrate_inplace(v, dt)
        return self.cfg.q


class StaticFeedforward:
    """Joint torques that hold the control robot's pose against gravity on its feet.

    The feet's wrenches balance the floating base exactly (six equations) and are
    shared between the feet in proportion to `load` (the fraction on the left
    foot, from where the ZMP reference lies); the joint torques are then the
    gravity torques minus what the floor carries through each leg.
    """

    def __init__(self, model: mujoco.MjModel) -> None:
        self.model = model
        self.data = mujoco.MjData(model)
        self.bodies = [model.body(FEET[s]).id for s in ("left", "right")]
        self._jac = np.zeros((6, model.nv))
        self._bias = np.zeros(model.nv)

    def torques(self, q: np.ndarray, load_left: float) -> np.ndarray:
        m, d = self.model, self.data
        d.qpos[:] = q
        d.qvel[:] = 0.0
        mujoco.mj_kinematics(m, d)
        mujoco.mj_comPos(m, d)
        mujoco.mj_rne(m, d, 0, self._bias)
        jacs = []
        for b in self.bodies:
            mujoco.mj_jacBody(m, d, self._jac[:3], self._jac[3:], b)
            jacs.append(self._jac.copy())
        J = np.vstack(jacs)  # (12, nv)
        share = np.clip(load_left, 0.0, 1.0)
        w = np.repeat([max(share, 1e-3), max(1.0 - share, 1e-3)], 6)
        A = J[:, :6].T  # base rows: the wrenches must carry the whole robot
        f = w * (A.T @ np.linalg.solve((A * w) @ A.T, self._bias[:6]))
        return self._bias - J.T @ f
