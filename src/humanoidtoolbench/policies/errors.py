"""Errors of the policy side, and one-line descriptions that point at the user's own code.

A policy author debugging a failed evaluation needs the line of *their* adapter
that raised, not the innermost frame of NumPy or of this package, so
`describe_exception` skips library frames. The full traceback still goes to
the server log.
"""

from __future__ import annotations

import functools
import sysconfig
import traceback
from pathlib import Path

import numpy as np

from ..control.contracts.base import ActionContract, ActionError

_LIBRARY_ROOTS = tuple(
    {Path(sysconfig.get_paths()[key]).resolve() for key in ("stdlib", "platstdlib")}
    | {Path(__file__).resolve().parents[1]}  # the humanoidtoolbench package
)


class PolicyError(RuntimeError):
    """A policy call failed; the message is one line."""


class PolicyCallError(PolicyError):
    """A policy call that failed during an episode, with where: the line a person needs to find the failure.

    Everything is kept in `args`, so the error pickles back unchanged from a worker process.
    """

    def __init__(self, condition: str, seed: int, step: int, request: int, message: str, log_path: str) -> None:
        super().__init__(condition, seed, step, request, message, log_path)
        self.condition, self.seed, self.step, self.request, self.message, self.log_path = self.args

    @property
    def failure(self) -> str:
        """Where the policy failed and its own message; `request` is the index the policy saw in the request."""
        return f"policy failed on {self.condition} seed {self.seed} at step {self.step} (request {self.request}): {self.message}"

    def __str__(self) -> str:
        return f"{self.failure} (details in {self.log_path})"


class PolicyLoadError(ValueError):
    """A `--policy` reference cannot be loaded; the message is one line."""


class PolicyConnectionError(RuntimeError):
    """The evaluator's preflight check of a policy server failed; the message is one line."""


def one_line(text: str) -> str:
    """Collapse a possibly multi-line message onto one line."""
    return " ".join(str(text).split())


@functools.lru_cache(maxsize=1024)
def is_user_file(filename: str) -> bool:
    """True for a real source file outside the standard library, installed packages and this package."""
    if not filename or filename.startswith("<"):
        return False
    path = Path(filename).resolve()
    if "site-packages" in path.parts or "dist-packages" in path.parts:
        return False
    return not any(path.is_relative_to(root) for root in _LIBRARY_ROOTS)


def user_frame(tb) -> traceback.FrameSummary | None:
    """The innermost traceback frame in the user's own code, if any."""
    frames = traceback.extract_tb(tb)
    return next((f for f in reversed(frames) if is_user_file(f.filename)), None)


def describe_exception(exc: BaseException) -> str:
    """`"Type at file.py:LINE in function: message"`, for the innermost user frame (else the innermost frame)."""
    frames = traceback.extract_tb(exc.__traceback__)
    frame = user_frame(exc.__traceback__) or (frames[-1] if frames else None)
    text = type(exc).__name__
    if frame is not None:
        text += f" at {Path(frame.filename).name}:{frame.lineno} in {frame.name}"
    message = one_line(str(exc))
    return f"{text}: {message}" if message else text


def check_chunk(action, contract: ActionContract) -> np.ndarray:
    """A policy's return value as a finite float64 (T, action_dim) chunk, or `PolicyError` saying what is wrong."""
    try:
        return contract.validate(action)
    except ActionError as exc:
        raise PolicyError(f"Policy {exc}") from None


def check_float32(chunk: np.ndarray) -> np.ndarray:
    """`chunk` as float32 (the wire's type), or `PolicyError` where a finite value is beyond float32's range."""
    beyond = np.abs(chunk) > np.finfo(np.float32).max
    if beyond.any():
        rows, slots = np.flatnonzero(beyond.any(axis=1)), np.flatnonzero(beyond.any(axis=0))
        raise PolicyError(
            f"Policy returned values beyond float32's range (|a| > {np.finfo(np.float32).max:.4g}), which the server "
            f"sends as float32: {len(rows)} of {len(chunk)} rows (first row {rows[0]}) at slots {slots.tolist()}, "
            f"e.g. {chunk[rows[0], slots[0]]:.4g}"
        )
    return chunk.astype(np.float32)
