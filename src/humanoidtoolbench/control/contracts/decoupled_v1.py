"""The public `decoupled_v1` contract: 32-value policy state and 36-value action, as slot tables.

State slots 0-30 hold the measured angles of the joints that action slots
0-30 command, in the same order; state slot 31 is the base-height value of
the last row of the most recent action chunk (0.74 before the first).
The walking controllers (`assisted`, `balanced`) execute its `Command`; the
suites that speak it register `DECOUPLED_V1` and read their state with its
`StateReader`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...robot.joints import BY_NAME
from ...robot.stance import HOME_PELVIS_HEIGHT, UPPER_BODY
from .base import ActionContract, ActionError, describe

SCHEMA = "decoupled_v1"
ACTION_DIM = 36
STATE_DIM = 32
DEFAULT_BASE_HEIGHT = HOME_PELVIS_HEIGHT
WALK_ENGAGE_NORM = 0.1  # norm of slots 32-34 that switches standing to walking
TURN_FLAG_MIN = 0.1  # |slot 34| that enables heading tracking

# Hands, arms, then the torso (slots 28-30) in roll/pitch/yaw order.
JOINT_SLOTS: tuple[str, ...] = UPPER_BODY
NAV_SLOTS = ("base_height", "nav_vx", "nav_vy", "nav_turn_flag", "nav_target_yaw")
ACTION_SLOTS: tuple[str, ...] = JOINT_SLOTS + NAV_SLOTS
STATE_SLOTS: tuple[str, ...] = JOINT_SLOTS + ("previous_base_height",)

SLICES = {
    "left_hand": slice(0, 7),
    "right_hand": slice(7, 14),
    "left_arm": slice(14, 21),
    "right_arm": slice(21, 28),
    "torso_rpy": slice(28, 31),
    "base_height": slice(31, 32),
    "navigation": slice(32, 36),
}

assert len(ACTION_SLOTS) == ACTION_DIM and len(STATE_SLOTS) == STATE_DIM


@dataclass(frozen=True)
class Command:
    """One decoded 50 Hz command."""

    joint_targets: np.ndarray  # (31,) targets for JOINT_SLOTS
    base_height: float
    vx: float
    vy: float
    turn_flag: float
    target_yaw: float

    @property
    def walking(self) -> bool:
        return float(np.linalg.norm((self.vx, self.vy, self.turn_flag))) >= WALK_ENGAGE_NORM

    @property
    def turning(self) -> bool:
        return abs(self.turn_flag) >= TURN_FLAG_MIN


def decode(row: np.ndarray) -> Command:
    """Decode one validated action row."""
    r = np.asarray(row, dtype=np.float64)
    if r.shape != (ACTION_DIM,) or not np.isfinite(r).all():
        raise ActionError(f"command must be a finite ({ACTION_DIM},) row; got {describe(row)}")
    return Command(r[:31].copy(), float(r[31]), float(r[32]), float(r[33]), float(r[34]), float(r[35]))


def hold_action(state: np.ndarray) -> np.ndarray:
    """The action that keeps every joint where the state says it is and the base still."""
    s = np.asarray(state, dtype=np.float64).reshape(STATE_DIM)
    a = np.zeros(ACTION_DIM)
    a[:31] = s[:31]
    a[31] = s[31]
    return a


class DecoupledV1(ActionContract):
    """The tool-use protocol's contract as a seam object."""

    name = SCHEMA
    action_dim = ACTION_DIM
    state_dim = STATE_DIM
    action_names = ACTION_SLOTS
    state_names = STATE_SLOTS

    def decode(self, row: np.ndarray) -> Command:
        return decode(row)

    def state_reader(self, model) -> "StateReader":
        return StateReader(model)

    def action_space(self):
        from gymnasium import spaces

        lo = np.full(ACTION_DIM, -np.inf)
        hi = np.full(ACTION_DIM, np.inf)
        for i, name in enumerate(JOINT_SLOTS):
            lo[i], hi[i] = BY_NAME[name].lo, BY_NAME[name].hi
        return spaces.Box(lo, hi, dtype=np.float64)

    def state_space(self):
        from gymnasium import spaces

        return spaces.Box(-np.inf, np.inf, (STATE_DIM,), np.float32)


class StateReader:
    """Reads the 32-value policy state from a compiled scene (MuJoCo model and data)."""

    def __init__(self, model) -> None:
        self._qpos = np.array([model.jnt_qposadr[model.joint(n).id] for n in JOINT_SLOTS])

    def read(self, data, previous_base_height: float = DEFAULT_BASE_HEIGHT) -> np.ndarray:
        state = np.empty(STATE_DIM, dtype=np.float32)
        state[:31] = data.qpos[self._qpos]
        state[31] = previous_base_height
        return state

    def write(self, data, values: np.ndarray) -> None:
        """Set the 31 measured joints (for tests and scripted scenes)."""
        data.qpos[self._qpos] = values[:31]


DECOUPLED_V1 = DecoupledV1()
