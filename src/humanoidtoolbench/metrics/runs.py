"""Which recorded runs a report scores: per condition and policy, the latest validated run; the others listed.

An output directory may hold several runs of one condition: a `--rerun`, a
run with other settings, runs of other policies or controllers. Runs are kept
apart by the policy label of their configuration (`eval.identity`: the
policy's name, its checkpoint, a planner's model, a controller other than the
protocol's). Of each condition and label the validated run that finished
last is scored; every other run of that condition and label is listed beside
it (superseded, unfinished, not validated or unreadable), never scored and
never a reason to refuse the output.
"""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass
from pathlib import Path

from .. import suites
from ..eval.identity import policy_label
from ..eval.rundir import CONFIG, RESULT
from ..suites.base import Condition

VALIDATED, UNFINISHED, NOT_VALIDATED, UNREADABLE = "validated", "unfinished", "not validated", "result unreadable"
NO_CONFIG = "no configuration"  # an evaluation killed (or out of disk) before its configuration: skipped, named


@dataclass(frozen=True)
class OtherRun:
    """A run of the same condition and policy that is not scored, and why (one of the states above)."""

    path: Path
    state: str
    detail: str = ""  # what makes it unreadable

    @property
    def warning(self) -> str:
        """The one line a report prints of it."""
        if self.state == NO_CONFIG:
            return f"skipping {self.path}: no readable {CONFIG} ({self.detail}), so nothing to score"
        return f"{self.path / RESULT} cannot be read: {self.detail}"

    @property
    def damaged(self) -> bool:
        """Whether it makes a report's exit status 1: a result lost, not a run that never began."""
        return self.state != NO_CONFIG


@dataclass(frozen=True)
class Selection:
    """The run scored for one condition and policy, found in `results_dir`."""

    condition: Condition
    policy: str
    result_path: Path
    results_dir: Path
    others: tuple[OtherRun, ...] = ()

    @property
    def run_dir(self) -> Path:
        return self.result_path.parent


@dataclass(frozen=True)
class _Run:
    path: Path
    results_dir: Path
    policy: str
    state: str
    finished: _dt.datetime | None
    detail: str = ""


def _read(path: Path) -> tuple[dict | None, str]:
    """A JSON object and '', or None and why it cannot be read."""
    try:
        value = json.loads(path.read_text())
    except FileNotFoundError:
        return None, "missing"
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return None, str(exc)
    return (value, "") if isinstance(value, dict) else (None, "not a JSON object")


def _finished(result: dict) -> _dt.datetime | None:
    try:
        return _dt.datetime.fromisoformat(str(result.get("finished_at")))
    except ValueError:
        return None


def _run(path: Path, results_dir: Path, protocol) -> _Run:
    config, no_config = _read(path / CONFIG)
    result, why = _read(path / RESULT)
    if config is None and result is None:  # nothing says whose run it is: no policy to file it under
        return _Run(path, results_dir, "", NO_CONFIG, None, no_config)
    source = config if config and "policy_info" in config else (result or {})
    label = policy_label(source.get("policy_info") or {}, source.get("controller"), protocol.controller,
                         source.get("look", "fast"), protocol.look)  # a run from before looks drew the fast one
    if result is None:
        state, why = (UNFINISHED, "") if why == "missing" else (UNREADABLE, why)
        return _Run(path, results_dir, label, state, None, why)
    state = VALIDATED if result.get("status") == "validated" else NOT_VALIDATED
    return _Run(path, results_dir, label, state, _finished(result))


def _order(run: _Run) -> tuple:
    """Later is larger: finish time (microseconds since results recorded them), then the run's name."""
    when = run.finished or _dt.datetime.min.replace(tzinfo=_dt.timezone.utc)
    return (when if when.tzinfo else when.replace(tzinfo=_dt.timezone.utc), run.path.name)


def select(dirs: list[Path]) -> tuple[list[Selection], list[OtherRun]]:
    """The scored run of every condition and policy under `dirs` (htb-eval output directories), in suite and
    condition order, then policy (a condition and policy without a validated run has none), and every run
    whose result cannot be read or that has no configuration: what a report warns of, wherever it lies."""
    chosen, unreadable = [], []
    for suite in suites.suites():
        for cond in suite.listed:
            groups: dict[str, list[_Run]] = {}
            for results_dir in dirs:
                for path in sorted((Path(results_dir) / cond.name).glob("run-*")):
                    if path.is_dir():
                        run = _run(path, Path(results_dir), suite.protocol)
                        if run.state == NO_CONFIG:
                            unreadable.append(OtherRun(run.path, run.state, run.detail))
                            continue
                        groups.setdefault(run.policy, []).append(run)
                        if run.state == UNREADABLE:
                            unreadable.append(OtherRun(run.path, run.state, run.detail))
            for policy in sorted(groups):
                runs = groups[policy]
                validated = [r for r in runs if r.state == VALIDATED]
                if not validated:
                    continue
                scored = max(validated, key=_order)
                others = tuple(OtherRun(r.path, r.state, r.detail) for r in sorted(runs, key=_order) if r is not scored)
                chosen.append(Selection(cond, policy, scored.path / RESULT, scored.results_dir, others))
    return chosen, unreadable
