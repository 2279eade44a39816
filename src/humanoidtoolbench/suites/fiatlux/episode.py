"""One Fiatlux episode: the seeded scene, the start state, and the 50 Hz step with its gate.

The layout depends on the seed alone (as the original draws it once per
scene), so a seed is the same room in every subtask; the start jitter and
the observation noise come from a generator of (subtask, seed). Each step
measures one `Snapshot`, evaluates the current stage's conjuncts on it and
checks that stage's terminations: a fall, a tipped ladder, a dropped or
crushed bulb, a bulb pulled from its seat. A subtask is one stage; the
errand moves to the next stage when a gate has held for its window and
succeeds when the last one has. The bag row of the step is built from the
same measurements.
"""

from __future__ import annotations

import colorsys
import math

import mujoco
import numpy as np

from ...control.base import BasePose, Controller
from ...control.contracts import get as get_contract
from ...control.contracts.joint_position import JOINT_NAMES
from ...control.servo import ServoController
from ...robot.joints import HAND_JOINTS
from ...sim import look as looks
from ...sim import scene
from ...sim.simulation import Simulation
from ..base import FELL, SUCCESS, Episode, HoldCounter, StepResult
from . import dressing, gates, props
from .contract import JOINT_POSITION_V1, Q0_VECTOR, SCALE
from .gates import BulbState, Snapshot
from .layout import ROOM_CENTRE, ROOM_SIZE, Layout, generator, sample_layout
from .observation import HAND_BODIES, HAND_LINKS, POSED, Observer, add_sensors
from .randomisation import HAND_FRICTION, Appearance, Lighting, PropScale, draw_appearance, draw_lighting, draw_prop_scale
from .rewards import REWARDS, MotionReader, distances
from .robot import apply_servos
from .rungs import RungSensor
from .seat import MagneticSeat
from .subtasks import CRUSHED, DROPPED, TIPPED, UNSEATED, FiatluxTask, stage_flag
from .suite import OBS_MODES, SUITE

BULBS = ("old_bulb", "fresh_bulb")
RETURN = "return"  # the metrics' running episode return; `return/<term>` per reward term
PELVIS_STANCE = gates.TREAD_STANCE  # pelvis above the surface at q0, m
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


def _rot(yaw: float, v) -> np.ndarray:
    c, s = math.cos(yaw), math.sin(yaw)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def termination(task: FiatluxTask, s: Snapshot) -> str | None:
    """Which early ending, if any, this step brings: a fall first, then the task's own in its order."""
    if not gates.CONJUNCTS["standing"](s):
        return FELL
    checks = {
        TIPPED: lambda: s.ladder_tilt > gates.LADDER_TILT,
        DROPPED: lambda: any(s.bulbs[b].centre[2] < floor for b, floor in task.drop_floors),
        CRUSHED: lambda: any(b.grip_force > gates.GLASS_LIMIT for b in s.bulbs.values()),
        UNSEATED: lambda: not s.bulbs["fresh_bulb"].seated,
    }
    return next((t for t in task.terminations if checks[t]()), None)


