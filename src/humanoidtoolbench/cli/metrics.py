"""`htb-metrics`: a results report (Markdown or JSON) from an htb-eval output directory."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .. import suites
from ..eval.validation import summarize_problems
from ..metrics.report import ReportError, load, markdown


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="htb-metrics",
        description="Successes, median steps to success and failure causes per condition, from recorded runs.",
        epilog="Each result is validated again against its run's files. A result whose files no longer match "
        "(a video deleted, a summary edited) gets a one-line warning on stderr, is marked NOT VERIFIED in the "
        "Markdown (\"verified\": false in the JSON) with neither steps nor causes, and counts in no mean; "
        "the report is still printed, and the exit status is then 1. Exit status 2: nothing to report, or a "
        "recorded file that cannot be read.",
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
    try:
        offline = {s.name: found for s in suites.suites() if (found := s.offline_report(Path(args.output))) is not None}
    except ValueError as exc:  # a suite's own files (a bag) that cannot be read or scored: one line
        print(f"htb-metrics: {exc}", file=sys.stderr)
        return 2
    if not reports:
        print(f"htb-metrics: no validated results under {args.output}", file=sys.stderr)
        return 2
    for r in reports.values():
        if not r.verified:
            print(f"htb-metrics: warning: {r.path} is NOT VERIFIED: {summarize_problems(r.problems)}", file=sys.stderr)
    if args.json:
        out = {
            n: {"episodes": r.episodes, "successes": r.successes, "median_steps": r.median_steps, "causes": dict(r.causes),
                "verified": r.verified, "problems": r.problems}
            for n, r in reports.items()
        }
        if offline:
            out["offline"] = {name: obj for name, (_, obj) in offline.items()}
        print(json.dumps(out, indent=2))
    else:
        print(markdown(reports, args.title), end="")
        for text, _ in offline.values():
            print("\n" + text, end="" if text.endswith("\n") else "\n")
    return 0 if all(r.verified for r in reports.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
