"""What the standard look costs the Fiatlux head camera on one core, measured against the fast look.

    python benchmarks/fiatlux_look_cost.py [--scenes S03:0,S07:0,S02:1,S06:2] [--rounds N] [--seconds S]

For each scene (SUBTASK:SEED, reset as an episode starts) and each look, the
policy's head camera (256 x 256) is rendered in a child process pinned to one
CPU with Mesa llvmpipe on one thread; the looks and scenes are measured in
turns, `rounds` times, so a busy machine slows them alike. Each line gives
the median frames/s and the ratio of the median frame time to the fast
look's; the control-step rate of one episode under a zero command (physics
and observation, no image) in the fast look puts the camera's share of a
step in proportion. The last line is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys

import humanoidtoolbench  # noqa: F401  (headless GL before MuJoCo loads)

import numpy as np

from humanoidtoolbench.sim.render import CameraRenderer, backend_info
from humanoidtoolbench.suites.fiatlux.suite import CAMERA, SUITE

sys.path.insert(0, os.path.dirname(__file__))
from run import in_child, rate  # noqa: E402

LOOKS = ("fast", "standard")


def measure(scenes: list[tuple[str, int]], rounds: int, seconds: float) -> dict:
    """Head-camera frames/s per (scene, look), `rounds` turns each, and the zero-command step rate."""
    controller = SUITE.protocol.controller
    made = {}
    for key, seed in scenes:
        for look in LOOKS:
            ep = SUITE.make_episode(SUITE.parse(key), seed, SUITE.make_controller(controller), "fast", look=look)
            ep.reset()
            made[(key, seed, look)] = (ep, CameraRenderer(ep.model, (CAMERA,), SUITE.cameras.width, SUITE.cameras.height))
    rates = {k: [] for k in made}
    for _ in range(rounds):
        for k, (ep, camera) in made.items():
            rates[k].append(rate(lambda: camera.render(ep.data, CAMERA), seconds))
    for _, camera in made.values():
        camera.close()
    key, seed = scenes[0]
    ep = SUITE.make_episode(SUITE.parse(key), seed, SUITE.make_controller(controller), "fast", look="fast")
    ep.reset()
    contract = SUITE.action_contract(controller)
    zero = contract.validate(np.zeros((1, contract.action_dim)))[0]
    steps = rate(lambda: ep.step(zero), seconds * rounds)
    return {"rates": {f"{k}:{s}:{lk}": v for (k, s, lk), v in rates.items()}, "steps_per_s": steps,
            "renderer": backend_info().get("renderer"), "cpus": sorted(os.sched_getaffinity(0))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenes", default="S03:0,S07:0,S02:1,S06:2", help="SUBTASK:SEED,... (default %(default)s)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0, help="per scene, look and round")
    args = parser.parse_args()
    scenes = [(k, int(s)) for k, s in (item.split(":") for item in args.scenes.split(","))]
    load = os.getloadavg()[0]
    print(f"machine: {os.cpu_count()} cores, load average {load:.2f}" + (" (busy: rates may be low)" if load > 0.5 else ""))
    out = in_child(measure, scenes, args.rounds, args.seconds, env={"LP_NUM_THREADS": "1"}, cpus={0})
    print(f"Fiatlux head camera {SUITE.cameras.width} x {SUITE.cameras.height}, one core (CPU {out['cpus'][0]}, "
          f"LP_NUM_THREADS=1), {out['renderer']}; zero-command control steps, fast look, no image: {out['steps_per_s']:.1f}/s")
    print("| Scene | Fast, frames/s | Standard, frames/s | Time vs fast |")
    print("|---|---|---|---|")
    figures = {"scenes": args.scenes, "rounds": args.rounds, "load_average": round(load, 2), "renderer": out["renderer"],
               "steps_per_s": round(out["steps_per_s"], 1)}
    ratios = []
    for key, seed in scenes:
        fast, std = (statistics.median(out["rates"][f"{key}:{seed}:{look}"]) for look in LOOKS)
        ratios.append(fast / std)
        figures[f"{key}:{seed}"] = {"fast_fps": round(fast, 1), "standard_fps": round(std, 1), "time_ratio": round(fast / std, 2)}
        print(f"| {key} seed {seed} | {fast:.0f} | {std:.0f} | {fast / std:.2f} |")
    figures["mean_time_ratio"] = round(statistics.mean(ratios), 2)
    print(f"mean time ratio standard / fast: {figures['mean_time_ratio']:.2f}")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
