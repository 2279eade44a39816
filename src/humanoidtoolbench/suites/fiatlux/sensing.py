"""What the Fiatlux gates read: one step's `Snapshot`, measured from the simulator.

The hand contacts on the bulbs (each hand body's force, the policy's
contact observation too), each bulb's state (pose, speed, outline against
the crate, seat geometry, the forces the hands put on it) and the robot's
and the ladder's pose and speed. Measured once per control step, so the
gates, the terminations, the rewards and the bag read the same values.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np

from ...control.balanced.footsteps import rot
from ...control.base import BasePose
from . import gates, props
from .gates import BulbState, Snapshot
from .observation import HAND_BODIES, HAND_LINKS
from .props import BULBS
from .randomisation import PropScale
from .scene import Placement
from .seat import MagneticSeat


class SnapshotSensor:
    """Measures the `Snapshot` of one compiled scene."""

    def __init__(self, model: mujoco.MjModel, at: Placement, scale: PropScale, tread: tuple[tuple[float, float], float],
                 seat: MagneticSeat, body: dict[str, int], free_adr: dict[str, tuple[int, int]]) -> None:
        """`tread`: the top tread's (centre xy, top z) in the ladder frame; `body`, `free_adr`: the
        props' body ids and the free joints' (qpos, dof) addresses."""
        self.model, self.at, self.scale, self.tread, self.seat = model, at, scale, tread, seat
        self.body, self.free_adr = body, free_adr
        self.bulb_geoms = {n: model.geom(f"{n}/glass").id for n in BULBS}
        self.hand_of = {model.body(b).id: (side, k) for side, links in HAND_LINKS.items() for k, b in enumerate(links)}
        self.outline = {b: np.array(props.bulb_vertices(scale.bulb(b))).reshape(-1, 3) for b in BULBS}
        root = model.joint("floating_base_joint").id
        self.pelvis_dof = int(model.jnt_dofadr[root])
        self.seat_site = model.site("fixture/seat").id

    def hand_contacts(self, d: mujoco.MjData) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """(2, 8, 3) force on the bulbs by each hand body (right first), and per bulb (16,) force norms."""
        m = self.model
        forces = np.zeros((2, HAND_BODIES, 3))
        per_bulb = {b: np.zeros(2 * HAND_BODIES) for b in BULBS}
        geom_bulb = {g: b for b, g in self.bulb_geoms.items()}
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
            hand = self.hand_of.get(int(other))
            if hand is None:
                continue
            mujoco.mj_contactForce(m, d, i, f6)
            world = c.frame.reshape(3, 3).T @ f6[:3]
            side, k = hand
            row = 0 if side == "right" else 1
            forces[row, k] += world
            per_bulb[bulb][row * HAND_BODIES + k] += float(np.linalg.norm(f6[:3]))
        return forces, per_bulb

    def bulb_state(self, d: mujoco.MjData, bulb: str, per_body: np.ndarray) -> BulbState:
        at = self.at
        b = self.body[bulb]
        qa, va = self.free_adr[bulb]
        R = d.xmat[b].reshape(3, 3)
        world = d.xpos[b] + self.outline[bulb] @ R.T
        crate_R = np.array([[math.cos(at.crate_yaw), -math.sin(at.crate_yaw)], [math.sin(at.crate_yaw), math.cos(at.crate_yaw)]])
        local = (world[:, :2] - at.crate_pos) @ crate_R
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

    def snapshot(self, d: mujoco.MjData, base: BasePose, per_bulb: dict[str, np.ndarray]) -> Snapshot:
        """The step's snapshot; `base` is the controller's measured pelvis pose, `per_bulb` the
        hand force norms of `hand_contacts`."""
        at = self.at
        (tread_centre, tread_top), v = self.tread, self.pelvis_dof
        lv = self.free_adr["ladder"][1]
        lb = self.body["ladder"]
        LR = d.xmat[lb].reshape(3, 3)
        crate_local = np.abs(rot(-at.crate_yaw, np.array([base.x, base.y]) - at.crate_pos))
        half = np.array(props.CRATE_SIZE[:2]) / 2
        return Snapshot(
            pelvis=np.array([base.x, base.y, base.z]),
            pelvis_tilt=base.tilt,
            pelvis_speed=float(np.linalg.norm(d.qvel[v : v + 3])),
            heading=base.yaw,
            ladder_root=d.xpos[lb].copy(),
            ladder_tilt=float(math.acos(max(-1.0, min(1.0, LR[2, 2])))),
            ladder_speed=float(np.linalg.norm(d.qvel[lv : lv + 3])),
            ladder_spin=float(np.linalg.norm(d.qvel[lv + 3 : lv + 6])),
            tread_stance=d.xpos[lb] + LR @ np.array([*tread_centre, tread_top + gates.TREAD_STANCE]),
            ladder_top=d.xpos[lb] + LR @ np.array([*tread_centre, tread_top]),
            seat=d.site_xpos[self.seat_site].copy(),
            crate_pos=np.array([*at.crate_pos, 0.0]),
            crate_distance=float(np.linalg.norm(np.maximum(crate_local - half, 0.0))),
            bench_start=at.bench_bulb,
            bulbs={b: self.bulb_state(d, b, per_bulb[b]) for b in BULBS},
        )
