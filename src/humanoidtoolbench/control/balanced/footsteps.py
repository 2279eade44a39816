"""Footstep planner and walking schedule: from a body velocity command to feet and a ZMP reference.

Planar poses are (x, y, yaw) arrays. The planner advances a virtual body
frame by the commanded displacement once per step and lands the swing foot
at that frame's side of the stance width, so forward, lateral, backward and
turning steps come from one rule. The ZMP reference sits at the stance
foot's support centre in single support and moves linearly between supports
in double support. `preview` runs a copy of the schedule forward under the
current command: the reference the preview controller sees is the one the
feet will follow while the command holds. `adjust_landing` moves the swing
foot's landing point during the swing (capture-point stepping).
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field

import numpy as np

from ...angles import wrap

SIDES = ("left", "right")
HALF_WIDTH = 0.1185  # m: ankle to body centre line in the home stance
SUPPORT_X = 0.035  # m: centre of a foot's contact spheres ahead of its ankle
# m, rad: feet this close to their home placement need no more steps. Capture-point offsets land
# a foot 1-3 cm from home on every step, so a 1 cm bound kept an idle robot stepping in place.
AT_REST = (0.03, 0.02)


@dataclass(frozen=True)
class Timing:
    single: float = 0.4  # s of single support per step
    double: float = 0.1  # s of double support between steps
    first: float = 0.3  # s shifting the weight onto the first stance foot
    last: float = 0.3  # s shifting it back to the centre after the last step
    swing_height: float = 0.06  # m
    max_step: tuple = (0.22, 0.14, 0.4)  # per-step |dx|, |dy| (m) and |dyaw| (rad)

    @property
    def step(self) -> float:
        return self.single + self.double


def other(side: str) -> str:
    return "right" if side == "left" else "left"


def rot(yaw: float, v) -> np.ndarray:
    c, s = math.cos(yaw), math.sin(yaw)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def clip(a, lo, hi) -> np.ndarray:
    """`np.clip` for finite numbers, without its per-call overhead: the same values."""
    return np.minimum(np.maximum(a, lo), hi)


def foot_home(body: np.ndarray, side: str) -> np.ndarray:
    """Where a foot stands beside the body frame."""
    sign = 1.0 if side == "left" else -1.0
    xy = body[:2] + rot(body[2], (0.0, sign * HALF_WIDTH))
    return np.array([xy[0], xy[1], body[2]])


def support_point(foot: np.ndarray) -> np.ndarray:
    return foot[:2] + rot(foot[2], (SUPPORT_X, 0.0))


def _smooth(s: float) -> float:
    """Minimum-jerk blend, 0 -> 1 with zero velocity and acceleration at both ends."""
    s = min(max(s, 0.0), 1.0)
    return s * s * s * (10 - 15 * s + 6 * s * s)


@dataclass
class Schedule:
    """The walking state: planted feet, the virtual body frame, and the current phase."""

    timing: Timing
    body: np.ndarray
    feet: dict = field(default_factory=dict)
    phase: str = "stand"  # stand | double | single
    t: float = 0.0
    duration: float = 0.0
    swing: str = "left"  # the foot swinging (single) or about to swing (double)
    from_stand: bool = False  # this double support started from standing
    to_stand: bool = False  # this double support ends standing
    goal: np.ndarray | None = None  # swing foot landing pose
    _landing_offset: np.ndarray = field(default_factory=lambda: np.zeros(2))
    _ahead: tuple | None = field(default=None, repr=False, compare=False)  # the last preview, for the next (`preview`)

    @classmethod
    def standing(cls, timing: Timing, body: np.ndarray) -> "Schedule":
        b = np.asarray(body, float)
        return cls(timing, b.copy(), {s: foot_home(b, s) for s in SIDES})

    # -- planning ------------------------------------------------------
    def _displacement(self, velocity, walking: bool) -> np.ndarray:
        if not walking:
            return np.zeros(3)
        lim = np.array(self.timing.max_step)
        return clip(np.asarray(velocity, float) * self.timing.step, -lim, lim)

    def _at_rest(self) -> bool:
        for s in SIDES:
            home = foot_home(self.body, s)
            if np.hypot(*(self.feet[s][:2] - home[:2])) > AT_REST[0] or abs(wrap(self.feet[s][2] - home[2])) > AT_REST[1]:
                return False
        return True

    @staticmethod
    def _first_swing(velocity) -> str:
        vx, vy, wz = velocity
        if abs(vy) > 1e-6:
            return "left" if vy > 0 else "right"
        return "right" if wz < 0 else "left"

    def advance(self, dt: float, velocity, walking: bool) -> None:
        """Move the schedule on by dt under the body velocity command (vx, vy, yaw rate) in the body frame."""
        tm = self.timing
        if self.phase == "stand":
            if not walking:
                return
            self.phase, self.t, self.duration = "double", 0.0, tm.first
            self.swing, self.from_stand, self.to_stand = self._first_swing(velocity), True, False
            return
        self.t += dt
        if self.t < self.duration - 1e-9:
            return
        if self.phase == "single":
            self.feet[self.swing] = self.goal
            self.swing = other(self.swing)
            self.to_stand = not walking and self._at_rest()
            self.phase, self.t, self.duration, self.from_stand = "double", 0.0, tm.last if self.to_stand else tm.double, False
        elif self.to_stand:  # the body frame comes to rest between the feet as they landed
            mid = (self.feet["left"][:2] + self.feet["right"][:2]) / 2
            self.body = np.array([mid[0], mid[1], self.heading()])
            self.phase, self.t = "stand", 0.0
        else:
            d = self._displacement(velocity, walking)
            self.body = np.array([*(self.body[:2] + rot(self.body[2], d[:2])), wrap(self.body[2] + d[2])])
            self.goal = foot_home(self.body, self.swing)
            self._landing_offset = np.zeros(2)
            self.phase, self.t, self.duration = "single", 0.0, tm.single

    def adjust_landing(self, offset: np.ndarray, window: float, limit: float) -> None:
        """Land the swing foot `offset` (world xy, each axis clipped to `limit`) from its nominal
        point, the body frame moving with it; only in the first `window` fraction of the swing."""
        if self.phase != "single" or self.t > window * self.duration:
            return
        offset = clip(offset, -limit, limit)
        nominal = foot_home(self.body, self.swing)
        goal = nominal.copy()
        goal[:2] += offset - self._landing_offset
        self.body[:2] += offset - self._landing_offset
        self._landing_offset = offset.copy()
        self.goal = np.array([goal[0], goal[1], self.goal[2]])

    # -- references ----------------------------------------------------
    def centre(self) -> np.ndarray:
        return (support_point(self.feet["left"]) + support_point(self.feet["right"])) / 2

    def zmp(self) -> np.ndarray:
        if self.phase == "stand":
            return self.centre()
        if self.phase == "single":
            return support_point(self.feet[other(self.swing)])
        start = self.centre() if self.from_stand else support_point(self.feet[self.swing])
        end = self.centre() if self.to_stand else support_point(self.feet[other(self.swing)])
        s = self.t / self.duration
        return start + (end - start) * min(max(s, 0.0), 1.0)

    def foot(self, side: str) -> tuple[np.ndarray, float]:
        """A foot's planar pose and its lift above the floor now."""
        if self.phase != "single" or side != self.swing:
            return self.feet[side], 0.0
        s = self.t / self.duration
        b = _smooth(s)
        start = self.feet[side]
        pose = np.array([*(start[:2] + (self.goal[:2] - start[:2]) * b), start[2] + wrap(self.goal[2] - start[2]) * b])
        lift = self.timing.swing_height * 0.5 * (1 - math.cos(2 * math.pi * min(max(s, 0.0), 1.0)))
        return pose, lift

    def heading(self) -> float:
        """The pelvis yaw between the two feet's yaws."""
        l, r = self.foot("left")[0][2], self.foot("right")[0][2]
        return wrap(r + wrap(l - r) / 2)

    def feet_positions(self) -> np.ndarray:
        """Both feet's positions (x, y, lift), left then right: (2, 3)."""
        out = np.empty((2, 3))
        for i, side in enumerate(SIDES):
            pose, lift = self.foot(side)
            out[i] = pose[0], pose[1], lift
        return out

    def preview(self, dt: float, steps: int, velocity, walking: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Under a held command, now and `steps` periods ahead: the ZMP reference (steps + 1, 2),
        the centre between the feet (steps + 1, 2) and both feet's positions (steps + 1, 2, 3).

        The numbers `zmp`, `centre` and `feet_positions` give on a copy advanced period by period,
        with the same floating-point operations: between the copy's phase changes only its clock
        moves, so each phase's samples are computed at once from its clock readings. When this
        schedule is where the last preview's copy was one period in, under the same command, that
        preview is shifted by a period and one sample added."""
        args = (dt, steps, np.asarray(velocity, float).tobytes(), walking)
        memo = self._ahead
        if memo is not None and memo[0] == args and memo[1] == self._state():
            _, _, ghost, arrays = memo
            ghost.advance(dt, velocity, walking)
            last = _sample(ghost._phase([ghost.t], {}), self.timing.swing_height)
            shifted = tuple(np.empty_like(a) for a in arrays)
            for new, old, row in zip(shifted, arrays, last):
                new[:-1], new[-1] = old[1:], row
            arrays = shifted
        else:
            ghost, arrays = self._preview(dt, steps, velocity, walking)
        nxt = self._copy()
        nxt.advance(dt, velocity, walking)
        self._ahead = (args, nxt._state(), ghost, arrays)
        return tuple(a.copy() for a in arrays)

    def _copy(self) -> Schedule:
        """A copy to advance: `advance` replaces the arrays it changes, and the body is edited in place
        (`adjust_landing`), so only that is copied."""
        ghost = copy.copy(self)
        ghost.body, ghost.feet, ghost._ahead = self.body.copy(), dict(self.feet), None
        return ghost

    def _state(self) -> tuple:
        """Everything `advance` and the references read, exactly."""
        arrays = (self.body, self.feet["left"], self.feet["right"], self._landing_offset, self.goal)
        return (id(self.timing), self.phase, self.t, self.duration, self.swing, self.from_stand, self.to_stand,
                *(None if a is None else a.tobytes() for a in arrays))

    def _preview(self, dt: float, steps: int, velocity, walking: bool) -> tuple[Schedule, tuple]:
        """`preview` from scratch: the copy at the last sample, and the three arrays."""
        ghost, phases, supports = self._copy(), [], {}
        i = 0
        while i <= steps:  # one phase of the copy a pass
            clock, t, duration = [], ghost.t, ghost.duration
            if ghost.phase == "stand":  # it stays standing, or starts stepping at the next period
                clock = [t] * (steps + 1 - i if not walking else 1)
            else:
                while True:  # `advance` within the phase
                    clock.append(t)
                    if i + len(clock) > steps or not t + dt < duration - 1e-9:
                        break
                    t += dt
            phases.append(ghost._phase(clock, supports))
            i += len(clock)
            ghost.t = t
            if i <= steps:
                ghost.advance(dt, velocity, walking)
        return ghost, _samples(phases, self.timing.swing_height)

    def _phase(self, clock: list, supports: dict) -> tuple:
        """This phase's constants for `_samples` (as `zmp`, `centre` and `foot` compute them, in
        scalars) and its clock readings. `supports` keeps each foot array's support point."""
        pts = {}
        for side in SIDES:
            f = self.feet[side]
            if id(f) not in supports:  # the array is kept with it, so its id is not reused
                c, s = math.cos(f[2]), math.sin(f[2])
                supports[id(f)] = (f, (float(f[0] + (c * SUPPORT_X - s * 0.0)), float(f[1] + (s * SUPPORT_X + c * 0.0))))
            pts[side] = supports[id(f)][1]
        (lx, ly), (rx, ry) = pts["left"], pts["right"]
        mid = ((lx + rx) / 2, (ly + ry) / 2)
        planted = tuple((float(self.feet[s][0]), float(self.feet[s][1])) for s in SIDES)
        swing, duration = None, self.duration
        if self.phase == "stand":
            kind, base, rate, duration = 0, mid, (0.0, 0.0), 1.0
        elif self.phase == "single":
            kind, base, rate = 1, pts[other(self.swing)], (0.0, 0.0)
            start, goal = self.feet[self.swing], self.goal
            swing = (SIDES.index(self.swing), start[0], start[1], goal[0] - start[0], goal[1] - start[1])
        else:
            a = mid if self.from_stand else pts[self.swing]
            b = mid if self.to_stand else pts[other(self.swing)]
            kind, base, rate = 2, a, (b[0] - a[0], b[1] - a[1])
        return kind, duration, clock, mid, planted, base, rate, swing


