"""Robot core speed: control steps/s without rendering vs raw mj_step, and head-camera frames/s.

    python benchmarks/robot_core.py [--seconds 20]

The last line printed is one JSON object with the figures.
"""

from __future__ import annotations

import argparse
import json
import time

import humanoidtoolbench  # noqa: F401  (headless GL before MuJoCo loads)
import mujoco
import numpy as np

from humanoidtoolbench.control import contract
from humanoidtoolbench.robot.cameras import POLICY_CAMERA
from humanoidtoolbench.sim.render import CameraRenderer, backend_info
from humanoidtoolbench.sim.scene import SUBSTEPS
from humanoidtoolbench.sim.simulation import home_upper_pose, robot_in_room


def timed(fn, seconds: float) -> float:
    """Calls per second of fn over about `seconds`."""
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        fn()
        n += 1
    return n / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per measurement")
    args = parser.parse_args()

    sim = robot_in_room()
    walk = np.concatenate([home_upper_pose(), [contract.DEFAULT_BASE_HEIGHT, 0.2, 0.0, 1.0, 1.0]])
    cmd = contract.decode(walk)
    control_hz = timed(lambda: sim.step(cmd), args.seconds)
    raw_hz = timed(lambda: mujoco.mj_step(sim.model, sim.data), args.seconds)
    with CameraRenderer(sim.model, (POLICY_CAMERA,)) as cams:
        buf = np.empty((360, 640, 3), np.uint8)
        fps = timed(lambda: cams.render(sim.data, POLICY_CAMERA, out=buf), args.seconds)
    figures = {
        "control_steps_per_s": round(control_hz, 1),
        "raw_mj_step_per_s": round(raw_hz, 1),
        "step_overhead_ratio": round(raw_hz / (control_hz * SUBSTEPS), 3),
        "head_camera_fps": round(fps, 1),
        "renderer": backend_info().get("renderer"),
    }
    print(f"control steps/s (no rendering): {control_hz:.0f}")
    print(f"raw mj_step/s on the same model: {raw_hz:.0f}")
    print(f"control step time / {SUBSTEPS} raw steps: {figures['step_overhead_ratio']:.3f}")
    print(f"head camera 640x360 frames/s: {fps:.1f} ({figures['renderer']})")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
