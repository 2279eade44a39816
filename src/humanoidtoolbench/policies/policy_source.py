"""Where actions come from: a policy called in this process, or a policy server over HTTP or openpi's websocket.

Both present the same interface to the episode runner: `act(request)`
returns the policy's `Reply` (its action, checked by the runner against the
suite's contract, and its metadata) or raises `PolicyError` with one line;
`info` is what the result records about the policy. `PolicySpec` is how
worker processes re-create the policy; the caller, who knows the suite, gives
it the suite's built-in policy names and what a server must speak (`Speaks`),
which the pre-flight checks against what the server declares.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
import traceback
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from .builtin import builtin_checkpoint
from .errors import PolicyConnectionError, PolicyError, describe_exception
from .http_client import DEFAULT_TIMEOUT_S, HttpPolicyClient
from .loader import LoadedPolicy, is_file_ref, load_policy
from .model import MODEL_KEYS
from .openpi_keys import OpenpiKeys
from .reply import Reply, split_reply

if TYPE_CHECKING:
    from .model.resolve import ResolvedModel

log = logging.getLogger("humanoidtoolbench.eval")  # the run log's logger (eval.rundir.LOGGER)


@dataclass(frozen=True)
class Speaks:
    """What a suite's policies speak under a controller: the server a run uses must declare the same."""

    suite: str
    controller: str
    action_schema: str
    request_schema: str | None
    action_dim: int | None = None  # the contract's row width, which an openpi server's metadata may declare

    def check_openpi(self, metadata: dict, url: str, keys: OpenpiKeys) -> None:
        """Refuse an openpi server whose metadata declares other schemas, another action width or other
        observation keys (one line); what it does not declare is checked on its first reply."""
        self.check(metadata, url, how="htb-serve --protocol openpi")
        width = metadata.get("action_dim")
        if width is not None and self.action_dim is not None and width != self.action_dim:
            raise PolicyConnectionError(
                f"the policy server at {url} answers actions of width {width}, but the {self.suite} suite on "
                f"{self.controller} takes {self.action_dim} ({self.action_schema})"
            )
        declared = metadata.get("observation_keys")
        if declared is not None and declared != keys.to_json():
            raise PolicyConnectionError(
                f"the policy server at {url} reads observation keys {declared}, but this evaluator sends "
                f"{keys.to_json()}; give both sides the same --protocol-map"
            )

    def check(self, info: dict, url: str, how: str = "htb-serve") -> None:
        """Refuse a server whose `/info` declares another action or request schema (one line); a server
        that declares none (a custom one, or one without `/info`) is taken at its word."""
        expected = {"action_schema": self.action_schema, "request_schema": self.request_schema}
        declared = {key: info.get(key) for key in expected}
        if all(declared[key] in (None, expected[key]) for key in expected):
            return
        serves = " with ".join(str(v) for v in declared.values() if v is not None)
        takes = " with ".join(str(v) for v in expected.values() if v is not None)
        raise PolicyConnectionError(
            f"the policy server at {url} serves {serves}, but the {self.suite} suite on {self.controller} takes {takes}; "
            f"serve the policy with {how} --suite {self.suite} --controller {self.controller}"
        )


def report_wait(line: str) -> None:
    """Show that a policy server is slow to answer (and log it), so a stuck server is never a silent hang."""
    log.info(line)
    print(f"htb-eval: {line}", file=sys.stderr, flush=True)


class InProcessPolicy:
    """Calls `predict` directly, always on the thread that loaded it (the evaluator's)."""

    transport = "in-process"
    wait_interval = 10.0  # seconds between waiting lines, as for a policy server

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
        done, started = threading.Event(), time.monotonic()

        def report() -> None:  # a `predict` that never returns is never a silent hang
            while not done.wait(self.wait_interval):
                report_wait(f"waiting for the policy {self.policy.name} to return ({time.monotonic() - started:.0f} s)")

        waiter = threading.Thread(target=report, name="htb-policy-wait", daemon=True)
        waiter.start()
        try:
            value = self.policy.predict(request)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            log.error("policy predict failed:\n%s", "".join(traceback.format_exception(exc)))
            raise PolicyError(describe_exception(exc)) from None
        finally:
            done.set()
            waiter.join()
        return split_reply(value)

    def close(self) -> None:
        pass


