"""What a find-navigate-sit policy answers: one skill of the vocabulary (`actions.py`) per decision.

`discrete_skill_v1` with this suite's ids (0-7), Stop/Stand as the terminal
stop, and 0.5 s of motion (25 rows at 50 Hz) per other skill. Registered when
the suite is imported.
"""

from __future__ import annotations

from ...control.contracts import register
from ...control.contracts.discrete_skill import DiscreteSkillContract
from .actions import BY_ID, STAND, VOCABULARY

SKILL_STEPS = 25  # 0.5 s at 50 Hz per decision
STOP_ID = next(spec.id for spec in VOCABULARY if spec.skill == STAND)
DISCRETE_SKILL_V1 = register(DiscreteSkillContract("discrete_skill_v1", tuple(BY_ID), STOP_ID, SKILL_STEPS))
