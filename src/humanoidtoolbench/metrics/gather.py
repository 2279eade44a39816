"""What an HTML report shows, gathered from htb-eval output directories (recorded files only, no simulator).

A result is one policy's newest validated `benchmark_result.json` on one
condition, found in any of the directories given; a policy is its name and
checkpoint, as the multi-condition summary identifies it, and the controller and look where
they are not the protocol's (a result on another controller or in another look is a diagnostic
run, never mixed into the protocol's row). Counts, steps to
success and failure causes come from `metrics.report` (which validates the
run again); provenance from the typed result record; the sample videos
(one success, one failure, lowest seeds first, the policy's camera) from the
episode summaries of verified runs only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from .. import suites
from ..eval.records import BenchmarkResult, EpisodeSummary, RecordError, convert, read
from ..suites.base import Condition, Suite
from .report import ConditionReport, ReportError, result_report
from .stats import wilson


@dataclass(frozen=True)
class Rate:
    successes: int
    episodes: int

    @property
    def rate(self) -> float:
        return self.successes / self.episodes

    @property
    def interval(self) -> tuple[float, float]:
        """Wilson 95 %."""
        return wilson(self.successes, self.episodes)


@dataclass(frozen=True)
class Video:
    seed: int
    success: bool
    camera: str
    source: Path  # the recorded file


@dataclass
class Result:
    """One policy's newest validated result on one condition."""

    condition: Condition
    policy: str
    record: BenchmarkResult
    report: ConditionReport
    results_dir: Path  # the htb-eval output directory it was found in
    videos: list[Video] = field(default_factory=list)

    @property
    def rate(self) -> Rate:
        return Rate(self.report.successes, self.report.episodes)

    @property
    def run_dir(self) -> Path:
        return self.report.path.parent


@dataclass
class SuiteTable:
    """A suite's results as policies x conditions; policies best first."""

    suite: Suite
    policies: list[str]
    cells: dict[tuple[str, str], Result]  # (policy, condition name) -> result

    def row(self, policy: str) -> list[Result | None]:
        return [self.cells.get((policy, c.name)) for c in self.suite.conditions]

    def verified(self, policy: str) -> list[Result]:
        return [r for r in self.row(policy) if r is not None and r.report.verified]

    def mean(self, policy: str) -> float | None:
        """Unweighted mean of the condition success rates, only when every condition has a verified result."""
        found = self.verified(policy)
        if len(found) < len(self.suite.conditions):
            return None
        return sum(r.rate.rate for r in found) / len(found)

    def breakdowns(self) -> dict[str, dict[str, dict[str, Rate]]]:
        """axis -> group -> policy -> episodes pooled over the group's verified conditions, by the suite's
        groups (in condition order; a group no result falls in stays empty)."""
        out: dict[str, dict[str, dict[str, Rate]]] = {}
        for cond in self.suite.conditions:
            for axis, group in self.suite.report_groups(cond).items():
                cell = out.setdefault(axis, {}).setdefault(group, {})
                for policy in self.policies:
                    result = self.cells.get((policy, cond.name))
                    if result is None or not result.report.verified:
                        continue
                    had = cell.get(policy, Rate(0, 0))
                    cell[policy] = Rate(had.successes + result.rate.successes, had.episodes + result.rate.episodes)
        return out


def policy_label(policy_info: dict, controller: str | None = None, protocol_controller: str | None = None,
                 look: str | None = None, protocol_look: str | None = None) -> str:
    """A policy's name, with its checkpoint where that says more than the built-in's own name, and its
    controller and look where they are not the protocol's: scores on two controllers, or seen in two
    looks, never share a row."""
    name, checkpoint = policy_info.get("policy") or "unknown policy", policy_info.get("checkpoint")
    label = name if checkpoint in (None, "", f"builtin:{name}") else f"{name} @ {checkpoint}"
    tags = ([controller] if controller != protocol_controller else []) + ([f"{look} look"] if look != protocol_look else [])
    return f"{label} [{', '.join(tags)}]" if tags else label


def _read_result(path: Path) -> BenchmarkResult | None:
    """The typed result at `path`, None where it is not a validated one."""
    try:
        raw = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ReportError(f"cannot read {path}: {exc}") from None
    if not isinstance(raw, dict) or raw.get("status") != "validated":
        return None
    return convert(raw, BenchmarkResult, str(path))


def _sample_videos(suite: Suite, run_dir: Path, record: BenchmarkResult) -> list[Video]:
    """One success and one failure (lowest seeds), each as the camera the policy saw where recorded."""
    videos = []
    for success in (True, False):
        seeds = sorted(o["seed"] for o in record.outcomes if bool(o["success"]) is success)
        if not seeds:
            continue
        summary = read(run_dir / "summaries" / f"episode_{seeds[0]}.json", EpisodeSummary)
        entries = sorted(summary.videos, key=lambda v: v.camera != suite.cameras.policy_camera)
        if entries:
            videos.append(Video(seeds[0], success, entries[0].camera, run_dir / entries[0].path))
    return videos


def find_results(dirs: list[Path]) -> list[Result]:
    """Every (policy, condition)'s newest validated result under `dirs`, in suite and condition order."""
    newest: dict[tuple[int, str], tuple[tuple[str, str], Path, BenchmarkResult, Path]] = {}
    conditions = [c for s in suites.suites() for c in s.conditions]
    for results_dir in dirs:
        for index, cond in enumerate(conditions):
            for path in (results_dir / cond.name).glob("run-*/benchmark_result.json"):
                record = _read_result(path)
                if record is None:
                    continue
                protocol = suites.suite_of(cond).protocol
                label = policy_label(record.policy_info, record.controller, protocol.controller, record.look, protocol.look)
                key, when = (index, label), (record.finished_at, path.parent.name)
                if key not in newest or when > newest[key][0]:
                    newest[key] = (when, path, record, results_dir)
    results = []
    for (index, policy), (_, path, record, results_dir) in sorted(newest.items()):
        cond = conditions[index]
        report = result_report(path, cond.name)
        try:
            videos = _sample_videos(suites.suite_of(cond), path.parent, record) if report.verified else []
        except (RecordError, KeyError) as exc:
            raise ReportError(f"{path.parent}: {exc}") from None
        results.append(Result(cond, policy, record, report, results_dir, videos))
    return results


def suite_tables(results: list[Result]) -> list[SuiteTable]:
    """One table per suite with results, in registry order; policies by mean over their verified conditions."""
    tables = []
    for suite in suites.suites():
        cells = {(r.policy, r.condition.name): r for r in results if r.condition.suite == suite.name}
        if not cells:
            continue
        table = SuiteTable(suite, [], cells)
        names = sorted({p for p, _ in cells})

        def score(policy: str) -> float:
            found = table.verified(policy)
            return sum(r.rate.rate for r in found) / len(found) if found else -1.0

        table.policies = sorted(names, key=lambda p: (-score(p), p))
        tables.append(table)
    return tables


def offline_sections(dirs: list[Path]) -> list[tuple[Path, str, str]]:
    """(directory, suite, Markdown) of each suite's own offline scoring of each directory, where it has one."""
    found = []
    for results_dir in dirs:
        for suite in suites.suites():
            section = suite.offline_report(results_dir)
            if section is not None:
                found.append((results_dir, suite.name, section[0]))
    return found
