"""Demo: the G1 stands, steps sideways, turns and moves its arms.

Writes the head camera to an MP4 and the measured base motion to JSON:

    python examples/demo_motion.py --output demo
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

import humanoidtoolbench  # noqa: F401  (headless GL before MuJoCo loads)
from humanoidtoolbench.control.assisted.assisted import AssistedController
from humanoidtoolbench.control.base import BasePose
from humanoidtoolbench.control.contracts import decoupled_v1 as contract
from humanoidtoolbench.record.files import write_json_atomic
from humanoidtoolbench.record.video import VideoWriter
from humanoidtoolbench.robot.cameras import HEIGHT, POLICY_CAMERA, WIDTH
from humanoidtoolbench.robot.joints import HOME_POSE
from humanoidtoolbench.sim import scene
from humanoidtoolbench.sim.render import CameraRenderer
from humanoidtoolbench.sim.simulation import Simulation

HOME = np.array([HOME_POSE[n] for n in contract.JOINT_SLOTS])
SHOULDER_PITCH = {s: contract.JOINT_SLOTS.index(f"{s}_shoulder_pitch_joint") for s in ("left", "right")}

# (phase, seconds, navigation slots 32-35, arm wave amplitude)
PHASES = (
    ("stand", 1.0, (0, 0, 0, 0), 0.0),
    ("step_left", 2.0, (0, 0.2, 0, 0), 0.0),
    ("turn", 2.0, (0, 0, 1, math.pi / 4), 0.0),
    ("wave_arms", 2.0, (0, 0, 0, 0), 0.6),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default="demo", help="output directory")
    args = parser.parse_args()
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)

    spec = scene.new_spec()
    controller = AssistedController()
    scene.add_robot(spec, controller)
    sim = Simulation(spec, controller)
    spawn = BasePose(0.0, 0.0, contract.DEFAULT_BASE_HEIGHT, 0.0)
    sim.reset(spawn, HOME)

    video = VideoWriter(out / f"{POLICY_CAMERA}.mp4", WIDTH, HEIGHT)
    samples, phases = [], []
    with CameraRenderer(sim.model, (POLICY_CAMERA,)) as cams:
        for name, seconds, nav, wave in PHASES:
            start = sim.base_pose()
            steps = int(seconds / scene.CONTROL_DT)
            for k in range(steps):
                action = np.concatenate([HOME, [contract.DEFAULT_BASE_HEIGHT], nav])
                swing = wave * math.sin(2 * math.pi * k / 50)
                action[SHOULDER_PITCH["left"]] -= swing
                action[SHOULDER_PITCH["right"]] += swing
                sim.step(contract.decode(action))
                video.write(cams.render(sim.data, POLICY_CAMERA))
                p = sim.base_pose()
                samples.append({"t": round(sim.time, 3), "x": p.x, "y": p.y, "z": p.z, "yaw": p.yaw})
            end = sim.base_pose()
            phases.append(
                {
                    "phase": name,
                    "seconds": seconds,
                    "command": {"vx": nav[0], "vy": nav[1], "turn_flag": nav[2], "target_yaw": nav[3]},
                    "displacement_m": (end.xy - start.xy).tolist(),
                    "yaw_change_rad": end.yaw - start.yaw,
                }
            )
    video.close()
    write_json_atomic(out / "base_motion.json", {"controller": controller.name, "phases": phases, "samples": samples})
    for p in phases:
        print(f"{p['phase']:>10}: moved {np.linalg.norm(p['displacement_m']):.3f} m, turned {p['yaw_change_rad']:+.3f} rad")
    print(f"wrote {out / (POLICY_CAMERA + '.mp4')} and {out / 'base_motion.json'}")


if __name__ == "__main__":
    main()
