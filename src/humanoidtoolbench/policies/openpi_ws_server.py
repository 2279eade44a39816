"""The policy server in openpi's websocket protocol, so that openpi's own client drives any policy.

`openpi_client.websocket_client_policy.WebsocketClientPolicy` connects, reads
the metadata dict sent on connect, and calls `infer(obs)`, which sends one
msgpack-numpy observation and reads one dict holding `actions` (T, D); an
error is a text frame (the traceback, its last line the one-line description)
and then the connection closes, as upstream. `GET /healthz` answers 200.

It keeps the HTTP server's guarantees (`server.py`): each observation is
mapped to the suite's request (`OpenpiKeys`) and checked against the request
schema before the policy sees it, each chunk is checked against the action
contract and sent as float32, `predict` runs on the serving thread one call
at a time, and no client holds more than its share: a message is at most
`max_body_bytes` (a larger one closes its connection with 1009), a
connection silent for `read_timeout_s` between messages is closed, the
handshake must finish within `request_timeout_s`, and at most
`max_connections` connections are served (one unless `allow_shared`: a policy
keeps per-episode state); more are answered 503 before the upgrade. A
connection reads at most one message ahead, so it holds at most two.
"""

from __future__ import annotations

import threading
import time
import traceback
from http import HTTPStatus
from typing import Callable

import numpy as np

from ..control.contracts.base import ActionContract
from .errors import PolicyError, check_chunk, check_float32, describe_exception, one_line
from .loader import LoadedPolicy
from .openpi_keys import OpenpiKeys
from .reply import split_reply
from .request_schema import RequestSchema
from .server import (
    DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_CONNECTIONS, DEFAULT_READ_TIMEOUT_S, DEFAULT_REQUEST_TIMEOUT_S, _check_limits,
    _SerialCalls, print_to_stderr,
)

# Close codes (RFC 6455): a request that breaks the protocol, an error while serving, a server that is full.
POLICY_VIOLATION, INTERNAL_ERROR, TRY_AGAIN_LATER = 1008, 1011, 1013


