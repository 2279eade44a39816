"""A results report from an evaluation output directory, for any suite: successes, steps to success, failure causes.

Everything comes from the recorded files: each condition's newest validated
`benchmark_result.json` and its episode summaries (final metrics, what was
ever true). Failure causes are read from the metrics the episode recorded,
first cause that applies. Each run is validated again first
(`validate_run`): a result whose files no longer match is reported as not
verified, with its counts but neither steps nor causes, and no suite mean
includes it.
"""

from __future__ import annotations

import json
import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .. import suites
from ..eval.validation import validate_run


@dataclass
class ConditionReport:
    name: str
    episodes: int
    successes: int
    steps_to_success: list[int] = field(default_factory=list)
    causes: Counter = field(default_factory=Counter)
    reportable: bool = False  # under the suite's protocol as it is now (see `standing`)
    reasons: list[str] = field(default_factory=list)  # why not reportable
    problems: list[str] = field(default_factory=list)  # why its files no longer match; empty: verified
    path: Path | None = None  # its benchmark_result.json

    @property
    def verified(self) -> bool:
        return not self.problems

    @property
    def median_steps(self) -> float | None:
        return statistics.median(self.steps_to_success) if self.steps_to_success else None


def failure_cause(name: str, summary: dict) -> str:
    """Why an episode did not succeed, from its recorded metrics (the suite decides)."""
    cond = suites.parse(name)
    return suites.suite_of(cond).failure_cause(cond, summary)


class ReportError(ValueError):
    """A recorded file that cannot be read as what it claims to be; one line for the user."""


def _read(path: Path) -> dict:
    try:
        value = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ReportError(f"cannot read {path}: {exc}") from None
    if not isinstance(value, dict):
        raise ReportError(f"cannot read {path}: not a JSON object")
    return value


def newest_result(output: Path, name: str) -> Path | None:
    results = sorted((output / name).glob("run-*/benchmark_result.json"), key=lambda p: p.parent.name, reverse=True)
    for path in results:
        if _read(path).get("status") == "validated":
            return path
    return None


def condition_report(output: Path, name: str) -> ConditionReport | None:
    path = newest_result(output, name)
    return None if path is None else result_report(path, name)


def standing(name: str, result: dict) -> tuple[bool, list[str]]:
    """Whether a recorded result is reportable under its suite's protocol as it is now, and why not.
    Its own flag and reasons held when it was run; a result recorded on another controller or in
    another look than the protocol's today (the protocol has changed since) is a diagnostic run now.
    A result without a look was drawn before looks existed, in the flat colours of `fast`."""
    reasons = [str(r) for r in result.get("reasons") or []]
    protocol = suites.suite_of(suites.parse(name)).protocol
    controller, look = result.get("controller"), result.get("look", "fast")
    stale = [f"controller {controller!r} instead of {protocol.controller!r}"] if controller != protocol.controller else []
    stale += [f"look {look!r} instead of {protocol.look!r}"] if look != protocol.look else []
    reasons += [r for r in stale if r not in reasons]
    return bool(result.get("reportable")) and not stale, reasons


def result_report(path: Path, name: str) -> ConditionReport:
    """The report of one validated `benchmark_result.json` of condition `name`, its run checked again."""
    result = _read(path)
    reportable, reasons = standing(name, result)
    try:
        report = ConditionReport(name, result["episodes"], result["successes"], reportable=reportable, reasons=reasons,
                                 problems=validate_run(path.parent), path=path)
        if not report.verified:  # steps and causes would come from the files that changed
            return report
        for summary_path in sorted((path.parent / "summaries").glob("episode_*.json")):
            summary = _read(summary_path)
            if summary["success"]:
                report.steps_to_success.append(int(summary["step"]))
            else:
                report.causes[failure_cause(name, summary)] += 1
    except KeyError as exc:
        raise ReportError(f"{path.parent}: a recorded file lacks the field {exc}") from None
    return report


def load(output: str | Path) -> dict[str, ConditionReport]:
    """Every suite's conditions that have a validated result under `output`."""
    output = Path(output)
    reports = {c.name: condition_report(output, c.name) for suite in suites.suites() for c in suite.listed}
    return {n: r for n, r in reports.items() if r is not None}


def markdown(reports: dict[str, ConditionReport], title: str = "Results") -> str:
    lines = [f"### {title}"]
    for suite in suites.suites():
        mine = [c for c in suite.conditions if c.name in reports]
        extra = [c for c in suite.named_only if c.name in reports]  # a row each, outside the mean
        if not mine and not extra:
            continue
        rows = []
        for c in suite.conditions + tuple(extra):
            r = reports.get(c.name)
            r = r if r is not None and r.verified else None  # the per-condition table shows it, marked
            rate = None if r is None else r.successes / r.episodes
            rows.append({"name": c.name, **suite.summary_fields(c), "successes": r and r.successes,
                         "episodes": r and r.episodes, "success_rate": rate})
        lines += [""] + suite.summary_markdown(rows, None, "")
        if len(mine) == len(suite.conditions) and all(reports[c.name].verified for c in mine):
            mean = sum(reports[c.name].successes / reports[c.name].episodes for c in mine) / len(mine)
            lines += ["", f"Unweighted mean of the {len(mine)} condition success rates: {mean:.3f}."]
    lines += ["", "| Condition | Successes | Median steps to success | Failure causes |", "| --- | --- | --- | --- |"]
    for name, r in reports.items():
        if not r.verified:
            lines.append(f"| {name} (NOT VERIFIED) | {r.successes}/{r.episodes} | — | its files no longer match |")
            continue
        median = "—" if r.median_steps is None else f"{r.median_steps:g}"
        causes = "; ".join(f"{c} ({n})" for c, n in r.causes.most_common()) or "none"
        lines.append(f"| {name} | {r.successes}/{r.episodes} | {median} | {causes} |")
    damaged = [name for name, r in reports.items() if not r.verified]
    if damaged:
        lines += ["", f"NOT VERIFIED: the files of {', '.join(damaged)} changed after validation; "
                  "rerun the same htb-eval command to redo what is damaged."]
    return "\n".join(lines) + "\n"
