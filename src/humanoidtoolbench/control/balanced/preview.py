"""ZMP preview control (Kajita et al. 2003): a CoM trajectory whose cart-table ZMP tracks a reference.

The cart-table model with jerk input, its LQ gains from one discrete
algebraic Riccati equation per CoM height (cached per centimetre: the height
command changes rarely), previewing the reference ZMP over `PREVIEW` seconds.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy.linalg import solve_discrete_are

G = 9.81
PREVIEW = 1.6  # s: about six time constants of the G1's pendulum (hrpsys uses 1.6 s)
Q_ZMP = 1.0
R_JERK = 1e-6


@lru_cache(maxsize=32)
def gains(dt: float, com_height_cm: int, steps: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(A, B, K, F): cart-table dynamics, state feedback and preview gains on the future ZMP reference."""
    zc = com_height_cm / 100.0
    A = np.array([[1.0, dt, dt * dt / 2], [0.0, 1.0, dt], [0.0, 0.0, 1.0]])
    B = np.array([[dt**3 / 6], [dt * dt / 2], [dt]])
    C = np.array([[1.0, 0.0, -zc / G]])
    P = solve_discrete_are(A, B, Q_ZMP * C.T @ C, np.array([[R_JERK]]))
    inv = 1.0 / (R_JERK + (B.T @ P @ B).item())
    K = inv * (B.T @ P @ A)
    closed = A - B @ K
    F = np.empty(steps)
    X = C.T * Q_ZMP
    for i in range(steps):
        F[i] = inv * (B.T @ X).item()
        X = closed.T @ X
    # The reference is taken to hold its last value beyond the horizon: the gains of the samples past
    # it go to the last one. The preview then sums to the position gain, as the infinite one does, and
    # the plan is the same wherever the robot stands; truncated, the gap times the distance from the
    # origin reads as a ZMP error (a robot 9 m away accelerated standing still and fell).
    F[-1] += K[0, 0] - F.sum()
    return A, B, K.ravel(), F


class PreviewCoM:
    """Horizontal CoM state (rows: position, velocity, acceleration; columns: x, y)."""

    def __init__(self, dt: float) -> None:
        self.dt = dt
        self.steps = int(round(PREVIEW / dt))
        self.x = np.zeros((3, 2))

    def reset(self, com_xy: np.ndarray) -> None:
        self.x = np.zeros((3, 2))
        self.x[0] = com_xy

    def step(self, zmp_ref: np.ndarray, com_height: float) -> None:
        """Advance one period; `zmp_ref` is (steps + 1, 2): now and the preview horizon."""
        A, B, K, F = gains(self.dt, int(round(com_height * 100)), self.steps)
        u = -(K @ self.x) + F @ zmp_ref[1:]
        self.x = A @ self.x + B @ u[None, :]

    @property
    def position(self) -> np.ndarray:
        return self.x[0].copy()

    @property
    def velocity(self) -> np.ndarray:
        return self.x[1].copy()

    @property
    def acceleration(self) -> np.ndarray:
        return self.x[2].copy()
