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
from .footsteps import Schedule, Timing, other as other_side, rot, support_point, wrap
from .gait import FOOT_Y, leg_ik
from .preview import PreviewCoM
from .wholebody import FEET, StaticFeedforward, Weights, WholeBodyIK

ROOT = "floating_base_joint"
SOLE_DROP = 0.035  # ankle-roll origin above the floor when the foot is flat
SUPPORT_X = 0.035  # centre of the foot's contact spheres ahead of the ankle
COP_BOX = (0.06, 0.02)
MAX_TILT = 0.15  # rad: the largest foot tilt the admittance may command  # how far a foot's centre of pressure may leave its support point (m)


def swing_zmp_shift(zmp, centre, feet, dt, mass_ratio, com_height, swing_z):
    """How far the swinging legs, lumped at their feet, move the whole robot's ZMP from the one
    the CoM alone would give (a two-mass model per leg; the CoM itself follows the plan).
    `feet` is (samples, 2, 3): both feet's positions over the horizon."""
    acc = np.zeros_like(feet)
    acc[1:-1] = (feet[2:] - 2 * feet[1:-1] + feet[:-2]) / (dt * dt)
    com = ((zmp + centre) / 2)[:, None, :]  # the CoM lies between the stance foot and the middle of the feet
    lever = com_height - (swing_z + feet[:, :, 2])
    shift = acc[:, :, :2] * lever[:, :, None] + (feet[:, :, :2] - com) * acc[:, :, 2:3]
    return mass_ratio * shift.sum(axis=1) / 9.81


