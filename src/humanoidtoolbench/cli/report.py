"""`htb-report`: a static HTML report (tables, plots, sample videos, provenance) from htb-eval output directories."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..eval.validation import summarize_problems
from ..metrics.folder import write_report
from ..metrics.gather import find_results, offline_sections, suite_tables
from ..metrics.page import render


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="htb-report",
        description="Write a static HTML report from one or more htb-eval output directories: a leaderboard of "
        "policies x conditions with Wilson 95 % intervals, breakdowns, failure causes, steps to success, sample "
        "videos and each result's provenance. It opens from the folder alone, offline.",
        epilog="Each policy's latest validated run per condition is shown (the rule of htb-metrics --help), "
        "verified first and its figures derived from its episodes; a run that fails any check (a result, summary "
        "or episode file edited or deleted) is marked NOT VERIFIED, left out of every mean, plot and suite section, "
        "and the exit status is 1, as it is for a result that cannot be read. Exit status 2: nothing to report, a "
        "suite's own file that cannot be scored, or an --output that is not a report folder.",
    )
    parser.add_argument("results", nargs="+", type=Path, help="htb-eval --output directories")
    parser.add_argument("--output", type=Path, default=Path("htb-report"), help="report folder (default htb-report)")
    parser.add_argument("--title", default="HumanoidToolBench results", help="the page's title")
    args = parser.parse_args(argv)
    missing = [str(d) for d in args.results if not d.is_dir()]
    if missing:
        print(f"htb-report: no such directory: {', '.join(missing)}", file=sys.stderr)
        return 2
    try:
        results, unreadable = find_results(args.results)
        for other in unreadable:
            print(f"htb-report: warning: {other.warning}", file=sys.stderr)
        if not results:
            print(f"htb-report: no validated results under {', '.join(map(str, args.results))}", file=sys.stderr)
            return 2
        page, copies = render(args.title, args.results, suite_tables(results), offline_sections(results))
        index = write_report(args.output, page, copies)
    except (ValueError, OSError) as exc:  # unreadable records, a suite's own files, the output folder: one line
        print(f"htb-report: {exc}", file=sys.stderr)
        return 2
    damaged = [r for r in results if not r.report.verified]
    for r in damaged:
        print(f"htb-report: warning: {r.report.path} is NOT VERIFIED: {summarize_problems(r.report.problems)}", file=sys.stderr)
    print(f"htb-report: {len(results)} results, {len(copies)} videos -> {index}")
    return 1 if damaged or any(o.damaged for o in unreadable) else 0


if __name__ == "__main__":
    sys.exit(main())
