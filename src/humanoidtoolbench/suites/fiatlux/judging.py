"""How a Fiatlux step is judged: the current stage's gate and hold window, and the early endings.

A subtask is one stage; the errand moves to the next stage when a gate has
held for its window and succeeds when the last one has. Each step evaluates
the current stage's conjuncts (`gates.py`) and checks that stage's
terminations: a fall, a tipped ladder, a dropped or crushed bulb, a bulb
pulled from its seat.
"""

from __future__ import annotations

from ..base import FELL, SUCCESS, HoldCounter
from . import gates
from .gates import Snapshot
from .subtasks import CRUSHED, DROPPED, TIPPED, UNSEATED, FiatluxTask, stage_flag


def termination(task: FiatluxTask, s: Snapshot) -> str | None:
    """Which early ending, if any, this step brings: a fall first, then the task's own in its order."""
    if not gates.CONJUNCTS["standing"](s):
        return FELL
    checks = {
        TIPPED: lambda: s.ladder_tilt > gates.LADDER_TILT,
        DROPPED: lambda: any(s.bulbs[b].centre[2] < floor for b, floor in task.drop_floors),
        CRUSHED: lambda: any(b.grip_force > gates.GLASS_LIMIT for b in s.bulbs.values()),
        UNSEATED: lambda: not s.bulbs["fresh_bulb"].seated,
    }
    return next((t for t in task.terminations if checks[t]()), None)


class StageProgress:
    """Where a condition stands among its stages: the current one, its hold window, which have passed."""

    def __init__(self, stages: tuple[FiatluxTask, ...]) -> None:
        self.stages = stages
        self.start(0)

    def start(self, index: int) -> None:
        if index == 0:
            self.passed = [False] * len(self.stages)
        self.stage = index
        self.hold = HoldCounter(self.stages[index].hold_steps)

    def restart(self, s: Snapshot) -> None:
        """Back to the first stage, its conjuncts as `s` has them (a reset)."""
        self.start(0)
        self.stage_conjuncts = gates.evaluate(self.stages[0].gate, s)

    @property
    def current(self) -> FiatluxTask:
        return self.stages[self.stage]

    @property
    def conjuncts(self) -> dict[str, bool]:
        """The condition's gate columns: a subtask's conjuncts, or the errand's passed stages."""
        if len(self.stages) == 1:
            return self.stage_conjuncts
        return {stage_flag(t): p for t, p in zip(self.stages, self.passed)}

    def judge(self, s: Snapshot) -> tuple[bool, bool, str | None]:
        """(gate holds now, the last stage has passed, early ending) for this step, moving to the
        next stage when the current one's gate has held for its window."""
        stage = self.current
        self.stage_conjuncts = gates.evaluate(stage.gate, s)
        now = all(self.stage_conjuncts.values())
        if not self.hold.update(now):
            return now, False, termination(stage, s)
        self.passed[self.stage] = True
        if self.stage + 1 == len(self.stages):
            return now, True, SUCCESS
        self.start(self.stage + 1)
        return now, False, None