class BalancedController(Controller):
    name = "balanced"
    variant = "balanced"
    physics_step_hook = True

    def __init__(self) -> None:
        self.feedforward = True
        self.dcm_gain = 0.0
        self.com_gain = (0.0, 0.0)
        self.anchor = False
        self.closed_loop = 0.0
        self.flatten = 0.0
        self.place_gain = 0.0
        self.ik_weights = Weights()
        self.anchor_gain = 1.0
        self.admittance = 0.0
        self.tilt_leak = 1.0
        self.ankle_gains = None
        self.leg_gains = None
        self.foot_contact = None
        self.dynamic_ff = True
        self.blend = (0.0, 0.0)
        self.zmp_gain = 0.0
        self.zmp_leak = 4.0
        self.interpolate = False
        self.swing_mass = 3.0
        self.step_gain = 1.3
        self.cp_growth = False
        self.step_window = 0.6
        self.step_limit = 0.08
        self.hip_gain = 0.0
        self.measured_heading = True
        self.wide_feet = (-0.06, 0.135, 0.033)
        self.swing_z = 0.0
        self.velocity_ff = 1.0
        self.swing_velocity_ff = 0.0

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
        self.ik = WholeBodyIK(ik_model, self.ik_weights)
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
        self._foot_geom_side = {g: s for s in FEET for g in range(model.ngeom) if model.geom_bodyid[g] == model.body(FEET[s]).id}
        self._foot_body = {s: model.body(FEET[s]).id for s in FEET}
        if self.leg_gains:
            for a in self._leg_act:
                model.actuator_gainprm[a, 0] = self.leg_gains[0]
                model.actuator_biasprm[a, 1] = -self.leg_gains[0]
                model.actuator_biasprm[a, 2] = -self.leg_gains[1]
        if self.ankle_gains:
            for a in self._leg_act[[4, 5, 10, 11]]:
                model.actuator_gainprm[a, 0] = self.ankle_gains[0]
                model.actuator_biasprm[a, 1] = -self.ankle_gains[0]
                model.actuator_biasprm[a, 2] = -self.ankle_gains[1]
        if self.wide_feet:
            for side in FEET:
                gs = [g for g in range(model.ngeom) if model.geom_bodyid[g] == model.body(FEET[side]).id and model.geom_type[g] == mujoco.mjtGeom.mjGEOM_SPHERE]
                for g in gs:
                    x, y, z = model.geom_pos[g]
                    model.geom_pos[g] = (self.wide_feet[0] if x < 0 else self.wide_feet[1], np.sign(y) * self.wide_feet[2], z)
        if self.foot_contact:
            for g in range(model.ngeom):
                if model.geom_bodyid[g] in (model.body(FEET['left']).id, model.body(FEET['right']).id):
                    model.geom_solref[g] = self.foot_contact[0]
                    model.geom_solimp[g, :3] = self.foot_contact[1]
        self._leg_kp = model.actuator_gainprm[self._leg_act, 0].copy()
        self._leg_kd = -model.actuator_biasprm[self._leg_act, 2].copy()
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
        self._last_com = None
        self._tilt = {s: np.zeros(2) for s in FEET}
        self._dcom = np.zeros((2, 2))
        self._place = np.zeros(2)
        self._place_applied = np.zeros(2)
        for _ in range(30):
            q = ik.solve(upper, feet, self._support_centre(), self.height, self.yaw, 0.02)
        ik.set_q(q)
        data.qpos[self._qmap] = q
        data.qvel[:] = 0.0
        data.ctrl[self._leg_act] = q[self._ik_leg_qpos]
        data.ctrl[self._slot_act] = upper
        mujoco.mj_kinematics(self._model, data)
        mujoco.mj_comPos(self._model, data)
        self._last_com = data.subtree_com[self._pelvis, :2].copy()

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
            slip = wrap(self.base_pose(data).yaw - sch.heading()) if self.measured_heading else 0.0
            err = wrap(cmd.target_yaw - sch.body[2] - slip)
            wz = float(np.clip(err / 0.5, -1.0, 1.0)) if abs(err) > 0.01 else 0.0
        vel = (cmd.vx, cmd.vy, wz) if walking else (0.0, 0.0, 0.0)
        ref, centre, swing = sch.preview(dt, self.com.steps, vel, walking)
        zc = self.height - 0.07
        if self.swing_mass:
            ref = ref - swing_zmp_shift(ref, centre, swing, dt, self.swing_mass / self.ff.mass, zc, self.swing_z)
        com = data.subtree_com[self._pelvis, :2].copy()
        com_vel = (com - self._last_com) / dt
        self._last_com = com
        omega = math.sqrt(9.81 / zc)
        dcm_error = (com + com_vel / omega) - (self.com.position + self.com.velocity / omega)
        zmp = ref[0] + self.dcm_gain * dcm_error
        share, cop = self._distribute(zmp)
        self._plan_com, self._plan_vel = self.com.position, self.com.velocity
        self.com.step(ref, self.height - 0.07, (com, com_vel), self.blend)
        if self.step_gain and sch.phase == "single":
            stance = "right" if sch.swing == "left" else "left"
            real = com + com_vel / omega - self._measured_foot(data, stance)[:2]
            plan = self._plan_com + self._plan_vel / omega - sch.feet[stance][:2]
            remaining = max(sch.duration - sch.t, 0.0)
            growth = math.exp(omega * remaining) if self.cp_growth else 1.0
            sch.adjust_landing(self.step_gain * growth * (real - plan), window=self.step_window, limit=self.step_limit)
        before = sch.phase
        sch.advance(dt, vel, walking)
        if self.anchor and before == "single" and sch.phase != "single":
            landed = "right" if sch.swing == "left" else "left"
            stance = other_side(landed)
            rel = self._measured_foot(data, landed)[:2] - self._measured_foot(data, stance)[:2]
            delta = sch.feet[stance][:2] + rel - sch.feet[landed][:2]
            delta = self.anchor_gain * delta
            sch.feet[landed] = sch.feet[landed] + np.array([delta[0], delta[1], 0.0])
            sch.body[:2] += delta
        measured = self._measured_cops(data)
        feet = {}
        if sch.phase == "single" and self.place_gain:
            sw, st = sch.swing, other_side(sch.swing)
            plan_rel = self.ik.foot_pose(sw).translation()[:2] - self.ik.foot_pose(st).translation()[:2]
            meas_rel = data.xpos[self._foot_body[sw], :2] - data.xpos[self._foot_body[st], :2]
            self._place += self.place_gain * dt * (plan_rel - meas_rel)
        else:
            self._place[:] = 0.0
        for side in FEET:
            pose, lift = sch.foot(side)
            if sch.phase == "single" and side == sch.swing:
                pose = pose + np.array([self._place[0] - self._place_applied[0], self._place[1] - self._place_applied[1], 0.0]) * 0 + np.array([*self._place, 0.0])
            tilt = self._tilt[side]
            force, cop_m = measured[side]
            if share[side] > 0.0 and force > 20.0 and lift == 0.0:
                err = rot(-pose[2], cop[side] - cop_m)  # foot frame: desired minus measured CoP
                tilt[0] += dt * self.admittance * -err[1] * force
                tilt[1] += dt * self.admittance * err[0] * force
            if self.flatten and share[side] > 0.0 and force > 20.0 and lift == 0.0:
                fr, fp = self._foot_tilt(data, side)
                tilt[0] -= self.flatten * fr * dt
                tilt[1] -= self.flatten * fp * dt
            tilt -= tilt * min(dt / self.tilt_leak, 1.0)
            np.clip(tilt, -MAX_TILT, MAX_TILT, out=tilt)
            feet[side] = mink.SE3.from_rotation_and_translation(
                mink.SO3.from_rpy_radians(tilt[0], tilt[1], pose[2]), np.array([pose[0], pose[1], SOLE_DROP + lift])
            )
        self.feet = feet
        total = sum(measured[sd][0] for sd in FEET)
        if total > 50.0 and self.zmp_gain:
            p_m = sum(measured[sd][0] * measured[sd][1] for sd in FEET) / total
            dz = self._dcom
            acc = self.zmp_gain * omega**2 * (p_m - zmp) - self.zmp_leak**2 * dz[0] - 2 * self.zmp_leak * dz[1]
            dz[1] += acc * dt
            dz[0] += dz[1] * dt
        com_target = self.com.position + self._dcom[0] - self.com_gain[0] * (com - self._plan_com) - self.com_gain[1] * (com_vel - self._plan_vel)
        bp = self.base_pose(data)
        if self.closed_loop:
            qi = self.ik.q.copy()
            qm = data.qpos[self._qmap]
            dv = np.zeros(self.ik.model.nv)
            mujoco.mj_differentiatePos(self.ik.model, dv, 1.0, qi, qm)
            mujoco.mj_integratePos(self.ik.model, qi, dv, self.closed_loop)
            self.ik.cfg.update(qi)
        q = self.ik.solve(upper, feet, com_target, self.height, sch.heading(), dt, pelvis_tilt=(-self.hip_gain * bp.roll, -self.hip_gain * bp.pitch))
        target = q[self._ik_leg_qpos]
        if self.velocity_ff:
            scale = np.full(12, self.velocity_ff)
            if sch.phase == "single":
                swing = slice(0, 6) if sch.swing == "left" else slice(6, 12)
                scale[swing] = self.swing_velocity_ff
            target = target + scale * self._leg_kd * self.ik.velocity[self._ik_leg_dof] / self._leg_kp
        if self.feedforward:
            tau = self.ff.torques(q, share, cop, self.com.x[2] if self.dynamic_ff else (0.0, 0.0))[self._ik_leg_dof]
            target = target + tau / self._leg_kp
        if self.interpolate:
            self._from = data.ctrl[self._leg_act].copy()
            self._to = target
            self._sub = 0
        else:
            data.ctrl[self._leg_act] = target
        data.ctrl[self._slot_act] = upper

    def before_physics_step(self, data: mujoco.MjData) -> None:
        if not self.interpolate:
            return
        self._sub += 1
        data.ctrl[self._leg_act] = self._from + (self._to - self._from) * min(self._sub / 4.0, 1.0)

    def _distribute(self, zmp: np.ndarray) -> tuple[dict, dict]:
        """Each supporting foot's share of the weight and its centre of pressure for a desired ZMP."""
        sch = self.schedule
        pts = {s: support_point(sch.feet[s]) for s in ("left", "right")}
        if sch.phase == "single":
            stance = "right" if sch.swing == "left" else "left"
            share = {stance: 1.0, sch.swing: 0.0}
        else:
            seg = pts["right"] - pts["left"]
            t = float(np.clip(np.dot(zmp - pts["left"], seg) / max(float(np.dot(seg, seg)), 1e-9), 0.0, 1.0))
            share = {"left": 1.0 - t, "right": t}
        line = pts["left"] * share["left"] + pts["right"] * share["right"]
        offset = zmp - line
        cop = {}
        for s, foot in sch.feet.items():
            local = rot(-foot[2], offset)
            local = np.clip(local, -np.array(COP_BOX), COP_BOX)
            cop[s] = pts[s] + rot(foot[2], local)
        return share, cop

    def _measured_foot(self, data: mujoco.MjData, side: str) -> np.ndarray:
        """A foot's planar pose in the world, as the robot's odometry would put it."""
        b = self._foot_body[side]
        xmat = data.xmat[b].reshape(3, 3)
        return np.array([data.xpos[b, 0], data.xpos[b, 1], math.atan2(xmat[1, 0], xmat[0, 0])])

    def _foot_tilt(self, data: mujoco.MjData, side: str) -> tuple[float, float]:
        """A foot's roll and pitch in the world (0 when flat on the floor)."""
        pose = BasePose.from_quat(data.xpos[self._foot_body[side]], data.xquat[self._foot_body[side]])
        return pose.roll, pose.pitch

    def _measured_cops(self, data: mujoco.MjData) -> dict:
        """Per foot: the floor's normal force (N) and the centre of pressure (world xy), as sole sensors read them."""
        f = np.zeros(6)
        acc = {s: [0.0, np.zeros(2)] for s in FEET}
        for i in range(data.ncon):
            con = data.contact[i]
            side = self._foot_geom_side.get(int(con.geom1)) or self._foot_geom_side.get(int(con.geom2))
            if side is None:
                continue
            mujoco.mj_contactForce(self._model, data, i, f)
            normal = f[0] * abs(con.frame[2])
            acc[side][0] += normal
            acc[side][1] += normal * con.pos[:2]
        return {s: (n, m / n if n > 1e-6 else np.zeros(2)) for s, (n, m) in acc.items()}

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
