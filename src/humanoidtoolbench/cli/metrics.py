"""`htb-metrics`: a results report (Markdown or JSON) from an htb-eval output directory."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..eval.validation import summarize_problems
from ..metrics.report import ReportError, key, load, markdown, offline_sections, policies

RULES = (
    "Runs are kept apart by policy (its name, checkpoint, a planner's model, and a controller other than the "
    "protocol's): the latest validated run of each condition and policy is scored, and the others are listed "
    "(superseded, unfinished or unreadable), never scored. Where the output holds several policies, each gets "
    "its own block, and a JSON key names the condition (or suite) followed by ' · ' and the policy. "
    "Every figure is derived from the episodes' files, never read from a result: each scored run is checked "
    "whole (its result against the hashes of its summaries and configuration and against its own seal, each "
    "summary against its metrics file and the hashes of its episode files). A run that fails any check (a "
    "result or summary edited, a video or bag deleted) gets a one-line warning on stderr naming the file, is "
    "marked NOT VERIFIED in the Markdown (\"verified\": false in the JSON) with the successes of its episodes "
    "that pass but neither steps nor causes, and counts in no mean and in no suite's own section (Fiatlux's S, "
    "find-navigate-sit's paper metrics); the report is still printed, and the exit status is then 1, as it is "
    "for a result that cannot be read. Exit status 2: nothing to report, or a suite's own file that cannot be "
    "scored."
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="htb-metrics",
        description="Successes, median steps to success and failure causes per condition and policy, and each "
        "suite's own scores, from recorded runs.",
        epilog=RULES,
    )
    parser.add_argument("output", help="an htb-eval --output directory")
    parser.add_argument("--title", default="Results")
    parser.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not Path(args.output).is_dir():
        print(f"htb-metrics: no such directory: {args.output}", file=sys.stderr)
        return 2
    try:
        reports, unreadable = load(args.output)
        sections = offline_sections(reports)
    except (ReportError, ValueError) as exc:  # a suite's own file (a bag) that cannot be read or scored: one line
        print(f"htb-metrics: {exc}", file=sys.stderr)
        return 2
    for other in unreadable:
        print(f"htb-metrics: warning: {other.warning}", file=sys.stderr)
    if not reports:
        print(f"htb-metrics: no validated results under {args.output}", file=sys.stderr)
        return 2
    for r in reports:
        if not r.verified:
            print(f"htb-metrics: warning: {r.path} is NOT VERIFIED: {summarize_problems(r.problems)}", file=sys.stderr)
    several = len(policies(reports)) > 1
    if args.json:
        out = {
            key(r.name, r.policy, several): {
                "condition": r.name, "policy": r.policy, "episodes": r.episodes, "successes": r.successes,
                "median_steps": r.median_steps, "causes": dict(r.causes), "verified": r.verified, "problems": r.problems,
                "run": str(r.path.parent), "other_runs": [{"run": str(o.path), "state": o.state} for o in r.others],
            }
            for r in reports
        }
        found = {key(s.suite, s.policy, several): s.data for s in sections if s.data is not None}
        if found:
            out["offline"] = found
        print(json.dumps(out, indent=2))
    else:
        print(markdown(reports, args.title), end="")
        for s in sections:
            heading = f"\n#### {key(s.suite, s.policy, several)}\n" if several else ""
            print(heading + "\n" + s.text, end="")
    return 0 if all(r.verified for r in reports) and not any(o.damaged for o in unreadable) else 1


if __name__ == "__main__":
    sys.exit(main())
