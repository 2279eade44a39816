"""Where the time of one balanced control step and of one recorded step goes, from cProfile.

    python benchmarks/profile_step.py control [--steps 500]
    python benchmarks/profile_step.py recorded [--steps 150]

`control` profiles env steps of benchmarks/run.py's stand / walk / turn
cycle on the tool-use condition under `balanced` (no rendering); `recorded`
profiles one recorded expert episode of that condition through htb-eval
(one worker, in this process). Each prints microseconds per step by part
(cumulative times; cProfile's own overhead inflates the Python-heavy parts,
so run.py's unprofiled controller median is the figure to quote), the
load average, then the functions with the most time of their own. Run it
with `PYTHONPATH=OTHER/src` to profile another checkout.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import os
import pstats
import sys
import tempfile
from pathlib import Path

import humanoidtoolbench  # noqa: F401  (headless GL before MuJoCo loads)
from humanoidtoolbench import suites
from humanoidtoolbench.cli import eval as eval_cli

sys.path.insert(0, str(Path(__file__).parent))
from run import DEFAULT_ENV, toolbench_cycle

# (label, file suffix, function name): parts by cumulative time; "~" is a built-in.
CONTROL_PARTS = (
    ("env step", "toolbench/episode.py", "step"),
    ("  physics (mj_step)", "~", "<built-in method mujoco._functions.mj_step>"),
    ("  controller (BalancedController.apply)", "balanced/balanced.py", "apply"),
    ("    footstep preview", "balanced/footsteps.py", "preview"),
    ("    whole-body IK (tasks, QP, integration)", "balanced/wholebody.py", "solve"),
    ("    static feedforward", "balanced/wholebody.py", "torques"),
    ("    arm loads", "balanced/armload.py", "update"),
    ("  metrics", "toolbench/metrics.py", "update"),
)
RECORDED_PARTS = (
    ("episode loop (simulation thread)", "eval/episode_runner.py", "run_episode"),
    ("  rendering, 4 cameras (CameraRenderer.render)", "sim/render.py", "render"),
    ("    scene update (mjv_updateScene)", "~", "<built-in method mujoco._functions.mjv_updateScene>"),
    ("    draw (mjr_render)", "~", "<built-in method mujoco._render.mjr_render>"),
    ("    read pixels, waiting for the rasterizer (mjr_readPixels)", "~", "<built-in method mujoco._render.mjr_readPixels>"),
    ("  env step (physics, controller, metrics)", "toolbench/episode.py", "step"),
    ("  policy", "policies/policy_source.py", "act"),
    ("  video probe and validation", "eval/validation.py", "validate_episode_videos"),
)


def part_us(stats: pstats.Stats, suffix: str, name: str, steps: int) -> float:
    total = sum(v[3] for (file, _, func), v in stats.stats.items() if func == name and file.endswith(suffix))
    return total / steps * 1e6


def report(profile: cProfile.Profile, parts, steps: int, extra: dict) -> None:
    out = io.StringIO()
    stats = pstats.Stats(profile, stream=out)
    print(f"load average {os.getloadavg()[0]:.2f}; {steps} steps; microseconds per step (cumulative, under cProfile):")
    for label, suffix, name in parts:
        print(f"  {label:60s} {part_us(stats, suffix, name, steps):9.0f}")
    for label, value in extra.items():
        print(f"  {label:60s} {value:9.0f}")
    stats.sort_stats("tottime").print_stats(15)
    print(out.getvalue().split("\n\n", 1)[-1].rstrip())


def control(steps: int) -> None:
    condition = suites.parse(DEFAULT_ENV)
    suite = suites.suite_of(condition)
    episode = suite.make_episode(condition, suite.protocol.seed_start, suite.make_controller("balanced"), "fast")
    episode.reset()
    rows = [row for chunk in toolbench_cycle(episode) for row in chunk]
    for row in rows:  # warm up
        episode.step(row)
    profile = cProfile.Profile()
    profile.enable()
    for k in range(steps):
        episode.step(rows[k % len(rows)])
    profile.disable()
    report(profile, CONTROL_PARTS, steps, {})


def recorded(steps: int) -> None:
    with tempfile.TemporaryDirectory(prefix="htb-profile-") as out:
        args = [DEFAULT_ENV, "--policy", "expert", "--controller", "balanced", "--episodes", "1", "--max-steps", str(steps),
                "--workers", "1", "--output", out]
        profile = cProfile.Profile()
        with contextlib.redirect_stderr(io.StringIO()):
            profile.enable()
            rc = eval_cli.main(args)
            profile.disable()
        if rc != 0:
            raise SystemExit(f"htb-eval exited with {rc}")
        [summary] = [json.loads(p.read_text()) for p in Path(out).glob("*/run-*/summaries/*.json")]
    done = summary["step"]
    encode = {"  encoding (background thread, CPU time, from the summary)": summary["seconds"]["encode"] / done * 1e6}
    report(profile, RECORDED_PARTS, done, encode)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("control", "recorded"))
    parser.add_argument("--steps", type=int, help="control steps (default 500 for control, at most 150 recorded)")
    args = parser.parse_args()
    if args.what == "control":
        control(args.steps or 500)
    else:
        recorded(args.steps or 150)


if __name__ == "__main__":
    main()
