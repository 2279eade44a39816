"""A results report from an evaluation output directory, for any suite: successes, steps to success, failure causes.

Everything comes from the recorded files of the runs `runs.select` scores
(per condition and policy, the latest validated run). Each is verified first
(`eval.integrity.verify`: its result against its summaries, each summary
against its episode files); the figures shown are derived from the episodes,
never read from the result. A run that fails any check is reported as NOT
VERIFIED, with the successes of the episodes that pass but neither steps nor
causes, in no suite mean and in no suite's own section. Failure causes are
read from the metrics each episode recorded, first cause that applies.
"""

from __future__ import annotations

import json
import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .. import suites
from ..eval.integrity import verify
from ..eval.rundir import CONFIG
from ..eval.validation import read_summaries
from ..suites.base import RecordedRun, Suite
from .runs import NOT_VALIDATED, UNFINISHED, UNREADABLE, OtherRun, Selection, select


@dataclass
class ConditionReport:
    name: str
    episodes: int
    successes: int  # of the episodes that pass validation
    steps_to_success: list[int] = field(default_factory=list)
    causes: Counter = field(default_factory=Counter)
    reportable: bool = False  # under the suite's protocol as it is now (see `standing`)
    reasons: list[str] = field(default_factory=list)  # why not reportable
    problems: list[str] = field(default_factory=list)  # why its files no longer match; empty: verified
    path: Path | None = None  # its benchmark_result.json
    policy: str = ""  # the policy label the run is kept apart by
    source_digest: str | None = None  # of the code that ran it, as its result records
    others: tuple[OtherRun, ...] = ()  # runs of the same condition and policy, not scored
    outcomes: dict[int, bool] = field(default_factory=dict)  # seed -> success, of the episodes that pass
    recorded: RecordedRun | None = None  # what the suite's own scorer may read, once verified

    @property
    def verified(self) -> bool:
        return not self.problems

    @property
    def median_steps(self) -> float | None:
        return statistics.median(self.steps_to_success) if self.steps_to_success else None

    @property
    def rate(self) -> float | None:
        return self.successes / self.episodes if self.episodes else None


def failure_cause(name: str, summary: dict) -> str:
    """Why an episode did not succeed, from its recorded metrics (the suite decides)."""
    cond = suites.parse(name)
    return suites.suite_of(cond).failure_cause(cond, summary)


class ReportError(ValueError):
    """A recorded file that cannot be read as what it claims to be; one line for the user."""


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


def json_object(path: Path) -> dict:
    try:
        value = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def selection_report(selection: Selection) -> ConditionReport:
    """The report of the run scored for one condition and policy, verified and derived from its episodes."""
    run_dir, name = selection.run_dir, selection.condition.name
    check = verify(run_dir)
    config = json_object(run_dir / CONFIG)
    result = json_object(selection.result_path)
    reportable, reasons = standing(name, result)
    seeds = [s for s in config.get("seeds") or [] if isinstance(s, int)]
    found, _ = read_summaries(run_dir)
    passing = [found[s] for s in seeds if s in found and s not in check.episodes]
    report = ConditionReport(name, len(seeds), sum(bool(s["success"]) for s in passing), reportable=reportable,
                             reasons=reasons, problems=check.problems, path=selection.result_path,
                             policy=selection.policy, others=selection.others, source_digest=result.get("source_digest"),
                             outcomes={s["seed"]: bool(s["success"]) for s in passing})
    if not report.verified:  # steps and causes would come from files that changed
        return report
    for summary in passing:
        if summary["success"]:
            report.steps_to_success.append(int(summary["step"]))
        else:
            report.causes[failure_cause(name, summary)] += 1
    files = tuple(run_dir / rel for s in passing for rel in sorted(s.get("files") or {}))
    report.recorded = RecordedRun(name, run_dir, config, files)
    return report


def load(output: str | Path) -> tuple[list[ConditionReport], list[OtherRun]]:
    """The report of every condition and policy with a validated run under `output`, and the runs whose
    result cannot be read."""
    selections, unreadable = select([Path(output)])
    return [selection_report(s) for s in selections], unreadable


def policies(reports: list[ConditionReport]) -> list[str]:
    return sorted({r.policy for r in reports})


