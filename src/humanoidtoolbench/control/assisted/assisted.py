"""`assisted`: executes `decoupled_v1` commands with an idealised, driven base.

The pelvis rides on three slide joints and a yaw hinge instead of a floating
joint. Each base joint is driven by a position servo plus a velocity servo
whose summed force is clipped at the bounds in `BASE_LIMITS` (the bounded
virtual wrench): the robot cannot fall, and the bench or a heavy object can
stop it. The robot's weight is cancelled by gravity compensation.

Per command: slots 32-34 engage walking when their norm reaches 0.1; the
base then moves at (vx, vy) in its own frame and, while |slot 34| >= 0.1,
turns towards the absolute heading in slot 35 at error / 0.5 s, capped at
1 rad/s. Slot 31 sets the pelvis height. Slots 28-30 are the waist roll,
pitch and yaw targets; slots 0-27 the arm and hand targets. All joint
targets are tracked by PD servos with gravity compensation, clipped at the
joint effort limits (commands outside a joint's range are clamped to it).
"""

from __future__ import annotations

import math

import mujoco
import numpy as np

from ...angles import wrap
from ...robot.joints import BY_NAME, LEG_JOINTS, PELVIS
from ..base import BasePose, Controller
from ..contracts.decoupled_v1 import JOINT_SLOTS, Command
from .gait import SteppingGait

HEIGHT_RANGE = (0.55, 0.78)  # pelvis heights the legs can reach
HEIGHT_RATE = 0.25  # m/s, how fast the pelvis follows a height step
TURN_TIME_CONSTANT = 0.5  # s
TURN_RATE_MAX = 1.0  # rad/s
TURN_DEAD_ZONE = 0.01  # rad
LEASH = 0.05  # m: how far the position target may run ahead of a blocked base

# name, axis, kind, stiffness, damping, force bound (N or N m)
BASE_JOINTS = (
    ("base_x", (1, 0, 0), "slide", 9000.0, 1200.0, 150.0),
    ("base_y", (0, 1, 0), "slide", 9000.0, 1200.0, 150.0),
    ("base_z", (0, 0, 1), "slide", 20000.0, 1500.0, 250.0),
    ("base_yaw", (0, 0, 1), "hinge", 600.0, 60.0, 60.0),
)
BASE_LIMITS = {name: bound for name, *_, bound in BASE_JOINTS}


def _clip(x: float, lo: float, hi: float) -> float:
    """`np.clip` for one float, without numpy's per-call cost."""
    return min(max(x, lo), hi)


