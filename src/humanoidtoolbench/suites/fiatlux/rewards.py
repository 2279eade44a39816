"""The Fiatlux rewards: the benchmark task's (paper III-E) and the standalone climb's (III-D).

Every number is in `WEIGHTS`, one table: each term's weight, with the paper's
value and the section that gives it. A term pays value x weight x DT on a
control step (DT = 0.02 s), as the original's reward manager scales every
term. Where the paper bounds what a term pays over an episode instead of
giving its weight, the weight is bound / DT: a progress potential saturates
at 1 and a bonus pays on one step, so weight x DT is the most either pays
(the ladder's progress, bounded at 5: 5 / 0.02 = 250).

The task reward, on every subtask and the errand:

- progress on the four score distances of III-B (`distances`): the ladder's
  top to the seat, the fresh bulb's plug to the seat, the old bulb's plug to
  the seat, the old bulb to the crate. Phi = clamp((d0 - d) / d0, 0, 1) with
  d0 measured after the reset and floored at 1 mm, and a step pays
  Phi(t) - Phi(t-1): approaching pays, retreating costs, holding pays
  nothing, and an episode's sum is Phi(T) - Phi(0), where it ended. The old
  bulb starts seated, so its potential is the clearance instead,
  clamp(d / 0.10 m, 0, 1).
- completion bonuses, each paid on the first step its predicate holds: the
  ladder in place (`ladder_ready`), the fresh bulb seated, the old bulb out
  (`old_bulb_unseated`: free and 0.10 m clear), the old bulb in the crate, and
  the episode's success. A predicate that already holds after the reset (the
  fresh bulb seated at S12's start) pays nothing: the subtask did not achieve it.
- penalties on the step an episode ends by a fall, a tipped ladder, a dropped
  or a crushed bulb, and the stability and smoothness terms every step.

The climbing reward (III-D) pays each new centimetre of the pelvis's record
height once (`Record`), the share of the four limbs pushing on the ladder
harder than 1.0 N (`RungSensor` measures them), the success bonus, and the
same stability and smoothness terms and fall penalty.

Stability and smoothness, as the original computes them: CoM sway is the
squared horizontal speed of the robot's centre of mass, wobble the squared
roll and pitch rate of the pelvis (its own frame), action rate the squared
change of the action, joint acceleration the squared accelerations of the
hip and knee joints, ankle limits how far the ankles are past their range
(rad, summed), waist and finger deviation the summed |q - q0| of those joints.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import MappingProxyType
from typing import Callable

import mujoco
import numpy as np

from ...control.contracts.joint_position import JOINT_NAMES
from ...sim.scene import CONTROL_DT
from .contract import Q0_VECTOR
from ..base import FELL
from . import gates
from .gates import Snapshot
from .subtasks import CRUSHED, DROPPED, TIPPED

DT = CONTROL_DT  # s, the control step every term is scaled by
D0_FLOOR = 1e-3  # m: a start distance below this is taken as this
D_CLEAR = 0.10  # m: the old bulb's clearance from the seat that saturates its potential
RECORD_STEP = 0.01  # m: the climbing record pays in whole centimetres
RUNG_FORCE = 1.0  # N: a limb pushing harder than this counts as in contact (F_min)


@dataclass(frozen=True)
class Weight:
    value: float  # per second; a step pays value x weight x DT
    source: str  # where the paper gives it, and how it was derived from a bound


# Progress and bonuses: the paper bounds what they pay; weight = bound / DT.
WEIGHTS = MappingProxyType({
    "progress_ladder": Weight(250.0, "III-E: the ladder's progress is bounded at 5 -> 5 / 0.02"),
    "progress_fresh": Weight(500.0, "III-E: the fresh bulb's progress is bounded at 10 -> 10 / 0.02"),
    "progress_old": Weight(250.0, "III-E: the old bulb's removal is bounded at 5 -> 5 / 0.02"),
    "progress_disposal": Weight(500.0, "III-E: disposal progress is bounded at 10 -> 10 / 0.02"),
    "bonus_ladder": Weight(100.0, "III-E: the ladder in place pays 2 -> 2 / 0.02"),
    "bonus_fresh": Weight(250.0, "III-E: the fresh bulb inserted pays 5 -> 5 / 0.02"),
    "bonus_old": Weight(150.0, "III-E: the old bulb removed pays 3 -> 3 / 0.02"),
    "bonus_disposal": Weight(250.0, "III-E: the old bulb disposed pays 5 -> 5 / 0.02"),
    "bonus_success": Weight(500.0, "III-E: full success pays 10 -> 10 / 0.02 (the original's success_bonus, 500)"),
    "height": Weight(500.0, "III-D: height gain weighs 500"),
    "rung_contact": Weight(0.25, "III-D: rung contact weighs 0.25"),
    "bonus_climbed": Weight(500.0, "III-D: the success bonus weighs 500"),
    "fall": Weight(-200.0, "III-D, III-E: -200 when a fall ends the episode"),
    "ladder_tipped": Weight(-200.0, "III-E: tipping the ladder (the original's weight, -200)"),
    "bulb_dropped": Weight(-200.0, "III-E: dropping either bulb (the original's weight, -200)"),
    "bulb_crushed": Weight(-200.0, "the original's bulb_crushed, -200 (III-E names no weight)"),
    "com_sway": Weight(-0.5, "III-D: sway -0.5"),
    "ang_vel_xy": Weight(-0.05, "III-D: wobble -0.05"),
    "action_rate": Weight(-0.005, "III-D names it; the original's weight, -0.005"),
    "joint_acc": Weight(-1.25e-7, "III-D: hip and knee acceleration -1.25e-7"),
    "ankle_limits": Weight(-1.0, "III-D: ankle position limits -1.0"),
    "waist_deviation": Weight(-0.1, "III-D names it; the original's weight, -0.1"),
    "finger_deviation": Weight(-0.05, "III-D names it; the original's weight, -0.05"),
})

SHAPING = ("com_sway", "ang_vel_xy", "action_rate", "joint_acc", "ankle_limits", "waist_deviation", "finger_deviation")
GOALS = ("ladder", "fresh", "old", "disposal")
# A bonus's predicate: a gate conjunct, or the episode's success.
BONUSES = {"bonus_ladder": "ladder_ready", "bonus_fresh": "fresh_bulb_seated", "bonus_old": "old_bulb_unseated",
           "bonus_disposal": "old_bulb_in_crate", "bonus_success": None}
ENDINGS = {"fall": FELL, "ladder_tipped": TIPPED, "bulb_dropped": DROPPED, "bulb_crushed": CRUSHED}
TASK_TERMS = (*(f"progress_{g}" for g in GOALS), *BONUSES, *ENDINGS, *SHAPING)
CLIMB_TERMS = ("height", "rung_contact", "bonus_climbed", "fall", *SHAPING)

HIP_KNEE = tuple(n for n in JOINT_NAMES if "_hip_" in n or "_knee_" in n)
ANKLES = tuple(n for n in JOINT_NAMES if "_ankle_" in n)
WAIST = tuple(n for n in JOINT_NAMES if n.startswith("waist_"))
FINGERS = tuple(n for n in JOINT_NAMES if "_hand_" in n)
ANKLE_IDX, WAIST_IDX, FINGER_IDX = (np.array([JOINT_NAMES.index(n) for n in g]) for g in (ANKLES, WAIST, FINGERS))


def distances(s: Snapshot) -> dict[str, float]:
    """The four score distances of III-B (eq. 3-6), m."""
    return {
        "ladder": float(np.linalg.norm(s.ladder_top - s.seat)),
        "fresh": s.bulbs[gates.FRESH].plug_to_seat,
        "old": s.bulbs[gates.OLD].plug_to_seat,
        "disposal": float(np.linalg.norm(s.bulbs[gates.OLD].centre - s.crate_pos)),
    }


class Progress:
    """Potential-based progress towards a target: Phi = clamp((d0 - d) / d0, 0, 1), d0 floored at 1 mm."""

    def __init__(self, d0: float) -> None:
        self.d0 = max(float(d0), D0_FLOOR)
        self.phi = self.potential(d0)

    def potential(self, d: float) -> float:
        return min(max((self.d0 - d) / self.d0, 0.0), 1.0)

    def step(self, d: float) -> float:
        """Phi(t) - Phi(t-1)."""
        phi = self.potential(d)
        change, self.phi = phi - self.phi, phi
        return change


class Clearance(Progress):
    """Progress away from the seat: Phi = clamp(d / D_CLEAR, 0, 1)."""

    def potential(self, d: float) -> float:
        return min(max(d / D_CLEAR, 0.0), 1.0)


class Bonus:
    """1 on the first step its predicate holds, then never; never if it held at the reset."""

    def __init__(self, holds_at_reset: bool) -> None:
        self.armed = not holds_at_reset

    def step(self, holds: bool) -> float:
        if self.armed and holds:
            self.armed = False
            return 1.0
        return 0.0


class Record:
    """The record height in whole centimetres: pays each new one once (m), never a height climbed before."""

    def __init__(self, z0: float) -> None:
        self.best = self._cm(z0)

    @staticmethod
    def _cm(z: float) -> int:
        return math.floor(z / RECORD_STEP + 1e-9)

    def step(self, z: float) -> float:
        cm = self._cm(z)
        if cm <= self.best:
            return 0.0
        gain, self.best = (cm - self.best) * RECORD_STEP, cm
        return gain


@dataclass(frozen=True)
class Motion:
    """What the stability and smoothness terms read on one step."""

    com_vel_xy: np.ndarray  # (2,) m/s, the robot's centre of mass
    ang_vel: np.ndarray  # (3,) rad/s, the pelvis's, in its own frame
    action: np.ndarray  # (43,) this step's joint-position action
    last_action: np.ndarray  # (43,) the one before (zeros after a reset)
    joint_pos: np.ndarray  # (43,) rad, JOINT_NAMES order
    hip_knee_acc: np.ndarray  # (8,) rad/s^2


def shaping_values(m: Motion, ankle_range: np.ndarray) -> dict[str, float]:
    """The unweighted stability and smoothness terms; `ankle_range` is (4, 2) lower and upper limits."""
    ankles = m.joint_pos[ANKLE_IDX]
    past = np.maximum(ankle_range[:, 0] - ankles, 0.0) + np.maximum(ankles - ankle_range[:, 1], 0.0)
    deviation = np.abs(m.joint_pos - Q0_VECTOR)
    return {
        "com_sway": float(m.com_vel_xy @ m.com_vel_xy),
        "ang_vel_xy": float(m.ang_vel[0] ** 2 + m.ang_vel[1] ** 2),
        "action_rate": float(np.sum((m.action - m.last_action) ** 2)),
        "joint_acc": float(m.hip_knee_acc @ m.hip_knee_acc),
        "ankle_limits": float(past.sum()),
        "waist_deviation": float(deviation[WAIST_IDX].sum()),
        "finger_deviation": float(deviation[FINGER_IDX].sum()),
    }


def scaled(values: dict[str, float]) -> dict[str, float]:
    """value x weight x DT for each term."""
    return {k: v * WEIGHTS[k].value * DT for k, v in values.items()}


class MotionReader:
    """Reads a `Motion` from the simulation without touching its state (Jacobians and stored values only)."""

    def __init__(self, model: mujoco.MjModel) -> None:
        self.model = model
        root = model.joint("floating_base_joint")
        self._vadr = int(model.jnt_dofadr[root.id])
        self._pelvis = model.body("pelvis").id
        self._q = np.array([model.jnt_qposadr[model.joint(n).id] for n in JOINT_NAMES])
        self._acc = np.array([model.jnt_dofadr[model.joint(n).id] for n in HIP_KNEE])
        self.ankle_range = np.array([model.jnt_range[model.joint(n).id] for n in ANKLES])
        self._jac = np.zeros((3, model.nv))

    def read(self, data: mujoco.MjData, action: np.ndarray, last_action: np.ndarray) -> Motion:
        mujoco.mj_jacSubtreeCom(self.model, data, self._jac, self._pelvis)
        return Motion(
            com_vel_xy=(self._jac @ data.qvel)[:2],
            ang_vel=data.qvel[self._vadr + 3 : self._vadr + 6].copy(),
            action=np.asarray(action, dtype=np.float64),
            last_action=np.asarray(last_action, dtype=np.float64),
            joint_pos=data.qpos[self._q].copy(),
            hip_knee_acc=data.qacc[self._acc].copy(),
        )


class TaskReward:
    """The benchmark task's reward (III-E) over one episode: `reset` on the start, `step` every step."""

    terms = TASK_TERMS

    def __init__(self, ankle_range: np.ndarray) -> None:
        self.ankle_range = ankle_range

    def reset(self, s: Snapshot) -> None:
        d = distances(s)
        self.progress = {g: (Clearance if g == "old" else Progress)(d[g]) for g in GOALS}
        self.bonuses = {k: Bonus(p is not None and gates.CONJUNCTS[p](s)) for k, p in BONUSES.items()}

    def step(self, s: Snapshot, motion: Motion, outcome: str | None, success: bool, rungs=None) -> dict[str, float]:
        d = distances(s)
        values = {f"progress_{g}": self.progress[g].step(d[g]) for g in GOALS}
        values |= {k: self.bonuses[k].step(success if p is None else bool(gates.CONJUNCTS[p](s))) for k, p in BONUSES.items()}
        values |= {k: float(outcome == o) for k, o in ENDINGS.items()}
        values |= shaping_values(motion, self.ankle_range)
        return scaled(values)


class ClimbReward:
    """The climbing reward (III-D); `rungs` is the (4, 3) limb force array of `RungSensor`."""

    terms = CLIMB_TERMS

    def __init__(self, ankle_range: np.ndarray) -> None:
        self.ankle_range = ankle_range

    def reset(self, s: Snapshot) -> None:
        self.record = Record(float(s.pelvis[2]))

    def step(self, s: Snapshot, motion: Motion, outcome: str | None, success: bool, rungs=None) -> dict[str, float]:
        shaping = shaping_values(motion, self.ankle_range)
        values = {
            "height": self.record.step(float(s.pelvis[2])),
            "rung_contact": contact_fraction(rungs),
            "bonus_climbed": float(success),
            "fall": float(outcome == FELL),
            **shaping,
        }
        return scaled(values)


def contact_fraction(rungs: np.ndarray) -> float:
    """The share of the four limbs pushing on the ladder harder than RUNG_FORCE."""
    return float(np.mean(np.linalg.norm(np.asarray(rungs).reshape(4, 3), axis=1) > RUNG_FORCE))


REWARDS: dict[str, Callable[[np.ndarray], TaskReward | ClimbReward]] = {"task": TaskReward, "climb": ClimbReward}
