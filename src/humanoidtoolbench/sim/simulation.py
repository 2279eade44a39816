"""A compiled scene with its controller: reset and the 50 Hz command step.

What a command is, and what the policy state is, belong to the suite's
contract: the simulation hands each decoded command to the controller and
reads no state of its own.
"""

from __future__ import annotations

from typing import Callable

import mujoco
import numpy as np

from ..control.base import BasePose, Controller
from ..robot.joints import HOME_POSE
from ..robot.stance import HOME_PELVIS_HEIGHT, UPPER_BODY
from .scene import CONTROL_DT, SUBSTEPS, add_robot, new_spec


class Simulation:
    def __init__(self, spec: mujoco.MjSpec, controller: Controller) -> None:
        self.model = spec.compile()
        self.data = mujoco.MjData(self.model)
        self.controller = controller
        controller.bind(self.model)
        # Scene entities acting every physics step (a magnetic seat), after the controller's hook.
        self.physics_step_hooks: list[Callable[[mujoco.MjData], None]] = []

    def reset(self, spawn: BasePose, upper_pose: np.ndarray) -> None:
        mujoco.mj_resetData(self.model, self.data)
        self.controller.reset(self.data, spawn, upper_pose)
        mujoco.mj_forward(self.model, self.data)

    def step(self, cmd) -> None:
        """Execute one decoded command: the controller sets its inputs, then 4 physics steps
        (with its per-physics-step hook before each, if it has one)."""
        self.controller.apply(self.data, cmd, CONTROL_DT)
        if self.controller.physics_step_hook or self.physics_step_hooks:
            for _ in range(SUBSTEPS):
                self.controller.before_physics_step(self.data)
                for hook in self.physics_step_hooks:
                    hook(self.data)
                mujoco.mj_step(self.model, self.data)
        else:
            mujoco.mj_step(self.model, self.data, SUBSTEPS)

    def base_pose(self) -> BasePose:
        return self.controller.base_pose(self.data)

    def fallen(self) -> bool:
        return self.controller.fallen(self.data)

    @property
    def time(self) -> float:
        return float(self.data.time)


def robot_in_room(
    controller: Controller | None = None,
    spawn: BasePose = BasePose(0.0, 0.0, HOME_PELVIS_HEIGHT, 0.0),
    add_to_scene: Callable[[mujoco.MjSpec], None] | None = None,
) -> Simulation:
    """The robot alone in the empty room, reset to its home pose (demos, tests, benchmarks)."""
    from ..control.assisted.assisted import AssistedController

    controller = controller or AssistedController()
    spec = new_spec()
    if add_to_scene is not None:
        add_to_scene(spec)
    add_robot(spec, controller)
    sim = Simulation(spec, controller)
    sim.reset(spawn, home_upper_pose())
    return sim


def home_upper_pose() -> np.ndarray:
    """The 31 upper-body joints a walking controller is reset with, at the home pose."""
    return np.array([HOME_POSE[n] for n in UPPER_BODY])
