"""The Fiatlux robot: the free G1 + Dex3 with the original's servo gains, effort limits and armatures.

Gains per joint group (the original's implicit PD table); finger gains are
the Dex3 ones of the joint table (the original's are for Inspire hands).
Armatures follow the motor in each joint (Unitree's reflected inertias).
Nothing here stiffens the robot to stand: with these gains, holding q0
tips it over within about a second, and balance is the policy's job.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from ...control.contracts.joint_position import JOINT_NAMES
from ...robot.joints import BY_NAME

ARMATURE = {"5020": 0.003609725, "7520-14": 0.010177520, "7520-22": 0.025101925, "4010": 0.00425}


@dataclass(frozen=True)
class Servo:
    kp: float
    kd: float
    effort: float
    armature: float


def _group(name: str) -> Servo:
    """The servo of one joint, by the joint's role (name without side)."""
    j = name.removeprefix("left_").removeprefix("right_").removesuffix("_joint")
    a5020, a14, a22, a4010 = (ARMATURE[k] for k in ("5020", "7520-14", "7520-22", "4010"))
    table = {
        "hip_pitch": Servo(150, 2, 139, a14),
        "hip_roll": Servo(150, 2, 139, a22),
        "hip_yaw": Servo(150, 2, 88, a14),
        "knee": Servo(200, 4, 139, a22),
        "ankle_pitch": Servo(40, 2, 50, 2 * a5020),
        "ankle_roll": Servo(40, 2, 50, 2 * a5020),
        "waist_yaw": Servo(250, 5, 88, a14),
        "waist_roll": Servo(250, 5, 50, 2 * a5020),
        "waist_pitch": Servo(250, 5, 50, 2 * a5020),
        "shoulder_pitch": Servo(100, 2, 25, a5020),
        "shoulder_roll": Servo(100, 2, 25, a5020),
        "shoulder_yaw": Servo(50, 2, 25, a5020),
        "elbow": Servo(50, 2, 25, a5020),
        "wrist_roll": Servo(20, 1, 25, a5020),
        "wrist_pitch": Servo(20, 1, 5, a4010),
        "wrist_yaw": Servo(20, 1, 5, a4010),
    }
    if j in table:
        return table[j]
    row = BY_NAME[name]  # Dex3 fingers: the joint table's gains and efforts, upstream armature
    return Servo(row.kp, row.kd, row.effort, 0.0)


SERVOS: dict[str, Servo] = {n: _group(n) for n in JOINT_NAMES}


def apply_servos(model: mujoco.MjModel) -> None:
    """Set every joint servo of a compiled scene to its Fiatlux gains, limits and armature."""
    for name, servo in SERVOS.items():
        act = model.actuator(name.removesuffix("_joint")).id
        model.actuator_gainprm[act, 0] = servo.kp
        model.actuator_biasprm[act, 1:3] = (-servo.kp, -servo.kd)
        model.actuator_forcerange[act] = (-servo.effort, servo.effort)
        joint = model.joint(name)
        model.jnt_actfrcrange[joint.id] = (-servo.effort, servo.effort)
        if servo.armature:
            model.dof_armature[model.jnt_dofadr[joint.id]] = servo.armature


def gains_table() -> np.ndarray:
    """(43, 3) kp, kd, effort in JOINT_NAMES order (for the bag's meta and the tests)."""
    return np.array([(s.kp, s.kd, s.effort) for s in SERVOS.values()])
