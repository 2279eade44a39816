"""A joint-position contract: every actuated joint's target as a normalised offset from a standing pose.

One row holds a in [-1, 1]^43, one value per actuated joint in the joint
table's order (legs, waist, arms, hands); the target is q0 + scale * a,
clamped to the joint's range by the servo. The standing pose q0 and the
scale are the suite's (Fiatlux: its default pose, scale 0.5); the policy
state is the suite's observation, which the suite reads.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ...robot.joints import JOINTS
from .base import ActionContract, ActionError, describe

JOINT_NAMES: tuple[str, ...] = tuple(j.name for j in JOINTS)


@dataclass(frozen=True)
class JointTargets:
    """One decoded row: a position target for every actuated joint, in JOINT_NAMES order."""

    q: np.ndarray


class JointPositionContract(ActionContract):
    action_dim = len(JOINT_NAMES)

    def __init__(self, name: str, standing_pose: Mapping[str, float], scale: float) -> None:
        unknown = set(standing_pose) - set(JOINT_NAMES)
        if unknown:
            raise ValueError(f"{name}: the standing pose names joints the robot does not have: {sorted(unknown)}")
        self.name, self.scale = name, float(scale)
        self.q0 = np.array([standing_pose.get(n, 0.0) for n in JOINT_NAMES])  # every other joint at 0

    def validate(self, action) -> np.ndarray:
        chunk = super().validate(action)
        if np.abs(chunk).max() > 1.0:
            raise ActionError(f"actions must lie in [-1, 1]; got {describe(chunk)} with max |a| {np.abs(chunk).max():.3g}")
        return chunk

    def decode(self, row: np.ndarray) -> JointTargets:
        r = np.asarray(row, dtype=np.float64)
        if r.shape != (self.action_dim,) or not np.isfinite(r).all():
            raise ActionError(f"command must be a finite ({self.action_dim},) row; got {describe(row)}")
        return JointTargets(self.q0 + self.scale * np.clip(r, -1.0, 1.0))

    def action_space(self):
        from gymnasium import spaces

        return spaces.Box(-1.0, 1.0, (self.action_dim,), np.float32)
