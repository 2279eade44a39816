"""The Fiatlux policy observation: proprioception with the original's noise, hand contacts, lidar.

The state vector concatenates, in this order (noise is uniform in +-delta,
drawn from the episode's own generator):

    base angular velocity (3, 0.2), projected gravity (3, 0.05), base linear
    velocity (3, 0.1), base height (1, 0.05), joint positions relative to q0
    (43, 0.01), joint velocities (43, 1.5), hand contact forces on the bulbs,
    scaled by 0.1 (2 hands x 8 bodies x 3), the last action (43)

The lidar is a 32 x 180 scan (elevations -25..25 degrees, 2 degree azimuth
steps) from the head, cast against the scene (not the robot), up to 10 m,
scaled by 0.1. The image is the head RGB camera, 256 x 256, 69.4 degrees.

That is the standard observation mode. The privileged mode (`exact_state`,
the episode's `privileged_vector`) is the same vector without noise beside
the paper's privileged state: the poses of `POSED`, the four score distances
and the two seat flags (48 values).
"""

from __future__ import annotations

import math

import mujoco
import numpy as np

from ...control.contracts.joint_position import JOINT_NAMES
from .contract import Q0_VECTOR
from .views import CAMERA

NOISE = (("ang_vel", 3, 0.2), ("gravity", 3, 0.05), ("lin_vel", 3, 0.1), ("height", 1, 0.05),
         ("joint_pos", 43, 0.01), ("joint_vel", 43, 1.5))
HAND_BODIES = 8  # wrist yaw link (palm) and seven finger links, per hand
HAND_LINKS = {side: (f"{side}_wrist_yaw_link", *(f"{side}_hand_{f}_link" for f in (
    "thumb_0", "thumb_1", "thumb_2", "index_0", "index_1", "middle_0", "middle_1"))) for side in ("right", "left")}
CONTACT_SCALE = 0.1
STATE_DIM = sum(n for _, n, _ in NOISE) + 2 * HAND_BODIES * 3 + len(JOINT_NAMES)

CAMERA_FOV = 69.4  # degrees, horizontal = vertical for a square image
CAMERA_MOUNT = ((0.0576, 0.0, 0.4299), math.radians(30.0))  # torso frame position, downward pitch
LIDAR_SITE = "head_lidar"
LIDAR_MOUNT = (0.02, 0.0, 0.47)
LIDAR_CHANNELS, LIDAR_AZIMUTHS = 32, 180
LIDAR_ELEVATION = math.radians(25.0)
LIDAR_RANGE = 10.0
LIDAR_SCALE = 0.1
# The privileged observation (paper III-B, eq. 2): six poses (position, quaternion w x y z), the four
# score distances of `rewards.distances` and whether the old and the fresh bulb are seated.
POSED = ("pelvis", "ladder", "fixture", "fresh_bulb", "old_bulb", "crate")
PRIVILEGED_DIM = 7 * len(POSED) + 4 + 2
SCENE_GROUPS = np.array([1, 0, 0, 0, 0, 0], dtype=np.uint8)  # geom group 0: the scene, never the robot


def lidar_directions() -> np.ndarray:
    """(32 * 180, 3) unit rays in the mount frame, channel-major."""
    el = np.linspace(-LIDAR_ELEVATION, LIDAR_ELEVATION, LIDAR_CHANNELS)
    az = np.radians(np.arange(LIDAR_AZIMUTHS) * 2.0)
    e, a = np.meshgrid(el, az, indexing="ij")
    return np.stack([np.cos(e) * np.cos(a), np.cos(e) * np.sin(a), np.sin(e)], axis=-1).reshape(-1, 3)


def add_sensors(torso: mujoco.MjsBody) -> None:
    """The head camera and the lidar origin, on the torso."""
    (x, y, z), pitch = CAMERA_MOUNT
    cam = torso.add_camera(name=CAMERA, pos=[x, y, z], fovy=CAMERA_FOV)
    fwd = (math.cos(pitch), 0.0, -math.sin(pitch))
    up = (math.sin(pitch), 0.0, math.cos(pitch))
    cam.alt.type = mujoco.mjtOrientation.mjORIENTATION_XYAXES
    cam.alt.xyaxes = [*np.cross(fwd, up), *up]
    torso.add_site(name=LIDAR_SITE, pos=list(LIDAR_MOUNT), size=[0.01, 0.01, 0.01])


class Observer:
    def __init__(self, model: mujoco.MjModel, rng: np.random.Generator) -> None:
        self.model, self.rng = model, rng
        root = model.joint("floating_base_joint")
        self.qadr, self.vadr = int(model.jnt_qposadr[root.id]), int(model.jnt_dofadr[root.id])
        self.q = np.array([model.jnt_qposadr[model.joint(n).id] for n in JOINT_NAMES])
        self.v = np.array([model.jnt_dofadr[model.joint(n).id] for n in JOINT_NAMES])
        self.lidar_site = model.site(LIDAR_SITE).id
        self._rays = lidar_directions()
        self.last_action = np.zeros(len(JOINT_NAMES))

    def _clean(self, data: mujoco.MjData) -> dict[str, np.ndarray]:
        R = data.xmat[self.model.body("pelvis").id].reshape(3, 3)
        v = data.qvel
        return {
            "ang_vel": v[self.vadr + 3 : self.vadr + 6],
            "gravity": R.T @ np.array([0.0, 0.0, -1.0]),
            "lin_vel": R.T @ v[self.vadr : self.vadr + 3],
            "height": data.qpos[self.qadr + 2 : self.qadr + 3],
            "joint_pos": data.qpos[self.q] - Q0_VECTOR,
            "joint_vel": v[self.v],
        }

    def state(self, data: mujoco.MjData, contacts: np.ndarray) -> np.ndarray:
        """The noisy state vector; `contacts` is (2, HAND_BODIES, 3), right hand first."""
        clean = self._clean(data)
        parts = [clean[k] + self.rng.uniform(-d, d, n) for k, n, d in NOISE]
        parts += [contacts.reshape(-1) * CONTACT_SCALE, self.last_action]
        return np.concatenate(parts).astype(np.float32)

    def exact_state(self, data: mujoco.MjData, contacts: np.ndarray) -> np.ndarray:
        """The same vector without noise (the privileged mode's): no draw from the noise generator."""
        clean = self._clean(data)
        parts = [clean[k] for k, _, _ in NOISE] + [contacts.reshape(-1) * CONTACT_SCALE, self.last_action]
        return np.concatenate(parts).astype(np.float32)

    def lidar(self, data: mujoco.MjData) -> np.ndarray:
        origin = data.site_xpos[self.lidar_site]
        R = data.site_xmat[self.lidar_site].reshape(3, 3)
        vec = (self._rays @ R.T).reshape(-1)
        dist = np.zeros(len(self._rays))
        ids = np.zeros(len(self._rays), dtype=np.int32)
        mujoco.mj_multiRay(self.model, data, origin, vec, SCENE_GROUPS, 1, -1, ids, dist, None, len(self._rays), LIDAR_RANGE)
        dist[(dist < 0) | (dist > LIDAR_RANGE)] = LIDAR_RANGE  # no hit within range reads as the range
        return (dist * LIDAR_SCALE).reshape(LIDAR_CHANNELS, LIDAR_AZIMUTHS).astype(np.float32)
