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
import sys

from expert_trajectory_hash import trajectory_digest

from humanoidtoolbench.suites.fiatlux.suite import SUITE

DEFAULT_CASES = ("S05:expert:balanced", "S03:expert:balanced", "S02:zero:servo", "S08:random:servo")


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
            digest, step, outcome = trajectory_digest(SUITE.parse(key).env_id, policy, controller, seed, args.steps, args.look)
            print(f"{case} seed {seed}: {digest} ({step} steps, {outcome or 'running'})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
