"""The controller interface: what turns one decoded command into actuator inputs.

A controller may edit the robot model before compilation (the assisted base
replaces the floating joint with driven base joints; a balancing controller
would keep it), then sets `data.ctrl` once per 50 Hz command. Everything
else in the package talks to a controller only through this interface.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import mujoco
import numpy as np

from .contract import Command


@dataclass(frozen=True)
class BasePose:
    """Pelvis position on the floor plane, height and heading (yaw, rad)."""

    x: float
    y: float
    z: float
    yaw: float

    @property
    def xy(self) -> np.ndarray:
        return np.array([self.x, self.y])


class Controller(ABC):
    name: str = "abstract"

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