def _sample(phase: tuple, swing_height: float) -> tuple[tuple, tuple, tuple]:
    """One sample of `_samples` (the first of `phase`), in scalars with the same operations."""
    kind, duration, clock, mid, planted, base, rate, swing = phase
    s = min(max(clock[0] / duration, 0.0), 1.0)
    zmp = (base[0] + rate[0] * s, base[1] + rate[1] * s) if kind == 2 else base
    feet = [(x, y, 0.0) for x, y in planted]
    if kind == 1:
        k, x0, y0, dx, dy = swing
        blend = s * s * s * (10 - 15 * s + 6 * s * s)
        feet[k] = (x0 + dx * blend, y0 + dy * blend, swing_height * 0.5 * (1 - math.cos(2 * math.pi * s)))
    return zmp, mid, tuple(feet)


def _samples(phases: list, swing_height: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`preview`'s three arrays from its phases (`Schedule._phase`), elementwise as `zmp`,
    `centre`, `foot` and `_smooth` compute each sample."""
    kinds, durations, clocks, mids, planted, bases, rates, swings = zip(*phases)
    counts = [len(c) for c in clocks]
    n = sum(counts)
    kind = np.repeat(kinds, counts)
    s = clip(np.array([t for c in clocks for t in c]) / np.repeat(durations, counts), 0.0, 1.0)
    centre = np.repeat(np.array(mids), counts, axis=0)
    zmp = np.repeat(np.array(bases), counts, axis=0)
    foot = np.zeros((n, 2, 3))
    foot[:, :, :2] = np.repeat(np.array(planted), counts, axis=0)
    double = kind == 2
    if double.any():  # from the start support to the end one
        zmp[double] += np.repeat(np.array(rates), counts, axis=0)[double] * s[double, None]
    single = np.flatnonzero(kind == 1)
    if len(single):  # the swinging foot's minimum-jerk path and lift
        table = np.array([w if w is not None else (0, 0.0, 0.0, 0.0, 0.0) for w in swings])
        k, x0, y0, dx, dy = np.repeat(table, counts, axis=0)[single].T
        b = s[single]
        blend = b * b * b * (10 - 15 * b + 6 * b * b)
        cos = np.array([math.cos(2 * math.pi * v) for v in b.tolist()])
        side = k.astype(int)
        foot[single, side, 0] = x0 + dx * blend
        foot[single, side, 1] = y0 + dy * blend
        foot[single, side, 2] = swing_height * 0.5 * (1 - cos)
    return zmp, centre, foot


def swing_zmp_shift(zmp: np.ndarray, centre: np.ndarray, feet: np.ndarray, dt: float, mass_ratio: float, com_height: float) -> np.ndarray:
    """How far the swinging legs move the whole robot's ZMP from the one its CoM alone gives.

    Each leg is lumped at its foot (`mass_ratio` of the robot's mass) and the
    CoM follows the plan, so a foot accelerating sideways or upwards shifts
    the ZMP (two-mass model). `feet` is (samples, 2, 3): both feet over the
    horizon; the CoM is taken midway between the ZMP and the feet's centre.
    """
    acc = np.zeros_like(feet)
    acc[1:-1] = (feet[2:] - 2 * feet[1:-1] + feet[:-2]) / (dt * dt)
    com = ((zmp + centre) / 2)[:, None, :]
    lever = com_height - feet[:, :, 2]
    shift = acc[:, :, :2] * lever[:, :, None] + (feet[:, :, :2] - com) * acc[:, :, 2:3]
    return mass_ratio * shift.sum(axis=1) / 9.81
