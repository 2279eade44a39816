"""What the standard look costs find-navigate-sit on one core: the ego camera and the scene build, measured.

    python benchmarks/findsit_look_cost.py [--episodes 3] [--rounds 5] [--seconds 1.0]

For the first val100 episodes, in a child process pinned to one CPU with
Mesa llvmpipe on one thread: the seconds to build and compile the episode
(scene, robot, settling excluded) and the ego camera's frames per second
(448 x 448, the policy's image, at the settled start), in the fast and the
standard look, measured in turns `rounds` times. Each line gives the best
rates (the least disturbed by other work on a shared machine; the medians
are in the JSON) and the standard look's time against the fast look's; the
last line is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import humanoidtoolbench  # noqa: F401  (headless GL before MuJoCo loads)

sys.path.insert(0, os.path.dirname(__file__))
from run import in_child, rate  # noqa: E402

LOOKS = ("fast", "standard")


def measure(episodes: int, rounds: int, seconds: float) -> dict:
    from humanoidtoolbench.sim.render import CameraRenderer, backend_info
    from humanoidtoolbench.suites.findsit.suite import SUITE

    cond, cams = SUITE.parse("FINDSIT-val100"), SUITE.cameras
    scenes, build = {}, {look: [] for look in LOOKS}
    SUITE.make_episode(cond, 0, SUITE.make_controller(SUITE.protocol.controller), "fast", look="standard")  # warm caches
    for seed in range(episodes):
        for look in LOOKS:
            started = time.perf_counter()
            ep = SUITE.make_episode(cond, seed, SUITE.make_controller(SUITE.protocol.controller), "fast", look=look)
            build[look].append(time.perf_counter() - started)
            ep.reset()
            scenes[seed, look] = (ep, CameraRenderer(ep.model, (cams.policy_camera,), cams.width, cams.height), ep.model.ngeom)
    rates = {key: [] for key in scenes}

    for _ in range(rounds):
        for key, (ep, cam, _) in scenes.items():
            rates[key].append(rate(lambda: cam.render(ep.data, cams.policy_camera), seconds))
    for _, cam, _ in scenes.values():
        cam.close()
    return {"rates": {f"{s}/{look}": r for (s, look), r in rates.items()}, "build": build,
            "ngeom": {f"{s}/{look}": g for (s, look), (_, _, g) in scenes.items()},
            "renderer": backend_info().get("renderer"), "cpus": sorted(os.sched_getaffinity(0))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0, help="per scene and round")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    print(f"machine: {os.cpu_count()} cores, load average {load:.2f}" + (" (busy: rates may be low)" if load > 0.5 else ""))
    out = in_child(measure, args.episodes, args.rounds, args.seconds, env={"LP_NUM_THREADS": "1"}, cpus={0})
    print(f"FINDSIT-val100, one core (CPU {out['cpus'][0]}, LP_NUM_THREADS=1), {out['renderer']}")
    print("| Episode | Geoms fast / standard | Ego camera frames/s fast | standard | Time vs fast | Build s fast | standard |")
    print("|---|---|---|---|---|---|---|")
    figures = {"rounds": args.rounds, "load_average": round(load, 2), "renderer": out["renderer"], "episodes": {}}
    for seed in range(args.episodes):
        fast, std = (max(out["rates"][f"{seed}/{look}"]) for look in LOOKS)
        medians = [statistics.median(out["rates"][f"{seed}/{look}"]) for look in LOOKS]
        bf, bs = out["build"]["fast"][seed], out["build"]["standard"][seed]
        f = {"fast_fps": round(fast, 1), "standard_fps": round(std, 1), "time_ratio": round(fast / std, 2),
             "fast_median_fps": round(medians[0], 1), "standard_median_fps": round(medians[1], 1),
             "build_fast_s": round(bf, 2), "build_standard_s": round(bs, 2),
             "ngeom_fast": out["ngeom"][f"{seed}/fast"], "ngeom_standard": out["ngeom"][f"{seed}/standard"]}
        figures["episodes"][seed] = f
        print(f"| {seed} | {f['ngeom_fast']} / {f['ngeom_standard']} | {fast:.0f} | {std:.0f} | {f['time_ratio']:.2f} | "
              f"{bf:.2f} | {bs:.2f} |")
    eps = figures["episodes"].values()
    figures["fast_fps"] = round(statistics.fmean(f["fast_fps"] for f in eps), 1)
    figures["standard_fps"] = round(statistics.fmean(f["standard_fps"] for f in eps), 1)
    figures["time_ratio"] = round(figures["fast_fps"] / figures["standard_fps"], 2)
    print(f"mean of the episodes' best: ego camera {figures['fast_fps']:.0f} frames/s fast, {figures['standard_fps']:.0f} "
          f"standard, {figures['time_ratio']:.2f} x the time")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
