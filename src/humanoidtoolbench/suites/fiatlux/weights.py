"""The twelve Fiatlux subtasks and their difficulty weights (the paper's Table III).

A weight is the product of named difficulty factors rather than a bare number,
so the table says why a subtask weighs what it does (screwing in a bulb on the
ladder releases, balances and mates: 1.8 x 2.0 x 1.5) and a changed factor
changes every subtask that has it. Importable without MuJoCo: the offline
scorer reads it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import MappingProxyType

# What each kind of difficulty multiplies a subtask's weight by, and when a subtask has it.
FACTORS = MappingProxyType(
    {
        "carry": 1.5,  # a payload (ladder or bulb) travels with the robot
        "grasp": 1.4,  # a bulb must be taken into the hand
        "release": 1.8,  # a bulb must be let go of where it belongs
        "balance": 2.0,  # the robot stands on the ladder
        "traverse": 1.5,  # the robot moves between floor and tread
        "mate": 1.5,  # a bulb leaves or enters the socket
        "span": 1.5,  # the payload is the ladder, long and heavy
    }
)


@dataclass(frozen=True)
class Subtask:
    """One registered subtask: short key, name, and the factors its weight multiplies."""

    key: str
    name: str
    factors: tuple[str, ...]

    @property
    def task_id(self) -> str:
        return f"FIATLUX-{self.key}-{self.name}-v0"

    @property
    def weight(self) -> float:
        return math.prod((FACTORS[f] for f in self.factors), start=1.0)


SUBTASKS: tuple[Subtask, ...] = (
    Subtask("S01", "MoveLadder", ("carry", "span")),
    Subtask("S02", "ClimbLadder", ("balance", "traverse")),
    Subtask("S03", "RemoveOldBulb", ("grasp", "balance", "mate")),
    Subtask("S04", "DescendWithBulb", ("carry", "balance", "traverse")),
    Subtask("S05", "CarryBulbToDisposal", ("carry",)),
    Subtask("S06", "DisposeBulb", ("release",)),
    Subtask("S07", "ApproachNewBulb", ()),
    Subtask("S08", "GrabNewBulb", ("grasp",)),
    Subtask("S09", "CarryBulbToLadder", ("carry",)),
    Subtask("S10", "ClimbWithBulb", ("carry", "balance", "traverse")),
    Subtask("S11", "ScrewInBulb", ("release", "balance", "mate")),
    Subtask("S12", "ClimbDown", ("balance", "traverse")),
)

BY_TASK_ID = MappingProxyType({s.task_id: s for s in SUBTASKS})
TOTAL_WEIGHT = math.fsum(s.weight for s in SUBTASKS)
