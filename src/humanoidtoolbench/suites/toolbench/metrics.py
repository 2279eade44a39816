"""Per-step task metrics and the success predicates, read from the simulator state.

Names and meanings follow the public metric table. Every metric is computed
once per control step (a scenario's own by the function its row in
`scenarios.py` names); the predicate of the condition's level and scenario
(L0: the lift; L1/L2: the row's `done` metric) must then hold for 50
consecutive steps (see `HoldCounter`).
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from ...control.base import BasePose
from .contacts import ContactIndex
from .fracture import IceFracture
from .layout import BALL, DECOY, IRRELEVANT, RING_RADIUS, ROLE_CODES, TOOL, Layout, reach_shortfall

LIFT_THRESHOLD = 0.08  # L0: the correct tool must rise 80 % of the 0.10 m lift height
REACHED_RADIUS = 0.40  # L2: pelvis within this of the standing spot
FIRST_MOVE_DISTANCE = 0.15  # L2: movement judged after this much pelvis travel
HANDS = ("hand_left", "hand_right")
TARGETS = ("ball", "ice")


def lifted(lift: float) -> bool:
    return lift >= LIFT_THRESHOLD


def inside_ring(ball_xy, ring_xy) -> bool:
    return float(np.hypot(*np.subtract(ball_xy, ring_xy))) <= RING_RADIUS


@dataclass(frozen=True)
class Bodies:
    """Free-joint qpos addresses of the bodies the metrics follow."""

    tool: int
    ball: int | None


class EpisodeMetrics:
    def __init__(
        self,
        layout: Layout,
        contacts: ContactIndex,
        bodies: Bodies,
        fracture: IceFracture | None,
    ) -> None:
        self.layout = layout
        self.cond = layout.condition
        self.contacts = contacts
        self.bodies = bodies
        self.fracture = fracture
        self._scenario_metrics = self.cond.task.load("metrics")
        self._done = self.cond.task.done
        self._wrong = [n for n in contacts.names if n == DECOY or n.startswith(IRRELEVANT)]
        self._left, self._right = (contacts.code[h] for h in HANDS)
        # Owners whose touch by a hand counts (the correct tool and the wrong objects), by code.
        self._watched = np.array([n == TOOL or n in self._wrong for n in contacts.names])

    def start(self, data: mujoco.MjData, base: BasePose) -> None:
        """Baselines, taken at the first check after the scene has settled."""
        self.tool_z0 = float(data.qpos[self.bodies.tool + 2])
        self.ball_xy0 = data.qpos[self.bodies.ball : self.bodies.ball + 2].copy() if self.bodies.ball is not None else None
        self.pelvis0 = base.xy
        spot = np.asarray(self.layout.work_spot)
        self.spot = spot
        self.spot_dist0 = float(np.linalg.norm(self.ball_xy0 - spot)) if self.ball_xy0 is not None else 0.0
        self.first_touch = -1
        self.correct_touched = False
        self.wrong_touched: set[str] = set()
        self.tool_hit = self.wrong_tool_hit = False
        self.reached = False
        self.first_move = 0

    def _observe_contacts(self, data: mujoco.MjData) -> None:
        """Latch this step's contact events (touches, tools on targets)."""
        pairs = self.contacts.pairs(data)
        touched = self._touched_by_hands(pairs)
        if touched and self.first_touch < 0:
            # Several objects first touched in the same step: a wrong one counts first.
            self.first_touch = max(ROLE_CODES[self._role(n)] for n in touched)
        if not self.correct_touched:
            self.wrong_touched |= {n for n in touched if n != TOOL}
            self.correct_touched = TOOL in touched
        self.tool_hit |= self._hits_target(pairs, TOOL)
        if DECOY in self.contacts.code:
            self.wrong_tool_hit |= self._hits_target(pairs, DECOY)

    def update(self, data: mujoco.MjData, base: BasePose) -> dict[str, float | int | bool]:
        self._observe_contacts(data)
        lift = float(data.qpos[self.bodies.tool + 2]) - self.tool_z0
        values: dict[str, float | int | bool] = {
            "tool_lift": lift,
            "picked_correct_tool": lifted(lift),
            "first_touch_role": self.first_touch,
            "first_touch_correct": self.first_touch == ROLE_CODES[TOOL],
            "wrong_touch_count": len(self.wrong_touched),
            "tool_touched_target": self.tool_hit,
            "wrong_tool_touched_target": self.wrong_tool_hit,
        }
        values.update(self._scenario_metrics(self, data))
        if self.cond.level == 2:
            values.update(self._locomotion(base))
        values["level"] = self.cond.level
        values["reasoning_mode"] = self.cond.reasoning_mode
        return values

    def success(self, values: dict) -> bool:
        """The condition's predicate on this step's metrics."""
        if self.cond.level == 0:
            return bool(values["picked_correct_tool"])
        return bool(values[self._done])

    # -- pieces ----------------------------------------------------------
    @staticmethod
    def _role(name: str) -> str:
        return IRRELEVANT if name.startswith(IRRELEVANT) else name

    def _touched_by_hands(self, pairs: np.ndarray) -> set[str]:
        """Watched owners in contact with a hand (vectorised: this runs on every step)."""
        hand = (pairs == self._left) | (pairs == self._right)
        if not hand.any():
            return set()
        a, b = pairs[:, 0], pairs[:, 1]
        first = hand[:, 0] & (b >= 0)
        codes = set(b[first].tolist()) | set(a[~first & hand[:, 1] & (a >= 0)].tolist())
        return {self.contacts.names[c] for c in codes if self._watched[c]}

    def _hits_target(self, pairs: np.ndarray, tool: str) -> bool:
        return any(len(self.contacts.touching(pairs, tool, t)) for t in TARGETS if t in self.contacts.code)

    def _locomotion(self, base: BasePose) -> dict:
        dist = float(np.linalg.norm(base.xy - self.spot))
        self.reached |= dist <= REACHED_RADIUS
        moved = base.xy - self.pelvis0
        if self.first_move == 0 and np.linalg.norm(moved) >= FIRST_MOVE_DISTANCE:
            self.first_move = 1 if moved @ (self.spot - self.pelvis0) > 0 else -1
        return {
            "dist_to_target_bench": dist,
            "reached_target_bench": self.reached,
            "first_move_toward_target": self.first_move,
        }


