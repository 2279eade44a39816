"""Offscreen camera rendering and a record of which GL backend produced the images."""

from __future__ import annotations

import math
import os
import weakref
from functools import lru_cache

import mujoco
import numpy as np

from ..robot.cameras import CAMERA_NAMES, HEIGHT, WIDTH
from ..robot.edit import VISUAL_GROUP

DRAWN_GROUPS = (0, VISUAL_GROUP, 2)
HIDDEN_GROUP = 5  # a geom group no camera draws
CULL_MARGIN = 0.02  # m added to every bounding sphere before it is judged out of view


class CameraRenderer:
    """One GL context and scene reused for every camera; call `close` when done.

    Geoms wholly outside a camera's view are left out of its scene: they
    change no pixel while the scene has no shadows or reflections (no look
    of `sim.look.LOOKS` has a shadow map, materials have reflectance 0), and
    their vertex work is a large part of the cost of software rendering (a
    wrist camera sees a fraction of the robot). Under a look with a shadow
    map, a geom out of view would cast no shadow into it.
    """

    def __init__(
        self, model: mujoco.MjModel, cameras: tuple[str, ...] = CAMERA_NAMES, width: int = WIDTH, height: int = HEIGHT
    ) -> None:
        _require_headless_backend()
        self.cameras = cameras
        self.model = model
        self._renderer = mujoco.Renderer(model, height, width)
        # Also freed at interpreter exit while the GL libraries are still loaded: a renderer
        # nobody closed (a Gymnasium environment without `close()`) would otherwise print
        # EGL errors from its destructor during shutdown.
        self._free = weakref.finalize(self, self._renderer.close)
        self._option = mujoco.MjvOption()
        self._option.geomgroup[:] = 0
        for g in DRAWN_GROUPS:
            self._option.geomgroup[g] = 1
        self._ids = {name: model.camera(name).id for name in cameras}
        # Drawn geoms with a finite bounding sphere (planes have none), and the sphere radii.
        self._cullable = np.flatnonzero(np.isin(model.geom_group, DRAWN_GROUPS) & (model.geom_rbound > 0))
        self._radius = model.geom_rbound[self._cullable] + CULL_MARGIN
        self._near = model.vis.map.znear * model.stat.extent
        self._sides = {}  # camera -> unit normals of its four side planes, camera frame
        for name, cid in self._ids.items():
            ty = math.tan(math.radians(model.cam_fovy[cid]) / 2)
            tx = ty * width / height
            self._sides[name] = np.array([[1, 0, tx], [-1, 0, tx], [0, 1, ty], [0, -1, ty]]) / np.array(
                [[math.hypot(1, tx)], [math.hypot(1, tx)], [math.hypot(1, ty)], [math.hypot(1, ty)]]
            )

    def render(self, data: mujoco.MjData, camera: str, out: np.ndarray | None = None) -> np.ndarray:
        hidden = self._out_of_view(data, camera)
        groups = self.model.geom_group[hidden].copy()
        self.model.geom_group[hidden] = HIDDEN_GROUP
        try:
            self._renderer.update_scene(data, camera=self._ids[camera], scene_option=self._option)
        finally:
            self.model.geom_group[hidden] = groups
        return self._renderer.render(out=out)

    def _out_of_view(self, data: mujoco.MjData, camera: str) -> np.ndarray:
        """Geoms whose bounding sphere lies beyond a side plane of the camera's view or behind it."""
        cid = self._ids[camera]
        # Camera frame: x right, y up, looking along -z.
        rel = (data.geom_xpos[self._cullable] - data.cam_xpos[cid]) @ data.cam_xmat[cid].reshape(3, 3)
        beyond = (rel @ self._sides[camera].T).max(axis=1) > self._radius
        behind = rel[:, 2] + self._near > self._radius  # wholly behind the near plane (z = -near)
        return self._cullable[beyond | behind]

    def render_all(self, data: mujoco.MjData) -> dict[str, np.ndarray]:
        return {name: self.render(data, name) for name in self.cameras}

    def close(self) -> None:
        self._free()
        self._renderer = None

    def __enter__(self) -> "CameraRenderer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _require_headless_backend() -> None:
    module = getattr(mujoco, "GLContext", None).__module__ if hasattr(mujoco, "GLContext") else ""
    if module.endswith("glfw") and not os.environ.get("DISPLAY"):
        raise RuntimeError(
            "MuJoCo was imported before humanoidtoolbench with no MUJOCO_GL set, so it chose a windowed "
            "OpenGL backend; set MUJOCO_GL=egl or import humanoidtoolbench first"
        )


def render_view(model: mujoco.MjModel, data: mujoco.MjData, lookat, distance: float, azimuth: float, elevation: float,
                width: int, height: int) -> np.ndarray:
    """One image from a free camera orbiting `lookat` (degrees; negative elevation looks down), every
    drawn group shown: close-ups for galleries and documentation, never a policy's view."""
    _require_headless_backend()
    option = mujoco.MjvOption()
    option.geomgroup[:] = 0
    for g in DRAWN_GROUPS:
        option.geomgroup[g] = 1
    cam = mujoco.MjvCamera()
    cam.type = mujoco.mjtCamera.mjCAMERA_FREE
    cam.lookat[:], cam.distance, cam.azimuth, cam.elevation = lookat, distance, azimuth, elevation
    with mujoco.Renderer(model, height, width) as renderer:
        renderer.update_scene(data, camera=cam, scene_option=option)
        return renderer.render().copy()


@lru_cache(maxsize=1)
def backend_info() -> dict:
    """GL backend, vendor and renderer strings, and whether rendering runs on a GPU."""
    info = {
        "mujoco_gl": os.environ.get("MUJOCO_GL", ""),
        "force_cpu": os.environ.get("HUMANOIDTOOLBENCH_FORCE_CPU", ""),
        "egl_device_id": os.environ.get("MUJOCO_EGL_DEVICE_ID", ""),
    }
    try:
        ctx = mujoco.GLContext(16, 16)
        ctx.make_current()
        from OpenGL import GL

        info["vendor"] = GL.glGetString(GL.GL_VENDOR).decode()
        info["renderer"] = GL.glGetString(GL.GL_RENDERER).decode()
        info["version"] = GL.glGetString(GL.GL_VERSION).decode()
        ctx.free()
    except Exception as exc:  # no GL at all: report it rather than fail here
        info["error"] = f"{type(exc).__name__}: {exc}"
        return {**info, "device": "none"}
    software = any(k in info["renderer"].lower() for k in ("llvmpipe", "softpipe", "swrast"))
    info["device"] = "cpu" if software else "gpu"
    return info
