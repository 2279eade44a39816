"""Reads the 32-value `decoupled_v1` policy state from the simulator."""

from __future__ import annotations

import mujoco
import numpy as np

from .decoupled_v1 import DEFAULT_BASE_HEIGHT, JOINT_SLOTS, STATE_DIM


class StateReader:
    def __init__(self, model: mujoco.MjModel) -> None:
        self._qpos = np.array([model.jnt_qposadr[model.joint(n).id] for n in JOINT_SLOTS])

    def read(self, data: mujoco.MjData, previous_base_height: float = DEFAULT_BASE_HEIGHT) -> np.ndarray:
        state = np.empty(STATE_DIM, dtype=np.float32)
        state[:31] = data.qpos[self._qpos]
        state[31] = previous_base_height
        return state

    def write(self, data: mujoco.MjData, values: np.ndarray) -> None:
        """Set the 31 measured joints (for tests and scripted scenes)."""
        data.qpos[self._qpos] = values[:31]