def key(name: str, policy: str, several: bool) -> str:
    """How a report names a condition's (or a suite's) entry: with its policy where the output holds several."""
    return f"{name} · {policy}" if several else name


def _state(other: OtherRun, scored: Path) -> str:
    if other.state == UNFINISHED:
        return "unfinished"
    if other.state == NOT_VALIDATED:
        return "result not validated"
    if other.state == UNREADABLE:
        return f"result unreadable: {other.detail}"
    return f"validated, superseded by {scored.name}"


def _suite_tables(reports: list[ConditionReport]) -> list[str]:
    by_name = {r.name: r for r in reports}
    lines = []
    for suite in suites.suites():
        mine = [c for c in suite.conditions if c.name in by_name]
        extra = [c for c in suite.named_only if c.name in by_name]  # a row each, outside the mean
        if not mine and not extra:
            continue
        rows = []
        for c in suite.conditions + tuple(extra):
            r = by_name.get(c.name)
            r = r if r is not None and r.verified else None  # the per-condition table shows it, marked
            rows.append({"name": c.name, **suite.summary_fields(c), "successes": r and r.successes,
                         "episodes": r and r.episodes, "success_rate": r and r.rate})
        lines += [""] + suite.summary_markdown(rows, None, "")
        if len(mine) == len(suite.conditions) and all(by_name[c.name].verified for c in mine):
            mean = sum(by_name[c.name].rate for c in mine) / len(mine)
            lines += ["", f"Unweighted mean of the {len(mine)} condition success rates: {mean:.3f}."]
    return lines


def _condition_table(reports: list[ConditionReport]) -> list[str]:
    lines = ["", "| Condition | Successes | Median steps to success | Failure causes |", "| --- | --- | --- | --- |"]
    for r in reports:
        if not r.verified:
            lines.append(f"| {r.name} (NOT VERIFIED) | {r.successes}/{r.episodes} | — | its files no longer match |")
            continue
        median = "—" if r.median_steps is None else f"{r.median_steps:g}"
        causes = "; ".join(f"{c} ({n})" for c, n in r.causes.most_common()) or "none"
        lines.append(f"| {r.name} | {r.successes}/{r.episodes} | {median} | {causes} |")
    return lines


def markdown(reports: list[ConditionReport], title: str = "Results") -> str:
    """The suites' tables and the per-condition table, a block per policy where the output holds several,
    then the runs recorded but not scored."""
    lines = [f"### {title}"]
    labels = policies(reports)
    for label in labels:
        mine = [r for r in reports if r.policy == label]
        if len(labels) > 1:
            lines += ["", f"#### {label}"]
        lines += _suite_tables(mine) + _condition_table(mine)
    others = [(r, o) for r in reports for o in r.others]
    if others:
        lines.append("")
        lines += [f"Also recorded, not scored: {key(r.name, r.policy, len(labels) > 1)}: {o.path} ({_state(o, r.path.parent)})"
                  for r, o in others]
    damaged = [key(r.name, r.policy, len(labels) > 1) for r in reports if not r.verified]
    if damaged:
        lines += ["", f"NOT VERIFIED: the files of {', '.join(damaged)} changed after validation; "
                  "rerun the same htb-eval command to redo what is damaged."]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Section:
    """A suite's own scoring of one policy's verified runs (`Suite.offline_report`)."""

    suite: str
    policy: str
    text: str  # Markdown, with the runs it had to leave out
    data: dict | None


def offline_sections(reports: list[ConditionReport]) -> list[Section]:
    """Each suite's section per policy, from the verified runs it scores; NOT VERIFIED runs are named, not read."""
    sections = []
    for suite in suites.suites():
        if type(suite).offline_report is Suite.offline_report:  # the suite scores no files of its own
            continue
        for label in policies(reports):
            mine = [r for r in reports if r.policy == label and suites.parse(r.name).suite == suite.name]
            if not mine:
                continue
            found = suite.offline_report([r.recorded for r in mine if r.recorded is not None])
            left_out = [r.name for r in mine if not r.verified]
            note = f"Left out of the suite's scores (NOT VERIFIED): {', '.join(left_out)}." if left_out else ""
            if found is None and not note:
                continue
            text = "\n\n".join(t.rstrip("\n") for t in (found[0] if found else "", note) if t)
            sections.append(Section(suite.name, label, text + "\n", found[1] if found else None))
    return sections
