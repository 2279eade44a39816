"""How fast do tools move under the random baseline? The contact-model check of the tool-use suite.

    python benchmarks/diagnostics/tool_speed.py [--conditions all-S] [--seeds 10000-10099] [--workers 2] [--controller assisted]

A hand that squeezes a tool against the bench must not shoot it away: a
finger cannot store the energy to throw a 0.1-0.3 kg tool at more than a few
metres per second. This replays the `random` baseline's episodes exactly as
`htb-eval --policy random --controller assisted` runs them (same seeds, same
actions, same termination; on `assisted` by default, where the robot cannot
fall and every episode runs on, as the table in docs/RESULTS.md was measured) and records, at every physics step, the linear speed of every
tool and decoy body (ice shards are thrown on purpose by the fracture rule and
are left out), and the fastest hand link in the 40 ms before each peak. It
prints per condition the largest speed, where it happened, how many episodes
exceeded the plausibility line, and the largest ratio of tool to hand speed
(a squirt is a tool leaving faster than the hand that touched it); the last
line is one JSON object with the figures.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import multiprocessing
import sys

import humanoidtoolbench  # noqa: F401  (headless GL before MuJoCo loads)
import mujoco
import numpy as np

from humanoidtoolbench.control import make_controller
from humanoidtoolbench.policies.baselines import RandomPolicy
from humanoidtoolbench.policies.reply import EPISODE_SEED_KEY
from humanoidtoolbench.suites.toolbench.contacts import is_hand_body
from humanoidtoolbench.suites.toolbench.episode import TaskEpisode
from humanoidtoolbench.suites.toolbench.layout import DECOY, TOOL
from humanoidtoolbench.suites.toolbench.registry import CONDITIONS, MAX_STEPS, parse

PLAUSIBLE = 3.0  # m/s: the line a squeezed tool must stay under
HAND_WINDOW = 8  # physics steps (40 ms): how far back the fastest hand is looked for when a tool peaks


def episode_peak(name: str, seed: int, controller: str, max_steps: int = MAX_STEPS) -> dict:
    """The largest tool/decoy speed (m/s) over one random-baseline episode, sampled every physics step."""
    episode = TaskEpisode(parse(name), seed, controller=make_controller(controller))
    m = episode.model
    free = [m.body(p.name).jntadr[0] for p in episode.layout.items if p.role in (TOOL, DECOY)]
    dofs = np.array([[m.jnt_dofadr[j] + k for k in range(3)] for j in free])
    hands = [b for b in range(m.nbody) if is_hand_body(m.body(b).name, "left") or is_hand_body(m.body(b).name, "right")]
    recent = collections.deque(maxlen=HAND_WINDOW)
    peak = {"speed": 0.0, "step": -1, "hand_speed": 0.0}
    velocity = np.zeros(6)

    def track(data) -> None:
        fastest_hand = 0.0
        for b in hands:
            mujoco.mj_objectVelocity(m, data, mujoco.mjtObj.mjOBJ_BODY, b, velocity, 0)
            fastest_hand = max(fastest_hand, float(np.linalg.norm(velocity[3:])))
        recent.append(fastest_hand)
        speed = float(np.linalg.norm(data.qvel[dofs], axis=1).max())
        if speed > peak["speed"]:
            peak.update(speed=speed, step=episode.steps, hand_speed=max(recent))

    episode.reset()
    episode.sim.physics_step_hooks.append(track)
    policy = RandomPolicy()
    request = {"history": {"reset": True}, EPISODE_SEED_KEY: seed}
    outcome, chunk, k = "timeout", None, 0
    for step in range(max_steps):
        if chunk is None or k == len(chunk):
            chunk, k = policy(request), 0
            request = {"history": {"reset": False}, EPISODE_SEED_KEY: seed}
            episode.on_chunk(chunk)
        result = episode.step(chunk[k])
        k += 1
        if result.outcome is not None:
            outcome = result.outcome
            break
    return {"condition": name, "seed": seed, "peak_speed": round(peak["speed"], 3), "peak_step": peak["step"],
            "hand_speed": round(peak["hand_speed"], 3),
            "outcome": outcome, "steps": episode.steps}


def _run(args):
    return episode_peak(*args)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conditions", default="all-S", help="comma-separated conditions, or all-S (the nine S conditions)")
    parser.add_argument("--seeds", default="10000-10099", help="inclusive range A-B")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (1: in this process)")
    parser.add_argument("--controller", default="assisted", choices=("assisted", "balanced"),
                        help="what executes the commands (default assisted: the measured table's)")
    parser.add_argument("--steps", type=int, default=MAX_STEPS,
                        help=f"at most this many control steps an episode (default {MAX_STEPS}, the protocol's; fewer: not the table's figures)")
    args = parser.parse_args(argv)
    names = [c.name for c in CONDITIONS if c.mode == "S"] if args.conditions == "all-S" else args.conditions.split(",")
    lo, hi = (int(s) for s in args.seeds.split("-"))
    jobs = [(n, s, args.controller, args.steps) for n in names for s in range(lo, hi + 1)]
    rows = []
    with contextlib.ExitStack() as stack:
        if args.workers > 1:
            done = stack.enter_context(multiprocessing.get_context("spawn").Pool(args.workers)).imap_unordered(_run, jobs)
        else:
            done = map(_run, jobs)
        for i, row in enumerate(done, 1):
            rows.append(row)
            print(f"[{i}/{len(jobs)}] {row['condition']} seed {row['seed']}: peak {row['peak_speed']:.2f} m/s "
                  f"at step {row['peak_step']}, hand {row['hand_speed']:.2f} m/s ({row['outcome']})", file=sys.stderr, flush=True)
    figures = {}
    for name in names:
        mine = sorted((r for r in rows if r["condition"] == name), key=lambda r: r["seed"])
        worst = max(mine, key=lambda r: r["peak_speed"])
        over = sum(r["peak_speed"] > PLAUSIBLE for r in mine)
        # A squirt throws the tool faster than anything that touched it; a hit passes on at most
        # about the hand's speed. The ratio over episodes where the tool really moved (> 1 m/s).
        ratios = [r["peak_speed"] / r["hand_speed"] for r in mine if r["peak_speed"] > 1.0 and r["hand_speed"] > 0]
        figures[name] = {"episodes": len(mine), "max_speed": worst["peak_speed"], "max_seed": worst["seed"],
                         "median_peak": float(np.median([r["peak_speed"] for r in mine])), "over_plausible": over,
                         "successes": sum(r["outcome"] == "success" for r in mine),
                         "max_tool_to_hand": round(max(ratios), 3) if ratios else None}
        f = figures[name]
        print(f"{name}: largest tool speed {f['max_speed']:.2f} m/s (seed {f['max_seed']}), median episode peak "
              f"{f['median_peak']:.2f} m/s, {over}/{len(mine)} episodes above {PLAUSIBLE} m/s, "
              f"{f['successes']} successes; tool/hand speed at the peak at most {f['max_tool_to_hand']}")
    print(json.dumps({"plausible_m_s": PLAUSIBLE, "conditions": figures, "episodes": rows}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
