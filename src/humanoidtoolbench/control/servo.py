"""`servo`: joint position servos on the free-floating robot, and nothing else.

Each command (a joint-position contract's `JointTargets`) sets every actuated joint's target; the
robot's PD servos track them under their effort limits, feet on the floor,
with no controller keeping it upright. Balance is the policy's job, as on
the real robot; this is how Fiatlux policies act.
"""

from __future__ import annotations

import mujoco
import numpy as np

from .base import BasePose, FloatingBaseController
from .contracts.joint_position import JOINT_NAMES, JointTargets


class ServoController(FloatingBaseController[JointTargets]):
    name = "servo"
    variant = "free"

    def bind(self, model: mujoco.MjModel) -> None:
        self.bind_root(model)
        self._act = np.array([model.actuator(n.removesuffix("_joint")).id for n in JOINT_NAMES])
        self._qpos = np.array([model.jnt_qposadr[model.joint(n).id] for n in JOINT_NAMES])
        self._dof = np.array([model.jnt_dofadr[model.joint(n).id] for n in JOINT_NAMES])

    def reset(self, data: mujoco.MjData, spawn: BasePose, pose: np.ndarray) -> None:
        """Pelvis at `spawn` (roll and pitch included), every joint and its target at `pose` (JOINT_NAMES order)."""
        q = np.zeros(4)
        mujoco.mju_euler2Quat(q, [spawn.roll, spawn.pitch, spawn.yaw], "XYZ")  # fixed axes: yaw last, as BasePose reads it
        data.qpos[self._root_qpos : self._root_qpos + 7] = [spawn.x, spawn.y, spawn.z, *q]
        data.qvel[self._root_dof : self._root_dof + 6] = 0.0
        data.qpos[self._qpos] = pose
        data.qvel[self._dof] = 0.0
        data.ctrl[self._act] = pose

    def apply(self, data: mujoco.MjData, cmd: JointTargets, dt: float) -> None:
        data.ctrl[self._act] = cmd.q  # clamped to each joint's range by ctrlrange
