"""ZMP preview control (Kajita et al. 2003): a CoM trajectory whose cart-table ZMP tracks a reference.

The cart-table model with jerk input and integral action, its gains from one
discrete algebraic Riccati equation per CoM height (cached per centimetre,
as the height command changes rarely), previewing the reference ZMP over
`PREVIEW` seconds.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy.linalg import solve_discrete_are

G = 9.81
PREVIEW = 1.6  # s: about 6 time constants of the G1's pendulum
Q_ZMP = 1.0
R_JERK = 1e-6


@lru_cache(maxsize=32)
def gains(dt: float, com_height_cm: int, steps: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(A, B, K, F): dynamics, state feedback on [ZMP error, state increment] and preview gains."""
    zc = com_height_cm / 100.0
    A = np.array([[1.0, dt, dt * dt / 2], [0.0, 1.0, dt], [0.0, 0.0, 1.0]])
    B = np.array([[dt**3 / 6], [dt * dt / 2], [dt]])
    C = np.array([[1.0, 0.0, -zc / G]])
    Ad = np.block([[np.eye(1), C @ A], [np.zeros((3, 1)), A]])
    Bd = np.vstack([C @ B, B])
    Cd = np.array([[1.0, 0.0, 0.0, 0.0]])
    Qd = Q_ZMP * Cd.T @ Cd
    P = solve_discrete_are(Ad, Bd, Qd, np.array([[R_JERK]]))
    inv = 1.0 / (R_JERK + (Bd.T @ P @ Bd).item())
    K = inv * (Bd.T @ P @ Ad)
    closed = Ad - Bd @ K
    F = np.empty(steps)
    X = P @ Cd.T
    for i in range(steps):
        F[i] = inv * (Bd.T @ X).item()
        X = closed.T @ X
    return A, B, K.ravel(), F


class PreviewCoM:
    """Horizontal CoM state (position, velocity, acceleration per axis) driven by preview control."""

    def __init__(self, dt: float) -> None:
        self.dt = dt
        self.steps = int(round(PREVIEW / dt))
        self.x = np.zeros((3, 2))
        self.u = np.zeros(2)
        self._prev = np.zeros((3, 2))

    def reset(self, com_xy: np.ndarray) -> None:
        self.x = np.zeros((3, 2))
        self.x[0] = com_xy
        self._prev = self.x.copy()
        self.u = np.zeros(2)

    def step(self, zmp_ref: np.ndarray, com_height: float) -> None:
        """Advance one period; `zmp_ref` is (steps + 1, 2): now and the preview horizon."""
        A, B, K, F = gains(self.dt, int(round(com_height * 100)), self.steps)
        zc = round(com_height * 100) / 100.0
        zmp = self.x[0] - zc / G * self.x[2]
        err = zmp - zmp_ref[0]
        dx = self.x - self._prev
        du = -(K[0] * err + K[1:] @ dx) + F @ np.diff(zmp_ref, axis=0)
        self.u = self.u + du
        self._prev = self.x.copy()
        self.x = A @ self.x + B @ self.u[None, :]

    @property
    def position(self) -> np.ndarray:
        return self.x[0].copy()

    @property
    def velocity(self) -> np.ndarray:
        return self.x[1].copy()
