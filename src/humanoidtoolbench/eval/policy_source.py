"""Where actions come from: a policy called in this process, or a policy server over HTTP.

Both present the same interface to the episode runner: `act(request)`
returns a validated (T, 36) chunk or raises `PolicyError` with one line;
`info` is what the result records about the policy.
"""

from __future__ import annotations

import logging
import traceback

import numpy as np

from ..control.contract import SCHEMA
from ..policies.errors import PolicyError, check_chunk, describe_exception
from ..policies.http_client import HttpPolicyClient
from ..policies.loader import LoadedPolicy

log = logging.getLogger("humanoidtoolbench.eval")


class InProcessPolicy:
    """Calls `predict` directly, always on the thread that loaded it (the evaluator's)."""

    transport = "in-process"

    def __init__(self, policy: LoadedPolicy, checkpoint: str | None) -> None:
        self.policy = policy
        self.privileged = policy.privileged
        self.info = {
            "policy": policy.name,
            "source": policy.source,
            "checkpoint": checkpoint,
            "adapter_sha256": policy.adapter_sha256,
            "diagnostic": policy.diagnostic,
            "privileged": policy.privileged,
            "transport": self.transport,
            "action_schema": SCHEMA,
        }

    def act(self, request: dict) -> np.ndarray:
        try:
            action = self.policy.predict(request)
        except Exception as exc:
            log.error("policy predict failed:\n%s", "".join(traceback.format_exception(exc)))
            raise PolicyError(describe_exception(exc)) from None
        return check_chunk(action)

    def close(self) -> None:
        pass


class HttpPolicy:
    """A policy server speaking the public protocol; never sent privileged data."""

    transport = "http"
    privileged = False

    def __init__(self, client: HttpPolicyClient, server_info: dict) -> None:
        self.client = client
        self.info = {
            "policy": server_info.get("policy"),
            "checkpoint": server_info.get("checkpoint"),
            "adapter_sha256": server_info.get("adapter_sha256"),
            "diagnostic": bool(server_info.get("diagnostic", False)),
            "privileged": False,
            "transport": self.transport,
            "url": client.url,
            "action_schema": server_info.get("action_schema", SCHEMA),
            "server_info": server_info,
        }

    def act(self, request: dict) -> np.ndarray:
        return self.client.act(request)

    def close(self) -> None:
        self.client.release()
