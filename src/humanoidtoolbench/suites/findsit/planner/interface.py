"""What every find-navigate-sit planner answers: an `Observation` in, a `Decision` out, once per decision step.

The policies drive any planner through these types (`policies.PlannerPolicy`), and
`Decision.record` is all the metrics see of a decision.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ..actions import Action
from ..metrics.recorded import CallUsage, DecisionRecord

PLANNER_STAGE, VERIFIER_STAGE = "planner", "verifier"


@dataclass(frozen=True)
class Observation:
    image: np.ndarray  # (H, W, 3) uint8 ego RGB; 448 x 448 in the benchmark
    step: int  # decision step, from 0
    privileged: Any = None  # simulator truth, for oracle planners only


@dataclass(frozen=True)
class CallRecord:
    """One attempt at one stage."""

    stage: str  # PLANNER_STAGE or VERIFIER_STAGE
    attempt: int  # from 1
    prompt: str
    output: str  # the raw reply ("" when the transport failed)
    error: str | None
    usage: CallUsage


@dataclass(frozen=True)
class Decision:
    """What a planner decided at one step, and what it cost."""

    action: Action  # executed by the runner
    proposed: Action  # the planner's proposal, before the verifier
    visible_state: str = ""  # the planner's description of the image (the FindSR rule reads it)
    planner_output: Mapping[str, Any] | None = None  # parsed JSON, None without a model answer
    verifier_output: Mapping[str, Any] | None = None
    verifier_route: str | None = None  # None: no verifier call (a synthetic accept)
    calls: tuple[CallRecord, ...] = ()
    planner_fallback: bool = False  # five planner failures: Walk<forward><slow>
    verifier_fallback: bool = False  # five verifier failures: the proposal accepted

    @property
    def retries(self) -> int:
        return len(self.calls) - len({c.stage for c in self.calls})

    def record(self, step: int, target_pixels: int | None) -> DecisionRecord:
        """The metrics' view of this decision, joined with the target pixels of the image it was made on."""
        return DecisionRecord(
            step=step,
            skill=self.action.skill,
            visible_state=self.visible_state,
            target_pixels=target_pixels,
            calls=tuple(c.usage for c in self.calls),
            retries=self.retries,
            invalid_action=self.proposed.invalid_action or self.action.invalid_action,
            unsupported_action=self.action.unsupported,
            planner_fallback=self.planner_fallback,
            verifier_fallback=self.verifier_fallback,
        )


class Planner(Protocol):
    name: str

    def reset(self, instruction: str, seed: int) -> None:
        """Start an episode: its instruction and the seed of its generator."""

    def decide(self, observation: Observation) -> Decision: ...
