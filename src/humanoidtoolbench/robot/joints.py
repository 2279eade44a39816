"""The G1 + Dex3 joint table: one row per actuated joint.

Ranges of the 31 joints a policy commands come from the public action table
(which wins over the upstream MJCF); leg ranges are the upstream ones. Gains
are the PD gains the whole-body controller uses on the real robot's motors;
efforts are the upstream actuator limits.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Joint:
    name: str
    group: str  # leg | waist | arm | hand
    lo: float
    hi: float
    kp: float
    kd: float
    effort: float


def _leg(side: str) -> list[Joint]:
    rows = [
        # name, lo, hi, kp, kd, effort
        ("hip_pitch", -2.5307, 2.8798, 150, 2, 88),
        ("hip_roll", -0.5236, 2.9671, 150, 2, 88),
        ("hip_yaw", -2.7576, 2.7576, 150, 2, 88),
        ("knee", -0.087267, 2.8798, 200, 4, 139),
        ("ankle_pitch", -0.87267, 0.5236, 40, 2, 50),
        ("ankle_roll", -0.2618, 0.2618, 40, 2, 50),
    ]
    out = []
    for n, lo, hi, kp, kd, eff in rows:
        if side == "right" and n == "hip_roll":
            lo, hi = -hi, -lo
        out.append(Joint(f"{side}_{n}_joint", "leg", lo, hi, kp, kd, eff))
    return out


def _arm(side: str) -> list[Joint]:
    roll = (-1.588, 2.252) if side == "left" else (-2.252, 1.588)
    rows = [
        ("shoulder_pitch", (-3.089, 2.670), 100, 5, 25),
        ("shoulder_roll", roll, 100, 5, 25),
        ("shoulder_yaw", (-2.618, 2.618), 40, 2, 25),
        ("elbow", (-1.047, 2.094), 40, 2, 25),
        ("wrist_roll", (-1.972, 1.972), 20, 2, 25),
        ("wrist_pitch", (-1.614, 1.614), 20, 2, 5),
        ("wrist_yaw", (-1.614, 1.614), 20, 2, 5),
    ]
    return [Joint(f"{side}_{n}_joint", "arm", r[0], r[1], kp, kd, e) for n, r, kp, kd, e in rows]


# Dex3 hands in the public flat order: left thumb/middle/index,
# right thumb/index/middle. Thumb joints are stiffer (kp 5) than fingers.
_HAND_ROWS = {
    "left": [
        ("thumb_0", -1.047, 1.047, 5.0, 2.45),
        ("thumb_1", -0.724, 1.047, 5.0, 0.7),
        ("thumb_2", 0.0, 1.745, 5.0, 0.7),
        ("middle_0", -1.571, 0.0, 2.5, 0.7),
        ("middle_1", -1.745, 0.0, 2.5, 0.7),
        ("index_0", -1.571, 0.0, 2.5, 0.7),
        ("index_1", -1.745, 0.0, 2.5, 0.7),
    ],
    "right": [
        ("thumb_0", -1.047, 1.047, 5.0, 2.45),
        ("thumb_1", -1.047, 0.724, 5.0, 0.7),
        ("thumb_2", -1.745, 0.0, 5.0, 0.7),
        ("index_0", 0.0, 1.571, 2.5, 0.7),
        ("index_1", 0.0, 1.745, 2.5, 0.7),
        ("middle_0", 0.0, 1.571, 2.5, 0.7),
        ("middle_1", 0.0, 1.745, 2.5, 0.7),
    ],
}
HAND_KD = 0.2


def _hand(side: str) -> list[Joint]:
    return [
        Joint(f"{side}_hand_{n}_joint", "hand", lo, hi, kp, HAND_KD, eff)
        for n, lo, hi, kp, eff in _HAND_ROWS[side]
    ]


WAIST = [
    Joint("waist_yaw_joint", "waist", -2.618, 2.618, 250, 5, 88),
    Joint("waist_roll_joint", "waist", -0.52, 0.52, 250, 5, 50),
    Joint("waist_pitch_joint", "waist", -0.52, 0.52, 250, 5, 50),
]

JOINTS: tuple[Joint, ...] = tuple(
    _leg("left") + _leg("right") + WAIST + _arm("left") + _arm("right") + _hand("left") + _hand("right")
)
BY_NAME: dict[str, Joint] = {j.name: j for j in JOINTS}

LEG_JOINTS = {side: tuple(j.name for j in _leg(side)) for side in ("left", "right")}
ARM_JOINTS = {side: tuple(j.name for j in _arm(side)) for side in ("left", "right")}
HAND_JOINTS = {side: tuple(j.name for j in _hand(side)) for side in ("left", "right")}

# Upper-body pose at reset: arms relaxed in front of the hips, hands open.
_ARM_HOME = (0.25, 0.22, 0.0, 1.0, 0.0, 0.0, 0.0)
HOME_POSE: dict[str, float] = {}
for _side, _sign in (("left", 1.0), ("right", -1.0)):
    for _name, _v in zip(ARM_JOINTS[_side], _ARM_HOME):
        HOME_POSE[_name] = _v * (_sign if "roll" in _name or "yaw" in _name else 1.0)
    for _name in HAND_JOINTS[_side]:
        HOME_POSE[_name] = 0.0
for _j in WAIST:
    HOME_POSE[_j.name] = 0.0

# Body sites and links the rest of the package refers to by role.
PELVIS = "pelvis"
TORSO = "torso_link"
HAND_BODY_PREFIX = {"left": "left_hand_", "right": "right_hand_"}
WRIST_BODY = {"left": "left_wrist_yaw_link", "right": "right_wrist_yaw_link"}
