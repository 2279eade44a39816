"""A policy's reply: its action chunk and, optionally, metadata recorded beside it.

`predict` may return the chunk alone or `{"action": chunk, "metadata": {...}}`
(token usage, latency, a model's own notes); a server sends the same two
keys. The evaluator validates the action against the suite's contract and
records the metadata with each call, never dropping it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import PolicyError

# Keys an in-process policy finds in its request beyond the public fields, so a
# stochastic policy can seed itself per episode and request (never sent over HTTP).
EPISODE_SEED_KEY = "humanoidtoolbench_episode_seed"
REQUEST_INDEX_KEY = "humanoidtoolbench_request_index"


@dataclass(frozen=True)
class Reply:
    action: Any
    metadata: dict = field(default_factory=dict)


def _plain(value):
    if isinstance(value, (np.ndarray, np.generic)):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON")


def split_reply(value) -> Reply:
    """The action and JSON-ready metadata of what a policy returned."""
    if not isinstance(value, dict):
        return Reply(value)
    if "action" not in value:
        raise PolicyError("Policy returned an object without 'action'")
    metadata = value.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise PolicyError(f"Policy reply metadata must be an object, not {type(metadata).__name__}")
    try:
        metadata = json.loads(json.dumps(metadata, default=_plain, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise PolicyError(f"Policy reply metadata cannot be recorded as JSON: {exc}") from None
    return Reply(value["action"], metadata)
