"""The discrete action vocabulary of find-navigate-sit, and the parser of a model's answer.

A planner answers with an action id, an action name such as `Turn<right><30>`
and an `additional_info` object; `parse_action` turns that answer into the
`Action` the runner executes as one 0.5 s motion chunk. The rules are the
published benchmark's, so that scores stay comparable:

- the id picks the row; only a missing (or non-integer) id is inferred from
  the name, by the ordered keyword rules of `NAME_RULES`;
- parameters come from the name's angle-bracket fields, clamped to the row's
  range; a missing or unreadable value takes the row's default (a walk with an
  unknown speed walks slowly);
- an id outside 0-7, or a name no rule recognises, is the published
  Stop/Stand: an active stop that ends the episode. We flag it
  `invalid_action` so that the cost record counts it.

Climbing: our apartments have one floor, yet ids 3 and 7 stay in the
vocabulary (the published prompt offers them, and removing them would change
what a model chooses between). They run as a no-motion step: the robot holds
its pose for one chunk, time and the step count advance as for any other
motion, and `Action.unsupported` is set so the cost record counts them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

STAND = "stand"
WALK = "walk_forward"
TURN = "turn"
CLIMB_UP = "step_climb_up"
SIT = "sit"
STEP_BACK = "step_back"
SIDE_STEP = "side_walk"
CLIMB_DOWN = "step_climb_down"
UNSUPPORTED_SKILLS = frozenset({CLIMB_UP, CLIMB_DOWN})  # single-floor apartments: a no-motion step

WALK_SPEEDS_MPS = {"slow": 0.2, "normal": 0.4, "fast": 0.6}
DIRECTIONS = ("left", "right")  # a positive yaw or lateral offset is to the left


@dataclass(frozen=True)
class Range:
    low: float
    high: float
    default: float

    def clamp(self, value: float | None) -> float:
        return self.default if value is None else min(self.high, max(self.low, value))


@dataclass(frozen=True)
class ActionSpec:
    """One row of the vocabulary: what the prompt shows and what the runner executes."""

    id: int
    template: str  # placeholders: <speed>, <direction>, and the value's own name
    skill: str
    parameter: str = ""  # key of the value in Action.parameters ("" for none)
    range: Range | None = None
    help: str = ""  # one line of the prompt's action space


VOCABULARY = (
    ActionSpec(0, "Walk<forward><speed>", WALK, "speed_mps", help="speed <slow> 0.2 m/s, <normal> 0.4 m/s or <fast> 0.6 m/s"),
    ActionSpec(1, "Stop/Stand", STAND, help="stand still and end the episode; choose it only when the goal is done"),
    ActionSpec(2, "Turn<direction><degrees>", TURN, "yaw_deg", Range(10.0, 120.0, 10.0), "direction <left> or <right>, 10-120 degrees"),
    ActionSpec(3, "Climb upstairs<normal>", CLIMB_UP, help="one step up a staircase"),
    ActionSpec(4, "Sit down<height>", SIT, "height_m", Range(0.15, 0.85, 0.50), "seat height 0.15-0.85 m"),
    ActionSpec(5, "Step back<distance>", STEP_BACK, "distance_m", Range(0.10, 0.60, 0.25), "distance 0.10-0.60 m"),
    ActionSpec(6, "Side step<direction><distance>", SIDE_STEP, "lateral_m", Range(0.10, 0.50, 0.25), "direction <left> or <right>, distance 0.10-0.50 m"),
    ActionSpec(7, "Walk downstairs<normal>", CLIMB_DOWN, help="one step down a staircase"),
)
BY_ID = {spec.id: spec for spec in VOCABULARY}

# Inference of a missing id from the name: the first matching rule wins, so the
# order matters ("Walk downstairs" is a climb, "Side step" is not a step back).
NAME_RULES = (
    (7, re.compile(r"downstairs|climb\s*down")),
    (0, re.compile(r"^walk")),
    (1, re.compile(r"stop|stand")),
    (2, re.compile(r"^turn")),
    (3, re.compile(r"climb")),
    (4, re.compile(r"sit")),
    (5, re.compile(r"step\s*back|^back")),
    (6, re.compile(r"side\s*(step|walk)|sidestep")),
)
ADDITIONAL_INFO_FLAGS = ("turn_for_sit", "stop_after_sit")


@dataclass(frozen=True)
class Action:
    """One executable decision: a skill with its parameters, under its canonical name."""

    id: int
    name: str
    skill: str
    parameters: Mapping[str, float] = field(default_factory=dict)
    turn_for_sit: bool = False  # additional_info: this turn puts the seat behind the robot
    stop_after_sit: bool = False  # additional_info: this stop follows a sit
    invalid_action: bool = False  # the answer named no action of the vocabulary: executed as Stop

    @property
    def active_stop(self) -> bool:
        """Stop chosen by the planner or verifier (reaching the step cap is not one)."""
        return self.skill == STAND

    @property
    def unsupported(self) -> bool:
        """A climb: executed as a chunk without motion."""
        return self.skill in UNSUPPORTED_SKILLS


def _as_id(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value):
        return int(value)
    return None


def _inferred_id(name: str) -> int | None:
    lowered = name.strip().lower()
    return next((action_id for action_id, rule in NAME_RULES if rule.search(lowered)), None)


def _tokens(name: str) -> list[str]:
    return [t.strip().lower() for t in re.findall(r"<([^>]+)>", name)]


def _number(text: str) -> float | None:
    match = re.search(r"\d+(?:\.\d+)?", text)
    return float(match.group()) if match else None


def _direction(text: str) -> str:
    return "right" if "right" in text else "left"


def _walk(spec: ActionSpec, name: str, tokens: list[str]) -> tuple[str, dict[str, float]]:
    speed = tokens[1] if len(tokens) > 1 and tokens[1] in WALK_SPEEDS_MPS else "slow"
    return f"Walk<forward><{speed}>", {spec.parameter: WALK_SPEEDS_MPS[speed]}


def _turn(spec: ActionSpec, name: str, tokens: list[str]) -> tuple[str, dict[str, float]]:
    direction = _direction(tokens[0]) if tokens else "left"
    degrees = round(spec.range.clamp(_number(tokens[1] if len(tokens) > 1 else name)))
    sign = 1 if direction == "left" else -1
    return f"Turn<{direction}><{degrees}>", {spec.parameter: float(sign * degrees)}


def _side_step(spec: ActionSpec, name: str, tokens: list[str]) -> tuple[str, dict[str, float]]:
    direction = _direction(" ".join(tokens) + " " + name.lower())
    distance = round(spec.range.clamp(_number(" ".join(tokens[1:]) if len(tokens) > 1 else name)), 2)
    sign = 1 if direction == "left" else -1
    return f"Side step<{direction}><{distance:.2f}>", {spec.parameter: sign * distance}


def _scalar(label: str):
    def parse(spec: ActionSpec, name: str, tokens: list[str]) -> tuple[str, dict[str, float]]:
        value = round(spec.range.clamp(_number(name)), 2)
        return f"{label}<{value:.2f}>", {spec.parameter: value}

    return parse


def _fixed(spec: ActionSpec, name: str, tokens: list[str]) -> tuple[str, dict[str, float]]:
    return spec.template, {}


_PARAMETERS = {
    WALK: _walk,
    STAND: _fixed,
    TURN: _turn,
    CLIMB_UP: _fixed,
    SIT: _scalar("Sit down"),
    STEP_BACK: _scalar("Step back"),
    SIDE_STEP: _side_step,
    CLIMB_DOWN: _fixed,
}


def _flag(info: Any, key: str) -> bool:
    value = info.get(key) if isinstance(info, Mapping) else None
    return value is True or (isinstance(value, str) and value.strip().lower() == "true")


def parse_action(action_id: Any, action_name: Any, additional_info: Any = None) -> Action:
    """The action a model's (action_id, action_name, additional_info) answer names; never raises."""
    name = str(action_name or "").strip()
    chosen = _as_id(action_id)
    if chosen is None:
        chosen = _inferred_id(name)
    spec = BY_ID.get(chosen) if chosen is not None else None
    if spec is None:
        return Action(1, "Stop/Stand", STAND, invalid_action=True)
    canonical, parameters = _PARAMETERS[spec.skill](spec, name, _tokens(name))
    return Action(
        spec.id,
        canonical,
        spec.skill,
        parameters,
        turn_for_sit=spec.skill == TURN and _flag(additional_info, "turn_for_sit"),
        stop_after_sit=spec.skill == STAND and _flag(additional_info, "stop_after_sit"),
    )


STOP = parse_action(1, "Stop/Stand")
FALLBACK_WALK = parse_action(0, "Walk<forward><slow>")  # executed after five failed planner attempts