class AssistedController(Controller[Command]):
    name = "assisted"
    variant = "assisted"

    def __init__(self, height_range: tuple[float, float] = HEIGHT_RANGE) -> None:
        """`height_range`: the pelvis heights commands are clamped to. A suite whose robot sits
        (find-navigate-sit) lowers the floor of it; the legs' pose stops at HEIGHT_RANGE[0]."""
        self.height_range = height_range
        self.height_rate = HEIGHT_RATE
        self.turn_time_constant, self.turn_rate_max = TURN_TIME_CONSTANT, TURN_RATE_MAX
        self.gait = SteppingGait()
        self._target = np.zeros(4)  # x, y, z, yaw of the base servo

    # -- model -----------------------------------------------------------
    def edit_robot_spec(self, spec: mujoco.MjSpec) -> None:
        pelvis = spec.body(PELVIS)
        for j in list(spec.joints):
            if j.type == mujoco.mjtJoint.mjJNT_FREE:
                spec.delete(j)
        pelvis.pos = [0, 0, 0]
        for name, axis, kind, kp, kv, bound in BASE_JOINTS:
            j = pelvis.add_joint(name=name, axis=list(axis))
            j.type = mujoco.mjtJoint.mjJNT_SLIDE if kind == "slide" else mujoco.mjtJoint.mjJNT_HINGE
            j.actfrcrange = [-bound, bound]
            j.actfrclimited = mujoco.mjtLimited.mjLIMITED_TRUE
            j.armature = 0.1
            pos = spec.add_actuator(name=f"{name}_pos", target=name)
            pos.trntype = mujoco.mjtTrn.mjTRN_JOINT
            pos.set_to_position(kp=kp)
            vel = spec.add_actuator(name=f"{name}_vel", target=name)
            vel.trntype = mujoco.mjtTrn.mjTRN_JOINT
            vel.set_to_velocity(kv=kv)

    def bind(self, model: mujoco.MjModel) -> None:
        self._base_qpos = np.array([model.jnt_qposadr[model.joint(n).id] for n, *_ in BASE_JOINTS])
        self._base_dof = np.array([model.jnt_dofadr[model.joint(n).id] for n, *_ in BASE_JOINTS])
        self._base_pos_act = np.array([model.actuator(f"{n}_pos").id for n, *_ in BASE_JOINTS])
        self._base_vel_act = np.array([model.actuator(f"{n}_vel").id for n, *_ in BASE_JOINTS])
        self._slot_act = np.array([model.actuator(n.removesuffix("_joint")).id for n in JOINT_SLOTS])
        self._slot_qpos = np.array([model.jnt_qposadr[model.joint(n).id] for n in JOINT_SLOTS])
        self._leg_act = {s: np.array([model.actuator(n.removesuffix("_joint")).id for n in LEG_JOINTS[s]]) for s in LEG_JOINTS}
        self._leg_qpos = {s: np.array([model.jnt_qposadr[model.joint(n).id] for n in LEG_JOINTS[s]]) for s in LEG_JOINTS}
        self._slot_lo = np.array([BY_NAME[n].lo for n in JOINT_SLOTS])
        self._slot_hi = np.array([BY_NAME[n].hi for n in JOINT_SLOTS])

    # -- episode ---------------------------------------------------------
    def reset(self, data: mujoco.MjData, spawn: BasePose, upper_pose: np.ndarray) -> None:
        self.gait.reset()
        z = float(np.clip(spawn.z, *self.height_range))
        self._target = np.array([spawn.x, spawn.y, z, spawn.yaw])
        self._height_goal = z
        data.qpos[self._base_qpos] = self._target
        data.qvel[self._base_dof] = 0.0
        pose = np.clip(np.asarray(upper_pose, float), self._slot_lo, self._slot_hi)
        data.qpos[self._slot_qpos] = pose
        data.ctrl[self._slot_act] = pose
        self._set_legs(data, z)
        for s in LEG_JOINTS:
            data.qpos[self._leg_qpos[s]] = data.ctrl[self._leg_act[s]]
        data.ctrl[self._base_pos_act] = self._target
        data.ctrl[self._base_vel_act] = 0.0

    def apply(self, data: mujoco.MjData, cmd: Command, dt: float) -> None:
        # Scalar arithmetic in the same order as the vector form: this runs every step, and
        # numpy's per-call cost on 2-4 element arrays exceeded the arithmetic many times over.
        data.ctrl[self._slot_act] = cmd.joint_targets  # clamped to ranges by ctrlrange

        target = self._target
        yaw = target[3]
        walking = cmd.walking
        vx = vy = yaw_rate = 0.0
        if walking:
            vx, vy = cmd.vx, cmd.vy
            if cmd.turning:
                err = wrap(cmd.target_yaw - yaw)
                if abs(err) > TURN_DEAD_ZONE:
                    yaw_rate = _clip(err / self.turn_time_constant, -self.turn_rate_max, self.turn_rate_max)
        c, s = math.cos(yaw), math.sin(yaw)
        wx, wy = c * vx - s * vy, s * vx + c * vy

        mx, my, _, myaw = data.qpos[self._base_qpos].tolist()
        target[0] = _clip(target[0] + wx * dt, mx - LEASH, mx + LEASH)
        target[1] = _clip(target[1] + wy * dt, my - LEASH, my + LEASH)
        # Keep the yaw target continuous with the hinge angle, which is not wrapped.
        target[3] = myaw + wrap(wrap(yaw + yaw_rate * dt) - myaw)
        goal = _clip(cmd.base_height, *self.height_range)
        step = self.height_rate * dt
        z_rate = _clip(goal - target[2], -step, step) / dt
        target[2] += z_rate * dt

        data.ctrl[self._base_pos_act] = target
        data.ctrl[self._base_vel_act] = (wx, wy, z_rate, yaw_rate)

        self.gait.update(dt, (vx, vy, yaw_rate), walking)
        self._set_legs(data, target[2])

    def _set_legs(self, data: mujoco.MjData, height: float) -> None:
        for side, angles in self.gait.joint_targets(max(height, HEIGHT_RANGE[0])).items():
            data.ctrl[self._leg_act[side]] = angles

    def base_pose(self, data: mujoco.MjData) -> BasePose:
        x, y, z, yaw = data.qpos[self._base_qpos]
        return BasePose(float(x), float(y), float(z), wrap(float(yaw)))

    @property
    def commanded_base(self) -> tuple[float, float, float, float]:
        """The base servo's current target (x, y, z, yaw): where the commands are taking the pelvis."""
        return tuple(float(v) for v in self._target)

    def fallen(self, data: mujoco.MjData) -> bool:
        """The driven base holds the pelvis upright above its lowest height: it cannot fall."""
        return False
