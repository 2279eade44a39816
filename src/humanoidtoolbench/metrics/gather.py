"""What an HTML report shows, gathered from htb-eval output directories (recorded files only, no simulator).

A result is the run `runs.select` scores for one policy and condition in any
of the directories given (the latest validated one); a policy is its label
(`eval.identity.policy_label`: name, checkpoint, a planner's model, and the
controller and look where they are not the protocol's: a result on another
controller or in another look is a diagnostic run, never mixed into the
protocol's row). Counts, steps to success and failure causes come from
`metrics.report`, which verifies the run and derives them from its episodes;
provenance from the typed result record; the sample videos (one success, one
failure, lowest seeds first, the policy's camera) from the episode summaries
of verified runs only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .. import suites
from ..record.records import BenchmarkResult, EpisodeSummary, RecordError, read
from ..suites.base import Condition, Suite
from .report import ConditionReport, ReportError, Section, selection_report
from .report import offline_sections as report_sections
from .runs import OtherRun, select
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
    record: BenchmarkResult | None  # its provenance; None where the result does not parse (NOT VERIFIED)
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


def _read_result(path: Path) -> BenchmarkResult | None:
    """The typed result at `path` for its provenance; None where it does not parse as one (then it is
    NOT VERIFIED, and its figures come from its episodes all the same)."""
    try:
        return read(path, BenchmarkResult)
    except RecordError:
        return None


def _sample_videos(suite: Suite, run_dir: Path, outcomes: dict[int, bool]) -> list[Video]:
    """One success and one failure (lowest seeds), each as the camera the policy saw where recorded."""
    videos = []
    for success in (True, False):
        seeds = sorted(seed for seed, ok in outcomes.items() if ok is success)
        if not seeds:
            continue
        summary = read(run_dir / "summaries" / f"episode_{seeds[0]}.json", EpisodeSummary)
        entries = sorted(summary.videos, key=lambda v: v.camera != suite.cameras.policy_camera)
        if entries:
            videos.append(Video(seeds[0], success, entries[0].camera, run_dir / entries[0].path))
    return videos


def find_results(dirs: list[Path]) -> tuple[list[Result], list[OtherRun]]:
    """Every (policy, condition)'s scored run under `dirs` (`runs.select`: the latest validated one), in
    suite and condition order, verified; and the runs whose result cannot be read."""
    selections, unreadable = select(dirs)
    results = []
    for selection in selections:
        cond = selection.condition
        report = selection_report(selection)
        try:
            videos = _sample_videos(suites.suite_of(cond), selection.run_dir, report.outcomes) if report.verified else []
        except (RecordError, KeyError) as exc:
            raise ReportError(f"{selection.run_dir}: {exc}") from None
        results.append(Result(cond, selection.policy, _read_result(selection.result_path), report,
                              selection.results_dir, videos))
    return results, unreadable


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


def offline_sections(results: list[Result]) -> list[Section]:
    """Each suite's own scoring of each policy's verified results (`Suite.offline_report`)."""
    return report_sections([r.report for r in results])
