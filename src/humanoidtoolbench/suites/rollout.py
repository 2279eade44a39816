"""The one policy loop over an `Episode`: chunks validated by the contract, queued and executed row by row.

The episode runner, the Gymnasium environments and the tests that play a
policy all drive an episode through a `Rollout`, so every chunk anyone
executes has passed the contract's `validate` (an `ActionError` otherwise,
before the episode sees it) and reached `Episode.on_chunk` once, in the
order it came. Whoever holds the rollout asks the policy when
`needs_request` says its previous chunk is used up; building the request,
timing and recording stay with the caller. It names no suite: it needs only
the Episode and ActionContract seams.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from ..control.contracts.base import ActionContract
from .base import Episode, StepResult


class Rollout:
    def __init__(self, episode: Episode, contract: ActionContract) -> None:
        """`contract` is the one whose chunks `episode` executes."""
        self.episode, self.contract = episode, contract
        self.requests = 0  # chunks accepted so far
        self._queue: deque[np.ndarray] = deque()

    @property
    def needs_request(self) -> bool:
        """The previous chunk is used up (or none came yet): the next step needs a policy reply."""
        return not self._queue

    def accept(self, action, metadata: dict | None = None) -> np.ndarray:
        """Validate a policy's action (the contract's `ActionError` if it is not a chunk), queue its
        rows and hand it to `on_chunk` with the reply's metadata; returns the validated chunk."""
        chunk = self.contract.validate(action)
        self._queue.extend(chunk)
        self.requests += 1
        self.episode.on_chunk(chunk, metadata)
        return chunk

    def step(self) -> tuple[np.ndarray, StepResult]:
        """Execute the next queued row; returns it with the episode's result."""
        row = self._queue.popleft()
        return row, self.episode.step(row)
