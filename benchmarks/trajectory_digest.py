"""Digests of simulated trajectories under fixed scripted commands, to show a refactor changed no physics.

For each case (a suite's condition on one of its controllers) and seed, it
steps N control steps with commands that depend only on the step index and
the policy state, and hashes the policy state before and `qpos` after every
step. It reaches the simulation through the Suite seam alone (`make_episode`,
`reset`, `state`, `on_chunk`, `step`), so the same script runs on two
checkouts; equal digests mean byte-identical trajectories:

    PYTHONPATH=OLD/src python benchmarks/trajectory_digest.py > before.txt
    PYTHONPATH=src python benchmarks/trajectory_digest.py > after.txt
    diff before.txt after.txt
"""

from __future__ import annotations

import argparse
import hashlib

import numpy as np

from humanoidtoolbench import suites
from humanoidtoolbench.robot.joints import ARM_JOINTS, HAND_JOINTS, HOME_POSE

# decoupled_v1's 31 joint slots, spelled out so that the script imports nothing that a refactor moves.
UPPER = HAND_JOINTS["left"] + HAND_JOINTS["right"] + ARM_JOINTS["left"] + ARM_JOINTS["right"] + (
    "waist_roll_joint", "waist_pitch_joint", "waist_yaw_joint"
)


def hold_and_walk(episode, k: int) -> np.ndarray:
    """decoupled_v1 from the measured joints: stand, walk forward and sideways, then turn, lowering the pelvis."""
    a = np.zeros(36)
    a[:31] = np.asarray(episode.state(), np.float64)[:31]
    a[31] = 0.74 if k < 60 else 0.70
    if 20 <= k < 80:
        a[32], a[33] = 0.2, 0.05
    if k >= 80:
        a[34], a[35] = 0.5, 0.3
    return np.tile(a, (10, 1))


def home_and_walk(episode, k: int) -> np.ndarray:
    """decoupled_v1 at the home pose (for a suite whose state is not decoupled_v1's), walking slowly a while."""
    a = np.zeros(36)
    a[:31] = [HOME_POSE[n] for n in UPPER]
    a[31] = 0.74
    a[32] = 0.1 if 20 <= k < 120 else 0.0
    return np.tile(a, (10, 1))


def joint_noise(episode, k: int) -> np.ndarray:
    """joint_position_v1: small offsets from the standing pose, drawn from the step index."""
    return np.random.default_rng(k).uniform(-0.15, 0.15, (10, 43))


def skills(episode, k: int) -> np.ndarray:
    """discrete_skill_v1, expanded as its contract does: walk, turn, side step, step back, turn, walk."""
    skill, value = [(0, 0.4), (2, 30.0), (6, 0.2), (5, 0.2), (2, -20.0), (0, 0.2)][(k // 25) % 6]
    return np.column_stack([np.tile([skill, value], (25, 1)), np.arange(25)])


CASES = (
    ("G1BallMove-L1-S", "balanced", hold_and_walk, 10000),
    ("G1IceBreak-L1-R", "assisted", hold_and_walk, 10000),
    ("S03", "servo", joint_noise, 0),
    ("S07", "balanced", home_and_walk, 0),
    ("FINDSIT-val100", "assisted", skills, 0),
    ("FINDSIT-val100", "balanced", skills, 0),
)


def digest(env: str, controller: str, commands, seed: int, steps: int) -> tuple[str, int]:
    condition = suites.parse(env)
    suite = suites.suite_of(condition)
    episode = suite.make_episode(condition, seed, suite.make_controller(controller), "fast")
    episode.reset()
    h, queue = hashlib.sha256(), []
    for k in range(steps):
        if not queue:
            chunk = commands(episode, k)
            episode.on_chunk(chunk, {})
            queue = list(chunk)
        h.update(np.asarray(episode.state()).tobytes())
        result = episode.step(queue.pop(0))
        h.update(episode.data.qpos.tobytes())
        if result.outcome:
            break
    return h.hexdigest()[:16], k + 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=300, help="control steps per episode (default 300)")
    parser.add_argument("--seeds", type=int, default=3, help="seeds per case, from the suite's first (default 3)")
    args = parser.parse_args()
    for env, controller, commands, first in CASES:
        for seed in range(first, first + args.seeds):
            value, steps = digest(env, controller, commands, seed, args.steps)
            print(f"{env:16s} {controller:9s} seed {seed:5d} steps {steps:4d} {value}", flush=True)


if __name__ == "__main__":
    main()
