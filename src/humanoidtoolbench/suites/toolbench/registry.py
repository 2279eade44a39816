"""The 18 canonical conditions: the three scenarios of `scenarios.py` x levels L0/L1/L2 x modes S/R.

IDs read `humanoidtoolbench/G1<Scenario>-L<level>-<mode>`; the prefix is
optional wherever a user types one. `all` runs them in `CONDITIONS` order:
the nine S conditions, then the nine R conditions.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import ClassVar

from .. import UnknownEnvironment
from . import scenarios
from .scenarios import Scenario

NAMESPACE = "humanoidtoolbench"
SCENARIOS = tuple(scenarios.TABLE)
LEVELS = (0, 1, 2)
MODES = ("S", "R")
DEFAULT_ENV = "G1BallMove-L0-S"
EPISODES = 100
SEED_START = 10000
MAX_STEPS = 3000
HOLD_STEPS = 50


@dataclass(frozen=True)
class Condition:
    suite: ClassVar[str] = "toolbench"
    scenario: str
    level: int
    mode: str

    def __post_init__(self) -> None:
        scenarios.get(self.scenario)  # an unknown scenario fails here, naming the known ones

    @property
    def task(self) -> Scenario:
        """The scenario's row."""
        return scenarios.get(self.scenario)

    @property
    def name(self) -> str:
        return f"G1{self.scenario}-L{self.level}-{self.mode}"

    @property
    def env_id(self) -> str:
        return f"{NAMESPACE}/{self.name}"

    @property
    def decoy(self) -> bool:
        """Mode R adds the scenario's decoy tool."""
        return self.mode == "R"

    @property
    def reasoning_mode(self) -> int:
        return MODES.index(self.mode)

    @property
    def instruction(self) -> str:
        return self.task.instruction(self.level)


CONDITIONS: tuple[Condition, ...] = tuple(
    Condition(s, lvl, m) for m in MODES for s in SCENARIOS for lvl in LEVELS
)
_BY_NAME = {c.name.lower(): c for c in CONDITIONS}


def parse(env: str) -> Condition:
    """Accept an ID with or without the namespace prefix (case-insensitive)."""
    name = env.strip()
    if name.lower().startswith(NAMESPACE + "/"):
        name = name[len(NAMESPACE) + 1 :]
    found = _BY_NAME.get(name.lower())
    if found is None:
        close = difflib.get_close_matches(name.lower(), list(_BY_NAME), n=1, cutoff=0.0)
        hint = f"; did you mean {_BY_NAME[close[0]].name}?" if close else ""
        raise UnknownEnvironment(f"unknown environment {env!r}{hint} (see --list-envs)")
    return found
