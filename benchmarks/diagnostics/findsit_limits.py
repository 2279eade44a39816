"""The base speeds the balanced robot sustains: the source of find-navigate-sit's `PROFILES["balanced"].limits`.

    python benchmarks/diagnostics/findsit_limits.py [--spawns 12] [--seed 0]

Each command (forward, backward, sideways at a few speeds; a turn in place)
runs 3 s from standing, then 1 s of a zero command, at random spawns (x, y
within +-6 m, any heading) in an empty room centred on the spawn (its walls
are planes, so a room at the origin would stand in the way of a far spawn).
Per command: how many spawns stayed up, and the distance covered along the
commanded axis (m, the spawn's frame) or the turn (rad). Human-readable lines,
then one JSON object. `--smoke`: one spawn, the first command and the turn,
0.5 s each and 0.2 s standing, to show the script runs (the figures mean nothing).
"""

from __future__ import annotations

import argparse
import json
import math

import humanoidtoolbench  # noqa: F401  (headless GL before MuJoCo loads)
import numpy as np

from humanoidtoolbench.control.balanced.balanced import BalancedController
from humanoidtoolbench.control.base import BasePose
from humanoidtoolbench.control.contracts import decoupled_v1 as contract
from humanoidtoolbench.sim.scene import Room, add_robot, new_spec
from humanoidtoolbench.sim.simulation import Simulation
from humanoidtoolbench.suites.findsit.episode import carriage

HZ = 50
UPPER = carriage("balanced")  # the arms as the suite's skills carry them
SECONDS, REST_SECONDS = 3.0, 1.0
# name, (vx, vy, heading offset in rad or None): what one 3 s command asks
COMMANDS = (
    ("forward 0.2", (0.2, 0.0, None)),
    ("forward 0.3", (0.3, 0.0, None)),
    ("forward 0.4", (0.4, 0.0, None)),
    ("backward 0.15", (-0.15, 0.0, None)),
    ("backward 0.2", (-0.2, 0.0, None)),
    ("backward 0.3", (-0.3, 0.0, None)),
    ("left 0.15", (0.0, 0.15, None)),
    ("right 0.15", (0.0, -0.15, None)),
    ("left 0.2", (0.0, 0.2, None)),
    ("right 0.2", (0.0, -0.2, None)),
    ("turn -2 rad", (0.0, 0.0, -2.0)),
)


def row(vx: float, vy: float, heading: float | None) -> np.ndarray:
    flag, yaw = (0.0, 0.0) if heading is None else (1.0, heading)
    return np.concatenate([UPPER, [contract.DEFAULT_BASE_HEIGHT, vx, vy, flag, yaw]])


def trial(x: float, y: float, yaw: float, vx: float, vy: float, turn: float | None,
          seconds: float = SECONDS, rest_seconds: float = REST_SECONDS) -> tuple[bool, float]:
    """Whether the robot stayed up through the command and the rest after it, and what it covered."""
    controller = BalancedController()
    spec = new_spec(room=Room(size=(10.0, 10.0, 3.0), centre=(x, y)))
    add_robot(spec, controller)
    sim = Simulation(spec, controller)
    sim.reset(BasePose(x, y, contract.DEFAULT_BASE_HEIGHT, yaw), UPPER)
    heading = None if turn is None else math.remainder(yaw + turn, 2 * math.pi)
    phases = ((row(vx, vy, heading), seconds), (row(0.0, 0.0, heading), rest_seconds))
    for action, seconds in phases:
        cmd = contract.decode(action)
        for _ in range(int(round(seconds * HZ))):
            sim.step(cmd)
            if sim.fallen():
                return False, math.nan
    end = sim.base_pose()
    if turn is not None:
        return True, math.remainder(end.yaw - yaw, 2 * math.pi)
    c, s = math.cos(yaw), math.sin(yaw)
    forward, left = (end.x - x) * c + (end.y - y) * s, -(end.x - x) * s + (end.y - y) * c
    return True, forward if vx else left


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spawns", type=int, default=12)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--smoke", action="store_true", help="one spawn, two commands, 0.5 s each: the script runs, the figures mean nothing")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    spawns = [(float(rng.uniform(-6, 6)), float(rng.uniform(-6, 6)), float(rng.uniform(-math.pi, math.pi)))
              for _ in range(1 if args.smoke else args.spawns)]
    commands, seconds, rest = ((COMMANDS[0], COMMANDS[-1]), 0.5, 0.2) if args.smoke else (COMMANDS, SECONDS, REST_SECONDS)
    report = {}
    for name, (vx, vy, turn) in commands:
        runs = [trial(x, y, yaw, vx, vy, turn, seconds, rest) for x, y, yaw in spawns]
        covered = [c for ok, c in runs if ok]
        stood = sum(ok for ok, _ in runs)
        span = f"{min(covered):+.2f} to {max(covered):+.2f}" if covered else "--"
        print(f"{name:14s} stood {stood}/{len(runs)}  covered {span}", flush=True)
        report[name] = {"stood": stood, "spawns": len(runs), "covered": covered}
    print(json.dumps({"seconds": seconds, "rest_seconds": rest, "seed": args.seed, "commands": report}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
