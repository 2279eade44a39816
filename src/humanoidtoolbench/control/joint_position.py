"""`joint_position_v1`: every actuated joint's target as a normalised offset from the standing pose.

One row holds a in [-1, 1]^43, one value per actuated joint in the joint
table's order (legs, waist, arms, hands); the target is q0 + 0.5 a, clamped
to the joint's range by the servo. The policy state is the suite's
observation vector, which the suite reads.
This is the Fiatlux action (the original's joint-position action with scale
0.5 around the default pose).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..robot.joints import JOINTS
from .contract import ActionContract, ActionError, describe

NAME = "joint_position_v1"
SCALE = 0.5
JOINT_NAMES: tuple[str, ...] = tuple(j.name for j in JOINTS)
# The standing pose the actions are offsets from (every other joint at 0).
Q0: dict[str, float] = {
    **{f"{s}_hip_pitch_joint": -0.05 for s in ("left", "right")},
    **{f"{s}_knee_joint": 0.2 for s in ("left", "right")},
    **{f"{s}_ankle_pitch_joint": -0.15 for s in ("left", "right")},
}
Q0_VECTOR = np.array([Q0.get(n, 0.0) for n in JOINT_NAMES])


@dataclass(frozen=True)
class JointTargets:
    """One decoded row: a position target for every actuated joint, in JOINT_NAMES order."""

    q: np.ndarray


class JointPositionContract(ActionContract):
    name = NAME
    action_dim = len(JOINT_NAMES)

    def validate(self, action) -> np.ndarray:
        chunk = super().validate(action)
        if np.abs(chunk).max() > 1.0:
            raise ActionError(f"actions must lie in [-1, 1]; got {describe(chunk)} with max |a| {np.abs(chunk).max():.3g}")
        return chunk

    def decode(self, row: np.ndarray) -> JointTargets:
        r = np.asarray(row, dtype=np.float64)
        if r.shape != (self.action_dim,) or not np.isfinite(r).all():
            raise ActionError(f"command must be a finite ({self.action_dim},) row; got {describe(row)}")
        return JointTargets(Q0_VECTOR + SCALE * np.clip(r, -1.0, 1.0))

    def action_space(self):
        from gymnasium import spaces

        return spaces.Box(-1.0, 1.0, (self.action_dim,), np.float32)


JOINT_POSITION_V1 = JointPositionContract()
