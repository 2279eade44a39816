"""What a Fiatlux policy commands: its joints around the standing pose, or decoupled_v1 under `balanced`.

`joint_position_v1` is the original's joint-position action: a in [-1, 1]^43,
targets q0 + 0.5 a around the default pose below (executed by `servo`); the
GR00T-style path sends `decoupled_v1` through the whole-body controller.
Both are registered when the suite is imported.
"""

from __future__ import annotations

from ...control.contracts import register
from ...control.contracts.decoupled_v1 import DECOUPLED_V1
from ...control.contracts.joint_position import JointPositionContract

SCALE = 0.5
# The standing pose the actions are offsets from (every other joint at 0).
STANDING_POSE: dict[str, float] = {
    **{f"{s}_hip_pitch_joint": -0.05 for s in ("left", "right")},
    **{f"{s}_knee_joint": 0.2 for s in ("left", "right")},
    **{f"{s}_ankle_pitch_joint": -0.15 for s in ("left", "right")},
}
JOINT_POSITION_V1 = register(JointPositionContract("joint_position_v1", STANDING_POSE, SCALE))
Q0_VECTOR = JOINT_POSITION_V1.q0

# Controller -> the contract its commands follow.
CONTRACTS = {"servo": JOINT_POSITION_V1.name, "balanced": register(DECOUPLED_V1).name}
