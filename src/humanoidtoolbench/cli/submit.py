"""`htb-submit`: one policy's scored runs from an htb-eval output, as a sealed bundle that `htb-verify` checks."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import suites
from ..eval.validation import summarize_problems
from ..metrics import bundle
from ..metrics.report import ReportError, load, policies


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="htb-submit",
        description="Copy the runs htb-metrics scores for one policy (per condition, the latest validated run) into a "
        "new folder with a sealed manifest of every file's SHA-256 and the scores claimed; only verified, reportable "
        "runs of the standard protocol are bundled.",
    )
    parser.add_argument("output", help="an htb-eval --output directory holding one policy's runs")
    parser.add_argument("--output", dest="bundle", required=True, metavar="BUNDLE", help="the bundle folder to create")
    return parser


def _runs(output: str) -> list[bundle.Run]:
    """The runs to bundle, or ValueError in one line."""
    reports, _ = load(output)
    names = policies(reports)
    if len(names) != 1:
        raise ValueError(f"{output} holds {'policies ' + ', '.join(names) if names else 'no validated results'}; "
                         "a bundle holds one policy's runs")
    if len({suites.suite_of(suites.parse(r.name)).name for r in reports}) > 1:
        raise ValueError(f"{output} holds runs of several suites; a bundle holds one suite's")
    for r in reports:
        if not r.verified:
            raise ValueError(f"{r.path} is NOT VERIFIED: {summarize_problems(r.problems)}")
        if not r.reportable:
            raise ValueError(f"{r.path} is not reportable: {'; '.join(r.reasons)}")
    return [bundle.Run(r.name, r.path.parent, r.policy) for r in reports]


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not Path(args.output).is_dir():
        print(f"htb-submit: no such directory: {args.output}", file=sys.stderr)
        return 2
    try:
        manifest = bundle.write(_runs(args.output), Path(args.bundle))
    except (ReportError, ValueError, FileExistsError) as exc:
        print(f"htb-submit: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"htb-submit: cannot write {args.bundle}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(f"bundle {args.bundle}: {len(manifest['runs'])} run(s) of {manifest['policy']}, {len(manifest['files'])} files, "
          f"seal {manifest[bundle.SEAL]}; check it with htb-verify {args.bundle}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
