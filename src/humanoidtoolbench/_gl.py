"""Choose the OpenGL backend before MuJoCo is imported (MuJoCo reads it once, at import).

Headless EGL by default: NVIDIA's when a driver is present, Mesa's software
renderer otherwise. `HUMANOIDTOOLBENCH_FORCE_CPU=1` forces Mesa and hides
CUDA devices; `HUMANOIDTOOLBENCH_GPU=N` selects EGL device N. An explicit
`MUJOCO_GL` is respected.
"""

from __future__ import annotations

import os
import sys

FORCE_CPU_ENV = "HUMANOIDTOOLBENCH_FORCE_CPU"
GPU_ENV = "HUMANOIDTOOLBENCH_GPU"
MESA_VENDOR_FILES = (
    "/usr/share/glvnd/egl_vendor.d/50_mesa.json",
    "/usr/local/share/glvnd/egl_vendor.d/50_mesa.json",
)


def force_cpu() -> bool:
    return os.environ.get(FORCE_CPU_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def configure() -> None:
    if not sys.platform.startswith("linux"):
        return
    os.environ.setdefault("MUJOCO_GL", "egl")
    if os.environ["MUJOCO_GL"] != "egl":
        return
    os.environ.setdefault("PYOPENGL_PLATFORM", "egl")
    if force_cpu():
        os.environ["CUDA_VISIBLE_DEVICES"] = ""
        for path in MESA_VENDOR_FILES:
            if os.path.exists(path):
                os.environ["__EGL_VENDOR_LIBRARY_FILENAMES"] = path
                break
    elif os.environ.get(GPU_ENV, "").strip():
        os.environ.setdefault("MUJOCO_EGL_DEVICE_ID", os.environ[GPU_ENV].strip())
