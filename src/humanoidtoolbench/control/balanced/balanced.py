"""`balanced`: a model-based whole-body controller on the free-floating robot.

It executes the whole `decoupled_v1` command on a robot with a free joint
and real foot contacts, so a policy's reach and gait can make it fall.

Per 50 Hz command:
1. The footstep schedule (`footsteps.py`) turns slots 32-35 (velocity in the
   body frame, heading with the public engage thresholds) into footsteps and
   a ZMP reference over the next 1.6 s; the reference is corrected for the
   swinging legs (`swing_zmp_shift`).
2. ZMP preview control (`preview.py`) advances the planned CoM, leaning it
   off the ZMP into a load on the arms (`armload.py`).
3. Capture-point stepping: the swing foot's landing point moves with the
   difference between the measured and the planned divergent component of
   motion, both taken from the stance foot.
4. The whole-body IK (`wholebody.py`, mink + daqp) moves the control robot:
   feet on their plan, CoM over the plan, pelvis at the commanded height
   (slot 31) and upright, waist/arm/hand joints at slots 0-30 (or where they
   are, when far from them). Their mass is in the model, so arm and waist
   motion shift the hips, not the feet. An engaged command that asks for no
   motion (turn flag on, heading reached) stands rather than steps in place.
5. Leg servo targets: the control robot's joints, plus the static and
   planned-acceleration torques (the floor's force shared between the feet
   at centres of pressure placed for the ZMP reference, less what a load on
   the arms takes, `StaticFeedforward`)
   and, for supporting legs, the servo damping at the planned joint velocity
   (a share of it for a swinging leg walking backwards: `swing_lead`), both
   divided by the servo stiffness. Upper-body slots go to their servos,
   offset by their gravity torques (and a load's) over the servo stiffness.

The standing robot is the same loop with no footsteps.

On soft servos (Fiatlux's research gains: 40 N m/rad at the ankles) the
plan alone leaves the standing pendulum unstable, so options of `Tuning`
close the loop at 50 Hz: the ZMP the feet are asked to produce moves with
the measured DCM's error from the plan (both taken from the planted feet,
so slipping feet do not wind it up); and, for walking, planted feet
are held flat, the pelvis's roll and pitch are fed back on the planted
hips and taken out of the swinging hip's targets (`_stabilise`); and, at
the physics rate, the leg targets move against the measured joint
velocities, so lightly damped servos brake as more damped ones would
(`leg_damping`, the only per-physics-step work); and stepping that starts
from standing plans from the robot as it stands, not from where the last
plan left its feet (`anchor`: soft-servo feet slide in a turn); and, while
the command engages walking but asks for no translation (a turn in place,
a heading held), part-way through each double support after a step the
plan moves onto the planted feet as measured (`reland`: they slide in
every step of a turn).
Off by default: the stiff `balanced` variant stands and walks without them.
Another option, also off by default, takes the ground from the surface
under the spawn point at reset (a ladder's tread): feet, pelvis height and
pendulum then count from it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import mujoco
import numpy as np

from ...angles import wrap
from ...robot import assets
from ...robot.joints import BY_NAME, LEG_JOINTS, PELVIS
from ..base import BasePose, FloatingBaseController
from ..contracts.decoupled_v1 import JOINT_SLOTS, Command
from ..legs import FOOT_Y, leg_ik
from .armload import ArmLoads, Lean
from .footsteps import SIDES, Schedule, Timing, clip, other, rot, support_point, swing_zmp_shift
from .preview import G, PreviewCoM
from .wholebody import FEET, StaticFeedforward, WholeBodyIK

SOLE_DROP = 0.035  # m: the ankle-roll origin above the floor when the foot is flat
UPPER_TOLERANCE = 0.05  # rad
IDLE = 0.02  # m/s or rad/s: an engaged command slower than this everywhere lets the robot stand
LEGS = [n for side in SIDES for n in LEG_JOINTS[side]]  # left then right, six each


@dataclass(frozen=True)
class Tuning:
    height_range: tuple[float, float] = (0.60, 0.78)  # pelvis heights slot 31 is clamped to
    height_rate: float = 0.25  # m/s
    com_below_pelvis: float = 0.07  # m: the pendulum height is the pelvis height less this
    turn_time_constant: float = 0.5  # s, as the assisted base turns
    turn_rate_max: float = 1.0  # rad/s
    turn_dead_zone: float = 0.01  # rad
    swing_leg_mass: float = 3.0  # kg lumped at each foot for the swing correction of the ZMP
    step_gain: float = 1.3  # landing offset per metre of DCM error
    step_window: float = 0.6  # fraction of the swing in which the landing point may move
    step_limit: float = 0.08  # m, per axis
    cop_box: tuple[float, float] = (0.06, 0.02)  # m: how far a foot's CoP may leave its support point
    dcm_gain: float = 0.0  # ZMP shift per metre of measured DCM error (0: no DCM feedback)
    dcm_clip: float = 0.05  # m, per axis: the largest such shift
    flat_feet: float = 0.0  # share of a planted foot's measured tilt taken out of its ankle targets per command
    attitude: tuple[float, float, float] = (0.0, 0.0, 0.0)  # pelvis roll, pitch (N m/rad) and rate (N m s/rad) gains on the planted hips
    idle_capture: bool = False  # capture-point stepping also in the steps to a stop (soft servos need it)
    swing_level: float = 0.0  # share of the pelvis's measured roll and pitch taken out of a swinging hip's targets, while vx or vy asks for motion
    swing_lead: float = 0.0  # share of the servo damping at the planned velocity a swinging leg's targets carry, while vx asks to walk backwards
    ground_from_spawn: bool = False  # stand on the surface under the spawn point (a ladder's tread), not z = 0
    leg_damping: tuple[float, ...] = (0.0,) * 6  # N m s/rad added to each leg's (hip pitch, roll, yaw, knee, ankle pitch, roll) servo, every physics step
    anchor: bool = False  # when stepping starts from standing, plan from the measured feet, CoM and joints (`_anchor`)
    reland: float | None = None  # engaged, no translation: at this fraction (0-1) of each double support after a step, plan from the planted feet (`_reland`)
    lean: Lean = Lean()  # leaning into what the arms are pushed or pulled by (`armload.py`)

    def __post_init__(self) -> None:
        if self.reland is not None and not 0.0 < self.reland < 1.0:
            raise ValueError(f"Tuning.reland is a fraction of the double support, 0 < reland < 1; got {self.reland}")


# The stiff `balanced` variant's tuning. With no damping lead on the swinging leg, its servo
# damping (kd / kp = 67 ms) held the foot 2-12 cm behind its plan in mid-swing and the pelvis
# pitched 0.02-0.08 rad towards the walk; a foot stepping backwards touched down 1-9 cm short of
# its landing point (forward, 2-4 cm long), so vx -0.3 m/s covered 0.60 m in 3 s and +0.3 0.79 m.
# The full lead overshoots both ways (landings 3-15 cm long; 0.86 / 0.98 m); 0.7 of it covers
# 0.78 / 0.91 m. Only backward steps keep it: forward ones already landed long, and with the lead
# there too the find-navigate-sit oracle fell on 22 of 40 episodes (13 with it backwards only,
# 15 with none). Turning and in-place steps keep none: with it, a heading hold wandered 0.066 rad,
# and the steps to a stop in the low work posture spun up and fell.
STIFF = Tuning(swing_lead=0.7)


@lru_cache(maxsize=4)
def _robot_model(path: str) -> mujoco.MjModel:
    """The robot alone (no scene): what the control robot and the feedforward reason about."""
    return mujoco.MjModel.from_xml_path(path)


def _yaw(xmat: np.ndarray) -> float:
    """The heading of a body from its world rotation matrix (MuJoCo's flat xmat row)."""
    return math.atan2(xmat[3], xmat[0])


def _roll_pitch(xmat: np.ndarray) -> tuple[float, float]:
    """Roll and pitch of a body (from its world rotation matrix) in its own heading frame."""
    r = xmat.reshape(3, 3)
    yaw = _yaw(xmat)
    c, s = math.cos(yaw), math.sin(yaw)
    h = np.array([[c, s, 0.0], [-s, c, 0.0], [0.0, 0.0, 1.0]]) @ r
    return math.atan2(h[2, 1], h[2, 2]), -math.asin(float(np.clip(h[2, 0], -1.0, 1.0)))


class BalancedController(FloatingBaseController[Command]):
    name = "balanced"
    variant = "balanced"

    def __init__(self, tuning: Tuning = STIFF, timing: Timing = Timing()) -> None:
        self.tuning = tuning
        self.timing = timing
        self.ground = 0.0  # m: the surface the feet stand on; heights and the pendulum count from it

    # -- model -----------------------------------------------------------
    def bind(self, model: mujoco.MjModel) -> None:
        self._model = model
        self.bind_root(model)
        self._pelvis = model.body(PELVIS).id
        self._leg_act = np.array([model.actuator(n.removesuffix("_joint")).id for n in LEGS])
        self._slot_act = np.array([model.actuator(n.removesuffix("_joint")).id for n in JOINT_SLOTS])
        self._leg_kp = model.actuator_gainprm[self._leg_act, 0].copy()
        self._leg_kd = -model.actuator_biasprm[self._leg_act, 2].copy()
        self._leg_dof = np.array([model.jnt_dofadr[model.joint(n).id] for n in LEGS])
        self._leg_damping = np.tile(self.tuning.leg_damping, 2)
        self._slot_kp = model.actuator_gainprm[self._slot_act, 0].copy()
        self._foot_body = {s: model.body(FEET[s]).id for s in SIDES}
        self._slot_lo = np.array([BY_NAME[n].lo for n in JOINT_SLOTS])
        self._slot_hi = np.array([BY_NAME[n].hi for n in JOINT_SLOTS])
        self.arm_loads = ArmLoads(model, self.tuning.lean)

        robot = _robot_model(str(assets.installed().model_path("fast", self.variant)))
        self.ik = WholeBodyIK(robot)
        self.ff = StaticFeedforward(robot)
        self._ik_leg_qpos = np.array([robot.jnt_qposadr[robot.joint(n).id] for n in LEGS])
        self._ik_leg_dof = np.array([robot.jnt_dofadr[robot.joint(n).id] for n in LEGS])
        self._ik_slot_dof = np.array([robot.jnt_dofadr[robot.joint(n).id] for n in JOINT_SLOTS])
        scene_qpos = []  # the scene's qpos index of each of the robot model's coordinates
        for j in range(robot.njnt):
            width = 7 if robot.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE else 1
            start = int(model.jnt_qposadr[model.joint(robot.joint(j).name).id])
            scene_qpos.extend(range(start, start + width))
        self._scene_qpos = np.array(scene_qpos)

    # -- episode ---------------------------------------------------------
    def reset(self, data: mujoco.MjData, spawn: BasePose, upper_pose: np.ndarray) -> None:
        """Stand at `spawn` (x, y, yaw; z is the pelvis's world height) with feet flat at the home stance."""
        tn, ik = self.tuning, self.ik
        self.ground = self._ground_under(data, spawn) if tn.ground_from_spawn else 0.0
        self.height = float(np.clip(spawn.z - self.ground, *tn.height_range))
        q = ik.model.qpos0.copy()
        quat = np.zeros(4)
        mujoco.mju_euler2Quat(quat, [0.0, 0.0, spawn.yaw], "XYZ")
        q[:7] = [spawn.x, spawn.y, self.ground + self.height, *quat]
        for i, side in enumerate(SIDES):
            sign = 1.0 if side == "left" else -1.0
            q[self._ik_leg_qpos[6 * i : 6 * i + 6]] = leg_ik(side, np.array([0.0, sign * FOOT_Y, -self.height]), 0.0)
        upper = np.clip(np.asarray(upper_pose, float), self._slot_lo, self._slot_hi)
        q[ik.slot_qpos] = upper
        ik.set_q(q)
        ankles = {s: ik.foot_pose(s).translation() for s in SIDES}
        mid = (ankles["left"] + ankles["right"]) / 2
        self.schedule = Schedule.standing(self.timing, np.array([mid[0], mid[1], spawn.yaw]))
        self.com = PreviewCoM(0.02)
        self.com.reset(self.schedule.centre())
        feet = self._foot_targets()
        for _ in range(30):  # settle the control robot onto its targets before the first step
            q = ik.solve(upper, feet, self.com.position, self.ground + self.height, spawn.yaw, 0.02)
        ik.set_q(q)
        data.qpos[self._scene_qpos] = q
        data.qvel[:] = 0.0
        data.ctrl[self._leg_act] = q[self._ik_leg_qpos]
        data.ctrl[self._slot_act] = upper
        mujoco.mj_kinematics(self._model, data)
        mujoco.mj_comPos(self._model, data)
        self._last_com = data.subtree_com[self._pelvis, :2].copy()
        self.arm_loads.reset()

    def apply(self, data: mujoco.MjData, cmd: Command, dt: float) -> None:
        tn, sch = self.tuning, self.schedule
        upper = clip(cmd.joint_targets, self._slot_lo, self._slot_hi)
        goal = min(max(float(cmd.base_height), tn.height_range[0]), tn.height_range[1])
        self.height += min(max(goal - self.height, -tn.height_rate * dt), tn.height_rate * dt)
        zc = self.height - tn.com_below_pelvis
        omega = math.sqrt(G / zc)

        velocity = self._body_velocity(data, cmd)
        # Engaged with nothing to do (turn flag on, heading reached, no velocity): stand, not step in place.
        stepping = cmd.walking and max(abs(v) for v in velocity) > IDLE
        if stepping and tn.anchor and sch.phase == "stand":
            self._anchor(data)
            velocity = self._body_velocity(data, cmd)  # from the anchored frame, as every later step computes it
        translating = max(abs(velocity[0]), abs(velocity[1])) > IDLE
        if (tn.reland is not None and cmd.walking and not translating and sch.phase == "double" and not sch.from_stand
                and sch.t <= tn.reland * sch.duration < sch.t + dt):
            self._reland(data)
        ref, centre, feet_ahead = sch.preview(dt, self.com.steps, velocity, stepping)
        ref = ref - swing_zmp_shift(ref, centre, feet_ahead, dt, tn.swing_leg_mass / self.ff.mass, zc)

        com = data.subtree_com[self._pelvis, :2].copy()
        com_vel = (com - self._last_com) / dt
        self._last_com = com
        # Capture-point stepping, both DCMs taken from the stance foot. Only while the command asks
        # for motion, unless `idle_capture`: stepping to a stop, an offset on every landing kept the
        # feet from their home placement, so an idle robot stepped in place and crept 2-5 cm a step.
        if sch.phase == "single" and (stepping or tn.idle_capture):
            stance = other(sch.swing)
            real = com + com_vel / omega - self._measured_foot(data, stance)
            plan = self.com.position + self.com.velocity / omega - sch.feet[stance][:2]
            sch.adjust_landing(tn.step_gain * (real - plan), tn.step_window, tn.step_limit)

        zmp = ref[0] if not tn.dcm_gain else ref[0] + self._dcm_shift(data, com, com_vel, omega)
        share, cop = self._distribute(zmp)
        # A load on the arms: the planned CoM leans off the ZMP the feet produce, so the weight's
        # moment answers the load's, and the feedforward counts the load as it counts the floor.
        self.arm_loads.update(data, dt)
        lean = self.arm_loads.lean_into(data, np.array([*ref[0], self.ground]), self.ff.mass)
        loads = ()
        if lean is not None:
            ref, loads = ref + lean[0], lean[1]
        self.com.step(ref, zc)
        sch.advance(dt, velocity, stepping)
        # Joints far from their targets (an arm stopped by the torso, or still swinging) count where
        # they are, less the tolerance: their mass is there, and that is what the legs must balance.
        # Joints close to their targets count at the targets, so servo jitter does not shake the legs.
        # The blend is continuous: a switch between target and measured made a waist sagging about
        # the tolerance under the pitched torso jump the CoM target every step, and the legs
        # chattered (0.5 rad/s reversals) until the feet slid or left the floor.
        measured = clip(data.qpos[self._scene_qpos[self.ik.slot_qpos]], self._slot_lo, self._slot_hi)
        off = measured - upper
        upper_now = upper + off - clip(off, -UPPER_TOLERANCE, UPPER_TOLERANCE)
        q = self.ik.solve(upper_now, self._foot_targets(), self.com.position, self.ground + self.height, sch.heading(), dt)

        torques = self.ff.torques(self.ik.cfg.data, share, cop, self.com.acceleration, self.ground, loads)
        tau = torques[self._ik_leg_dof]
        damping = self._leg_kd * self.ik.velocity[self._ik_leg_dof]
        if sch.phase == "single":  # a swinging leg's damping lead: a share of the full one, walking backwards
            lead = tn.swing_lead if velocity[0] < -IDLE else 0.0
            damping[slice(0, 6) if sch.swing == "left" else slice(6, 12)] *= lead
        target = q[self._ik_leg_qpos]
        if tn.flat_feet or any(tn.attitude) or tn.swing_level:
            target, tau = self._stabilise(data, target.copy(), tau.copy(), translating)
        data.ctrl[self._leg_act] = self._leg_ctrl = target + (tau + damping) / self._leg_kp
        # Upper-body servos get their gravity torques as an offset too: without it the pitched
        # waist sagged 0.055 rad and the shoulder 0.06 under their own weight (nothing cancels
        # gravity on this robot), putting a reaching hand 5 cm below its target.
        data.ctrl[self._slot_act] = upper + torques[self._ik_slot_dof] / self._slot_kp

    @property
    def physics_step_hook(self) -> bool:
        return any(self.tuning.leg_damping)

    def before_physics_step(self, data: mujoco.MjData) -> None:
        """`leg_damping` at the physics rate: each leg target moves against its joint's measured
        velocity, so the servo brakes as a more damped one would. Held over the four physics steps
        of a command, such a term diverges on a lightly loaded joint; renewed every step it is
        stable."""
        data.ctrl[self._leg_act] = self._leg_ctrl - self._leg_damping * data.qvel[self._leg_dof] / self._leg_kp

    def _anchor(self, data: mujoco.MjData) -> None:
        """Plan from where the robot stands: the planted feet, the body frame between them, the
        CoM (at rest) and the control robot's joints all taken from the measured robot. Feet slip
        in a turn in place on soft servos (at S07's start a 1.4 rad turn left them 2.8 cm closer
        and 9 cm off the plan), and a walk planned on the old footholds fell in its second step."""
        sch = self.schedule
        for side in SIDES:
            sch.feet[side] = self._measured_pose(data, side)
        mid = (sch.feet["left"][:2] + sch.feet["right"][:2]) / 2
        sch.body = np.array([*mid, sch.heading()])
        self.com.reset(data.subtree_com[self._pelvis, :2])
        self.ik.set_q(data.qpos[self._scene_qpos], posture=False)

    def _reland(self, data: mujoco.MjData) -> None:
        """Move the plan onto the planted feet as measured; the body frame and the planned CoM
        shift by the feet's mean error, so the CoM keeps its place between them. Soft-servo feet
        slide in every step of a turn (at S09 seed 13 a landing 8 cm off its plan tipped the robot
        over the other foot); part-way through the double support the landed foot has stopped
        bouncing. While the command engages walking, not only while it asks for yaw: a heading
        held to its end asks too little yaw in its last steps to count as stepping, and turns
        read in every step but those fell there. Not under the zero command: feet read where
        they slid are never back at home, and its steps to a stop did not end."""
        sch = self.schedule
        shift = np.zeros(2)
        for side in SIDES:
            measured = self._measured_pose(data, side)
            shift += (measured[:2] - sch.feet[side][:2]) / 2
            sch.feet[side] = measured
        sch.body[:2] += shift
        self.com.x[0] += shift

    def _stabilise(self, data: mujoco.MjData, target: np.ndarray, tau: np.ndarray, translating: bool) -> tuple[np.ndarray, np.ndarray]:
        """Measured-state feedback for soft servos.

        Flat feet: a planted foot's ankle targets absorb `flat_feet` of the sole's measured tilt, so
        the sole stays on its four contact spheres; on 40 N m/rad ankles it otherwise rolls onto an
        edge (5-17 degrees measured at 0.15 m/s) and the robot spins on it. Attitude: the pelvis's
        measured roll and pitch and their rates become hip roll and pitch torques (a positive hip
        torque turns the pelvis back), shared between the planted legs so double support is not
        fed back twice. Swing level, while vx or vy asks for motion: the swinging hip's targets turn
        the leg back by `swing_level` of the pelvis's measured roll and pitch, so the foot travels
        level rather than tilted with it (turning in place with it, a +pi/2 turn fell at 10 s).
        """
        tn = self.tuning
        planted = self._planted()
        measured = data.qpos[self._scene_qpos[self._ik_leg_qpos]]
        k_roll, k_pitch, rate = tn.attitude
        pelvis_roll, pelvis_pitch = _roll_pitch(data.xmat[self._pelvis])
        w = data.qvel[self._root_dof + 3 : self._root_dof + 6]  # pelvis frame
        for side in planted:
            i = 0 if side == "left" else 6  # hip pitch, roll, yaw, knee, ankle pitch, roll
            if tn.flat_feet:
                roll, pitch = _roll_pitch(data.xmat[self._foot_body[side]])
                target[i + 4] += tn.flat_feet * (measured[i + 4] - pitch - target[i + 4])
                target[i + 5] += tn.flat_feet * (measured[i + 5] - roll - target[i + 5])
            tau[i] += (k_pitch * pelvis_pitch + rate * w[1]) / len(planted)
            tau[i + 1] += (k_roll * pelvis_roll + rate * w[0]) / len(planted)
        if tn.swing_level and translating and self.schedule.phase == "single":
            i = 0 if self.schedule.swing == "left" else 6
            target[i] -= tn.swing_level * pelvis_pitch
            target[i + 1] -= tn.swing_level * pelvis_roll
        return target, tau

    def _planted(self) -> list[str]:
        """The feet on the floor now: the stance foot in single support, else both."""
        sch = self.schedule
        return [other(sch.swing)] if sch.phase == "single" else list(SIDES)

    def _dcm_shift(self, data: mujoco.MjData, com: np.ndarray, com_vel: np.ndarray, omega: float) -> np.ndarray:
        """How far to move the ZMP for the measured DCM's error from the planned one, each taken
        from the planted feet (the stance foot, or both)."""
        tn, sch = self.tuning, self.schedule
        planted = self._planted()
        measured = np.mean([self._measured_foot(data, s) for s in planted], axis=0)
        planned = np.mean([sch.feet[s][:2] for s in planted], axis=0)
        error = (com + com_vel / omega - measured) - (self.com.position + self.com.velocity / omega - planned)
        return np.clip(tn.dcm_gain * error, -tn.dcm_clip, tn.dcm_clip)

    @property
    def commanded_base(self) -> tuple[float, float, float, float]:
        """Where the walking pattern is taking the pelvis (x, y, z, yaw): the planned CoM's ground
        point, the rate-limited height and the heading between the planned feet (all smooth)."""
        x, y = (float(v) for v in self.com.position)
        return (x, y, self.ground + self.height, self.schedule.heading())

    def _body_velocity(self, data: mujoco.MjData, cmd: Command) -> tuple[float, float, float]:
        """(vx, vy, yaw rate) for the footsteps; the heading error counts any slip of the feet."""
        tn, sch = self.tuning, self.schedule
        if not cmd.walking:
            return (0.0, 0.0, 0.0)
        rate = 0.0
        if cmd.turning:
            slip = wrap(self.base_pose(data).yaw - sch.heading())
            err = wrap(cmd.target_yaw - sch.body[2] - slip)
            if abs(err) > tn.turn_dead_zone:
                rate = min(max(float(err / tn.turn_time_constant), -tn.turn_rate_max), tn.turn_rate_max)
        return (cmd.vx, cmd.vy, rate)

    def _foot_targets(self) -> dict:
        """Each foot's target for the control robot: its heading and its ankle's position."""
        out = {}
        for side in SIDES:
            pose, lift = self.schedule.foot(side)
            out[side] = (pose[2], (pose[0], pose[1], self.ground + SOLE_DROP + lift))
        return out

    def _distribute(self, zmp: np.ndarray) -> tuple[dict, dict]:
        """Each foot's share of the weight and its centre of pressure for a ZMP: shares from where
        the ZMP lies between the supports, the rest of the offset taken by each foot's CoP."""
        sch, box = self.schedule, np.array(self.tuning.cop_box)
        pts = {s: support_point(sch.feet[s]) for s in SIDES}
        if sch.phase == "single":
            share = {other(sch.swing): 1.0, sch.swing: 0.0}
        else:
            seg = pts["right"] - pts["left"]
            t = min(max(float(np.dot(zmp - pts["left"], seg) / max(float(np.dot(seg, seg)), 1e-9)), 0.0), 1.0)
            share = {"left": 1.0 - t, "right": t}
        offset = zmp - (pts["left"] * share["left"] + pts["right"] * share["right"])
        cop = {s: pts[s] + rot(f[2], clip(rot(-f[2], offset), -box, box)) for s, f in sch.feet.items()}
        return share, cop

    def _ground_under(self, data: mujoco.MjData, spawn: BasePose) -> float:
        """The height of the first surface straight below the spawn point (to 0.1 mm), the robot
        lifted out of the way first: where its feet will stand."""
        data.qpos[self._root_qpos + 2] = spawn.z + 10.0
        mujoco.mj_kinematics(self._model, data)
        hit = np.zeros(1, dtype=np.int32)
        dist = mujoco.mj_ray(self._model, data, np.array([spawn.x, spawn.y, spawn.z]), np.array([0.0, 0.0, -1.0]), None, 1, -1, hit)
        return round(spawn.z - dist, 4) if dist >= 0 else 0.0

    def _measured_foot(self, data: mujoco.MjData, side: str) -> np.ndarray:
        return data.xpos[self._foot_body[side], :2].copy()

    def _measured_pose(self, data: mujoco.MjData, side: str) -> np.ndarray:
        """A foot's planar pose (x, y, yaw) as it stands."""
        body = self._foot_body[side]
        return np.array([*data.xpos[body, :2], _yaw(data.xmat[body])])
