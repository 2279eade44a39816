"""Diagnostic example policy: hold the arms, hands and waist where they are and keep the base still.

It never solves a task; it exists to check that the evaluation loop, the wire
protocol and a server work end to end, and marks itself `DIAGNOSTIC` so its
results cannot be mistaken for a real policy's.
"""

from __future__ import annotations

import numpy as np

from ..control.contracts import decoupled_v1 as contract

POLICY_NAME = "pose-hold"
DIAGNOSTIC = True
HORIZON = 10  # rows per returned chunk


def predict(request: dict) -> np.ndarray:
    """A (HORIZON, 36) float32 chunk holding the measured joint angles and the previous base height."""
    states = np.asarray(request["state"]["states"], dtype=np.float64).reshape(-1, contract.STATE_DIM)
    return np.tile(contract.hold_action(states[-1]), (HORIZON, 1)).astype(np.float32)
