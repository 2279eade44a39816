"""Tests that play a policy drive the episode as the runner does: through the shared `Rollout`."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from humanoidtoolbench.suites.base import Episode, StepResult
from humanoidtoolbench.suites.rollout import Rollout


def play(episode: Episode, contract, policy: Callable[[int], object], steps: int) -> Iterator[StepResult]:
    """Each step's result of `episode` driven by `policy(requests)` (its argument: the requests before
    this one), whose chunks the contract validates and `on_chunk` sees; ends at an outcome or `steps`."""
    rollout = Rollout(episode, contract)
    for _ in range(steps):
        if rollout.needs_request:
            rollout.accept(policy(rollout.requests))
        _, result = rollout.step()
        yield result
        if result.outcome is not None:
            return
