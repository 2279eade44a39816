"""What the arms feel from outside the robot, and how far the balanced robot leans into it.

A hand that pulls a ladder, pushes a cart or holds something heavy puts a
moment on the robot that its weight must answer: standing still, the floor's
centre of pressure stays where the ZMP plan puts it only if the CoM sits
off it by the load's moment over the robot's weight. Without that lean the
standing robot, pulled at both wrists, fell at 49 N (the Fiatlux robot on its
soft servos at 27 N: the moment of its 36 kg over 6 cm); leaning, at 114 N
(94 N): `benchmarks/diagnostics/balance.py`, `benchmarks/fiatlux.py --ladder`.

Once per command the external wrench on each arm (every body from the
shoulder out: its contacts with things that can move, and forces applied
to those bodies) is low-passed and expressed at the wrist. Three kinds of
contact are not a load: the robot touching itself (a hand on the other
shoulder, an elbow on the torso), the room's fixed furniture, and whatever
the feet stand on. A hand pressed on a bench is held up by it; leaning
onto that support tipped the robot over when the hand lifted (a tool-use
episode fell where, without the lean, it had timed out standing). A hand
braced on the rail of the ladder the robot stands on pushes the robot and
the ladder apart, not the pair over; counted, it leaned the robot 3-7 cm
off the top tread, and three of twenty bulb-screwing episodes fell. From
the wrench come:
- the lean: the CoM's offset from the centre of pressure that balances the
  load's moment, r = (-M_y, M_x) / (m g), M the moment about that point;
- the wrench itself, which the static feedforward adds as it adds the floor's,
  so the arm servos hold their targets under the load and the legs carry it.

A deadband keeps light contact out: a held tool's weight, a fingertip on a
bulb, a touch of the bench or a hammer's blow (low-passed) asks for less
than `deadband` of lean and changes nothing. Past it, both the lean and the
wrench grow from zero, so nothing jumps when a load arrives.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from .footsteps import SIDES
from .preview import G
from .wholebody import FEET, cross


@dataclass(frozen=True)
class Lean:
    deadband: float = 0.01  # m of lean the load must ask for before it counts
    time_constant: float = 0.1  # s: the low-pass on the measured wrench
    limit: float = 0.12  # m, per axis: the largest lean


@dataclass(frozen=True)
class Load:
    """An external wrench on one arm, in world axes: force (N) and torque (N m) about the wrist."""

    side: str
    force: np.ndarray
    torque: np.ndarray


class ArmLoads:
    """The filtered external wrench on each arm of the robot in a compiled scene."""

    def __init__(self, model: mujoco.MjModel, lean: Lean) -> None:
        self.model, self.lean = model, lean
        self.wrist = {s: model.body(f"{s}_wrist_yaw_link").id for s in SIDES}
        self.bodies = {s: self._subtree(model.body(f"{s}_shoulder_pitch_link").id) for s in SIDES}
        self.side_of = np.full(model.nbody, -1)  # per body: 0 left arm, 1 right arm, -1 neither
        for i, side in enumerate(SIDES):
            self.side_of[self.bodies[side]] = i
        # Bodies whose contacts load the arms: neither the robot's nor welded to the world.
        self.movable = (model.body_rootid != model.body_rootid[self.wrist["left"]]) & (model.body_weldid != 0)
        self.foot = np.zeros(model.nbody, bool)
        self.foot[[model.body(name).id for name in FEET.values()]] = True
        self.wrench = {s: np.zeros(6) for s in SIDES}  # force, torque about the wrist
        self._contact = np.zeros(6)

    def _subtree(self, top: int) -> np.ndarray:
        inside = {top}
        for b in range(top + 1, self.model.nbody):  # MuJoCo numbers a body after its parent
            if self.model.body_parentid[b] in inside:
                inside.add(b)
        return np.array(sorted(inside))

    def reset(self) -> None:
        for w in self.wrench.values():
            w[:] = 0.0

    def update(self, data: mujoco.MjData, dt: float) -> None:
        """Read the last physics step's external forces on the arms and low-pass them."""
        now = {side: np.zeros(6) for side in SIDES}
        for side, bodies in self.bodies.items() if data.xfrc_applied.any() else ():  # applied forces act at each body's CoM
            applied = data.xfrc_applied[bodies]
            if applied.any():
                torque = applied[:, 3:] + np.cross(data.xipos[bodies] - data.xpos[self.wrist[side]], applied[:, :3])
                now[side] = np.concatenate([applied[:, :3].sum(axis=0), torque.sum(axis=0)])
        self._add_contacts(data, now)
        alpha = dt / (self.lean.time_constant + dt)
        for side, w in self.wrench.items():
            w += alpha * (now[side] - w)

    def _add_contacts(self, data: mujoco.MjData, now: dict) -> None:
        """Each arm's contacts with movable things the feet do not stand on, as force and torque
        about its wrist."""
        m, con = self.model, data.contact
        if not data.ncon:
            return
        bodies = m.geom_bodyid[con.geom]
        arm = self.side_of[bodies]
        loaded = (arm >= 0) & self.movable[bodies[:, ::-1]]  # an arm, and across from it something movable
        if not loaded.any():
            return
        feet = self.foot[bodies]
        support = np.concatenate([bodies[feet[:, 0], 1], bodies[feet[:, 1], 0]])
        loaded &= ~np.isin(bodies[:, ::-1], support)
        for i in np.flatnonzero(loaded.any(axis=1)):
            if con.efc_address[i] < 0:
                continue
            mujoco.mj_contactForce(m, data, int(i), self._contact)
            on_second = con.frame[i].reshape(3, 3).T @ self._contact[:3]  # what geom1 does to geom2
            for k, sign in ((0, -1.0), (1, 1.0)):
                if arm[i, k] >= 0:
                    side = SIDES[arm[i, k]]
                    force = sign * on_second
                    now[side][:3] += force
                    now[side][3:] += cross(con.pos[i] - data.xpos[self.wrist[side]], force)

    def lean_into(self, data: mujoco.MjData, cop: np.ndarray, mass: float) -> tuple[np.ndarray, list[Load]] | None:
        """The CoM offset from the world point `cop` (on the ground) that balances the arms' load,
        and the loads as they count; None inside the deadband."""
        if not any(w.any() for w in self.wrench.values()):
            return None
        moment = np.zeros(3)
        for side, w in self.wrench.items():
            moment += w[3:] + cross(data.xpos[self.wrist[side]] - cop, w[:3])
        raw = np.array([-moment[1], moment[0]]) / (mass * G)
        size = float(np.linalg.norm(raw))
        if size <= self.lean.deadband:
            return None
        gate = 1.0 - self.lean.deadband / size
        loads = [Load(s, gate * w[:3], gate * w[3:]) for s, w in self.wrench.items()]
        return np.clip(gate * raw, -self.lean.limit, self.lean.limit), loads
