"""What each realism setting of a look costs on one core, measured.

    python benchmarks/look_cost.py [--condition ID] [--rounds N] [--seconds S]

Renders the head camera (640 x 360) of one settled tool-use scene, and all
four cameras, in a child process pinned to one CPU with Mesa llvmpipe on one
thread, for the fast look, the standard look and the standard look with one
setting changed: texture size, shadow map size (a shadow-casting lamp),
multisampling, the headlight, textured (plaster) instead of painted walls. The variants are measured in turns, `rounds`
times, so a busy machine slows them alike; each line gives the median and the
best rate and the ratio of the median to the fast look's. The last line is
one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
from dataclasses import replace

import humanoidtoolbench  # noqa: F401  (headless GL before MuJoCo loads)

from humanoidtoolbench.control import make_controller
from humanoidtoolbench.robot.cameras import POLICY_CAMERA
from humanoidtoolbench.sim import look as looks
from humanoidtoolbench.sim.render import CameraRenderer, backend_info
from humanoidtoolbench.suites.toolbench import episode as episode_module
from humanoidtoolbench.suites.toolbench.episode import TaskEpisode
from humanoidtoolbench.suites.toolbench.registry import parse
from humanoidtoolbench.suites.toolbench.suite import SUITE

sys.path.insert(0, os.path.dirname(__file__))
from run import in_child, rate  # noqa: E402

S = looks.STANDARD
PLASTER = "plaster walls"  # the standard look with the room's walls and ceiling textured
VARIANTS = {
    "fast": looks.FAST,
    "standard": S,
    PLASTER: S,
    "textures 64 px": replace(S, texture_size=64),
    "textures 128 px": replace(S, texture_size=128),
    "textures 512 px": replace(S, texture_size=512),
    "no headlight": replace(S, headlight=0.0),
    "shadow map 256": replace(S, shadow_size=256),
    "shadow map 1024": replace(S, shadow_size=1024),
    "shadow map 2048": replace(S, shadow_size=2048),
    "multisampling 2": replace(S, offsamples=2),
    "multisampling 4": replace(S, offsamples=4),
}


@contextlib.contextmanager
def walls(surface: str | None):
    """Episodes made meanwhile draw the room's walls and ceiling in `surface` (None: their style's)."""
    original = episode_module.build_scene

    def build(layout, *args):
        style = replace(layout.style, walls=surface, ceiling=surface)
        return original(replace(layout, style=style), *args)

    episode_module.build_scene = build if surface else original
    try:
        yield
    finally:
        episode_module.build_scene = original


def measure(condition: str, rounds: int, seconds: float) -> dict:
    """Head-camera frames/s and four-camera steps/s per variant, `rounds` turns each (in this process)."""
    cond = parse(condition)
    scenes = {}
    for name, look in VARIANTS.items():
        with walls("plaster" if name == PLASTER else None):
            ep = TaskEpisode(cond, 10000, controller=make_controller(SUITE.protocol.controller), look=look)
        ep.reset()
        scenes[name] = (ep, CameraRenderer(ep.model, (POLICY_CAMERA,)), CameraRenderer(ep.model))
    rates = {name: {"head": [], "four": []} for name in VARIANTS}

    for _ in range(rounds):
        for name, (ep, head, four) in scenes.items():
            rates[name]["head"].append(rate(lambda: head.render(ep.data, POLICY_CAMERA), seconds))
            rates[name]["four"].append(rate(lambda: four.render_all(ep.data), seconds))
    for _, head, four in scenes.values():
        head.close()
        four.close()
    return {"rates": rates, "renderer": backend_info().get("renderer"), "cpus": sorted(os.sched_getaffinity(0))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--condition", default="G1IceBreak-L2-R", help="the scene (default %(default)s: ice, decoys, household things)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0, help="per variant and round")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    print(f"machine: {os.cpu_count()} cores, load average {load:.2f}" + (" (busy: rates may be low)" if load > 0.5 else ""))
    out = in_child(measure, args.condition, args.rounds, args.seconds, env={"LP_NUM_THREADS": "1"}, cpus={0})
    fast = {k: statistics.median(v) for k, v in out["rates"]["fast"].items()}
    figures = {"condition": args.condition, "rounds": args.rounds, "load_average": round(load, 2), "renderer": out["renderer"]}
    print(f"{args.condition}, one core (CPU {out['cpus'][0]}, LP_NUM_THREADS=1), {out['renderer']}")
    print("| Variant | Head camera frames/s (median, best) | Time vs fast | Four cameras steps/s (median) | Time vs fast |")
    print("|---|---|---|---|---|")
    for name, r in out["rates"].items():
        head, four = statistics.median(r["head"]), statistics.median(r["four"])
        figures[name] = {"head_fps": round(head, 1), "head_best": round(max(r["head"]), 1), "four_steps_per_s": round(four, 1),
                         "head_time_ratio": round(fast["head"] / head, 2), "four_time_ratio": round(fast["four"] / four, 2)}
        f = figures[name]
        print(f"| {name} | {f['head_fps']:.0f} ({f['head_best']:.0f}) | {f['head_time_ratio']:.2f} | {f['four_steps_per_s']:.1f} | "
              f"{f['four_time_ratio']:.2f} |")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
