"""The climbing task's limb forces F_rung (paper III-D): the ladder's force on each foot and palm.

Four world-frame forces, left foot, right foot, left palm, right palm (12
values, N). Only contact with the ladder counts, never the floor or the
robot's own body.

- Palms are measured directly: the summed contact forces between the ladder
  and the hand (the wrist yaw link, which carries the palm, and the fingers).
- The G1 has no foot sensor, so a foot's force is estimated from joint
  torques, as the robot would: the leg's equation of motion, M qacc + bias =
  tau + J^T w, over its six joints, solved for the wrench w at the sole's
  centre (J: that point's Jacobian) from the actuator and passive torques and
  the model's inertia and gravity at the measured motion (encoders and IMU
  give joint and base accelerations). The paper names the ankle torques;
  those two alone fix only two of the force's three components, so the knee
  and hip torques join them. The estimate is reported while the foot touches
  the ladder (the simulator's contact list says when) and is zero otherwise,
  so standing on the floor registers nothing.

`exact` gives the measured contact forces of all four limbs: the privileged
observation's version.
"""

from __future__ import annotations

import mujoco
import numpy as np

from .observation import HAND_LINKS

LIMBS = ("left_foot", "right_foot", "left_palm", "right_palm")
SIDES = ("left", "right")
LEG = ("hip_pitch", "hip_roll", "hip_yaw", "knee", "ankle_pitch", "ankle_roll")
RUNG_DIM = 3 * len(LIMBS)


class RungSensor:
    def __init__(self, model: mujoco.MjModel, ladder: str = "ladder") -> None:
        self.model = model
        ladder_id = model.body(ladder).id
        self._ladder_geoms = {g for g in range(model.ngeom) if model.geom_bodyid[g] == ladder_id}
        self._limb_of: dict[int, int] = {}  # body -> limb index
        self._feet, self._soles, self._leg_dofs = [], [], []
        for k, side in enumerate(SIDES):
            foot = model.body(f"{side}_ankle_roll_link").id
            self._feet.append(foot)
            self._limb_of[foot] = k
            self._soles.append([g for g in range(model.ngeom) if model.geom_bodyid[g] == foot and model.geom_contype[g]])
            self._leg_dofs.append(np.array([model.jnt_dofadr[model.joint(f"{side}_{j}_joint").id] for j in LEG]))
            for link in HAND_LINKS[side]:
                self._limb_of[model.body(link).id] = 2 + k
        self._jac, self._jacr, self._mqacc = np.zeros((3, model.nv)), np.zeros((3, model.nv)), np.zeros(model.nv)
        self._f6 = np.zeros(6)

    def _contacts(self, data: mujoco.MjData) -> tuple[np.ndarray, np.ndarray]:
        """(4, 3) measured ladder force on each limb and (4,) whether it touches the ladder."""
        m = self.model
        forces, touching = np.zeros((len(LIMBS), 3)), np.zeros(len(LIMBS), bool)
        for i in range(data.ncon):
            c = data.contact[i]
            g1, g2 = int(c.geom[0]), int(c.geom[1])
            if (g1 in self._ladder_geoms) == (g2 in self._ladder_geoms):
                continue
            limb_geom = g2 if g1 in self._ladder_geoms else g1
            limb = self._limb_of.get(int(m.geom_bodyid[limb_geom]))
            if limb is None:
                continue
            mujoco.mj_contactForce(m, data, i, self._f6)
            world = c.frame.reshape(3, 3).T @ self._f6[:3]  # geom1 pushes geom2 along the normal
            forces[limb] += world if limb_geom == g2 else -world
            touching[limb] = True
        return forces, touching

    def estimate_foot(self, data: mujoco.MjData, k: int) -> np.ndarray:
        """The load on foot k (0 left, 1 right) from its leg's joint torques, world frame, N.

        Read after a step, every quantity is the one the step's dynamics used: the leg's rows of
        M qacc + bias - tau_actuator - tau_passive are the external wrench on the leg through the sole
        centre's Jacobian (translation and rotation over the six leg joints), solved for (f, moment)."""
        m = self.model
        sole = data.geom_xpos[self._soles[k]].mean(axis=0)
        mujoco.mj_jac(m, data, self._jac, self._jacr, sole, self._feet[k])
        mujoco.mj_mulM(m, data, self._mqacc, data.qacc)
        dofs = self._leg_dofs[k]
        tau = self._mqacc[dofs] + data.qfrc_bias[dofs] - data.qfrc_actuator[dofs] - data.qfrc_passive[dofs]
        wrench, *_ = np.linalg.lstsq(np.vstack([self._jac[:, dofs], self._jacr[:, dofs]]).T, tau, rcond=None)
        return wrench[:3]

    def read(self, data: mujoco.MjData) -> np.ndarray:
        """F_rung as the robot senses it: feet estimated while on the ladder, palms measured; (12,)."""
        forces, touching = self._contacts(data)
        for k in range(len(SIDES)):
            forces[k] = self.estimate_foot(data, k) if touching[k] else 0.0
        return forces.reshape(-1)

    def exact(self, data: mujoco.MjData) -> np.ndarray:
        """F_rung measured at every limb's contacts; (12,)."""
        return self._contacts(data)[0].reshape(-1)
