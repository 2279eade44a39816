"""SHA-256 of the qpos trajectory of Fiatlux episodes under a policy: does a change alter physics?

    python benchmarks/fiatlux_trajectory_hash.py [--steps 300] [--seeds 0,1,2] [--look standard] [S05:expert:balanced ...]

Each case is SUBTASK:POLICY:CONTROLLER (POLICY: expert, zero or random). The
episode runs in process as htb-eval runs it (the policy's request built by the
suite, privileged state for the expert) for at most --steps steps; the digest
covers every step's qpos bytes. Run it before and after a change: equal digests
mean byte-identical trajectories. `--look` draws the scene in that look (default
the protocol's); the digest must not depend on it.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections import deque

import numpy as np

from humanoidtoolbench.policies.policy_source import PolicySpec
from humanoidtoolbench.policies.reply import EPISODE_SEED_KEY, REQUEST_INDEX_KEY
from humanoidtoolbench.suites.fiatlux.suite import SUITE

DEFAULT_CASES = ("S05:expert:balanced", "S03:expert:balanced", "S02:zero:servo", "S08:random:servo")


def trajectory_digest(key: str, policy_name: str, controller: str, seed: int, steps: int,
                      look: str | None = None) -> tuple[str, int, str | None]:
    cond = SUITE.parse(key)
    policy = PolicySpec(ref=policy_name, builtin=tuple(SUITE.builtin_policies_for(controller).items())).open()
    episode = SUITE.make_episode(cond, seed, SUITE.make_controller(controller), "fast", look=look)
    episode.reset()
    contract = SUITE.action_contract(controller)
    image = np.zeros((SUITE.cameras.height, SUITE.cameras.width, 3), np.uint8)
    digest, queue, outcome, step, requests = hashlib.sha256(), deque(), None, 0, 0
    for step in range(1, steps + 1):
        if not queue:
            request = SUITE.build_request(episode, image, reset=step == 1)
            request[EPISODE_SEED_KEY], request[REQUEST_INDEX_KEY] = seed, requests
            requests += 1
            if policy.privileged:
                request["privileged"] = episode.privileged()
            queue.extend(contract.validate(policy.act(request).action))
        outcome = episode.step(queue.popleft()).outcome
        digest.update(episode.data.qpos.tobytes())
        if outcome is not None:
            break
    policy.close()
    return digest.hexdigest()[:16], step, outcome


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("cases", nargs="*", default=DEFAULT_CASES)
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--look", default=None, help="a look of sim.look.LOOKS (default: the protocol's)")
    args = p.parse_args(argv)
    for case in args.cases:
        key, policy, controller = case.split(":")
        for seed in map(int, args.seeds.split(",")):
            digest, step, outcome = trajectory_digest(key, policy, controller, seed, args.steps, args.look)
            print(f"{case} seed {seed}: {digest} ({step} steps, {outcome or 'running'})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
