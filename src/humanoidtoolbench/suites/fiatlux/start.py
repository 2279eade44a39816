"""Where a Fiatlux episode starts: the robot's placement rule, its carrying poses, the bulbs, all clear.

A subtask's start (`subtasks.Start`) names a placement rule for the robot
and where each bulb is: seated, on the bench, in the crate, on the right
palm or pinched in the right hand. The robot stands at its spot with the
start jitter (unless the start is pinned), is raised out of its support and
stepped back from the furniture in front; the bulbs are placed and raised
clear, and a pinched bulb is gripped by closing the fingers on it.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np

from ...control.balanced.footsteps import rot
from ...control.base import BasePose, Controller
from ...control.contracts.joint_position import JOINT_NAMES
from ...robot.joints import HAND_JOINTS
from . import props
from .contract import Q0_VECTOR
from .gates import TREAD_STANCE
from .layout import Layout
from .observation import HAND_LINKS
from .props import BULBS
from .randomisation import PropScale
from .scene import Placement
from .subtasks import Start

PELVIS_STANCE = TREAD_STANCE  # pelvis above the surface at q0, m
FLOOR_CLEARANCE = 0.005  # m: the feet start this far above their support
JITTER_XY, JITTER_YAW, JITTER_JOINT = 0.05, 0.1, 0.05
STEPS_OFF = 0.85  # m out from the steps
TREAD_BACK_OFF = 0.06  # m: the most an on-tread start steps back (the feet stay on the 0.40 m tread)
# m from the fresh bulb, along the bench's outward side: the original's 0.5045 - 0.05 m puts the
# G1's hanging Dex3 fingers into the bench edge (its top is at the G1's chest), so 0.1 m more.
BENCH_REACH = 0.5045 - 0.05 + 0.1
CRATE_STANDOFF = 0.65  # m from the crate's centre
CARRY_STANDOFF = 0.6  # m from the bench's edge, holding a bulb forward
# The right forearm forward with the palm turned up, for starts that carry a bulb on the palm;
# every angle is within 0.5 rad of q0, so a policy can hold it (targets are q0 + 0.5 a).
CARRY_POSE = {
    "right_shoulder_pitch_joint": -0.5, "right_shoulder_roll_joint": -0.5, "right_shoulder_yaw_joint": 0.5,
    "right_elbow_joint": 0.5, "right_wrist_roll_joint": -0.5, "right_wrist_pitch_joint": -0.5,
}
PALM_SPOT = (0.09, 0.05)  # bulb centre: along the Dex3 hand from the wrist, and off the palm (its -y side)
# Starts that hold a bulb in the fingers hold it as the pinch of S03 and S08 leaves it: the right
# hand in front of the pelvis like a handshake (fingers forward, palm facing left, the wrist's z up),
# the glass between thumb and fingers, the index and middle fingers curled over it. The cap points
# out of the hand where the layout's socket can take it (`GRIP_AXIS`).
GRIP_POSE = {
    "right_shoulder_pitch_joint": -0.21, "right_shoulder_roll_joint": -0.02, "right_shoulder_yaw_joint": -0.72,
    "right_elbow_joint": 1.03, "right_wrist_roll_joint": -0.17, "right_wrist_pitch_joint": -0.85,
    "right_wrist_yaw_joint": 0.52,
}
# The thumb closes too: with it open, two fingers against the palm held the glass so lightly (0-1 N
# after the settle on some layouts) that it slid out within the first steps.
# The pinch's curl (S03, S08): more than the glass lets the fingers reach, so they press on it.
PINCH_CURL = {"right_hand_index_0_joint": 1.0, "right_hand_index_1_joint": 1.2,
              "right_hand_middle_0_joint": 1.0, "right_hand_middle_1_joint": 1.2}
GRIP_FINGERS = PINCH_CURL | {"right_hand_thumb_1_joint": -0.5, "right_hand_thumb_2_joint": -0.5}
GRIP_SPOT = (0.13, 0.06, 0.0)  # glass centre in the right wrist frame
# The bulb's axis (cap to glass) in the right wrist frame, per mount: the cap out of the top of the
# hand for a ceiling socket (up in the carry), out past the fingertips for a wall one (forward).
GRIP_AXIS = {"ceiling": (0.0, 0.0, -1.0), "wall": (-1.0, 0.0, 0.0)}
GRIP_CLOSE, GRIP_SETTLE = 100, 20  # physics steps: the fingers close on the held glass (0.5 s), then it settles free (longer lets it creep out of the frozen hand)


def _heading(frm, to) -> float:
    return math.atan2(to[1] - frm[1], to[0] - frm[0])


def robot_start(rule: str, lay: Layout, at: Placement, tread_centre: tuple[float, float],
                tread_top: float) -> tuple[np.ndarray, float]:
    """(pelvis xyz, yaw) of the placement `rule`, before the jitter."""
    ladder_face = at.ladder_yaw + math.pi / 2  # facing the ladder's +y, as a climber does
    floor = PELVIS_STANCE + FLOOR_CLEARANCE
    tread = np.array([*(at.ladder_pos + rot(at.ladder_yaw, tread_centre)), tread_top + floor])
    fresh = at.bench_bulb[:2]
    bench_out = at.bench_pos + rot(at.bench_yaw, (props.FRESH_BULB_ON_BENCH[0], props.FRESH_BULB_ON_BENCH[1] + BENCH_REACH))
    bench_carry = at.bench_pos + rot(at.bench_yaw, (props.FRESH_BULB_ON_BENCH[0], props.BENCH_HALF[1] + CARRY_STANDOFF))
    toward_crate = at.crate_pos - at.ladder_pos
    toward_crate /= max(np.linalg.norm(toward_crate), 1e-9)
    robot_zone = np.array(lay.zones["robot"])
    away = robot_zone - at.crate_pos
    away /= max(np.linalg.norm(away), 1e-9)
    spots = {
        "robot_zone_facing_ladder": (robot_zone, _heading(robot_zone, at.ladder_pos) + lay.robot_yaw_jitter),
        "floor_at_steps": (at.ladder_pos + rot(at.ladder_yaw, (0.0, -STEPS_OFF)), ladder_face),
        "on_tread": (tread, ladder_face),
        "beside_ladder_facing_crate": (at.ladder_pos + toward_crate * STEPS_OFF, _heading(at.ladder_pos, at.crate_pos)),
        "at_crate": (at.crate_pos + away * CRATE_STANDOFF, math.atan2(-away[1], -away[0])),
        "off_crate_facing_bench": (robot_zone, _heading(robot_zone, fresh)),
        "at_bench": (bench_out, _heading(bench_out, fresh)),
        # Carrying, the forward arm needs room to turn away from the bench.
        "at_bench_facing_ladder": (bench_carry, _heading(bench_carry, at.ladder_pos)),
    }
    xy, yaw = spots[rule]
    xyz = np.asarray(xy, dtype=float)
    if xyz.shape == (2,):
        xyz = np.array([*xyz, floor])
    return xyz, yaw


class StartPlacer:
    """Puts the robot and the bulbs where a start has them, in one compiled scene (every reset)."""

    def __init__(self, model: mujoco.MjModel, start: Start, lay: Layout, at: Placement, scale: PropScale,
                 tread: tuple[tuple[float, float], float], plug: dict[str, float], seat_offset: float,
                 body: dict[str, int], free_adr: dict[str, tuple[int, int]]) -> None:
        """`tread`: the top tread's (centre xy, top z) in the ladder frame; `plug`, `seat_offset`: where
        each bulb's cap and the socket's seat lie along their axes; `body`, `free_adr`: the bulbs' body
        ids and free-joint (qpos, dof) addresses."""
        self.model, self.start, self.layout, self.at, self.scale = model, start, lay, at, scale
        self.tread, self.plug, self.seat_offset = tread, plug, seat_offset
        self.body, self.free_adr = body, free_adr
        self.wrist = model.body(HAND_LINKS["right"][0]).id
        fingers = [model.joint(n).id for n in HAND_JOINTS["right"]]
        self.finger_qpos, self.finger_dof = model.jnt_qposadr[fingers], model.jnt_dofadr[fingers]
        pelvis = model.body("pelvis").id
        self.robot_bodies = {b for b in range(model.nbody) if model.body_rootid[b] == model.body_rootid[pelvis]}
        self.robot_root = int(model.jnt_qposadr[model.joint("floating_base_joint").id])

    def place(self, d: mujoco.MjData, controller: Controller, jitter: np.random.Generator | None) -> str | None:
        """Reset `d` to the start, drawing the jitter from `jitter` (None: none); the bulb the start
        seats, if any (the seat holds it)."""
        m, start = self.model, self.start
        mujoco.mj_resetData(m, d)
        xyz, yaw = robot_start(start.robot, self.layout, self.at, *self.tread)
        pose = Q0_VECTOR.copy()
        where = {b: getattr(start, b) for b in BULBS}
        carry = (CARRY_POSE if "palm" in where.values() else {}) | (GRIP_POSE | GRIP_FINGERS if "grip" in where.values() else {})
        for name, v in carry.items():
            pose[JOINT_NAMES.index(name)] = v
        if jitter is not None:
            xyz[:2] += jitter.uniform(-JITTER_XY, JITTER_XY, 2)
            yaw += jitter.uniform(-JITTER_YAW, JITTER_YAW)
            pose += jitter.uniform(-JITTER_JOINT, JITTER_JOINT, len(pose))
        controller.reset(d, BasePose(*xyz, yaw), pose)
        mujoco.mj_forward(m, d)
        self._clear(d, self.robot_bodies, self.robot_root)
        # On the tread there is little room to step back: enough for a scaled ladder that lifts the
        # carrying hand into the fixture.
        gripped = [b for b in BULBS if where[b] == "grip"]
        self._back_off(d, yaw, most=TREAD_BACK_OFF if start.robot == "on_tread" else 0.3, carried=gripped)
        occupant = next((b for b in BULBS if where[b] == "seated"), None)
        for bulb in BULBS:
            self._place_bulb(d, bulb, where[bulb])
            if where[bulb] not in ("seated", "grip"):
                self._clear(d, {self.body[bulb]}, self.free_adr[bulb][0], most=0.1)
        for bulb in gripped:
            self._settle_grip(d, bulb)
        mujoco.mj_forward(m, d)
        return occupant

    def _clear(self, d: mujoco.MjData, mine: set[int], qpos_adr: int, margin: float = 0.001, tries: int = 5,
               most: float = 0.03) -> None:
        """Raise a free body (at most `most`) until none of its geoms penetrates anything: a start state
        does not begin inside its support, whatever the joint jitter did to the feet."""
        for _ in range(tries):
            depth = self._penetration(d, mine)
            if depth <= 0.0 or depth > most:
                return
            d.qpos[qpos_adr + 2] += depth + margin

    def _penetration(self, d: mujoco.MjData, mine: set[int]) -> float:
        m = self.model
        mujoco.mj_forward(m, d)
        return max((-d.contact[i].dist for i in range(d.ncon)
                    if (m.geom_bodyid[d.contact[i].geom[0]] in mine) != (m.geom_bodyid[d.contact[i].geom[1]] in mine)),
                   default=0.0)

    def _back_off(self, d: mujoco.MjData, yaw: float, step: float = 0.02, most: float = 0.3,
                  carried: list[str] = ()) -> None:
        """Step the robot back along its heading until it stands clear of the furniture in front
        (the G1's hanging hands reach about 0.4 m ahead of its pelvis); `carried` bulbs go along in
        the hand, clear of the furniture all along the fingers' sweep from open (as the grip's settle starts) to closed."""
        back = -np.array([math.cos(yaw), math.sin(yaw)]) * step
        mine = self.robot_bodies | {self.body[b] for b in carried}
        closed = d.qpos[self.finger_qpos].copy()
        hands = [closed * k for k in np.linspace(0.0, 1.0, 5)] if carried else [closed]  # the fingers' sweep
        for _ in range(round(most / step)):
            for bulb in carried:
                self._place_bulb(d, bulb, "grip")
            depth = 0.0
            for fingers in hands:
                d.qpos[self.finger_qpos] = fingers
                depth = max(depth, self._penetration(d, mine))
            d.qpos[self.finger_qpos] = closed
            if depth <= 0.0:
                return
            d.qpos[self.robot_root : self.robot_root + 2] += back

    def _place_bulb(self, d: mujoco.MjData, bulb: str, where: str) -> None:
        at = self.at
        qa, va = self.free_adr[bulb]
        size = self.scale.bulb(bulb)
        if where == "seated":  # the plug on the seat, along the socket's axis
            axis = np.zeros(3)
            mujoco.mju_rotVecQuat(axis, np.array([0.0, 0.0, 1.0]), at.fixture_quat)
            pos = np.asarray(self.layout.fixture.pos) + axis * (self.seat_offset - self.plug[bulb])
            quat = at.fixture_quat
        elif where == "bench":
            pos, quat = at.bench_bulb - [0, 0, self.plug[bulb] - 0.0005], np.array([1.0, 0, 0, 0])
        elif where == "crate":
            # Lying on the crate floor, its axis along the crate's length.
            q = np.zeros(4)
            mujoco.mju_euler2Quat(q, [0.0, math.pi / 2, at.crate_yaw], "XYZ")
            axis = np.array([math.cos(at.crate_yaw), math.sin(at.crate_yaw), 0.0])
            centre = np.array([*at.crate_pos, props.CRATE_FLOOR + 0.0396 * size + 0.001])
            pos, quat = centre - axis * props.BULB_CENTRE * size, q
        elif where == "grip":  # in the right hand, the cap out; `_settle_grip` closes the fingers on it
            mujoco.mj_kinematics(self.model, d)
            R = d.xmat[self.wrist].reshape(3, 3)
            axis = R @ np.array(GRIP_AXIS[self.layout.fixture.mount])
            quat = np.zeros(4)
            mujoco.mju_quatZ2Vec(quat, axis)
            pos = d.xpos[self.wrist] + R @ np.array(GRIP_SPOT) - axis * props.BULB_CENTRE * size
        else:  # resting on the right palm, lying across it
            R = d.xmat[self.wrist].reshape(3, 3)
            along, off = PALM_SPOT
            centre = d.xpos[self.wrist] + R @ np.array([along, 0.0, 0.0]) - R[:, 1] * off
            quat = np.zeros(4)
            mujoco.mju_quatZ2Vec(quat, R[:, 2])
            pos = centre - R[:, 2] * props.BULB_CENTRE * size
        d.qpos[qa : qa + 3] = pos
        d.qpos[qa + 3 : qa + 7] = quat
        d.qvel[va : va + 6] = 0.0

    def _settle_grip(self, d: mujoco.MjData, bulb: str) -> None:
        """Close the right fingers on `bulb` by physics, the rest of the scene held where it starts:
        first with the bulb held too, so the fingers reach the glass, then with it free, so it comes
        to rest in the grip under its weight. The fingers press as their servos' angle error asks."""
        m = self.model
        qa, va = self.free_adr[bulb]
        d.qpos[self.finger_qpos] = 0.0  # open; the targets stay closed
        free_q, free_v = np.zeros(m.nq, bool), np.zeros(m.nv, bool)
        free_q[self.finger_qpos], free_v[self.finger_dof] = True, True
        held = d.qpos.copy()
        for k in range(GRIP_CLOSE + GRIP_SETTLE):
            if k == GRIP_CLOSE:
                free_q[qa : qa + 7], free_v[va : va + 6] = True, True
            mujoco.mj_step(m, d)
            d.qpos[~free_q], d.qvel[~free_v] = held[~free_q], 0.0
        d.time = 0.0