class HttpPolicy:
    """A policy server speaking the public protocol; never sent privileged data."""

    transport = "http"
    privileged = False

    def __init__(self, client: HttpPolicyClient, server_info: dict, speaks: Speaks | None = None) -> None:
        self.client = client
        self.info = {
            "policy": server_info.get("policy"),
            "checkpoint": server_info.get("checkpoint"),
            "adapter_sha256": server_info.get("adapter_sha256"),
            "diagnostic": bool(server_info.get("diagnostic", False)),
            "privileged": False,
            "transport": self.transport,
            "url": client.url,
            "action_schema": server_info.get("action_schema", speaks.action_schema if speaks else None),
            **{k: server_info[k] for k in MODEL_KEYS if k in server_info},
            "server_info": server_info,
        }

    def act(self, request: dict) -> Reply:
        return self.client.act(request)

    def close(self) -> None:
        self.client.release()


class OpenpiPolicy(HttpPolicy):
    """A policy server speaking openpi's websocket protocol; its metadata stands for `/info`."""

    transport = "openpi"

    def close(self) -> None:
        self.client.close()


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
    builtin: tuple[tuple[str, str], ...] = ()  # the suite's built-in names `ref` may use: (name, MODULE:FUNCTION)
    speaks: Speaks | None = None  # what a server must declare (with --host)
    model: "ResolvedModel | None" = None  # a resolved `--model`: every worker loads the same files
    device: str = "auto"
    protocol: str = "http"  # with `host`: "http" or "openpi"
    keys: OpenpiKeys | None = None  # with the openpi protocol: the request's observation keys

    def open(self, slot: int = 0):
        """Load the policy, or pre-flight the slot's server; raises PolicyLoadError / PolicyConnectionError."""
        if self.model is not None:
            from ..eval.rundir import route_library_logs
            from ..policies.model import load
            from ..policies.model.device import Device

            route_library_logs()
            loaded, info = load.load(self.model, Device.parse(self.device))
            route_library_logs()  # the libraries it imported have handlers of their own now
            return InProcessPolicy(loaded, info["checkpoint"], extra=info)
        if self.host and self.protocol == "openpi":
            from .openpi_ws_client import OpenpiClient

            client = OpenpiClient(self.host, self.ports[slot % len(self.ports)], self.keys, timeout=self.timeout, on_wait=report_wait)
            metadata = client.preflight()
            try:
                if self.speaks is not None:
                    self.speaks.check_openpi(metadata, client.url, self.keys)
            except PolicyConnectionError:
                client.close()
                raise
            return OpenpiPolicy(client, metadata, self.speaks)
        if self.host:
            client = HttpPolicyClient(self.host, self.ports[slot % len(self.ports)], read_timeout=self.timeout, on_wait=report_wait)
            info = client.preflight()
            if self.speaks is not None:
                self.speaks.check(info, client.url)
            return HttpPolicy(client, info, self.speaks)
        builtin = dict(self.builtin)
        loaded = load_policy(self.ref, aliases=builtin)
        return InProcessPolicy(loaded, self.checkpoint or (builtin_checkpoint(self.ref) if self.ref in builtin else None))

    def for_workers(self) -> "PolicySpec":
        """The same policy with a file reference made absolute, for processes with another working directory."""
        if self.host or self.model is not None or self.ref in dict(self.builtin):
            return self
        module_part, _, function = self.ref.rpartition(":")
        if not is_file_ref(module_part):
            return self
        return replace(self, ref=f"{Path(module_part).expanduser().resolve()}:{function}")
