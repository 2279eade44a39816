"""`discrete_skill_v1`: one decision per reply, a skill id and its one parameter, run for 0.5 s.

A reply's action is one row `[skill_id, value]` with an integer id 0-7 (the
find-navigate-sit vocabulary: the suite says what each id means and in which
unit its value is) and a finite value. The contract expands it into the
control rows the runner steps through: 25 rows `[skill_id, value, k]` at
50 Hz for a motion (k = 0..24, so a skill knows where in its 0.5 s it is),
or a single row for the terminal Stop (id 1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .contract import ActionContract, ActionError, describe

NAME = "discrete_skill_v1"
SKILL_IDS = range(8)
STOP_ID = 1
SUBSTEPS = 25  # 0.5 s at 50 Hz


@dataclass(frozen=True)
class SkillStep:
    """One control step of a skill: which skill, its parameter, and the step's index in the skill."""

    skill_id: int
    value: float
    k: int


class DiscreteSkillContract(ActionContract):
    name = NAME
    action_dim = 2

    def validate(self, action) -> np.ndarray:
        a = super().validate(action)
        if a.shape[0] != 1:
            raise ActionError(f"must return one decision, a (1, 2) row [skill_id, value]; got {describe(a)}")
        skill = a[0, 0]
        if skill != int(skill) or int(skill) not in SKILL_IDS:
            raise ActionError(f"skill id must be an integer 0-7; got {skill:g}")
        steps = 1 if int(skill) == STOP_ID else SUBSTEPS
        return np.column_stack([np.repeat(a, steps, axis=0), np.arange(steps)])

    def decode(self, row: np.ndarray) -> SkillStep:
        r = np.asarray(row, dtype=np.float64)
        if r.shape != (3,) or not np.isfinite(r).all():
            raise ActionError(f"control row must be a finite (3,) row [skill_id, value, k]; got {describe(row)}")
        return SkillStep(int(r[0]), float(r[1]), int(r[2]))

    def action_space(self):
        from gymnasium import spaces

        return spaces.Box(np.array([0.0, -np.inf]), np.array([7.0, np.inf]), dtype=np.float64)


DISCRETE_SKILL_V1 = DiscreteSkillContract()
