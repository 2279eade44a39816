"""`htb-metrics`: a results report (Markdown or JSON) from an htb-eval output directory."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..metrics.report import ReportError, load, markdown


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="htb-metrics",
        description="Successes, median steps to success and failure causes per condition, from recorded runs.",
    )
    parser.add_argument("output", help="an htb-eval --output directory")
    parser.add_argument("--title", default="Results")
    parser.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    args = parser.parse_args(argv)
    if not Path(args.output).is_dir():
        print(f"htb-metrics: no such directory: {args.output}", file=sys.stderr)
        return 2
    try:
        reports = load(args.output)
    except ReportError as exc:
        print(f"htb-metrics: {exc}", file=sys.stderr)
        return 2
    if not reports:
        print(f"htb-metrics: no validated results under {args.output}", file=sys.stderr)
        return 2
    if args.json:
        out = {
            n: {"episodes": r.episodes, "successes": r.successes, "median_steps": r.median_steps, "causes": dict(r.causes)}
            for n, r in reports.items()
        }
        print(json.dumps(out, indent=2))
    else:
        print(markdown(reports, args.title), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
