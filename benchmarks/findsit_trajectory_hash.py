"""Find-navigate-sit trajectories in each look, hashed: the evidence that a look changes no physics.

    python benchmarks/findsit_trajectory_hash.py [--episodes 3] [--decisions 100] [--controller assisted]

Runs the privileged oracle planner on the first val100 episodes, in process,
in the fast and the standard look, and hashes every control step's qpos, qvel
and ctrl (SHA-256 over their bytes), as the episode runner would step them
(one 448 x 448 ego image rendered per decision). Equal hashes in both looks,
and equal to another version's, mean byte-identical trajectories. One line
per episode and look, then one JSON object.
"""

from __future__ import annotations

import argparse
import hashlib
import json

import humanoidtoolbench  # noqa: F401  (headless GL before MuJoCo loads)

from humanoidtoolbench.control.contracts import get as get_contract
from humanoidtoolbench.policies.reply import EPISODE_SEED_KEY
from humanoidtoolbench.sim.render import CameraRenderer
from humanoidtoolbench.suites.findsit.policies import oracle
from humanoidtoolbench.suites.findsit.suite import SUITE

LOOKS = ("fast", "standard")


def trajectory(seed: int, look: str, controller: str, decisions: int) -> dict:
    """The oracle's episode `seed` in `look`: its hash, steps, decisions and outcome."""
    cond = SUITE.parse("FINDSIT-val100")
    contract = get_contract(SUITE.contract_for(controller))
    episode = SUITE.make_episode(cond, seed, SUITE.make_controller(controller), "fast", look=look)
    episode.reset()
    cams = SUITE.cameras
    digest, steps, outcome = hashlib.sha256(), 0, None
    with CameraRenderer(episode.model, (cams.policy_camera,), cams.width, cams.height) as renderer:
        for k in range(decisions):
            image = renderer.render(episode.data, cams.policy_camera)
            request = SUITE.build_request(episode, image, reset=k == 0)
            request[EPISODE_SEED_KEY] = seed
            request["privileged"] = episode.privileged()
            reply = oracle(request)
            chunk = contract.validate(reply["action"])
            episode.on_chunk(chunk, reply["metadata"])
            for row in chunk:
                outcome = episode.step(row).outcome
                steps += 1
                digest.update(episode.data.qpos.tobytes() + episode.data.qvel.tobytes() + episode.data.ctrl.tobytes())
                if outcome is not None:
                    break
            if outcome is not None:
                break
    return {"sha256": digest.hexdigest(), "steps": steps, "decisions": k + 1, "outcome": outcome or "timeout"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=3, help="val100 episodes 0..N-1")
    parser.add_argument("--decisions", type=int, default=100, help="at most this many per episode")
    parser.add_argument("--controller", default=SUITE.protocol.controller, choices=SUITE.controllers)
    args = parser.parse_args()
    out = {"controller": args.controller, "episodes": {}}
    for seed in range(args.episodes):
        runs = {look: trajectory(seed, look, args.controller, args.decisions) for look in LOOKS}
        for look, r in runs.items():
            print(f"FINDSIT-val100 seed {seed} {look:8s} {r['sha256'][:16]} steps {r['steps']} "
                  f"decisions {r['decisions']} {r['outcome']}")
        out["episodes"][seed] = runs
    out["identical_across_looks"] = all(len({r["sha256"] for r in runs.values()}) == 1 for runs in out["episodes"].values())
    print(json.dumps(out))


if __name__ == "__main__":
    main()
