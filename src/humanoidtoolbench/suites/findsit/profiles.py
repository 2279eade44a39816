"""How each controller carries out the find-navigate-sit skills: its row of `PROFILES`.

The suite lists the table in its `controller_tables`, so a controller it
runs without a row fails when the suite is constructed.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass

from ...robot.joints import HOME_POSE
from ..per_controller import PerController

SIT_HEIGHT_RANGE = (0.35, 0.78)  # the pelvis may come down onto a seat
TURN_TIME_CONSTANT, TURN_RATE_MAX = 0.08, 6.0  # a 120 degree turn completes within its 0.5 s
HEIGHT_RATE = 1.2  # m/s: a sit reaches its seat within the skill


@dataclass(frozen=True)
class SkillLimits:
    """The base speeds (m/s) a controller sustains: a skill asking for more within its 0.5 s is commanded
    at the limit and covers less. The assisted base takes any speed; `balanced` figures: docs/PERFORMANCE.md."""

    forward: float = math.inf
    backward: float = math.inf
    lateral: float = math.inf


def _fit_assisted(controller) -> None:
    """The assisted base follows height and heading steps as fast as a 0.5 s skill needs, down to a seat."""
    controller.height_range = SIT_HEIGHT_RANGE
    controller.turn_time_constant, controller.turn_rate_max = TURN_TIME_CONSTANT, TURN_RATE_MAX
    controller.height_rate = HEIGHT_RATE


def _fit_balanced(controller) -> None:
    """The free robot keeps its own gait; only its height command may reach down to a seat."""
    controller.tuning = dataclasses.replace(controller.tuning, height_range=SIT_HEIGHT_RANGE)


@dataclass(frozen=True)
class SkillProfile:
    """How one controller carries out the skills; the defaults are the assisted robot's."""

    limits: SkillLimits = SkillLimits()
    shoulder_roll: float = HOME_POSE["left_shoulder_roll_joint"]  # rad: how far every skill rolls the arms out
    route_around_clutter: bool = False  # the oracle's routes keep clear of the clutter on the floor
    sit_lean: tuple[tuple[str, float], ...] = ()  # joint targets a sit leans to over its 0.5 s
    sit_stops_on_touch: bool = False  # a sit lowers the pelvis only until it touches something
    fit: Callable[[object], None] = _fit_assisted  # sets the controller up for the skills, before the scene is built


PROFILES = PerController("findsit PROFILES", {
    "assisted": SkillProfile(),
    # The free robot's knees and feet trip over the baskets and stools the assisted robot's legs pass
    # through, and a hand that brushes a wall or a stool while it walks pushes it over, so it carries its
    # hands in beside its thighs. It sits as a person does: torso and arms forward, so its hips go back
    # about 10 cm over the seat while its CoM stays over its feet, and it stops lowering where the pelvis
    # meets the seat (lowering on, the seat's edge pushed it forward, often over). docs/RESULTS.md.
    "balanced": SkillProfile(
        limits=SkillLimits(forward=0.3, backward=0.15, lateral=0.15),
        shoulder_roll=0.05,
        route_around_clutter=True,
        sit_lean=(("waist_pitch_joint", 0.5), ("left_shoulder_pitch_joint", -0.5), ("right_shoulder_pitch_joint", -0.5)),
        sit_stops_on_touch=True,
        fit=_fit_balanced,
    ),
})
