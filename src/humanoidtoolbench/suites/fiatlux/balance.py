"""`balanced` on the Fiatlux robot: the whole-body controller on the free variant at the research gains.

Fiatlux's navigation subtasks take `decoupled_v1` commands through the
balanced controller, as the original drives its legs through a whole-body
controller. The robot stays the Fiatlux one: the `free` variant with the
research servo table (`robot.py`), never the stiff `balanced` variant. The
controller turns its whole-body torques into joint targets through those
servos (q_des + tau / kp), and, because 40 N m/rad ankles cannot hold the
standing pendulum, it closes the loop at 50 Hz with DCM feedback on the ZMP,
gravity torques for the upper body, flat planted feet, pelvis attitude
feedback on the planted hips, a swinging leg held level against the
pelvis's tilt and, every physics step, more damping on the hip pitch
through its targets (`Tuning` options of `control.balanced`), and
walks with a slow gait of its own. This is the policy side, as the
original's whole-body controller is; the servos are not stiffened.
"""

from __future__ import annotations

import mujoco
import numpy as np

from ...control.balanced.balanced import BalancedController, Tuning
from ...control.balanced.footsteps import Timing
from ...control.base import BasePose
from ...control.contracts.decoupled_v1 import JOINT_SLOTS
from ...control.contracts.joint_position import JOINT_NAMES
from .robot import apply_servos

# A slow, short-stepped gait: each phase lasts several 50 Hz periods, so the measured-state feedback
# catches each step's error (at the stiff variant's 0.4 + 0.1 s steps the robot fell within 2-7 s).
STROLL = Timing(single=0.8, double=0.6, first=0.8, last=0.8, swing_height=0.03, max_step=(0.22, 0.14, 0.2))
# The heading loop turns the body frame by rate x step each step, rate = error / turn_time_constant:
# at 0.5 s against these 1.4 s steps that overshot 2.8 times, and a 0.1 rad turn settled into a
# limit cycle (the feet alternately 0.2 rad apart, pigeon-toed on a right turn: 3 of 3 seeds fell
# 9 s into a walk that began with one). One step's time makes it dead-beat.
# The pelvis pitches and rolls 0.05-0.1 rad in a swing, and the swinging leg, hanging from it, went
# with it: the foot travelled toe-up (0.11-0.33 rad at the worst swing of an S07 expert walk) and
# met the floor 0.035 rad toe-up on average, heel first. Taking the pelvis's tilt out of the swinging
# hip's targets keeps that leg near the world frame: worst swing 0.08-0.17 rad on 17 of 20 walks
# (the other three fell), touchdown 0.011 rad; the expert reached the bulb on 11 of 20 seeds, not 5.
# All of the tilt (1.0) levelled the foot as well but fell at 0.1 and 0.15 m/s.
# The research table damps the hips at 2 N m s/rad, and in a turn the swinging leg and the body's yaw
# ring about the plan (a 0.6 s period; the foot lands up to 11 cm behind its place): +-1.4 rad turns
# in place stood 7 of 12 at S07's start and 3 at S09's (`benchmarks/diagnostics/fiatlux_balance.py --turns`). Damping
# the hip pitch 6 N m s/rad more, through the targets at the physics rate, 11 and 12; about the
# planned joint velocity instead of zero, fewer. Sent once per 50 Hz command, it fell within a second.
# A turn in place slides these feet off their plan (at S07's start, 1.4 rad left them 9 cm off and
# 2.8 cm closer together), and a walk planned from the old footholds then fell in its second step
# (`--turns`: 5 of 12 walk-offs stood at S07's start, none at S09's); `anchor` plans it from the
# measured feet: 11 and 11, each fall in its turn. The feet slide within a turn too (at S09 seed 13 the
# turn's last right step landed 8 cm off its plan and the robot fell over the other foot); `reland`
# moves the plan onto the planted feet half-way through each double support of a turn in place (of
# any engaged command asking for no translation): none of the navigation expert's turns in place
# fell on S07's and S09's 40 seeds (4 fell before), and the benchmark's stood 12 of 12 at both starts.
SOFT = Tuning(dcm_gain=2.0, dcm_clip=0.05, flat_feet=0.5, attitude=(50.0, 70.0, 10.0), idle_capture=True, swing_level=0.7,
             ground_from_spawn=True, turn_time_constant=STROLL.step,  # a start on the tread stands there
             leg_damping=(6.0, 0.0, 0.0, 0.0, 0.0, 0.0), anchor=True, reland=0.5)
SLOT_INDEX = np.array([JOINT_NAMES.index(n) for n in JOINT_SLOTS])


class FiatluxBalancedController(BalancedController):
    variant = "free"

    def __init__(self) -> None:
        super().__init__(SOFT, STROLL)

    def bind(self, model: mujoco.MjModel) -> None:
        """The servos at the research gains first: the torque-to-target conversion reads them."""
        apply_servos(model)
        super().bind(model)

    def reset(self, data: mujoco.MjData, spawn: BasePose, pose: np.ndarray) -> None:
        """As every Fiatlux controller: `pose` holds all joints in JOINT_NAMES order; the legs are
        solved for the stance, the commanded joints start at theirs."""
        super().reset(data, spawn, np.asarray(pose, dtype=float)[SLOT_INDEX])
