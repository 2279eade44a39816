"""Who touches whom: contacts mapped to named owners (props, hands, bench) once per control step.

Every geom gets an owner code from the body it belongs to, so one numpy
lookup turns the contact list into owner pairs that metrics and the ice
fracture model read.
"""

from __future__ import annotations

import mujoco
import numpy as np

NONE = -1


def is_hand_body(name: str, side: str) -> bool:
    """Hand bodies: the wrist-yaw link (which carries the palm) and the finger links."""
    return name.startswith(f"{side}_hand_") or name == f"{side}_wrist_yaw_link"


class ContactIndex:
    def __init__(self, model: mujoco.MjModel, owners: dict[str, list[int]]) -> None:
        """`owners` maps an owner name to the body ids it consists of."""
        self.names = list(owners)
        self.code = {name: i for i, name in enumerate(self.names)}
        body_owner = np.full(model.nbody, NONE, dtype=np.int64)
        for name, bodies in owners.items():
            body_owner[bodies] = self.code[name]
        self.geom_owner = body_owner[model.geom_bodyid]

    def pairs(self, data: mujoco.MjData) -> np.ndarray:
        """(ncon, 2) owner codes of the current contacts (NONE for unowned geoms)."""
        if data.ncon == 0:
            return np.empty((0, 2), dtype=np.int64)
        return self.geom_owner[data.contact.geom[: data.ncon]]

    def touching(self, pairs: np.ndarray, a: str, b: str) -> np.ndarray:
        """Indices of contacts between owners a and b."""
        ca, cb = self.code[a], self.code[b]
        return np.flatnonzero(((pairs[:, 0] == ca) & (pairs[:, 1] == cb)) | ((pairs[:, 0] == cb) & (pairs[:, 1] == ca)))


def subtree_bodies(model: mujoco.MjModel, root: int) -> list[int]:
    """A body and all its descendants (a prop with a compliant head is two bodies)."""
    return [b for b in range(model.nbody) if _has_ancestor(model, b, root)]


def _has_ancestor(model: mujoco.MjModel, body: int, root: int) -> bool:
    while body != 0:
        if body == root:
            return True
        body = model.body_parentid[body]
    return root == 0
