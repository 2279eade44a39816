"""Offscreen camera rendering and a record of which GL backend produced the images."""

from __future__ import annotations

import os
from functools import lru_cache

import mujoco
import numpy as np

from ..robot.cameras import CAMERA_NAMES, HEIGHT, WIDTH
from ..robot.edit import VISUAL_GROUP


class CameraRenderer:
    """One GL context and scene reused for every camera; call `close` when done."""

    def __init__(self, model: mujoco.MjModel, cameras: tuple[str, ...] = CAMERA_NAMES) -> None:
        _require_headless_backend()
        self.cameras = cameras
        self._renderer = mujoco.Renderer(model, HEIGHT, WIDTH)
        self._option = mujoco.MjvOption()
        self._option.geomgroup[:] = 0
        for g in (0, VISUAL_GROUP, 2):
            self._option.geomgroup[g] = 1
        self._ids = {name: model.camera(name).id for name in cameras}

    def render(self, data: mujoco.MjData, camera: str, out: np.ndarray | None = None) -> np.ndarray:
        self._renderer.update_scene(data, camera=self._ids[camera], scene_option=self._option)
        return self._renderer.render(out=out)

    def render_all(self, data: mujoco.MjData) -> dict[str, np.ndarray]:
        return {name: self.render(data, name) for name in self.cameras}

    def close(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
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
        ctx.free()
    except Exception as exc:  # no GL at all: report it rather than fail here
        info["error"] = f"{type(exc).__name__}: {exc}"
        return {**info, "device": "none"}
    software = any(k in info["renderer"].lower() for k in ("llvmpipe", "softpipe", "swrast"))
    info["device"] = "cpu" if software else "gpu"
    return info
