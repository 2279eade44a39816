"""`htb-setup`: install or verify the robot asset."""

from __future__ import annotations

import argparse
import sys

from ..robot import assets
from ..robot.variants import VARIANTS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="htb-setup",
        description="Install the Unitree G1 + Dex3 model into the user data directory and verify every file by SHA-256.",
    )
    parser.add_argument(
        "--from",
        dest="mirror",
        metavar="DIR",
        help=f"install from a local mirror laid out like DIR/unitree_g1/... (default: ${assets.MIRROR_ENV}, else the pinned upstream URLs)",
    )
    parser.add_argument("--check", action="store_true", help="verify an existing installation and exit non-zero naming what is wrong")
    args = parser.parse_args(argv)

    if args.check:
        problems = assets.check()
        for p in problems:
            print(f"htb-setup: {p}", file=sys.stderr)
        if not problems:
            print(f"robot asset verified at {assets.install_dir()}")
        return 1 if problems else 0
    try:
        robot = assets.install(args.mirror, log=print)
    except assets.AssetError as exc:
        print(f"htb-setup: {exc}", file=sys.stderr)
        return 2
    for variant in VARIANTS:
        print(f"asset manifest sha256 ({variant} robot, fast visuals): {robot.manifest_sha256('fast', variant)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
