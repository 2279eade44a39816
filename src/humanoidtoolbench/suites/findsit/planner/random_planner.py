"""The random floor: what a planner scores with no understanding; needs no language-model client."""

from __future__ import annotations

import re

import numpy as np

from ..actions import DIRECTIONS, VOCABULARY, WALK_SPEEDS_MPS, parse_action
from .interface import Decision, Observation

_SPEEDS = tuple(WALK_SPEEDS_MPS)


class RandomPlanner:
    """Uniform over the eight actions, parameters uniform over their ranges: the score of no understanding."""

    name = "random"

    def __init__(self) -> None:
        self._rng = np.random.default_rng(0)

    def reset(self, instruction: str, seed: int) -> None:
        self._rng = np.random.default_rng(seed)

    def decide(self, observation: Observation) -> Decision:
        rng = self._rng
        spec = VOCABULARY[int(rng.integers(len(VOCABULARY)))]
        speed = _SPEEDS[int(rng.integers(len(_SPEEDS)))]
        direction = DIRECTIONS[int(rng.integers(len(DIRECTIONS)))]
        name = spec.template.replace("<speed>", f"<{speed}>").replace("<direction>", f"<{direction}>")
        if spec.range is not None:
            value = rng.uniform(spec.range.low, spec.range.high)
            name = re.sub(r"<(degrees|height|distance)>", f"<{value:.2f}>", name)
        action = parse_action(spec.id, name)
        return Decision(action=action, proposed=action)
