"""The controller interface: what turns one decoded command into actuator inputs.

A controller is bound to a robot variant (`variant`: the derived model it
loads), may edit that model before compilation (the assisted base replaces
the floating joint with driven base joints; a balancing controller keeps
it), sets `data.ctrl` once per 50 Hz command and, when it declares
`physics_step_hook`, again before every physics step. It reports the full
base pose and whether the robot has fallen. Everything else in the package
talks to a controller only through this interface. A controller executes the
decoded rows of one contract (`Controller[Command]`: the assisted and balanced
controllers a `decoupled_v1.Command`, servo a `JointTargets`); this module
names none.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Generic, TypeVar

import mujoco
import numpy as np

Command = TypeVar("Command")  # the decoded row a controller executes, as its contract's `decode` returns it

# Every suite's fall rule: pelvis below this height or tilted beyond this angle.
FALL_HEIGHT = 0.35  # m
FALL_TILT = 1.0  # rad


def fallen(height: float, tilt: float) -> bool:
    """Every suite's fall rule: the pelvis below FALL_HEIGHT or tilted beyond FALL_TILT (at either
    threshold the robot still stands)."""
    return height < FALL_HEIGHT or tilt > FALL_TILT


@dataclass(frozen=True)
class BasePose:
    """The pelvis pose: position, heading (yaw) and the roll and pitch a free base can take (rad)."""

    x: float
    y: float
    z: float
    yaw: float
    roll: float = 0.0
    pitch: float = 0.0

    @property
    def xy(self) -> np.ndarray:
        return np.array([self.x, self.y])

    @property
    def tilt(self) -> float:
        """Angle between the pelvis z axis and the vertical."""
        return math.acos(max(-1.0, min(1.0, math.cos(self.roll) * math.cos(self.pitch))))

    @classmethod
    def from_quat(cls, pos, quat) -> "BasePose":
        """From a world position and a (w, x, y, z) quaternion, as a free joint stores them."""
        w, x, y, z = (float(v) for v in quat)
        roll = math.atan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y))
        pitch = math.asin(max(-1.0, min(1.0, 2 * (w * y - z * x))))
        yaw = math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))
        return cls(float(pos[0]), float(pos[1]), float(pos[2]), yaw, roll, pitch)

    def fallen(self) -> bool:
        return fallen(self.z, self.tilt)


class Controller(ABC, Generic[Command]):
    name: str = "abstract"
    variant: str = "assisted"  # the robot variant (derived model) this controller drives
    physics_step_hook: bool = False  # call `before_physics_step` before each of the 4 physics steps

    @abstractmethod
    def edit_robot_spec(self, spec: mujoco.MjSpec) -> None:
        """Change the robot model before it is attached to a scene."""

    @abstractmethod
    def bind(self, model: mujoco.MjModel) -> None:
        """Resolve indices in the compiled scene."""

    @abstractmethod
    def reset(self, data: mujoco.MjData, spawn: BasePose, upper_pose: np.ndarray) -> None:
        """Place the robot at `spawn` with the 31 commanded joints at `upper_pose`."""

    @abstractmethod
    def apply(self, data: mujoco.MjData, cmd: Command, dt: float) -> None:
        """Set actuator inputs for the next control period of `dt` seconds."""

    @abstractmethod
    def base_pose(self, data: mujoco.MjData) -> BasePose:
        """The measured pelvis pose."""

    def before_physics_step(self, data: mujoco.MjData) -> None:
        """Per-physics-step control (a balance loop at 200 Hz); used when `physics_step_hook` is set."""

    def fallen(self, data: mujoco.MjData) -> bool:
        """Whether the robot has fallen (pelvis below FALL_HEIGHT or tilted beyond FALL_TILT)."""
        return self.base_pose(data).fallen()


class FloatingBaseController(Controller[Command]):
    """A controller of a derived free-floating variant: the model is used as derived, the pelvis
    pose is read from the floating base joint."""

    ROOT = "floating_base_joint"

    def edit_robot_spec(self, spec: mujoco.MjSpec) -> None:
        """The variant's derived model already has the floating base, its servos and its contacts."""

    def bind_root(self, model: mujoco.MjModel) -> None:
        root = model.joint(self.ROOT)
        self._root_qpos = int(model.jnt_qposadr[root.id])
        self._root_dof = int(model.jnt_dofadr[root.id])

    def base_pose(self, data: mujoco.MjData) -> BasePose:
        a = self._root_qpos
        return BasePose.from_quat(data.qpos[a : a + 3], data.qpos[a + 3 : a + 7])
