"""An episode's figures derived again from its metrics file, to check what its summary claims.

The runner writes the summary from the very values it writes as metrics lines
(one `MetricsLine` per step: the step's metrics, its reward 1.0 once success
has held, its ending), so a summary whose step count, ending, success, final
metrics or flags disagree with its own metrics file was edited; the metrics
file itself is covered by the SHA-256 the summary records. No MuJoCo here:
`htb-metrics` derives the same figures.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import msgspec
import numpy as np

from ..record.records import MetricsLine

_DECODE = msgspec.json.Decoder(MetricsLine)


class MetricTracker:
    """ever_true / first_true_step for flags, min / max for numbers, over an episode."""

    def __init__(self) -> None:
        self.ever_true: dict[str, bool] = {}
        self.first_true_step: dict[str, int | None] = {}
        self.numeric_min: dict[str, float] = {}
        self.numeric_max: dict[str, float] = {}

    def update(self, values: dict, step: int) -> None:
        for name, v in values.items():
            if isinstance(v, (bool, np.bool_)):
                if name not in self.ever_true:
                    self.ever_true[name], self.first_true_step[name] = False, None
                if v and not self.ever_true[name]:
                    self.ever_true[name], self.first_true_step[name] = True, step
            else:
                self.numeric_min[name] = min(self.numeric_min.get(name, v), v)
                self.numeric_max[name] = max(self.numeric_max.get(name, v), v)


@dataclass(frozen=True)
class EpisodeFacts:
    """What an episode's metrics file says, in the summary's terms."""

    step: int
    success: bool
    terminated: bool
    truncated: bool
    final_metrics: dict = field(default_factory=dict)
    ever_true: dict = field(default_factory=dict)
    first_true_step: dict = field(default_factory=dict)
    numeric_min: dict = field(default_factory=dict)
    numeric_max: dict = field(default_factory=dict)


class FactsError(ValueError):
    """A metrics file that does not read as one episode's lines; one line naming the file."""


def episode_facts(path: Path, seed: int, name: str) -> EpisodeFacts:
    """The facts of `path` (run-relative `name` in messages): every line of `seed`, steps 1, 2, 3, ..."""
    tracker, last = MetricTracker(), None
    try:
        with open(path, "rb") as f:
            for number, raw in enumerate(f, start=1):
                try:
                    line = _DECODE.decode(raw)
                except msgspec.DecodeError as exc:
                    raise FactsError(f"{name} line {number} is not a metrics line ({exc})") from None
                if line.episode != seed or line.step != number:
                    raise FactsError(f"{name} line {number} is step {line.step} of seed {line.episode}")
                tracker.update(line.metrics, line.step)
                last = line
    except OSError:
        raise FactsError(f"{name} missing") from None
    if last is None:
        raise FactsError(f"{name} is empty")
    return EpisodeFacts(
        step=last.step,
        success=last.reward == 1.0 and last.terminated,
        terminated=last.terminated,
        truncated=last.truncated,
        final_metrics=last.metrics,
        ever_true=tracker.ever_true,
        first_true_step=tracker.first_true_step,
        numeric_min=tracker.numeric_min,
        numeric_max=tracker.numeric_max,
    )


_CLAIMS = ("step", "success", "terminated", "truncated", "final_metrics", "ever_true", "first_true_step",
           "numeric_min", "numeric_max")


def disagreements(summary: dict, facts: EpisodeFacts, summary_name: str, metrics_name: str) -> list[str]:
    """Each figure of `summary` that its metrics file does not give, one line each."""
    problems = []
    for key in _CLAIMS:
        claimed, derived = summary.get(key), getattr(facts, key)
        if claimed != derived:
            shown = (f"{claimed!r}, {metrics_name} gives {derived!r}" if not isinstance(derived, dict)
                     else f"other values than {metrics_name}")
            problems.append(f"{summary_name} says {key} {shown}")
    return problems
