"""Where actions come from: a policy called in this process, or a policy server over HTTP.

Both present the same interface to the episode runner: `act(request)`
returns the policy's `Reply` (its action, checked by the runner against the
suite's contract, and its metadata) or raises `PolicyError` with one line;
`info` is what the result records about the policy. `PolicySpec` is how
worker processes re-create the policy.
"""

from __future__ import annotations

import logging
import sys
import traceback
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from .. import suites
from ..control.decoupled_v1 import SCHEMA
from ..policies.builtin import BUILTIN_POLICIES, builtin_checkpoint
from ..policies.errors import PolicyCallError, PolicyError, describe_exception
from ..policies.http_client import DEFAULT_TIMEOUT_S, HttpPolicyClient
from ..policies.loader import LoadedPolicy, is_file_ref, load_policy
from ..policies.model import MODEL_KEYS
from ..policies.reply import Reply, split_reply

if TYPE_CHECKING:
    from ..policies.model.resolve import ResolvedModel

log = logging.getLogger("humanoidtoolbench.eval")


def builtin_policies(suite_name: str | None = None, controller: str | None = None) -> dict[str, str]:
    """The short policy names of a suite: the baselines of the contract it speaks under `controller`
    (its protocol's, when None) and its own (every suite's, without one)."""
    chosen = suites.suites() if suite_name is None else (suites.get(suite_name),)
    names: dict[str, str] = {}
    for suite in chosen:
        names.update(BUILTIN_POLICIES.get(suite.contract if controller is None else suite.contract_for(controller), {}))
        names.update(suite.builtin_policies)
    return names


def failed_call(exc: PolicyError, condition: str, seed: int, step: int, request: int, log_path) -> PolicyCallError:
    """`exc` with where it happened, for the episode runner to raise; logged with its traceback to the run log."""
    error = PolicyCallError(condition, seed, step, request, str(exc), str(log_path))
    log.error("%s", error.failure, exc_info=exc)
    return error


def report_wait(line: str) -> None:
    """Show that a policy server is slow to answer (and log it), so a stuck server is never a silent hang."""
    log.info(line)
    print(f"htb-eval: {line}", file=sys.stderr, flush=True)


class InProcessPolicy:
    """Calls `predict` directly, always on the thread that loaded it (the evaluator's)."""

    transport = "in-process"

    def __init__(self, policy: LoadedPolicy, checkpoint: str | None, extra: dict | None = None) -> None:
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
            **(extra or {}),  # a model's provenance: its hashes, family and revision
        }

    def act(self, request: dict) -> Reply:
        """The policy's reply; any failure of `predict` but Ctrl-C is a `PolicyError`.

        That includes SystemExit and other BaseExceptions (GeneratorExit, asyncio's
        CancelledError): a policy calling `sys.exit` must fail its condition, not end
        the evaluator silently with the policy's exit status.
        """
        try:
            value = self.policy.predict(request)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            log.error("policy predict failed:\n%s", "".join(traceback.format_exception(exc)))
            raise PolicyError(describe_exception(exc)) from None
        return split_reply(value)

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
            **{k: server_info[k] for k in MODEL_KEYS if k in server_info},
            "server_info": server_info,
        }

    def act(self, request: dict) -> Reply:
        return self.client.act(request)

    def close(self) -> None:
        self.client.release()


@dataclass(frozen=True)
class PolicySpec:
    """A picklable description of the policy: a `--policy` reference or server addresses.

    Workers open their own policy from it; user callables are never pickled.
    Worker `slot` k talks to the k-th server (all share one if only one is given);
    `timeout` bounds each call to a server.
    """

    ref: str | None = None
    checkpoint: str | None = None
    host: str | None = None
    ports: tuple[int, ...] = ()
    timeout: float = DEFAULT_TIMEOUT_S
    suite: str | None = None  # whose built-in names `ref` may use
    controller: str | None = None  # what executes the commands: picks the contract of the built-in baselines
    model: "ResolvedModel | None" = None  # a resolved `--model`: every worker loads the same files
    device: str = "auto"

    def open(self, slot: int = 0):
        """Load the policy, or pre-flight the slot's server; raises PolicyLoadError / PolicyConnectionError."""
        if self.model is not None:
            from ..policies.model import load
            from ..policies.model.device import Device

            loaded, info = load.load(self.model, Device.parse(self.device))
            return InProcessPolicy(loaded, info["checkpoint"], extra=info)
        if self.host:
            client = HttpPolicyClient(self.host, self.ports[slot % len(self.ports)], read_timeout=self.timeout, on_wait=report_wait)
            return HttpPolicy(client, client.preflight())
        builtin = builtin_policies(self.suite, self.controller)
        loaded = load_policy(self.ref, aliases=builtin)
        return InProcessPolicy(loaded, self.checkpoint or (builtin_checkpoint(self.ref) if self.ref in builtin else None))

    def for_workers(self) -> "PolicySpec":
        """The same policy with a file reference made absolute, for processes with another working directory."""
        if self.host or self.model is not None or self.ref in builtin_policies(self.suite, self.controller):
            return self
        module_part, _, function = self.ref.rpartition(":")
        if not is_file_ref(module_part):
            return self
        return replace(self, ref=f"{Path(module_part).expanduser().resolve()}:{function}")
