"""The magnetic seat: how the fixture captures, holds and releases a bulb (the original's numbers).

A bulb is seated when its plug lies within 0.004 m of the seat along the
socket axis, within 0.015 m across it and tilted less than 0.2 rad, and no
other bulb occupies the socket. While seated, a weak magnet pulls it in
along the axis (1.5 N fading to 0 over 0.025 m, with damping, never
pushing, at most 5 N), a lateral spring centres it (at most 1 N) and a tilt
spring aligns it (at most 0.25 N m); twist is free. It is released after its
plug has been more than 0.015 m out for 3 consecutive control steps.
The forces act every physics step through `xfrc_applied`; the state machine
advances once per control step.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mujoco
import numpy as np

from .props import PLUG_OFFSET

CAPTURE_AXIAL = 0.004  # m
CAPTURE_LATERAL = 0.015  # m
CAPTURE_TILT = 0.2  # rad
RELEASE_AXIAL = 0.015  # m
RELEASE_STEPS = 3  # control steps
MAGNET_FORCE = 1.5  # N at the seat
MAGNET_RANGE = 0.025  # m over which the pull fades
MAGNET_DAMPING = 1.5  # N s/m
MAGNET_CAP = 5.0  # N
LATERAL_K, LATERAL_D, LATERAL_CAP = 5.0, 0.85, 1.0
TILT_K, TILT_D, TILT_CAP = 0.25, 0.003, 0.25

FREE, SEATED = "free", "seated"


@dataclass(frozen=True)
class SeatGeometry:
    """Where a bulb's plug is relative to the seat, in the socket's axis frame."""

    axial: float  # along the socket axis, out of the socket (m)
    lateral: np.ndarray  # world vector across the axis (m)
    tilt: float  # angle between the bulb's and the socket's axes (rad)

    def capturable(self) -> bool:
        return (
            abs(self.axial) < CAPTURE_AXIAL
            and float(np.linalg.norm(self.lateral)) < CAPTURE_LATERAL
            and self.tilt < CAPTURE_TILT
        )


def _cap(v: np.ndarray, limit: float) -> np.ndarray:
    n = float(np.linalg.norm(v))
    return v * (limit / n) if n > limit else v


@dataclass
class MagneticSeat:
    """One socket and the bulbs that may enter it."""

    model: mujoco.MjModel
    bulbs: tuple[str, ...]
    occupant: str | None = None
    out_steps: int = 0
    _ids: dict = field(default_factory=dict)
    seat_offset: float = PLUG_OFFSET  # along the socket axis from its frame (scaled with the socket)
    plug_offsets: dict = field(default_factory=dict)  # per bulb, along its axis; PLUG_OFFSET if absent

    def __post_init__(self) -> None:
        self._fixture = self.model.body("fixture").id
        self._ids = {b: self.model.body(b).id for b in self.bulbs}
        self._plug = {b: self.plug_offsets.get(b, PLUG_OFFSET) for b in self.bulbs}

    def reset(self, occupant: str | None) -> None:
        self.occupant, self.out_steps = occupant, 0

    def state(self, bulb: str) -> str:
        return SEATED if self.occupant == bulb else FREE

    def geometry(self, data: mujoco.MjData, bulb: str) -> SeatGeometry:
        fx = data.xmat[self._fixture].reshape(3, 3)
        axis = fx[:, 2]
        seat = data.xpos[self._fixture] + axis * self.seat_offset
        b = self._ids[bulb]
        bx = data.xmat[b].reshape(3, 3)
        plug = data.xpos[b] + bx[:, 2] * self._plug[bulb]
        d = plug - seat
        axial = float(d @ axis)
        tilt = float(np.arccos(np.clip(bx[:, 2] @ axis, -1.0, 1.0)))
        return SeatGeometry(axial, d - axial * axis, tilt)

    def update(self, data: mujoco.MjData) -> None:
        """Once per control step: capture a bulb in reach, or count a seated one's way out."""
        if self.occupant is None:
            for bulb in self.bulbs:
                if self.geometry(data, bulb).capturable():
                    self.occupant, self.out_steps = bulb, 0
                    return
            return
        if self.geometry(data, self.occupant).axial > RELEASE_AXIAL:
            self.out_steps += 1
            if self.out_steps >= RELEASE_STEPS:
                self.occupant, self.out_steps = None, 0
        else:
            self.out_steps = 0

    def apply_forces(self, data: mujoco.MjData) -> None:
        """Before every physics step: the retention wrench on the seated bulb (none otherwise)."""
        for bulb, b in self._ids.items():
            data.xfrc_applied[b] = 0.0
        if self.occupant is None:
            return
        b = self._ids[self.occupant]
        fx = data.xmat[self._fixture].reshape(3, 3)
        axis = fx[:, 2]
        geo = self.geometry(data, self.occupant)
        vel = np.zeros(6)
        mujoco.mj_objectVelocity(self.model, data, mujoco.mjtObj.mjOBJ_BODY, b, vel, 0)  # (angular, linear), world
        omega, v = vel[:3], vel[3:]
        axial_rate = float(v @ axis)
        pull = -MAGNET_FORCE * max(1.0 - max(geo.axial, 0.0) / MAGNET_RANGE, 0.0) - MAGNET_DAMPING * axial_rate
        pull = min(max(pull, -MAGNET_CAP), 0.0)  # inward only
        lateral_v = v - axial_rate * axis
        force = pull * axis + _cap(-LATERAL_K * geo.lateral - LATERAL_D * lateral_v, LATERAL_CAP)
        bulb_axis = data.xmat[b].reshape(3, 3)[:, 2]
        twist_free = omega - (omega @ bulb_axis) * bulb_axis
        torque = _cap(TILT_K * np.cross(bulb_axis, axis) - TILT_D * twist_free, TILT_CAP)
        # The force acts at the plug; xfrc_applied acts at the centre of mass.
        plug = data.xpos[b] + bulb_axis * self._plug[self.occupant]
        torque = torque + np.cross(plug - data.xipos[b], force)
        data.xfrc_applied[b, :3] = force
        data.xfrc_applied[b, 3:] = torque
