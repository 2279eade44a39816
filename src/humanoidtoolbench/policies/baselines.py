"""Floor baselines: what a score means when nothing is learned.

`zero` sends the all-zero action (every joint target 0, base height 0, which
the controller clamps to its lowest height, no navigation). `random` sends
uniform joint targets within the action table's ranges, the default base
height and no navigation, from a generator seeded by the episode seed, so a
seed always gives the same actions. Both answer with chunks of CHUNK rows, as
the pose holder does: a constant action needs no fresh image every step, and
each request costs a head-camera render.
"""

from __future__ import annotations

import numpy as np

from ..control.contracts import decoupled_v1 as contract
from ..robot.joints import BY_NAME
from .reply import EPISODE_SEED_KEY

CHUNK = 10
_LO = np.array([BY_NAME[n].lo for n in contract.JOINT_SLOTS])
_HI = np.array([BY_NAME[n].hi for n in contract.JOINT_SLOTS])


def zero(request: dict) -> np.ndarray:
    return np.zeros((CHUNK, contract.ACTION_DIM), dtype=np.float32)


zero.policy_name = "zero"


class SeededRandom:
    """Random chunks from a generator re-seeded by each episode's seed, so a seed always gives the same actions."""

    policy_name = "random"

    def __init__(self) -> None:
        self._rng = np.random.default_rng(0)

    def __call__(self, request: dict) -> np.ndarray:
        if request.get("history", {}).get("reset", False):
            self._rng = np.random.default_rng(int(request.get(EPISODE_SEED_KEY, 0)))
        return self.chunk(self._rng)

    def chunk(self, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError


class RandomPolicy(SeededRandom):
    """decoupled_v1: joint targets uniform in the action table's ranges, default height, no navigation."""

    def chunk(self, rng: np.random.Generator) -> np.ndarray:
        chunk = np.zeros((CHUNK, contract.ACTION_DIM), dtype=np.float32)
        chunk[:, :31] = rng.uniform(_LO, _HI, size=(CHUNK, 31))
        chunk[:, 31] = contract.DEFAULT_BASE_HEIGHT
        return chunk


random_policy = RandomPolicy()


# -- joint positions (Fiatlux's joint_position_v1): a in [-1, 1]^43 around the standing pose ---------------
JOINT_POSITION_DIM = 43


def zero_joint_position(request: dict) -> np.ndarray:
    """Every joint held at q0 (the original's zero baseline)."""
    return np.zeros((CHUNK, JOINT_POSITION_DIM), dtype=np.float32)


zero_joint_position.policy_name = "zero"


class RandomJointPosition(SeededRandom):
    """a ~ U[-1, 1]^43 per step (the original's random baseline)."""

    def chunk(self, rng: np.random.Generator) -> np.ndarray:
        return rng.uniform(-1.0, 1.0, (CHUNK, JOINT_POSITION_DIM)).astype(np.float32)


random_joint_position = RandomJointPosition()
