"""A private kinematic copy of the robot for the experts: forward kinematics and arm inverse kinematics.

The solver is damped least squares over a stack of weighted tasks: a point
of the hand at a position, a hand axis along a direction, links kept above a
height (a bench or table top); joint limits are enforced by clipping each
iteration, and a weak pull towards a rest posture acts in the null space.
Several starts guard against the local minima of a 7-joint arm.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from ..control.assisted.assisted import AssistedController
from ..control.contracts.decoupled_v1 import JOINT_SLOTS
from ..robot.joints import ARM_JOINTS, BY_NAME
from ..sim.scene import add_robot, new_spec

# Where a handle sits in a closed Dex3 hand, in the wrist-yaw link frame: in
# front of the palm (the fingers curl towards -y on the left hand, +y on the
# right), between finger roots and thumb. The handle runs along the frame's z.
GRASP_POINT = {"left": (0.097, -0.112, 0.0), "right": (0.097, 0.112, 0.0)}
PALM_NORMAL = {"left": (0.0, -1.0, 0.0), "right": (0.0, 1.0, 0.0)}
HANDLE_AXIS = (0.0, 0.0, 1.0)
BASE_JOINTS = ("base_x", "base_y", "base_z", "base_yaw")
# Links of each arm that must stay clear of a work surface (`floor`).
CLEARANCE_LINKS = ("elbow_link", "wrist_roll_link", "wrist_pitch_link")


@dataclass(frozen=True)
class Reach:
    """Where the grasp point should go and how the hand should be turned."""

    pos: np.ndarray
    axis: np.ndarray | None = None  # world direction for the hand's handle axis (z)
    normal: np.ndarray | None = None  # world direction for the palm normal (soft)
    axis_weight: float = 0.4
    normal_weight: float = 0.15
    offset: np.ndarray | None = None  # a point in the wrist frame other than the grasp point (a tool tip)
    axis_local: tuple | np.ndarray = HANDLE_AXIS  # the wrist-frame direction `axis` applies to (a held tool's axis)
    normal_local: tuple | np.ndarray | None = None  # the wrist-frame direction `normal` applies to (default the palm's)


class Kinematics:
    def __init__(self) -> None:
        spec = new_spec()
        add_robot(spec, AssistedController())
        self.model = spec.compile()
        self.data = mujoco.MjData(self.model)
        m = self.model
        self._base = np.array([m.jnt_qposadr[m.joint(n).id] for n in BASE_JOINTS])
        self._slots = np.array([m.jnt_qposadr[m.joint(n).id] for n in JOINT_SLOTS])
        self.wrist = {s: m.body(f"{s}_wrist_yaw_link").id for s in ARM_JOINTS}
        self.arm_qpos = {s: np.array([m.jnt_qposadr[m.joint(n).id] for n in ARM_JOINTS[s]]) for s in ARM_JOINTS}
        self.arm_dof = {s: np.array([m.jnt_dofadr[m.joint(n).id] for n in ARM_JOINTS[s]]) for s in ARM_JOINTS}
        self.arm_lo = {s: np.array([BY_NAME[n].lo for n in ARM_JOINTS[s]]) for s in ARM_JOINTS}
        self.arm_hi = {s: np.array([BY_NAME[n].hi for n in ARM_JOINTS[s]]) for s in ARM_JOINTS}
        self.clear = {s: [m.body(f"{s}_{n}").id for n in CLEARANCE_LINKS] for s in ARM_JOINTS}
        self._jacp = np.zeros((3, m.nv))
        self._jacr = np.zeros((3, m.nv))
        # Fixed start postures for the multi-start search: the same every call, so the
        # expert's choices do not depend on what it solved before.
        rng = np.random.default_rng(0)
        self._starts = {s: rng.uniform(self.arm_lo[s], self.arm_hi[s], (16, len(ARM_JOINTS[s]))) * 0.7 for s in ARM_JOINTS}

    def set_state(self, base: np.ndarray, joints: np.ndarray) -> None:
        """Base (x, y, z, yaw) and the 31 commanded joints in slot order."""
        self.data.qpos[self._base] = base
        self.data.qpos[self._slots] = joints[:31]
        mujoco.mj_kinematics(self.model, self.data)

    def arm(self, side: str) -> np.ndarray:
        return self.data.qpos[self.arm_qpos[side]].copy()

    def point(self, side: str, local=None) -> np.ndarray:
        """World position of a point given in the wrist frame (default: the grasp point)."""
        w = self.wrist[side]
        local = GRASP_POINT[side] if local is None else local
        return self.data.xpos[w] + self.data.xmat[w].reshape(3, 3) @ np.asarray(local)

    def frame(self, side: str) -> tuple[np.ndarray, np.ndarray]:
        w = self.wrist[side]
        return self.data.xpos[w].copy(), self.data.xmat[w].reshape(3, 3).copy()

    # -- inverse kinematics ------------------------------------------------
    def _rows(self, side: str, reach: Reach, floor: float | None):
        m, d = self.model, self.data
        dof = self.arm_dof[side]
        w = self.wrist[side]
        rot = d.xmat[w].reshape(3, 3)
        local = np.asarray(GRASP_POINT[side] if reach.offset is None else reach.offset)
        p = d.xpos[w] + rot @ local
        mujoco.mj_jac(m, d, self._jacp, self._jacr, p, w)
        rows, errs = [self._jacp[:, dof].copy()], [reach.pos - p]
        jr = self._jacr[:, dof].copy()
        for axis_local, target, weight in (
            (reach.axis_local, reach.axis, reach.axis_weight),
            (PALM_NORMAL[side] if reach.normal_local is None else reach.normal_local, reach.normal, reach.normal_weight),
        ):
            if target is None:
                continue
            a = rot @ np.asarray(axis_local, float)
            a /= np.linalg.norm(a)
            # Rotating by e = a x t turns a towards t; only rotation normal to a matters.
            proj = np.eye(3) - np.outer(a, a)
            rows.append(weight * proj @ jr)
            errs.append(weight * np.cross(a, target / np.linalg.norm(target)))
        if floor is not None:
            for b in self.clear[side]:
                z = d.xpos[b][2]
                if z < floor:
                    mujoco.mj_jacBody(m, d, self._jacp, self._jacr, b)
                    rows.append(2.0 * self._jacp[2:3, dof])
                    errs.append(np.array([2.0 * (floor - z)]))
        return np.vstack(rows), np.concatenate(errs)

    def solve(
        self,
        side: str,
        reach: Reach,
        rest: np.ndarray | None = None,
        floor: float | None = None,
        iters: int = 80,
        damping: float = 0.03,
    ) -> tuple[np.ndarray, float]:
        """Arm joints from the current arm state; returns (q, weighted residual)."""
        m, d = self.model, self.data
        qa = self.arm_qpos[side]
        lo, hi = self.arm_lo[side], self.arm_hi[side]
        rest = d.qpos[qa].copy() if rest is None else np.asarray(rest, float)
        for _ in range(iters):
            mujoco.mj_kinematics(m, d)
            mujoco.mj_comPos(m, d)  # Jacobians need the com-based frames
            jac, err = self._rows(side, reach, floor)
            jjt = jac @ jac.T + damping**2 * np.eye(len(err))
            step = jac.T @ np.linalg.solve(jjt, err)
            null = np.eye(len(qa)) - jac.T @ np.linalg.solve(jjt, jac)
            step += null @ (0.05 * (rest - d.qpos[qa]))
            d.qpos[qa] = np.clip(d.qpos[qa] + np.clip(step, -0.3, 0.3), lo, hi)
        mujoco.mj_kinematics(m, d)
        mujoco.mj_comPos(m, d)
        _, err = self._rows(side, reach, floor)
        return d.qpos[qa].copy(), float(np.linalg.norm(err))

    def solve_global(
        self, side: str, reach: Reach, floor: float | None = None, starts: int = 10, rest: np.ndarray | None = None
    ) -> tuple[np.ndarray, float]:
        """Best of several starts: the current arm, then fixed spread-out postures."""
        current = self.arm(side)
        best = (None, np.inf)
        for i in range(starts):
            start = current if i == 0 else self._starts[side][i - 1]
            self.data.qpos[self.arm_qpos[side]] = start
            q, res = self.solve(side, reach, rest=rest, floor=floor)
            if res < best[1] - 1e-6:
                best = (q, res)
        self.data.qpos[self.arm_qpos[side]] = best[0]
        mujoco.mj_kinematics(self.model, self.data)
        return best
