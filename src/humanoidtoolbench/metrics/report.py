"""A results report from an evaluation output directory: successes, steps to success, failure causes.

Everything comes from the recorded files: each condition's newest validated
`benchmark_result.json` and its episode summaries (final metrics, what was
ever true). Failure causes are read from the metrics the episode recorded,
first cause that applies.
"""

from __future__ import annotations

import json
import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..tasks import registry

# The flag that says the task outcome was reached at some step, per scenario.
OUTCOME_FLAG = {"BallMove": "on_spot", "BallRetrieve": "in_target_area"}


@dataclass
class ConditionReport:
    name: str
    episodes: int
    successes: int
    steps_to_success: list[int] = field(default_factory=list)
    causes: Counter = field(default_factory=Counter)
    reportable: bool = False

    @property
    def median_steps(self) -> float | None:
        return statistics.median(self.steps_to_success) if self.steps_to_success else None


def failure_cause(name: str, summary: dict) -> str:
    """Why an episode did not succeed, from its recorded metrics."""
    cond = registry.parse(name)
    scenario, level = cond.scenario, cond.level
    final, ever = summary.get("final_metrics", {}), summary.get("ever_true", {})
    lift_max = summary.get("numeric_max", {}).get("tool_lift", 0.0)
    if not ever.get("picked_correct_tool"):
        return "correct tool never lifted" if lift_max < 0.02 else "tool lifted too little"
    if final.get("tool_lift", 0.0) < 0.02 and level > 0 and not _task_done(scenario, final):
        return "grasp lost"
    if level == 0:
        return "lift not held for 50 steps"
    if scenario == "IceBreak":
        broken = int(final.get("ice_broken_count", 0))
        return ("no block broken", "one block broken")[min(broken, 1)] if broken < 2 else "blocks broken too late"
    if not ever.get("tool_touched_target"):
        return "ball never touched"
    if ever.get(OUTCOME_FLAG[scenario]):
        return "ball reached the ring but did not stay"
    return "ball not brought into the ring"


def _task_done(scenario: str, final: dict) -> bool:
    if scenario == "IceBreak":
        return bool(final.get("ice_broken"))
    return bool(final.get(OUTCOME_FLAG[scenario]))


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
    if path is None:
        return None
    result = _read(path)
    try:
        report = ConditionReport(name, result["episodes"], result["successes"], reportable=bool(result.get("reportable")))
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
    output = Path(output)
    reports = {c.name: condition_report(output, c.name) for c in registry.CONDITIONS}
    return {n: r for n, r in reports.items() if r is not None}


def markdown(reports: dict[str, ConditionReport], title: str = "Results") -> str:
    def cell(name: str) -> str:
        r = reports.get(name)
        return "—" if r is None else f"{r.successes}/{r.episodes}"

    lines = [f"### {title}", "", "| Scenario | Level | S | R |", "| --- | --- | --- | --- |"]
    for s in registry.SCENARIOS:
        for lvl in registry.LEVELS:
            lines.append(f"| {s} | L{lvl} | {cell(f'G1{s}-L{lvl}-S')} | {cell(f'G1{s}-L{lvl}-R')} |")
    done = list(reports.values())
    if len(done) == len(registry.CONDITIONS):
        mean = sum(r.successes / r.episodes for r in done) / len(done)
        lines += ["", f"Unweighted mean of the 18 condition success rates: {mean:.3f}."]
    lines += ["", "| Condition | Successes | Median steps to success | Failure causes |", "| --- | --- | --- | --- |"]
    for name, r in reports.items():
        median = "—" if r.median_steps is None else f"{r.median_steps:g}"
        causes = "; ".join(f"{c} ({n})" for c, n in r.causes.most_common()) or "none"
        lines.append(f"| {name} | {r.successes}/{r.episodes} | {median} | {causes} |")
    return "\n".join(lines) + "\n"
