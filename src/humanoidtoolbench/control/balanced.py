"""`balanced`: a model-based whole-body controller on the free-floating robot (prototype)."""

from __future__ import annotations

import math

import mink
import mujoco
import numpy as np

from ..robot import assets
from ..robot.joints import BY_NAME, LEG_JOINTS, PELVIS
from .base import BasePose, Controller
from .decoupled_v1 import JOINT_SLOTS, Command
from .footsteps import Schedule, Timing, support_point, wrap
from .gait import FOOT_Y, leg_ik
from .preview import PreviewCoM
from .wholebody import FEET, StaticFeedforward, WholeBodyIK

ROOT = "floating_base_joint"
SOLE_DROP = 0.035  # ankle-roll origin above the floor when the foot is flat
SUPPORT_X = 0.035  # centre of the foot's contact spheres ahead of the ankle


class BalancedController(Controller):
    name = "balanced"
    variant = "balanced"

    def __init__(self) -> None:
        self.feedforward = True

    def edit_robot_spec(self, spec: mujoco.MjSpec) -> None:
        pass

    def bind(self, model: mujoco.MjModel) -> None:
        root = model.joint(ROOT)
        self._root_qpos = int(model.jnt_qposadr[root.id])
        self._root_dof = int(model.jnt_dofadr[root.id])
        self._pelvis = model.body(PELVIS).id
        names = [n for s in LEG_JOINTS for n in LEG_JOINTS[s]] + list(JOINT_SLOTS)
        self._act = np.array([model.actuator(n.removesuffix("_joint")).id for n in names])
        self._leg_act = self._act[:12]
        self._slot_act = self._act[12:]
        ik_model = mujoco.MjModel.from_xml_path(str(assets.installed().model_path("fast", self.variant)))
        self.ik = WholeBodyIK(ik_model)
        self.ff = StaticFeedforward(ik_model)
        self._ik_leg_dof = np.array([ik_model.jnt_dofadr[ik_model.joint(n).id] for s in LEG_JOINTS for n in LEG_JOINTS[s]])
        # sim qpos index for each IK qpos index (robot joints only)
        idx = []
        for j in range(ik_model.njnt):
            width = 7 if ik_model.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE else 1
            start = model.jnt_qposadr[model.joint(ik_model.joint(j).name).id]
            idx.extend(range(start, start + width))
        self._qmap = np.array(idx)
        self._ik_leg_qpos = np.array([ik_model.jnt_qposadr[ik_model.joint(n).id] for s in LEG_JOINTS for n in LEG_JOINTS[s]])
        self._model = model
        self._leg_kp = model.actuator_gainprm[self._leg_act, 0].copy()
        feet = {model.body(FEET["left"]).id: 0, model.body(FEET["right"]).id: 1}
        self._foot_geom = {g: feet[int(model.geom_bodyid[g])] for g in range(model.ngeom) if int(model.geom_bodyid[g]) in feet}
        self._slot_lo = np.array([BY_NAME[n].lo for n in JOINT_SLOTS])
        self._slot_hi = np.array([BY_NAME[n].hi for n in JOINT_SLOTS])

    def _ik_q_full(self) -> np.ndarray:
        return self.ik.q

    def reset(self, data: mujoco.MjData, spawn: BasePose, upper_pose: np.ndarray) -> None:
        ik = self.ik
        q = ik.model.qpos0.copy()
        quat = np.zeros(4)
        mujoco.mju_euler2Quat(quat, [0.0, 0.0, spawn.yaw], "XYZ")
        q[:7] = [spawn.x, spawn.y, spawn.z, *quat]
        for side in ("left", "right"):
            sgn = 1.0 if side == "left" else -1.0
            angles = leg_ik(side, np.array([0.0, sgn * FOOT_Y, -spawn.z]), 0.0)
            adr = [ik.model.jnt_qposadr[ik.model.joint(n).id] for n in LEG_JOINTS[side]]
            q[adr] = angles
        upper = np.clip(np.asarray(upper_pose, float), self._slot_lo, self._slot_hi)
        q[ik.slot_qpos] = upper
        ik.set_q(q)
        feet = {}
        for side in FEET:
            pose = ik.foot_pose(side)
            t = pose.translation().copy()
            t[2] = SOLE_DROP
            feet[side] = mink.SE3.from_rotation_and_translation(mink.SO3.from_rpy_radians(0.0, 0.0, spawn.yaw), t)
        self.feet = feet
        self.yaw = spawn.yaw
        self.height = spawn.z
        mid = (feet["left"].translation() + feet["right"].translation()) / 2
        self.schedule = Schedule.standing(Timing(), np.array([mid[0], mid[1], spawn.yaw]))
        self.com = PreviewCoM(0.02)
        self.com.reset(self.schedule.centre())
        for _ in range(30):
            q = ik.solve(upper, feet, self._support_centre(), self.height, self.yaw, 0.02)
        ik.set_q(q)
        data.qpos[self._qmap] = q
        data.qvel[:] = 0.0
        data.ctrl[self._leg_act] = q[self._ik_leg_qpos]
        data.ctrl[self._slot_act] = upper

    def _support_centre(self) -> np.ndarray:
        pts = []
        for pose in self.feet.values():
            pts.append(pose.apply(np.array([SUPPORT_X, 0.0, 0.0]))[:2])
        return np.mean(pts, axis=0)

    def apply(self, data: mujoco.MjData, cmd: Command, dt: float) -> None:
        upper = np.clip(cmd.joint_targets, self._slot_lo, self._slot_hi)
        goal = float(np.clip(cmd.base_height, 0.6, 0.78))
        self.height += float(np.clip(goal - self.height, -0.25 * dt, 0.25 * dt))
        sch = self.schedule
        walking = cmd.walking
        wz = 0.0
        if walking and cmd.turning:
            err = wrap(cmd.target_yaw - sch.body[2])
            wz = float(np.clip(err / 0.5, -1.0, 1.0)) if abs(err) > 0.01 else 0.0
        vel = (cmd.vx, cmd.vy, wz) if walking else (0.0, 0.0, 0.0)
        ref = sch.preview(dt, self.com.steps, vel, walking)
        self.com.step(ref, self.height - 0.07)
        sch.advance(dt, vel, walking)
        feet = {}
        for side in FEET:
            pose, lift = sch.foot(side)
            feet[side] = mink.SE3.from_rotation_and_translation(
                mink.SO3.from_rpy_radians(0.0, 0.0, pose[2]), np.array([pose[0], pose[1], SOLE_DROP + lift])
            )
        self.feet = feet
        q = self.ik.solve(upper, feet, self.com.position, self.height, sch.heading(), dt)
        target = q[self._ik_leg_qpos]
        if self.feedforward:
            load_left = self._load_left(data)
            tau = self.ff.torques(q, load_left)[self._ik_leg_dof]
            target = target + tau / self._leg_kp
        data.ctrl[self._leg_act] = target
        data.ctrl[self._slot_act] = upper

    def _load_left(self, data: mujoco.MjData) -> float:
        """Fraction of the floor's normal force under the left foot, as foot force sensors would read."""
        f = np.zeros(6)
        load = {0: 0.0, 1: 0.0}
        for i in range(data.ncon):
            con = data.contact[i]
            for g in (con.geom1, con.geom2):
                side = self._foot_geom.get(int(g))
                if side is not None:
                    mujoco.mj_contactForce(self._model, data, i, f)
                    load[side] += f[0]
        total = load[0] + load[1]
        return 0.5 if total <= 1e-6 else load[0] / total

    def base_pose(self, data: mujoco.MjData) -> BasePose:
        a = self._root_qpos
        return BasePose.from_quat(data.qpos[a : a + 3], data.qpos[a + 3 : a + 7])