class OpenpiServer:
    """Serve `policy.predict` over openpi's websocket protocol in the language of one suite."""

    def __init__(
        self,
        policy: LoadedPolicy,
        contract: ActionContract,
        schema: RequestSchema | None,
        keys: OpenpiKeys,
        checkpoint: str | None = None,
        allow_shared: bool = False,
        log: Callable[[str], None] = print_to_stderr,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        read_timeout_s: float = DEFAULT_READ_TIMEOUT_S,
        request_timeout_s: float = DEFAULT_REQUEST_TIMEOUT_S,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
        max_buffer_bytes: int | None = None,  # the HTTP server's; here each connection holds at most two messages
        extra_info: dict | None = None,
    ) -> None:
        _check_limits(max_body_bytes=max_body_bytes, read_timeout_s=read_timeout_s,
                      request_timeout_s=request_timeout_s, max_connections=max_connections)
        self.policy, self.contract, self.schema, self.keys = policy, contract, schema, keys
        self.checkpoint, self.allow_shared, self._log = checkpoint, allow_shared, log
        self.max_body_bytes, self.read_timeout_s, self.request_timeout_s = max_body_bytes, read_timeout_s, request_timeout_s
        self.max_connections = max_connections if allow_shared else 1
        self.extra_info = dict(extra_info or {})
        self._lock = threading.Lock()
        self._open = 0
        self._calls: _SerialCalls | None = None
        self._stop = threading.Event()
        self._server = None
        self._thread: threading.Thread | None = None

    def metadata(self) -> dict:
        """Sent on connect: who the policy is and what it speaks (the evaluator's pre-flight compares it)."""
        return {
            "policy": self.policy.name,
            "checkpoint": self.checkpoint,
            "adapter_sha256": self.policy.adapter_sha256,
            "diagnostic": self.policy.diagnostic,
            "privileged": False,  # nothing privileged travels in an observation
            "action_schema": self.contract.name,
            "request_schema": self.schema.name if self.schema else None,
            "action_dim": self.contract.action_dim,
            "observation_keys": self.keys.to_json(),
            **self.extra_info,
            "server_state": {"exclusive": not self.allow_shared},
        }

    # --- one observation ------------------------------------------------------------

    def answer(self, data) -> tuple[bytes | str, int | None]:
        """(frame, close code): the packed reply to one frame, or the error text to send and the code to close with."""
        from .openpi_frames import FrameError, pack, unpack

        if isinstance(data, str):
            return "Malformed request: send each observation as a binary msgpack frame, not text", POLICY_VIOLATION
        try:
            obs = unpack(data)
        except FrameError as exc:
            return f"Malformed request: not msgpack-numpy: {exc}", POLICY_VIOLATION
        if not isinstance(obs, dict):
            return f"Malformed request: the observation must be a dict, not {type(obs).__name__}", POLICY_VIOLATION
        request = self.keys.request(obs)
        problem = self.schema.problem(request) if self.schema else None
        if problem:
            return f"Invalid request: {problem} (observation keys: {', '.join(k.key + ' <- ' + k.path for k in self.keys.keys)})", POLICY_VIOLATION
        started = time.perf_counter()
        try:
            value = self._calls.call(self.policy.predict, request) if self._calls else self.policy.predict(request)
        except Exception as exc:
            text = traceback.format_exc()
            self._log(f"policy raised:\n{text}")
            return f"{text}{describe_exception(exc)}", INTERNAL_ERROR
        try:
            reply = split_reply(value)
            check_chunk(reply.action, self.contract)
            chunk = check_float32(np.asarray(reply.action, dtype=np.float64))
        except PolicyError as exc:
            self._log(str(exc))
            return str(exc), INTERNAL_ERROR
        answer = {self.keys.actions: chunk, "server_timing": {"infer_ms": (time.perf_counter() - started) * 1000}}
        if reply.metadata:
            answer["metadata"] = reply.metadata
        return pack(answer), None

    # --- websocket ------------------------------------------------------------------

    def _process_request(self, connection, request):
        """`GET /healthz` is 200; a connection beyond those served is 503 before it is upgraded."""
        if request.path == "/healthz":
            return connection.respond(HTTPStatus.OK, "OK\n")
        with self._lock:
            full = self._open >= self.max_connections
        if full:
            return connection.respond(HTTPStatus.SERVICE_UNAVAILABLE, self._busy())

    def _busy(self) -> str:
        if not self.allow_shared:
            return ("Policy server busy: another evaluator is connected; start one server per evaluator on its own "
                    "--port (or serve a policy that keeps no state with --allow-shared)\n")
        return f"Server busy: all {self.max_connections} connections are taken (htb-serve --max-connections)\n"

    def _handle(self, ws) -> None:
        from websockets.exceptions import ConnectionClosed

        from .openpi_frames import pack

        with self._lock:
            admitted = self._open < self.max_connections
            self._open += admitted
        if not admitted:  # two handshakes raced past `_process_request`
            ws.close(TRY_AGAIN_LATER, self._busy().strip()[:120])
            return
        peer = "%s:%s" % ws.remote_address[:2]
        try:
            ws.send(pack(self.metadata()))
            while True:
                try:
                    data = ws.recv(timeout=self.read_timeout_s)
                except TimeoutError:
                    self._log(f"closed {peer}: nothing received for {self.read_timeout_s:g} s")
                    ws.close(1000, f"idle for {self.read_timeout_s:g} s (htb-serve --read-timeout-s)")
                    return
                frame, close = self.answer(data)
                ws.send(frame)
                if close is not None:
                    self._log(f"{peer}: {error_tail(frame)}")
                    ws.close(close)
                    return
        except ConnectionClosed as exc:
            if exc.rcvd is not None and exc.rcvd.code == 1009:
                self._log(f"closed {peer}: a message exceeded {self.max_body_bytes} bytes (htb-serve --max-body-mb)")
        finally:
            with self._lock:
                self._open -= 1

    def _bind(self, host: str, port: int):
        from websockets.sync.server import serve

        return serve(
            self._handle, host, port, process_request=self._process_request, compression=None,
            max_size=self.max_body_bytes, max_queue=1, open_timeout=self.request_timeout_s, close_timeout=2,
            server_header=None,
        )

    def _serve(self, server, ready: Callable[[str], None] | None, host: str) -> None:
        self._calls = _SerialCalls()
        reader = threading.Thread(target=server.serve_forever, name="policy-ws", daemon=True)
        reader.start()
        try:
            if ready is not None:
                ready(f"ws://{host}:{server.socket.getsockname()[1]}")
            self._calls.run(self._stop)
        finally:
            server.shutdown()
            self._calls = None

    def serve_forever(self, host: str, port: int, ready: Callable[[str], None] | None = None) -> None:
        """Serve until interrupted, calling `predict` on the calling thread; binding errors raise `OSError`."""
        self._serve(self._bind(host, port), ready, host)

    def start(self, host: str = "127.0.0.1", port: int = 0) -> int:
        """Serve from a background thread (for tests); returns the port."""
        server = self._bind(host, port)
        self._stop.clear()
        self._thread = threading.Thread(target=self._serve, args=(server, None, host), name="policy-server", daemon=True)
        self._thread.start()
        return server.socket.getsockname()[1]

    def shutdown(self) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None


def error_tail(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return one_line(lines[-1]) if lines else ""
