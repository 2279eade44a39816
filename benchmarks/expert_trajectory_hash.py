"""SHA-256 of the qpos trajectory of episodes under a built-in policy of any suite: did a change alter what the experts do?

    python benchmarks/expert_trajectory_hash.py [--steps 600] [--seeds 2] [G1BallMove-L1-S:expert:balanced ...]

Each case is CONDITION:POLICY:CONTROLLER. The episode runs in process as
htb-eval runs it (the request built by the suite, privileged state for a
privileged policy) for at most --steps steps, through the Suite seam alone, so
the script runs unchanged on two checkouts:

    PYTHONPATH=OLD/src python benchmarks/expert_trajectory_hash.py > before.txt
    PYTHONPATH=src python benchmarks/expert_trajectory_hash.py > after.txt
    diff before.txt after.txt
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections import deque

import numpy as np

from humanoidtoolbench import suites
from humanoidtoolbench.policies.policy_source import PolicySpec
from humanoidtoolbench.policies.reply import EPISODE_SEED_KEY, REQUEST_INDEX_KEY

DEFAULT_CASES = (
    "G1BallMove-L1-S:expert:assisted",
    "G1BallRetrieve-L1-S:expert:balanced",
    "G1IceBreak-L0-R:expert:balanced",
)


def trajectory_digest(env: str, policy_name: str, controller: str, seed: int, steps: int,
                      look: str | None = None) -> tuple[str, int, str | None]:
    """The digest of every step's qpos bytes, the last step and the outcome; `look`: the scene's (None: the protocol's)."""
    condition = suites.parse(env)
    suite = suites.suite_of(condition)
    policy = PolicySpec(ref=policy_name, builtin=tuple(suite.builtin_policies_for(controller).items())).open()
    episode = suite.make_episode(condition, seed, suite.make_controller(controller), "fast", look=look)
    episode.reset()
    contract = suite.action_contract(controller)
    image = np.zeros((suite.cameras.height, suite.cameras.width, 3), np.uint8)
    digest, queue, outcome, step, requests = hashlib.sha256(), deque(), None, 0, 0
    for step in range(1, steps + 1):
        if not queue:
            request = suite.build_request(episode, image, reset=step == 1)
            request[EPISODE_SEED_KEY], request[REQUEST_INDEX_KEY] = seed, requests
            requests += 1
            if policy.privileged:
                request["privileged"] = episode.privileged()
            chunk = contract.validate(policy.act(request).action)
            episode.on_chunk(chunk, {})
            queue.extend(chunk)
        outcome = episode.step(queue.popleft()).outcome
        digest.update(episode.data.qpos.tobytes())
        if outcome is not None:
            break
    policy.close()
    return digest.hexdigest()[:16], step, outcome


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cases", nargs="*", default=DEFAULT_CASES)
    p.add_argument("--steps", type=int, default=600)
    p.add_argument("--seeds", type=int, default=2, help="seeds per case, from the suite's first (default 2)")
    args = p.parse_args(argv)
    for case in args.cases:
        env, policy, controller = case.split(":")
        first = suites.suite_of(suites.parse(env)).protocol.seed_start
        for seed in range(first, first + args.seeds):
            digest, step, outcome = trajectory_digest(env, policy, controller, seed, args.steps)
            print(f"{case} seed {seed}: {digest} ({step} steps, {outcome or 'running'})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
