"""The tool-use scenarios, one row each: everything the suite knows of a scenario is read from its row.

A row names its instructions, the metric that is its L1/L2 predicate, why
an episode of it failed, and, as MODULE:NAME references imported on first
use (they load MuJoCo; this table must not), its layout draws, its per-step
metrics and the expert's plan. A new scenario is a row here plus the modules
it names; an unknown name fails with one line naming the known ones.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from typing import Callable


class ScenarioError(ValueError):
    """A scenario the table cannot serve: a name with no row, a reference that does not load; one line."""


class UnknownScenario(ScenarioError):
    """A scenario name the table has no row for; the message names the rows."""


@dataclass(frozen=True)
class Scenario:
    name: str
    select: str  # the L0 instruction: pick the tool
    use: str  # the L1/L2 instruction: pick the tool and use it
    done: str  # the metric that is the L1/L2 predicate (and says the task was done at some step)
    # Why an episode failed once the tool was lifted and held: (row, final metrics, ever true) -> cause.
    cause: Callable[["Scenario", dict, dict], str]
    tools: str  # MODULE:NAME, (condition, rng) -> (correct tool, decoy tool in mode R else None)
    objects: str  # MODULE:NAME, (condition, rng, spawn xy) -> (placements, ring centre or None, work spot)
    metrics: str  # MODULE:NAME, (EpisodeMetrics, MjData) -> this step's scenario metrics
    expert: str  # MODULE:NAME, the expert's plan at L1 and L2: (Context) -> Steps
    rule: str | None = None  # MODULE:NAME, (Layout) -> the broken layout rule of its own, "" if none

    def instruction(self, level: int) -> str:
        return self.select if level == 0 else self.use

    def failure(self, final: dict, ever: dict) -> str:
        return self.cause(self, final, ever)

    def load(self, field: str) -> Callable:
        """The function a reference field names, imported on first use."""
        ref = getattr(self, field)
        try:
            return _resolve(ref)
        except (ImportError, AttributeError, ValueError) as exc:
            raise ScenarioError(f"scenario {self.name}: its {field} {ref!r} does not load ({exc})") from None


@cache
def _resolve(ref: str) -> Callable:
    module, name = ref.split(":")
    return getattr(importlib.import_module(module), name)


def _ball_cause(row: Scenario, final: dict, ever: dict) -> str:
    if not ever.get("tool_touched_target"):
        return "ball never touched"
    if ever.get(row.done):
        return "ball reached the ring but did not stay"
    return "ball not brought into the ring"


def _ice_cause(row: Scenario, final: dict, ever: dict) -> str:
    broken = int(final.get("ice_broken_count", 0))
    return ("no block broken", "one block broken")[min(broken, 1)] if broken < 2 else "blocks broken too late"


_PKG = "humanoidtoolbench.suites.toolbench"
ROWS = (
    Scenario(
        name="BallMove",
        select="Pick the tool for moving the ball to the target.",
        use="Pick the tool and move the ball to the target.",
        done="on_spot",
        cause=_ball_cause,
        tools=f"{_PKG}.layout:ball_move_tools",
        objects=f"{_PKG}.layout:ball_move_objects",
        metrics=f"{_PKG}.metrics:ball_move_metrics",
        expert=f"{_PKG}.expert.ball_move:ball_move",
        rule=f"{_PKG}.layout:ball_beyond_short_stick",
    ),
    Scenario(
        name="BallRetrieve",
        select="Pick the tool for retrieving the ball to the target.",
        use="Pick the tool and retrieve the ball to the target.",
        done="in_target_area",
        cause=_ball_cause,
        tools=f"{_PKG}.layout:ball_retrieve_tools",
        objects=f"{_PKG}.layout:ball_retrieve_objects",
        metrics=f"{_PKG}.metrics:ball_retrieve_metrics",
        expert=f"{_PKG}.expert.ball_retrieve:ball_retrieve",
    ),
    Scenario(
        name="IceBreak",
        select="Pick the tool for breaking the ice blocks.",
        use="Pick the tool and break the ice blocks.",
        done="ice_broken",
        cause=_ice_cause,
        tools=f"{_PKG}.layout:ice_break_tools",
        objects=f"{_PKG}.layout:ice_break_objects",
        metrics=f"{_PKG}.metrics:ice_break_metrics",
        expert=f"{_PKG}.expert.ice_break:ice_break",
    ),
)
TABLE: dict[str, Scenario] = {row.name: row for row in ROWS}


def get(name: str) -> Scenario:
    """The row of a scenario; UnknownScenario (one line, naming the rows) for any other name."""
    row = TABLE.get(name)
    if row is None:
        raise UnknownScenario(f"unknown tool-use scenario {name!r}; the scenarios are {', '.join(TABLE)}")
    return row