# -- each scenario's metrics (named by its row of `scenarios.py`) ---------------


def _ball(m: EpisodeMetrics, data: mujoco.MjData) -> np.ndarray:
    return data.qpos[m.bodies.ball : m.bodies.ball + 2]


def ball_move_metrics(m: EpisodeMetrics, data: mujoco.MjData) -> dict:
    ball = _ball(m, data)
    spawn = (m.layout.spawn.x, m.layout.spawn.y)
    return {
        "on_spot": inside_ring(ball, m.layout.ring),
        "push_distance": float(np.linalg.norm(ball - m.ball_xy0)),
        "reach_shortfall": reach_shortfall(m.layout.item(BALL).xy, spawn),
    }


def ball_retrieve_metrics(m: EpisodeMetrics, data: mujoco.MjData) -> dict:
    ball = _ball(m, data)
    return {
        "in_target_area": inside_ring(ball, m.layout.ring),
        "retrieve_gain": m.spot_dist0 - float(np.linalg.norm(ball - m.spot)),
    }


def ice_break_metrics(m: EpisodeMetrics, data: mujoco.MjData) -> dict:
    broken = m.fracture.broken(data)
    count = sum(broken)
    return {
        "ice_broken": count == len(broken),
        "ice_broken_count": count,
        "ice_broke_1": count >= 1,
        "ice_broke_2": count >= 2,
        "peak_impulse": m.fracture.peak_impulse,
    }
