"""Fiatlux gates as data: named conjuncts, each a small predicate on one step's snapshot.

A subtask's success gate is an ordered list of conjunct names (`subtasks.py`)
that must all hold, for a hold window where the subtask has one. The same
names feed the per-step bag columns, gate progress rho and the tests.
Thresholds are the original's shared definitions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ...angles import wrap
from ...control.base import fallen

LADDER_TILT = 0.6  # rad
HELD_FORCE = 1.0  # N: held above, released below
REST_SPEED = 0.05  # m/s
REST_SPIN = 0.10  # rad/s
LADDER_READY_RADIUS = 0.67  # m, tread centre to the seat, horizontally
GROUNDED = 0.02  # m
TREAD_STANCE = 0.787  # m, pelvis above the surface it stands on
CLIMB_MARGIN = 0.15  # m below the on-tread pelvis height
CLIMB_RADIUS = 0.6  # m
CLIMB_SPEED = 1.5  # m/s
UNSEATED_DISTANCE = 0.10  # m, plug from seat
LIFT_FLOOR = {"old_bulb": 0.15, "fresh_bulb": 0.4}  # m: a carried bulb stays above
CRATE_REACH = 0.5  # m from the crate's footprint
FACING = 0.5  # rad
NAV_SPEED = 1.0  # m/s
BULB_APPROACH = 0.63  # m
BENCH_CLEARANCE = 0.03  # m
LADDER_REACH = 0.85  # m
GLASS_LIMIT = 50.0  # N
SEATED_LATERAL, SEATED_TILT = 0.015, 0.2
# The standalone climbing task (paper III-D): the root at working height over the ladder, settled.
CLIMBED_HEIGHT = 1.82  # m, pelvis above the floor
CLIMBED_RADIUS = 0.60  # m, pelvis to the ladder's origin, horizontally
CLIMBED_SPEED = 1.50  # m/s, the pelvis's speed


@dataclass(frozen=True)
class BulbState:
    pos: np.ndarray  # frame origin (0.036 m behind the cap, along the axis)
    centre: np.ndarray  # centre of the glass
    lin_vel: np.ndarray
    ang_vel: np.ndarray
    lowest: float  # lowest point of the outline, world z
    in_crate: bool  # outline inside the crate's interior, lowest point below its rim
    seated: bool
    seat_lateral: float
    seat_tilt: float
    plug_to_seat: float
    left_force: float  # largest contact force on it from a left-hand body (N)
    right_force: float
    hand_bodies_over_1n: int
    grip_force: float  # largest contact force on it from any hand body


@dataclass(frozen=True)
class Snapshot:
    """Everything the conjuncts read, measured once per control step."""

    pelvis: np.ndarray
    pelvis_tilt: float
    pelvis_speed: float
    heading: float
    ladder_root: np.ndarray
    ladder_tilt: float
    ladder_speed: float
    ladder_spin: float
    tread_stance: np.ndarray  # where the pelvis stands on the tread, world
    ladder_top: np.ndarray  # the top tread's centre on its surface, world
    seat: np.ndarray
    crate_pos: np.ndarray
    crate_distance: float  # pelvis xy to the crate's footprint
    bench_start: np.ndarray  # the fresh bulb's start position on the bench
    bulbs: dict[str, BulbState]


def _facing(s: Snapshot, target) -> bool:
    d = np.asarray(target)[:2] - s.pelvis[:2]
    return abs(wrap(np.arctan2(d[1], d[0]) - s.heading)) < FACING


def _climbed(s: Snapshot) -> bool:
    return (
        s.pelvis[2] > s.tread_stance[2] - CLIMB_MARGIN
        and np.linalg.norm(s.pelvis[:2] - s.tread_stance[:2]) < CLIMB_RADIUS
        and s.pelvis_speed < CLIMB_SPEED
    )


def _descended(s: Snapshot) -> bool:
    return (
        s.pelvis[2] < TREAD_STANCE + CLIMB_MARGIN
        and np.linalg.norm(s.pelvis[:2] - s.ladder_root[:2]) < CLIMB_RADIUS
        and s.pelvis_speed < CLIMB_SPEED
    )


def _held(b: BulbState) -> bool:
    return max(b.left_force, b.right_force) > HELD_FORCE


def _released(b: BulbState) -> bool:
    return max(b.left_force, b.right_force) < HELD_FORCE


def _at_rest(b: BulbState) -> bool:
    return np.linalg.norm(b.lin_vel) < REST_SPEED and np.linalg.norm(b.ang_vel) < REST_SPIN


def _bulb(name: str, test: Callable[[BulbState], bool]) -> Callable[[Snapshot], bool]:
    return lambda s: bool(test(s.bulbs[name]))


OLD, FRESH = "old_bulb", "fresh_bulb"

CONJUNCTS: dict[str, Callable[[Snapshot], bool]] = {
    "standing": lambda s: not fallen(s.pelvis[2], s.pelvis_tilt),  # every suite's fall rule
    "ladder_vertical": lambda s: s.ladder_tilt < LADDER_TILT,
    "ladder_ready": lambda s: s.ladder_tilt < LADDER_TILT
    and np.linalg.norm(s.tread_stance[:2] - s.seat[:2]) < LADDER_READY_RADIUS,
    "ladder_grounded": lambda s: s.ladder_root[2] < GROUNDED,
    "ladder_at_rest": lambda s: s.ladder_speed < REST_SPEED and s.ladder_spin < REST_SPIN,
    "on_tread": _climbed,
    "descended": _descended,
    "near_crate": lambda s: s.crate_distance < CRATE_REACH,
    "facing_crate": lambda s: _facing(s, s.crate_pos),
    "slow": lambda s: s.pelvis_speed < NAV_SPEED,
    "near_fresh_bulb": lambda s: np.linalg.norm(s.bulbs[FRESH].centre[:2] - s.pelvis[:2]) < BULB_APPROACH,
    "facing_fresh_bulb": lambda s: _facing(s, s.bulbs[FRESH].centre),
    "near_ladder": lambda s: np.linalg.norm(s.ladder_root[:2] - s.pelvis[:2]) < LADDER_REACH,
    "facing_ladder": lambda s: _facing(s, s.ladder_root),
    "old_bulb_unseated": _bulb(OLD, lambda b: not b.seated and b.plug_to_seat > UNSEATED_DISTANCE),
    "old_bulb_held": _bulb(OLD, _held),
    "old_bulb_raised": _bulb(OLD, lambda b: b.centre[2] > LIFT_FLOOR[OLD]),
    "old_bulb_in_crate": _bulb(OLD, lambda b: b.in_crate),
    "old_bulb_still": _bulb(OLD, lambda b: np.linalg.norm(b.lin_vel) < REST_SPEED),
    "old_bulb_released": _bulb(OLD, _released),
    "fresh_bulb_lifted": lambda s: s.bulbs[FRESH].lowest > s.bench_start[2] + BENCH_CLEARANCE,
    "fresh_bulb_pinched": _bulb(FRESH, lambda b: b.hand_bodies_over_1n >= 2),
    "fresh_bulb_gentle": _bulb(FRESH, lambda b: b.grip_force <= GLASS_LIMIT),
    "fresh_bulb_held": _bulb(FRESH, _held),
    "fresh_bulb_high": _bulb(FRESH, lambda b: b.centre[2] > LIFT_FLOOR[FRESH]),
    "fresh_bulb_seated": _bulb(FRESH, lambda b: b.seated),
    "fresh_bulb_at_rest": _bulb(FRESH, _at_rest),
    "fresh_bulb_released": _bulb(FRESH, _released),
    "fresh_bulb_seated_tight": _bulb(
        FRESH, lambda b: b.seated and b.seat_lateral < SEATED_LATERAL and b.seat_tilt < SEATED_TILT
    ),
    "climbed_high": lambda s: s.pelvis[2] > CLIMBED_HEIGHT,
    "over_ladder": lambda s: np.linalg.norm(s.pelvis[:2] - s.ladder_root[:2]) < CLIMBED_RADIUS,
    "settled": lambda s: s.pelvis_speed < CLIMBED_SPEED,
}


def evaluate(names: tuple[str, ...], s: Snapshot) -> dict[str, bool]:
    return {n: bool(CONJUNCTS[n](s)) for n in names}
