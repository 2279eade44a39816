"""The twelve Fiatlux subtasks as conditions: start state, success gate, hold window, terminations;
the whole errand, which chains their gates in one episode; and the standalone climbing task.

IDs, names and weights come from `weights.py`. A start state names where the robot
stands, where the ladder stands, where each bulb is and what the fixture
holds; `pinned` subtasks start without jitter. Gates are lists of conjunct
names from `gates.py`; hold windows are in seconds at 50 Hz. An episode runs
a condition's `stages` in order (a subtask is one stage of itself).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .weights import SUBTASKS as WEIGHTED

_WEIGHTED = {w.key: w for w in WEIGHTED}

CONTROL_HZ = 50
HORIZON_S = 120.0
ERRAND_HORIZON_S = 1440.0  # the paper's whole task as one flat episode: 72,000 steps

# Terminations beside the shared fall rule, checked in this order after success.
TIPPED, DROPPED, CRUSHED, UNSEATED = "ladder_tipped", "dropped", "crushed", "bulb_unseated"


@dataclass(frozen=True)
class Start:
    robot: str  # a placement rule of start.py
    ladder: str  # "zone" (its own zone, random yaw) or "anchor" (beside the fixture, facing it)
    old_bulb: str  # "seated", "grip" (in the right hand's fingers), "palm" (lying on the right hand), "crate"
    fresh_bulb: str  # "bench", "grip", "seated"
    pinned: bool = False


class _Condition:
    """What the runner reads of any Fiatlux condition: its ID is its name, its instruction its task text.
    `reward` names its reward (`rewards.py`): the benchmark task's (paper III-E) or the climb's (III-D)."""

    suite: ClassVar[str] = "fiatlux"
    reward: ClassVar[str] = "task"

    @property
    def env_id(self) -> str:
        return self.name

    @property
    def instruction(self) -> str:
        return self.instruction_text


@dataclass(frozen=True)
class FiatluxTask(_Condition):
    key: str  # S01 ... S12
    instruction_text: str
    start: Start
    gate: tuple[str, ...]
    hold_s: float = 0.0
    terminations: tuple[str, ...] = ()
    drop_floors: tuple[tuple[str, float], ...] = ()  # bulbs whose fall below a height ends the episode

    @property
    def name(self) -> str:
        return _WEIGHTED[self.key].task_id

    @property
    def weight(self) -> float:
        return _WEIGHTED[self.key].weight

    @property
    def hold_steps(self) -> int:
        return round(self.hold_s * CONTROL_HZ)

    @property
    def max_steps(self) -> int:
        return round(HORIZON_S * CONTROL_HZ)

    @property
    def stages(self) -> tuple[FiatluxTask, ...]:
        return (self,)


def _s(key, text, start, gate, hold_s=0.0, terminations=(), drops=()):
    return FiatluxTask(key, text, start, tuple(gate), hold_s, tuple(terminations), tuple(drops))


OLD_FLOOR, FRESH_FLOOR, BENCH_DROP = ("old_bulb", 0.15), ("fresh_bulb", 0.4), ("fresh_bulb", 0.5)

TASKS: tuple[FiatluxTask, ...] = (
    _s("S01", "Move the ladder under the light fixture.",
       Start("robot_zone_facing_ladder", "zone", "seated", "bench"),
       ("ladder_ready", "ladder_grounded", "ladder_at_rest", "standing"), 1.0, (TIPPED,)),
    _s("S02", "Climb the ladder to the top tread.",
       Start("floor_at_steps", "anchor", "seated", "bench"),
       ("on_tread", "standing", "ladder_vertical"), 0.0, (TIPPED,)),
    _s("S03", "Remove the old bulb from the fixture.",
       Start("on_tread", "anchor", "seated", "bench"),
       ("old_bulb_unseated", "old_bulb_held", "old_bulb_raised", "standing", "ladder_vertical"), 0.5,
       (TIPPED, DROPPED, CRUSHED), (OLD_FLOOR,)),
    _s("S04", "Climb down the ladder holding the old bulb.",
       Start("on_tread", "anchor", "grip", "bench", pinned=True),
       ("descended", "old_bulb_held", "old_bulb_raised", "standing", "ladder_vertical"), 0.0,
       (TIPPED, DROPPED, CRUSHED), (OLD_FLOOR,)),
    _s("S05", "Carry the old bulb to the crate.",
       Start("beside_ladder_facing_crate", "anchor", "grip", "bench", pinned=True),
       ("near_crate", "facing_crate", "slow", "old_bulb_held"), 0.0, (DROPPED, CRUSHED), (OLD_FLOOR,)),
    _s("S06", "Drop the old bulb into the crate.",
       Start("at_crate", "anchor", "palm", "bench"),
       ("old_bulb_in_crate", "old_bulb_still", "old_bulb_released", "standing"), 1.0, (CRUSHED,)),
    _s("S07", "Walk to the new bulb on the workbench.",
       Start("off_crate_facing_bench", "anchor", "crate", "bench"),
       ("near_fresh_bulb", "facing_fresh_bulb", "slow"), 0.0, ()),
    _s("S08", "Pick up the new bulb from the workbench.",
       Start("at_bench", "anchor", "crate", "bench"),
       ("fresh_bulb_lifted", "fresh_bulb_pinched", "fresh_bulb_gentle", "standing"), 0.5,
       (DROPPED, CRUSHED), (BENCH_DROP,)),
    _s("S09", "Carry the new bulb to the ladder.",
       Start("at_bench_facing_ladder", "anchor", "crate", "grip", pinned=True),
       ("near_ladder", "facing_ladder", "slow", "fresh_bulb_held", "ladder_vertical"), 0.0,
       (TIPPED, DROPPED, CRUSHED), (FRESH_FLOOR,)),
    _s("S10", "Climb the ladder holding the new bulb.",
       Start("floor_at_steps", "anchor", "crate", "grip", pinned=True),
       ("on_tread", "fresh_bulb_held", "fresh_bulb_high", "standing", "ladder_vertical"), 0.0,
       (TIPPED, DROPPED, CRUSHED), (FRESH_FLOOR,)),
    _s("S11", "Put the new bulb into the fixture.",
       Start("on_tread", "anchor", "crate", "grip", pinned=True),
       ("fresh_bulb_seated", "fresh_bulb_at_rest", "fresh_bulb_released", "standing", "ladder_vertical"), 1.0,
       (TIPPED, CRUSHED)),
    _s("S12", "Climb down the ladder.",
       Start("on_tread", "anchor", "crate", "seated"),
       ("descended", "fresh_bulb_seated_tight", "standing", "ladder_vertical"), 0.0, (TIPPED, UNSEATED)),
)
BY_KEY = {t.key: t for t in TASKS}


@dataclass(frozen=True)
class FiatluxErrand(_Condition):
    """The whole errand in one episode, from S01's start: each subtask's gate in turn, under that
    subtask's hold window and terminations, until the last one holds.

    Its own gate is the chain: one conjunct per stage, true once that stage's
    gate has held (and true from then on), so gate progress is the share of
    the twelve gates passed. A bulb floor applies only while a stage that has
    it runs (the old bulb goes into the crate on purpose); the fresh bulb's
    0.4 m floor holds throughout, since no stage puts it down below that.
    """

    key: str = "ERRAND"
    stages: tuple[FiatluxTask, ...] = TASKS
    instruction_text: str = ("Replace the light bulb: move the ladder under the fixture, climb it, take out the old bulb, "
                             "put it in the crate, then fetch the new bulb, climb up, screw it in and climb down.")

    @property
    def name(self) -> str:
        return "FIATLUX-Replace-v0"

    @property
    def start(self) -> Start:
        return self.stages[0].start

    @property
    def gate(self) -> tuple[str, ...]:
        return tuple(stage_flag(t) for t in self.stages)

    @property
    def drop_floors(self) -> tuple[tuple[str, float], ...]:
        return (FRESH_FLOOR,)

    @property
    def weight(self) -> float | None:
        return None  # not a Table III row; scored beside the subtasks, never in S

    @property
    def max_steps(self) -> int:
        return round(ERRAND_HORIZON_S * CONTROL_HZ)


@dataclass(frozen=True)
class FiatluxClimb(FiatluxTask):
    """The standalone step-ladder climbing task (paper III-D), apart from the climbing subtasks.

    The robot stands on the floor facing the ladder's steps, its pelvis 0.85 m
    out from the ladder's origin (the middle of its footprint), which puts it
    0.46 m from the first step's nosing; the ladder stands where S02's does,
    beside the fixture. The start is jittered as every unpinned start is
    (+-0.05 m in x and y, +-0.1 rad of yaw, joints +-0.05 rad: 0.81-0.90 m
    from the ladder's origin on seeds 0-9), and would step back (at most
    0.3 m) if the hands started in the ladder, which no seed 0-9 needs. Success (no hold window) is the
    root above 1.82 m, within 0.60 m of the ladder's origin horizontally and
    slower than 1.5 m/s, which only the top tread (pelvis at 1.97 m) allows;
    a fall is the only early ending. Episodes last 120 s.
    """

    reward: ClassVar[str] = "climb"

    @property
    def name(self) -> str:
        return "FIATLUX-Climb-v0"

    @property
    def weight(self) -> float | None:
        return None  # not a Table III row


CLIMB = FiatluxClimb("CLIMB", "Climb the step ladder to the top tread and stand there.",
                     Start("floor_at_steps", "anchor", "seated", "bench"), ("climbed_high", "over_ladder", "settled"))


def stage_flag(task: FiatluxTask) -> str:
    """The errand's conjunct for one stage: its gate has held."""
    return f"{task.key}_passed"


ERRAND = FiatluxErrand()
