"""`htb-verify`: check a bundle from `htb-submit` offline and print the leaderboard row it earns (JSON)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..metrics import bundle


def build_parser() -> argparse.ArgumentParser:
    return argparse.ArgumentParser(
        prog="htb-verify",
        description="Check a bundle's seal and every file's hash, each run's chain, the standard protocol (seeds, "
        "steps, controller, look), reportability and one policy throughout, and derive every score again from the "
        "episodes' metrics files; print one leaderboard row as JSON, or NOT VERIFIED naming the first bad file "
        "(exit status 1). Loads no simulator.",
    )


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    parser.add_argument("bundle", help="a folder written by htb-submit")
    args = parser.parse_args(argv)
    if not Path(args.bundle).is_dir():
        print(f"htb-verify: no such directory: {args.bundle}", file=sys.stderr)
        return 2
    try:
        row = bundle.check(args.bundle)
    except bundle.BundleError as exc:
        print(f"NOT VERIFIED: {exc.path}: {exc.reason}")
        return 1
    print(json.dumps(row, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