class FiatluxEpisode(Episode):
    def __init__(self, task: FiatluxTask, seed: int, controller: Controller | None = None,
                 detail: str = "fast", randomize: bool = True, prop_scale: bool = False,
                 obs_mode: str = "standard", look: str | None = None) -> None:
        """`randomize=False` turns every randomisation off (lights, tint, jitter, hand friction, prop
        scale); `prop_scale` scales the ladder, socket and fresh bulb per layout seed; `obs_mode` picks
        what `observation()` gives (`OBS_MODES`); `look` is how the scene is drawn (a name of
        `sim.look.LOOKS`; None: the protocol's)."""
        if obs_mode not in OBS_MODES:
            raise ValueError(f"obs_mode {obs_mode!r}: use one of {', '.join(OBS_MODES)}")
        self.condition = task
        self.obs_mode = obs_mode
        self.seed = int(seed)
        self.randomize = randomize
        self.layout: Layout = sample_layout("layout", self.seed)
        self.rng = generator(task.key, self.seed)
        self.lighting = draw_lighting(generator(f"{task.key}/lights", self.seed)) if randomize else Lighting()
        self.scale = draw_prop_scale(generator("prop-scale", self.seed)) if randomize and prop_scale else PropScale()
        sx, sy, sz = self.scale.ladder
        self.tread_centre, self.tread_top = (props.TREAD_CENTRE[0] * sx, props.TREAD_CENTRE[1] * sy), props.TREAD_TOP * sz
        self.plug = {b: props.PLUG_OFFSET * self.scale.bulb(b) for b in BULBS}
        self.controller = controller or ServoController()
        wanted = SUITE.controller_class(self.controller.name)
        if not isinstance(self.controller, wanted):  # e.g. the stiff balanced variant instead of the Fiatlux robot
            raise ValueError(f"controller {self.controller.name!r} runs on the Fiatlux robot as {wanted.__name__}; make it with the suite's make_controller")
        self.contract = get_contract(SUITE.contract_for(self.controller.name))
        self._place_props()
        self.look = looks.get(look or SUITE.protocol.look)
        # Colours of a dressed look, from their own generator: no other draw moves with them.
        drawn = randomize and self.look.dressed
        self.appearance = draw_appearance(generator(f"{task.key}/appearance", self.seed)) if drawn else Appearance()
        spec = self._build(detail)
        self.sim = Simulation(spec, self.controller)
        m = self.sim.model
        apply_servos(m)
        self._act = np.array([m.actuator(n.removesuffix("_joint")).id for n in JOINT_NAMES])
        self.seat = MagneticSeat(m, BULBS, seat_offset=props.PLUG_OFFSET * self.scale.socket, plug_offsets=self.plug)
        self.sim.physics_step_hooks.append(self.seat.apply_forces)
        self.observer = Observer(m, generator(f"{task.key}/noise", self.seed))
        self._body = {n: m.body(n).id for n in ("pelvis", "ladder", "crate", "fixture", *BULBS)}
        self.free_adr = {n: (int(m.jnt_qposadr[m.joint(f"{n}_joint").id]), int(m.jnt_dofadr[m.joint(f"{n}_joint").id]))
                      for n in ("ladder", *BULBS)}
        self._bulb_geoms = {n: m.geom(f"{n}/glass").id for n in BULBS}
        self._hand_ids = {side: [m.body(b).id for b in links] for side, links in HAND_LINKS.items()}
        self._hand_of = {b: (side, k) for side, ids in self._hand_ids.items() for k, b in enumerate(ids)}
        fingers = [m.joint(n).id for n in HAND_JOINTS["right"]]
        self._finger_qpos, self._finger_dof = m.jnt_qposadr[fingers], m.jnt_dofadr[fingers]
        self._outline = {b: np.array(props.bulb_vertices(self.scale.bulb(b))).reshape(-1, 3) for b in BULBS}
        pelvis = self._body["pelvis"]
        self._robot_bodies = {b for b in range(m.nbody) if m.body_rootid[b] == m.body_rootid[pelvis]}
        self._robot_root = int(m.jnt_qposadr[m.joint("floating_base_joint").id])
        self.motion = MotionReader(m)
        self.reward = REWARDS[task.reward](self.motion.ankle_range)
        self.rungs = RungSensor(m) if task.reward == "climb" else None
        self.stages = task.stages
        self._start_stage(0)
        self.steps = 0
        # Where the start's and the noise's draws begin: every reset starts from here, so a reset
        # episode repeats its first run exactly (a vectorised environment reuses its compiled scene).
        self._draws = (self.rng.bit_generator.state, self.observer.rng.bit_generator.state)

    # -- scene ---------------------------------------------------------------------
    def _place_props(self) -> None:
        lay, start = self.layout, self.condition.start
        fx = lay.fixture
        if start.ladder == "zone":
            self.ladder_yaw = lay.ladder_yaw
            self.ladder_pos = np.array(lay.zones["ladder"])
        else:  # the tread centre on the anchor, the ladder's +y (the climber's facing) towards the fixture
            self.ladder_yaw = fx.facing + math.pi / 2
            self.ladder_pos = np.asarray(fx.anchor) - _rot(self.ladder_yaw, self.tread_centre)
        self.bench_pos, self.bench_yaw = np.array(lay.zones["workbench"]), lay.bench_yaw
        self.crate_pos, self.crate_yaw = np.array(lay.zones["crate"]), lay.crate_yaw
        # The socket's +z points out of the opening: down from a ceiling, into the room from a wall.
        q = np.zeros(4)
        if fx.mount == "ceiling":
            mujoco.mju_euler2Quat(q, [0.0, math.pi, 0.0], "XYZ")
        else:
            mujoco.mju_euler2Quat(q, [0.0, math.pi / 2, fx.facing], "XYZ")
        self.fixture_quat = q
        bench_bulb = self.bench_pos + _rot(self.bench_yaw, props.FRESH_BULB_ON_BENCH)
        self.bench_bulb = np.array([*bench_bulb, props.BENCH_TOP])

    def _build(self, detail: str) -> mujoco.MjSpec:
        style = self.lighting.style(tuple(self._tint())) if self.randomize else scene.RoomStyle()
        if self.look.dressed:
            style = dressing.room_style(style, self.appearance)
        spec = scene.new_spec(style, scene.Room(ROOM_SIZE, ROOM_CENTRE, ceiling=True), self.look)
        props.add_workbench(spec, [*self.bench_pos, 0.0], self.bench_yaw)
        props.add_crate(spec, [*self.crate_pos, 0.0], self.crate_yaw)
        fx = self.layout.fixture
        props.add_fixture(spec, fx.pos, self.fixture_quat, fx.mount, ROOM_SIZE[2], self.scale.socket)
        props.add_ladder(spec, "ladder", [*self.ladder_pos, 0.0], self.ladder_yaw, self.scale.ladder)
        for bulb in BULBS:
            props.add_bulb(spec, bulb, [0.0, 0.0, 3.0 + BULBS.index(bulb)], [1, 0, 0, 0], self.scale.bulb(bulb))
        props.add_seat_contacts(spec, BULBS)
        if self.look.dressed:
            dressing.dress(spec, self.look, self.appearance, self.scale)
        scene.add_robot(spec, self.controller, detail)
        add_sensors(spec.body("torso_link"))
        if self.randomize:  # hand friction, per layout
            mu = generator("hand-friction", self.seed).uniform(*HAND_FRICTION)
            for geom in spec.geoms:
                if geom.parent.name in {b for links in HAND_LINKS.values() for b in links} and geom.contype:
                    geom.friction = [mu, *list(geom.friction)[1:]]
        return spec

    def _tint(self) -> np.ndarray:
        """A room tint per episode: hue anywhere, saturation up to 0.15, value 0.7-1.2."""
        h, s, v = self.rng.uniform(0, 1), self.rng.uniform(0, 0.15), self.rng.uniform(0.7, 1.2)
        return np.clip(np.array(colorsys.hsv_to_rgb(h, s, 1.0)) * v, 0.0, 1.5)


    # -- reset ---------------------------------------------------------------------
    def _robot_start(self) -> tuple[np.ndarray, float]:
        """(pelvis xyz, yaw) of the start placement rule."""
        rule, lay = self.condition.start.robot, self.layout
        ladder_face = self.ladder_yaw + math.pi / 2  # facing the ladder's +y, as a climber does
        floor = PELVIS_STANCE + FLOOR_CLEARANCE
        tread = np.array([*(self.ladder_pos + _rot(self.ladder_yaw, self.tread_centre)), self.tread_top + floor])
        fresh = self.bench_bulb[:2]
        bench_out = self.bench_pos + _rot(self.bench_yaw, (props.FRESH_BULB_ON_BENCH[0], props.FRESH_BULB_ON_BENCH[1] + BENCH_REACH))
        bench_carry = self.bench_pos + _rot(self.bench_yaw, (props.FRESH_BULB_ON_BENCH[0], props.BENCH_HALF[1] + CARRY_STANDOFF))
        toward_crate = self.crate_pos - self.ladder_pos
        toward_crate /= max(np.linalg.norm(toward_crate), 1e-9)
        robot_zone = np.array(lay.zones["robot"])
        away = robot_zone - self.crate_pos
        away /= max(np.linalg.norm(away), 1e-9)
        spots = {
            "robot_zone_facing_ladder": (robot_zone, _heading(robot_zone, self.ladder_pos) + lay.robot_yaw_jitter),
            "floor_at_steps": (self.ladder_pos + _rot(self.ladder_yaw, (0.0, -STEPS_OFF)), ladder_face),
            "on_tread": (tread, ladder_face),
            "beside_ladder_facing_crate": (self.ladder_pos + toward_crate * STEPS_OFF, _heading(self.ladder_pos, self.crate_pos)),
            "at_crate": (self.crate_pos + away * CRATE_STANDOFF, math.atan2(-away[1], -away[0])),
            "off_crate_facing_bench": (robot_zone, _heading(robot_zone, fresh)),
            "at_bench": (bench_out, _heading(bench_out, fresh)),
            # Carrying, the forward arm needs room to turn away from the bench.
            "at_bench_facing_ladder": (bench_carry, _heading(bench_carry, self.ladder_pos)),
        }
        xy, yaw = spots[rule]
        xyz = np.asarray(xy, dtype=float)
        if xyz.shape == (2,):
            xyz = np.array([*xyz, floor])
        return xyz, yaw

    def reset(self, start_seed: int | None = None) -> None:
        """Place everything for the episode's start. Every reset repeats the first; `start_seed` draws
        the start jitter and the observation noise from that seed instead (in the same scene)."""
        if start_seed is None:
            self.rng.bit_generator.state, self.observer.rng.bit_generator.state = self._draws
        else:
            self.rng = generator(f"{self.condition.key}/start", int(start_seed))
            self.observer.rng = generator(f"{self.condition.key}/noise/start", int(start_seed))
        d, m, start = self.data, self.model, self.condition.start
        mujoco.mj_resetData(m, d)
        xyz, yaw = self._robot_start()
        pose = Q0_VECTOR.copy()
        where = {b: getattr(start, b) for b in BULBS}
        carry = (CARRY_POSE if "palm" in where.values() else {}) | (GRIP_POSE | GRIP_FINGERS if "grip" in where.values() else {})
        for name, v in carry.items():
            pose[JOINT_NAMES.index(name)] = v
        if self.randomize and not start.pinned:
            xyz[:2] += self.rng.uniform(-JITTER_XY, JITTER_XY, 2)
            yaw += self.rng.uniform(-JITTER_YAW, JITTER_YAW)
            pose += self.rng.uniform(-JITTER_JOINT, JITTER_JOINT, len(pose))
        self.controller.reset(d, BasePose(*xyz, yaw), pose)
        mujoco.mj_forward(m, d)
        self._clear("robot", self._robot_root)
        # On the tread there is little room to step back: enough for a scaled ladder that lifts the
        # carrying hand into the fixture.
        gripped = [b for b in BULBS if where[b] == "grip"]
        self._back_off(yaw, most=TREAD_BACK_OFF if self.condition.start.robot == "on_tread" else 0.3, carried=gripped)
        occupant = next((b for b in BULBS if where[b] == "seated"), None)
        for bulb in BULBS:
            self._place_bulb(bulb, where[bulb])
            if where[bulb] not in ("seated", "grip"):
                self._clear(bulb, self.free_adr[bulb][0], most=0.1)
        for bulb in gripped:
            self._settle_grip(bulb)
        mujoco.mj_forward(m, d)
        self.seat.reset(occupant)
        self._start_stage(0)
        self.observer.last_action = np.zeros(len(JOINT_NAMES))
        self.steps, self._state_step = 0, -1
        self.last = self.snapshot()
        self.stage_conjuncts = gates.evaluate(self.stages[0].gate, self.last)
        self.reward.reset(self.last)
        self.terms = dict.fromkeys(self.reward.terms, 0.0)
        self.returns = dict.fromkeys(self.reward.terms, 0.0)
        self.rung_forces = self.rungs.read(d) if self.rungs else None

    def _clear(self, who: str, qpos_adr: int, margin: float = 0.001, tries: int = 5, most: float = 0.03) -> None:
        """Raise a free body (at most `most`) until none of its geoms penetrates anything: a start state
        does not begin inside its support, whatever the joint jitter did to the feet."""
        mine = self._robot_bodies if who == "robot" else {self._body[who]}
        for _ in range(tries):
            depth = self._penetration(mine)
            if depth <= 0.0 or depth > most:
                return
            self.data.qpos[qpos_adr + 2] += depth + margin

    def _penetration(self, mine: set[int]) -> float:
        m, d = self.model, self.data
        mujoco.mj_forward(m, d)
        return max((-d.contact[i].dist for i in range(d.ncon)
                    if (m.geom_bodyid[d.contact[i].geom[0]] in mine) != (m.geom_bodyid[d.contact[i].geom[1]] in mine)),
                   default=0.0)

    def _back_off(self, yaw: float, step: float = 0.02, most: float = 0.3, carried: list[str] = ()) -> None:
        """Step the robot back along its heading until it stands clear of the furniture in front
        (the G1's hanging hands reach about 0.4 m ahead of its pelvis); `carried` bulbs go along in
        the hand, clear of the furniture all along the fingers' sweep from open (as the grip's settle starts) to closed."""
        d = self.data
        back = -np.array([math.cos(yaw), math.sin(yaw)]) * step
        mine = self._robot_bodies | {self._body[b] for b in carried}
        closed = d.qpos[self._finger_qpos].copy()
        hands = [closed * k for k in np.linspace(0.0, 1.0, 5)] if carried else [closed]  # the fingers' sweep
        for _ in range(round(most / step)):
            for bulb in carried:
                self._place_bulb(bulb, "grip")
            depth = 0.0
            for fingers in hands:
                d.qpos[self._finger_qpos] = fingers
                depth = max(depth, self._penetration(mine))
            d.qpos[self._finger_qpos] = closed
            if depth <= 0.0:
                return
            d.qpos[self._robot_root : self._robot_root + 2] += back

    def _place_bulb(self, bulb: str, where: str) -> None:
        d = self.data
        qa, va = self.free_adr[bulb]
        size = self.scale.bulb(bulb)
        if where == "seated":  # the plug on the seat, along the socket's axis
            axis = np.zeros(3)
            mujoco.mju_rotVecQuat(axis, np.array([0.0, 0.0, 1.0]), self.fixture_quat)
            pos = np.asarray(self.layout.fixture.pos) + axis * (self.seat.seat_offset - self.plug[bulb])
            quat = self.fixture_quat
        elif where == "bench":
            pos, quat = self.bench_bulb - [0, 0, self.plug[bulb] - 0.0005], np.array([1.0, 0, 0, 0])
        elif where == "crate":
            # Lying on the crate floor, its axis along the crate's length.
            q = np.zeros(4)
            mujoco.mju_euler2Quat(q, [0.0, math.pi / 2, self.crate_yaw], "XYZ")
            axis = np.array([math.cos(self.crate_yaw), math.sin(self.crate_yaw), 0.0])
            centre = np.array([*self.crate_pos, props.CRATE_FLOOR + 0.0396 * size + 0.001])
            pos, quat = centre - axis * props.BULB_CENTRE * size, q
        elif where == "grip":  # in the right hand, the cap out; `_settle_grip` closes the fingers on it
            mujoco.mj_kinematics(self.model, d)
            wrist = self._hand_ids["right"][0]
            R = d.xmat[wrist].reshape(3, 3)
            axis = R @ np.array(GRIP_AXIS[self.layout.fixture.mount])
            quat = np.zeros(4)
            mujoco.mju_quatZ2Vec(quat, axis)
            pos = d.xpos[wrist] + R @ np.array(GRIP_SPOT) - axis * props.BULB_CENTRE * size
        else:  # resting on the right palm, lying across it
            palm = self._hand_ids["right"][0]
            R = d.xmat[palm].reshape(3, 3)
            along, off = PALM_SPOT
            centre = d.xpos[palm] + R @ np.array([along, 0.0, 0.0]) - R[:, 1] * off
            quat = np.zeros(4)
            mujoco.mju_quatZ2Vec(quat, R[:, 2])
            pos = centre - R[:, 2] * props.BULB_CENTRE * size
        d.qpos[qa : qa + 3] = pos
        d.qpos[qa + 3 : qa + 7] = quat
        d.qvel[va : va + 6] = 0.0

    def _settle_grip(self, bulb: str) -> None:
        """Close the right fingers on `bulb` by physics, the rest of the scene held where it starts:
        first with the bulb held too, so the fingers reach the glass, then with it free, so it comes
        to rest in the grip under its weight. The fingers press as their servos' angle error asks."""
        m, d = self.model, self.data
        qa, va = self.free_adr[bulb]
        d.qpos[self._finger_qpos] = 0.0  # open; the targets stay closed
        free_q, free_v = np.zeros(m.nq, bool), np.zeros(m.nv, bool)
        free_q[self._finger_qpos], free_v[self._finger_dof] = True, True
        held = d.qpos.copy()
        for k in range(GRIP_CLOSE + GRIP_SETTLE):
            if k == GRIP_CLOSE:
                free_q[qa : qa + 7], free_v[va : va + 6] = True, True
            mujoco.mj_step(m, d)
            d.qpos[~free_q], d.qvel[~free_v] = held[~free_q], 0.0
        d.time = 0.0

    # -- per step ----------------------------------------------------------------------
    def _hand_contacts(self) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """(2, 8, 3) force on the bulbs by each hand body (right first), and per bulb (16,) force norms."""
        m, d = self.model, self.data
        forces = np.zeros((2, HAND_BODIES, 3))
        per_bulb = {b: np.zeros(2 * HAND_BODIES) for b in BULBS}
        geom_bulb = {g: b for b, g in self._bulb_geoms.items()}
        f6 = np.zeros(6)
        is_bulb = np.zeros(m.ngeom, bool)
        is_bulb[list(geom_bulb)] = True
        on_bulb = is_bulb[d.contact.geom[: d.ncon]].any(axis=1)  # contacts touching no bulb are skipped below
        for i in np.flatnonzero(on_bulb).tolist():
            c = d.contact[i]
            g1, g2 = int(c.geom[0]), int(c.geom[1])
            bulb = geom_bulb.get(g1) or geom_bulb.get(g2)
            if bulb is None:
                continue
            other = m.geom_bodyid[g2 if g1 in geom_bulb else g1]
            hand = self._hand_of.get(int(other))
            if hand is None:
                continue
            mujoco.mj_contactForce(m, d, i, f6)
            world = c.frame.reshape(3, 3).T @ f6[:3]
            side, k = hand
            row = 0 if side == "right" else 1
            forces[row, k] += world
            per_bulb[bulb][row * HAND_BODIES + k] += float(np.linalg.norm(f6[:3]))
        return forces, per_bulb

    def _bulb_state(self, bulb: str, per_body: np.ndarray) -> BulbState:
        d = self.data
        b = self._body[bulb]
        qa, va = self.free_adr[bulb]
        R = d.xmat[b].reshape(3, 3)
        world = d.xpos[b] + self._outline[bulb] @ R.T
        crate_R = np.array([[math.cos(self.crate_yaw), -math.sin(self.crate_yaw)], [math.sin(self.crate_yaw), math.cos(self.crate_yaw)]])
        local = (world[:, :2] - self.crate_pos) @ crate_R
        ix, iy = props.CRATE_INNER_HALF
        in_crate = bool((np.abs(local[:, 0]) <= ix + 0.001).all() and (np.abs(local[:, 1]) <= iy + 0.001).all()
                        and world[:, 2].min() < props.CRATE_SIZE[2])
        geo = self.seat.geometry(d, bulb)
        right, left = per_body[:HAND_BODIES], per_body[HAND_BODIES:]
        return BulbState(
            pos=d.qpos[qa : qa + 3].copy(),
            centre=d.xpos[b] + R[:, 2] * props.BULB_CENTRE * self.scale.bulb(bulb),
            lin_vel=d.qvel[va : va + 3].copy(),
            ang_vel=d.qvel[va + 3 : va + 6].copy(),
            lowest=float(world[:, 2].min()),
            in_crate=in_crate,
            seated=self.seat.state(bulb) == "seated",
            seat_lateral=float(np.linalg.norm(geo.lateral)),
            seat_tilt=geo.tilt,
            plug_to_seat=float(math.hypot(geo.axial, np.linalg.norm(geo.lateral))),
            left_force=float(left.max()),
            right_force=float(right.max()),
            hand_bodies_over_1n=int((per_body > gates.HELD_FORCE).sum()),
            grip_force=float(per_body.max()),
        )

    def snapshot(self) -> Snapshot:
        d = self.data
        self.forces, per_bulb = self._hand_contacts()
        base = self.controller.base_pose(d)
        la, lv = self.free_adr["ladder"]
        lb = self._body["ladder"]
        LR = d.xmat[lb].reshape(3, 3)
        crate_local = np.abs(_rot(-self.crate_yaw, np.array([base.x, base.y]) - self.crate_pos))
        half = np.array(props.CRATE_SIZE[:2]) / 2
        return Snapshot(
            pelvis=np.array([base.x, base.y, base.z]),
            pelvis_tilt=base.tilt,
            pelvis_speed=float(np.linalg.norm(d.qvel[self.observer.vadr : self.observer.vadr + 3])),
            heading=base.yaw,
            ladder_root=d.xpos[lb].copy(),
            ladder_tilt=float(math.acos(max(-1.0, min(1.0, LR[2, 2])))),
            ladder_speed=float(np.linalg.norm(d.qvel[lv : lv + 3])),
            ladder_spin=float(np.linalg.norm(d.qvel[lv + 3 : lv + 6])),
            tread_stance=d.xpos[lb] + LR @ np.array([*self.tread_centre, self.tread_top + PELVIS_STANCE]),
            ladder_top=d.xpos[lb] + LR @ np.array([*self.tread_centre, self.tread_top]),
            seat=d.site_xpos[self.model.site("fixture/seat").id].copy(),
            crate_pos=np.array([*self.crate_pos, 0.0]),
            crate_distance=float(np.linalg.norm(np.maximum(crate_local - half, 0.0))),
            bench_start=self.bench_bulb,
            bulbs={b: self._bulb_state(b, per_bulb[b]) for b in BULBS},
        )

    def state(self) -> np.ndarray:
        """The noisy state of this step: drawn once, so the policy and the recorder see the same values."""
        if self._state_step != self.steps:
            self._state, self._state_step = self.observer.state(self.data, self.forces), self.steps
        return self._state

    def lidar(self) -> np.ndarray:
        return self.observer.lidar(self.data)

    def observation(self) -> dict[str, np.ndarray]:
        """The vectors of the observation mode, float32. Standard: `state` (the noisy state of
        `state()`); privileged: `state` without noise and `privileged` (`privileged_vector`). The
        climbing task adds `rung_forces`: F_rung as sensed, or measured in the privileged mode."""
        if self.obs_mode == "standard":
            obs = {"state": self.state()}
        else:
            obs = {"state": self.observer.exact_state(self.data, self.forces), "privileged": self.privileged_vector()}
        if self.rungs is not None:
            rungs = self.rung_forces if self.obs_mode == "standard" else self.rungs.exact(self.data)
            obs["rung_forces"] = np.asarray(rungs, dtype=np.float32)
        return obs

    def privileged_vector(self) -> np.ndarray:
        """The paper's privileged observation (III-B, eq. 2): the poses of `POSED`, the four score
        distances, and whether the old and the fresh bulb are seated; (48,) float32."""
        d, s = self.data, self.last
        poses = [np.concatenate([d.xpos[self._body[n]], d.xquat[self._body[n]]]) for n in POSED]
        dist = list(distances(s).values())
        seated = [float(s.bulbs[b].seated) for b in ("old_bulb", "fresh_bulb")]
        return np.concatenate([*poses, dist, seated]).astype(np.float32)

    # -- stages --------------------------------------------------------------------
    def _start_stage(self, index: int) -> None:
        if index == 0:
            self.passed = [False] * len(self.stages)
        self.stage = index
        self.hold = HoldCounter(self.stages[index].hold_steps)

    @property
    def conjuncts(self) -> dict[str, bool]:
        """The condition's gate columns: a subtask's conjuncts, or the errand's passed stages."""
        if len(self.stages) == 1:
            return self.stage_conjuncts
        return {stage_flag(t): p for t, p in zip(self.stages, self.passed)}

    def _judge(self, s: Snapshot) -> tuple[bool, bool, str | None]:
        """(gate holds now, the last stage has passed, early ending) for this step, moving to the
        next stage when the current one's gate has held for its window."""
        stage = self.stages[self.stage]
        self.stage_conjuncts = gates.evaluate(stage.gate, s)
        now = all(self.stage_conjuncts.values())
        if not self.hold.update(now):
            return now, False, termination(stage, s)
        self.passed[self.stage] = True
        if self.stage + 1 == len(self.stages):
            return now, True, SUCCESS
        self._start_stage(self.stage + 1)
        return now, False, None

    def step(self, row: np.ndarray) -> StepResult:
        self.sim.step(self.contract.decode(row))
        last_action = self.observer.last_action
        if self.contract is JOINT_POSITION_V1:
            self.observer.last_action = np.asarray(row, dtype=np.float64)
        else:  # the observation's last action: the servo targets the controller set, as a joint-position action
            self.observer.last_action = (self.data.ctrl[self._act] - Q0_VECTOR) / SCALE
        self.seat.update(self.data)
        self.steps += 1
        s = self.last = self.snapshot()
        stage = self.stage
        now, success, outcome = self._judge(s)
        if self.rungs is not None:
            self.rung_forces = self.rungs.read(self.data)
        motion = self.motion.read(self.data, self.observer.last_action, last_action)
        self.terms = self.reward.step(s, motion, outcome, success, self.rung_forces)
        for k, v in self.terms.items():
            self.returns[k] += v
        metrics = {
            "pelvis_z": float(s.pelvis[2]),
            "pelvis_tilt": s.pelvis_tilt,
            "ladder_tilt": s.ladder_tilt,
            "grip_force": float(max(b.grip_force for b in s.bulbs.values())),
            "conjuncts_true": sum(self.stage_conjuncts.values()),
            **{f"gate_{k}": v for k, v in self.conjuncts.items()},
            RETURN: math.fsum(self.returns.values()),
            **{f"{RETURN}/{k}": v for k, v in self.returns.items()},
        }
        if len(self.stages) > 1:  # which stage (1 = S01) this step judged, and its conjuncts
            metrics["stage"] = stage + 1
            metrics |= {f"stage_{k}": v for k, v in self.stage_conjuncts.items()}
        return StepResult(metrics, now and self.stage == len(self.stages) - 1, success, outcome)

    def privileged(self) -> dict:
        """The original's privileged observation (six poses, four distances, two seat flags), plus
        what a scripted expert needs beside it: the subtask, the controller, the base pose, every
        joint angle (JOINT_NAMES order), the seat and the socket's axis, the largest force a hand
        body puts on each bulb (what the crush limit reads), the floor footprints and the room's
        walls (x0, y0, x1, y1)."""
        d, s = self.data, self.last
        poses = {n: np.concatenate([d.xpos[b], d.xquat[b]]) for n, b in self._body.items()}
        base = self.controller.base_pose(d)
        seat = self.model.site("fixture/seat").id
        return {
            "subtask": self.stages[self.stage].key,
            "controller": self.controller.name,
            "base": np.array([base.x, base.y, base.z, base.yaw]),
            "joints": d.qpos[self.observer.q].copy(),
            "seat": d.site_xpos[seat].copy(),
            "seat_axis": d.site_xmat[seat].reshape(3, 3)[:, 2].copy(),
            "poses": poses,
            "distances": {
                "pelvis_to_ladder": float(np.linalg.norm(s.pelvis[:2] - s.ladder_root[:2])),
                "pelvis_to_crate": s.crate_distance,
                "old_bulb_to_seat": s.bulbs["old_bulb"].plug_to_seat,
                "fresh_bulb_to_seat": s.bulbs["fresh_bulb"].plug_to_seat,
            },
            "seated": {b: s.bulbs[b].seated for b in BULBS},
            "grip_force": {b: s.bulbs[b].grip_force for b in BULBS},
            "footprints": self.footprints(),
            "room": (ROOM_CENTRE[0] - ROOM_SIZE[0] / 2, ROOM_CENTRE[1] - ROOM_SIZE[1] / 2,
                     ROOM_CENTRE[0] + ROOM_SIZE[0] / 2, ROOM_CENTRE[1] + ROOM_SIZE[1] / 2),
        }

    def footprints(self) -> dict[str, tuple[float, float, float, float, float]]:
        """(centre x, centre y, half length, half width, yaw) of what stands on the floor: the workbench
        and crate where they were placed, the ladder where it stands now (it can be pushed)."""
        d = self.data
        ladder = self._body["ladder"]
        lr = d.xmat[ladder].reshape(3, 3)
        half = (props.LADDER_SIZE[0] / 2 * self.scale.ladder[0], props.LADDER_SIZE[1] / 2 * self.scale.ladder[1])
        return {
            "workbench": (*map(float, self.bench_pos), *props.BENCH_HALF, float(self.bench_yaw)),
            "crate": (*map(float, self.crate_pos), props.CRATE_SIZE[0] / 2, props.CRATE_SIZE[1] / 2, float(self.crate_yaw)),
            "ladder": (*map(float, d.xpos[ladder, :2]), *half, math.atan2(lr[1, 0], lr[0, 0])),
        }
