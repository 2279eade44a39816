"""How fast a Fiatlux subtask steps on this machine: physics alone, then with the head camera and lidar.

    python benchmarks/fiatlux.py [--subtask S07] [--seconds 10]

Control steps/s (50 Hz commands, 4 physics steps each, the seat hook, the
gate snapshot and the hand contacts) with zero actions; then the same with
a policy request every step (head camera 256 x 256 rendered, lidar 32 x 180
cast, state vector read). Human-readable lines, then one JSON object.

The balanced controller's measurements on the Fiatlux robot (`--balanced`,
`--turns`, `--walks`, `--ladder`) are research diagnostics:
`benchmarks/diagnostics/fiatlux_balance.py`.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import humanoidtoolbench  # noqa: F401  (headless GL before MuJoCo loads)
import numpy as np

from humanoidtoolbench.sim.render import CameraRenderer
from humanoidtoolbench.suites.fiatlux import SUITE
from humanoidtoolbench.suites.fiatlux.episode import FiatluxEpisode
from humanoidtoolbench.suites.fiatlux.subtasks import BY_KEY


def rate(episode: FiatluxEpisode, seconds: float, each_step=None) -> float:
    """Control steps per second over `seconds` of wall time, restarting the episode when it ends."""
    row = np.zeros(43)
    steps, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        if episode.step(row).outcome is not None:
            episode.reset()
        if each_step is not None:
            each_step()
        steps += 1
    return steps / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--subtask", default="S07")
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    episode = SUITE.make_episode(BY_KEY[args.subtask], 0, SUITE.make_controller(SUITE.protocol.controller), "fast")
    episode.reset()
    bare = rate(episode, args.seconds)
    cams = SUITE.cameras
    with CameraRenderer(episode.model, cams.names, cams.width, cams.height) as renderer:
        def observe() -> None:
            SUITE.build_request(episode, renderer.render(episode.data, cams.policy_camera), reset=False)

        observed = rate(episode, args.seconds, observe)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")
    print(f"{episode.condition.name}: {bare:.0f} control steps/s without rendering")
    print(f"{episode.condition.name}: {observed:.0f} control steps/s with a request every step (camera, lidar, state)")
    print(json.dumps({"subtask": episode.condition.name, "control_steps_per_s": round(bare, 1),
                      "with_camera_and_lidar_per_s": round(observed, 1)}))


if __name__ == "__main__":
    main()
