"""`htb-metrics`: a results report (Markdown or JSON) from an htb-eval output directory, or two policies'
paired comparison on their shared seeds (`--compare`)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..eval.validation import summarize_problems
from ..eval.rundir import CONFIG
from ..metrics import currency, paired
from ..metrics.report import ReportError, json_object, key, load, markdown, offline_sections, policies

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
    parser.add_argument("output", nargs="+", help="an htb-eval --output directory; with --compare, two (A and B)")
    parser.add_argument("--title", default="Results")
    parser.add_argument("--json", action="store_true", help="print JSON instead of Markdown")
    parser.add_argument(
        "--compare",
        action="store_true",
        help="compare the policy of the first directory (A) with that of the second (B) on the seeds both ran: "
        "per condition the exact McNemar test on the discordant seeds (Holm-adjusted over conditions) and A's "
        "success rate minus B's with Newcombe's 95 %% interval; then the mean difference over conditions",
    )
    parser.add_argument(
        "--check-current",
        action="store_true",
        help="instead of a report: for each recorded result under each OUTPUT (a run's benchmark_result.json, "
        "an htb-eval summary.json, the JSON htb-metrics printed), whether its source digest is the one of its "
        "suite's installed code, naming the source files changed since where the result keeps their hashes; "
        "exit status 1 if any is not",
    )
    return parser


def _check_current(outputs: list[str]) -> int:
    missing = [o for o in outputs if not Path(o).exists()]
    if missing:
        print(f"htb-metrics: no such file or directory: {missing[0]}", file=sys.stderr)
        return 2
    found = False
    stale = False
    for output in outputs:
        rows = currency.check(Path(output))
        if not rows:
            print(f"htb-metrics: no recorded results under {output}", file=sys.stderr)
            continue
        found = True
        stale |= not all(r.is_current for r in rows)
        print(currency.markdown(rows, Path(output)), end="")
    return 2 if not found else int(stale)


def _one_policy(output: str):
    """The verified reports of the one policy in `output`, or ValueError in one line; warns of NOT VERIFIED runs."""
    if not Path(output).is_dir():
        raise ValueError(f"no such directory: {output}")
    reports, _ = load(output)
    names = policies(reports)
    if len(names) != 1:
        found = f"policies {', '.join(names)}" if names else "no validated results"
        raise ValueError(f"{output} holds {found}; --compare takes two directories of one policy each")
    for r in reports:
        if not r.verified:
            print(f"htb-metrics: warning: {r.path} is NOT VERIFIED and left out: {summarize_problems(r.problems)}", file=sys.stderr)
    return names[0], {r.name: r for r in reports if r.verified}, all(r.verified for r in reports)


def _compare(args) -> int:
    if len(args.output) != 2:
        print(f"htb-metrics: --compare takes two output directories (A and B), got {len(args.output)}", file=sys.stderr)
        return 2
    try:
        (name_a, a, clean_a), (name_b, b, clean_b) = (_one_policy(out) for out in args.output)
        tables = {}
        for cond in (c for c in a if c in b):
            problem = paired.settings_problem(cond, json_object(a[cond].path.parent / CONFIG), json_object(b[cond].path.parent / CONFIG))
            if problem:
                raise ValueError(problem)
            tables[cond] = paired.Pairs.of(a[cond].outcomes, b[cond].outcomes)
    except (ReportError, ValueError) as exc:
        print(f"htb-metrics: {exc}", file=sys.stderr)
        return 2
    comparisons = paired.compare(tables)
    if not comparisons:
        print("htb-metrics: the two directories share no condition with seeds both ran", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({"a": name_a, "b": name_b, "conditions": [c.to_json() for c in comparisons],
                          "mean_difference": paired.mean_difference(comparisons)}, indent=2))
    else:
        print(paired.markdown(comparisons, name_a, name_b), end="")
    return 0 if clean_a and clean_b else 1


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.check_current:
        return _check_current(args.output)
    if args.compare:
        return _compare(args)
    if len(args.output) > 1:
        print("htb-metrics: several output directories go with --compare (two); report one at a time", file=sys.stderr)
        return 2
    args.output = args.output[0]
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
                "source_digest": r.source_digest,
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
