"""The ActionContract seam: what a policy's actions and state mean, for any suite.

A contract validates a policy's chunk, decodes each row into the command its
controllers execute and states its Gymnasium action space; a contract that
fixes the policy state (decoupled_v1) also reads it from the simulator
(`state_reader`), while others leave the state to their suite's observation.
`name` is the action schema results record and a policy server declares.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np


class ActionError(ValueError):
    """A chunk or command that does not satisfy its contract; the message is one line."""


def describe(arr) -> str:
    """Shape, dtype and, for float arrays, where the non-finite values are."""
    a = np.asarray(arr)
    text = f"shape {tuple(a.shape)}, dtype {a.dtype}"
    if a.dtype.kind in "fc" and a.size and a.ndim >= 1:
        bad = ~np.isfinite(a.reshape(-1, a.shape[-1]))
        if bad.any():
            rows = np.flatnonzero(bad.any(axis=1))
            cols = np.flatnonzero(bad.any(axis=0))
            text += (
                f", non-finite values in {len(rows)} of {bad.shape[0]} rows"
                f" (first row {rows[0]}) at slots {cols.tolist()}"
            )
    return text


class ActionContract(ABC):
    name: str
    action_dim: int

    def validate(self, action) -> np.ndarray:
        """A policy's return value as a finite float64 (T, action_dim) chunk, or ActionError."""
        expected = f"must return an array of shape (T, {self.action_dim}) with T >= 1"
        try:
            a = np.asarray(action)
        except (TypeError, ValueError):
            a = None
        if a is None or a.dtype.kind not in "biuf":
            got = f"array of dtype {a.dtype}" if isinstance(action, np.ndarray) else type(action).__name__
            raise ActionError(f"{expected}; got {got}")
        if a.ndim != 2 or a.shape[0] < 1 or a.shape[1] != self.action_dim:
            raise ActionError(f"{expected}; got shape {tuple(a.shape)}")
        a = a.astype(np.float64)
        bad_rows = np.flatnonzero(~np.isfinite(a).all(axis=1))
        if bad_rows.size:
            raise ActionError(f"returned NaN or infinite values in {bad_rows.size} of {a.shape[0]} rows (first row {bad_rows[0]})")
        return a

    @abstractmethod
    def decode(self, row: np.ndarray):
        """One validated row as the command a controller executes."""

    @abstractmethod
    def action_space(self):
        """The Gymnasium space of one row."""

