"""The per-step sink interface of the recorder: what every output of an episode receives.

A sink gets each step (the command row executed, the policy state just
before it, at a request the one the policy was sent; the step's result and
ending) and each policy call, and writes
its file whole at the end or under a `.partial` name, so a crash leaves no
complete-looking file. The evaluator's own sinks (metrics, steps, policy
calls) and a suite's (Fiatlux bags) share it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np


@dataclass(frozen=True)
class StepRecord:
    step: int
    action: np.ndarray
    state: np.ndarray
    result: Any  # the suite's StepResult
    metrics: dict  # JSON-ready values of result.metrics
    terminated: bool
    truncated: bool


class Sink:
    """One per-step output of an episode; methods a sink does not need stay no-ops."""

    def step(self, record: StepRecord) -> None:
        pass

    def policy_call(self, call) -> None:
        pass

    def close(self) -> list[Path]:
        """Finish the files; returns their paths."""
        return []

    def abort(self) -> None:
        """Drop partial files after a failure."""
