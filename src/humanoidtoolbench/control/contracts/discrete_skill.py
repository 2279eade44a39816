"""A discrete skill contract: one decision per reply, a skill id and its one parameter, run for a fixed time.

A reply's action is one row `[skill_id, value]` with an integer id from the
suite's vocabulary (the suite says what each id means and in which unit its
value is) and a finite value. The contract expands it into the control rows
the runner steps through: `substeps` rows `[skill_id, value, k]` for a motion
(k = 0 .. substeps - 1, so a skill knows where in its time it is), or a single
row for the terminal stop. Find-navigate-sit: ids 0-7, stop 1, 25 rows (0.5 s
at 50 Hz).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .base import ActionContract, ActionError, describe


@dataclass(frozen=True)
class SkillStep:
    """One control step of a skill: which skill, its parameter, and the step's index in the skill."""

    skill_id: int
    value: float
    k: int


class DiscreteSkillContract(ActionContract):
    action_dim = 2

    def __init__(self, name: str, skill_ids: tuple[int, ...], stop_id: int, substeps: int) -> None:
        if stop_id not in skill_ids or substeps < 1:
            raise ValueError(f"{name}: the stop id must be one of the skill ids and a skill must run at least one row")
        self.name, self.skill_ids, self.stop_id, self.substeps = name, tuple(skill_ids), stop_id, substeps

    def validate(self, action) -> np.ndarray:
        a = super().validate(action)
        if a.shape[0] != 1:
            raise ActionError(f"must return one decision, a (1, 2) row [skill_id, value]; got {describe(a)}")
        skill = a[0, 0]
        if skill != int(skill) or int(skill) not in self.skill_ids:
            raise ActionError(f"skill id must be an integer {_ranges(self.skill_ids)}; got {skill:g}")
        steps = 1 if int(skill) == self.stop_id else self.substeps
        return np.column_stack([np.repeat(a, steps, axis=0), np.arange(steps)])

    def decode(self, row: np.ndarray) -> SkillStep:
        r = np.asarray(row, dtype=np.float64)
        if r.shape != (3,) or not np.isfinite(r).all():
            raise ActionError(f"control row must be a finite (3,) row [skill_id, value, k]; got {describe(row)}")
        return SkillStep(int(r[0]), float(r[1]), int(r[2]))

    def action_space(self):
        from gymnasium import spaces

        lo, hi = float(min(self.skill_ids)), float(max(self.skill_ids))
        return spaces.Box(np.array([lo, -np.inf]), np.array([hi, np.inf]), dtype=np.float64)


def _ranges(ids: tuple[int, ...]) -> str:
    """`0-7` for a contiguous vocabulary, else the ids listed."""
    ordered = sorted(ids)
    if ordered == list(range(ordered[0], ordered[-1] + 1)):
        return f"{ordered[0]}-{ordered[-1]}"
    return "in " + ", ".join(map(str, ordered))
