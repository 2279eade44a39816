"""Render what the policy's head camera sees at the start of an episode, to a PNG.

    python examples/render_layout.py G1IceBreak-L2-R --seed 10003 --output layout.png
    python examples/render_layout.py G1BallMove-L1-S --camera wrist_left

The layout is the one the evaluator uses for that condition and seed, on the
robot of the standard protocol's controller (`--controller` names another),
in the protocol's look (`--look fast`: the flat colours).
"""

from __future__ import annotations

import argparse
import sys

import humanoidtoolbench  # noqa: F401  (headless GL before MuJoCo loads)
from humanoidtoolbench.control import make_controller
from humanoidtoolbench.record.png import write_png
from humanoidtoolbench.robot.cameras import CAMERA_NAMES, POLICY_CAMERA
from humanoidtoolbench.sim.render import CameraRenderer
from humanoidtoolbench.suites.toolbench.episode import TaskEpisode
from humanoidtoolbench.suites.toolbench.registry import DEFAULT_ENV, SEED_START, UnknownEnvironment, parse
from humanoidtoolbench.suites.toolbench.suite import SUITE


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("env", nargs="?", default=DEFAULT_ENV, help="condition ID, with or without the prefix")
    parser.add_argument("--seed", type=int, default=SEED_START)
    parser.add_argument("--camera", default=POLICY_CAMERA, choices=CAMERA_NAMES)
    parser.add_argument("--controller", default=SUITE.protocol.controller, choices=SUITE.controllers)
    parser.add_argument("--look", default=SUITE.protocol.look, choices=SUITE.looks)
    parser.add_argument("--output", default="layout.png")
    args = parser.parse_args()
    try:
        condition = parse(args.env)
    except UnknownEnvironment as exc:
        print(f"render_layout: {exc}", file=sys.stderr)
        return 2
    episode = TaskEpisode(condition, args.seed, controller=make_controller(args.controller), look=args.look)
    episode.reset()
    with CameraRenderer(episode.model, (args.camera,)) as cams:
        write_png(args.output, cams.render(episode.data, args.camera))
    print(f"{condition.name} seed {args.seed}: wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
