"""The evaluator's client for a policy served over openpi's websocket protocol.

On connect the server sends one metadata dict; then each binary frame sent is
one observation and each frame back one action dict (`actions`, (T, D)), all
msgpack with openpi's NumPy extension (`openpi_client.msgpack_numpy`). An
error arrives as a text frame (a traceback), after which the server closes.

Every way a call can go wrong is a `PolicyError` in one line, within the
policy timeout, and leaves the client able to go on: a connection that
failed, timed out or carried an error is closed and the next call opens a new
one, so a late reply is never taken for the next request's. The episode
runner adds where the call failed (condition, seed, step, request).
"""

from __future__ import annotations

import inspect
import json
import logging
import time
from typing import Callable

import numpy as np

from .errors import PolicyConnectionError, PolicyError, one_line
from .http_client import DEFAULT_TIMEOUT_S, PREFLIGHT_TIMEOUT_S, WAIT_REPORT_S
from .openpi_keys import OpenpiKeys
from .reply import Reply, split_reply

log = logging.getLogger("humanoidtoolbench.eval")

_MAX_MESSAGE = 1000
DEFAULT_MAX_REPLY_BYTES = 64 * 2**20  # a chunk of thousands of rows, many times over


def _closed(exc) -> str:
    """What a `ConnectionClosed` says about why, in one line."""
    frame = getattr(exc, "rcvd", None) or getattr(exc, "sent", None)
    if frame is None:
        return "the connection dropped without a close frame"
    return f"the server closed the connection (code {frame.code}{': ' + one_line(frame.reason) if frame.reason else ''})"


def _plain(value):
    if isinstance(value, (np.ndarray, np.generic)):
        return value.tolist()
    return value.hex() if isinstance(value, bytes) else str(value)


def jsonable(metadata: dict) -> dict:
    """Metadata as JSON, the way results record it: an openpi server may send arrays or bytes in it."""
    return json.loads(json.dumps(metadata, default=_plain, allow_nan=False, sort_keys=True))


def error_line(text: str) -> str:
    """The line of an error frame that says what failed: a traceback's last line, else the whole text."""
    lines = [line for line in str(text).splitlines() if line.strip()]
    return one_line(lines[-1] if lines else "an empty error frame")


def _frame_content(frame, error: str, malformed: str):
    """A frame's msgpack-numpy content, or FrameError: `error` and the server's error line for a text frame
    (an openpi server sends its traceback as text, which goes to the log), `malformed` and why for a binary
    frame that does not decode."""
    from .openpi_frames import FrameError, unpack

    if isinstance(frame, str):
        log.error("openpi server error frame:\n%s", frame)
        raise FrameError(f"{error}: {error_line(frame)}")
    try:
        return unpack(frame)
    except FrameError as exc:
        raise FrameError(f"{malformed}: {one_line(exc)}") from None


class OpenpiClient:
    """One websocket connection at a time to ws://HOST:PORT, opened by `preflight` and again after a failure.

    `timeout` bounds each call (sending the observation and waiting for its
    reply); `preflight_timeout` bounds connecting and reading the metadata.
    """

    def __init__(
        self,
        host: str,
        port: int,
        keys: OpenpiKeys,
        timeout: float = DEFAULT_TIMEOUT_S,
        preflight_timeout: float = PREFLIGHT_TIMEOUT_S,
        max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
        on_wait: Callable[[str], None] | None = None,
        wait_interval: float = WAIT_REPORT_S,
    ) -> None:
        self.host, self.port, self.keys = host, int(port), keys
        self.timeout, self.preflight_timeout = timeout, preflight_timeout
        self.max_reply_bytes = max_reply_bytes
        self.on_wait, self.wait_interval = on_wait, wait_interval
        self.metadata: dict | None = None
        self._ws = None

    @property
    def url(self) -> str:
        return f"ws://{self.host}:{self.port}"

    def _open(self, timeout: float) -> dict:
        """Connect and read the metadata; `PolicyConnectionError` in one line."""
        from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

        from .openpi_frames import FrameError
        from websockets.sync.client import connect

        # A connection kept open across calls: the historical direct return (websockets 17 asks for it by name).
        direct = {"legacy": True} if "legacy" in inspect.signature(connect).parameters else {}
        try:
            ws = connect(self.url, compression=None, max_size=self.max_reply_bytes, open_timeout=timeout,
                         close_timeout=1, proxy=None, **direct)
        except InvalidStatus as exc:
            body = one_line(exc.response.body.decode("utf-8", "replace")) if exc.response.body else ""
            raise PolicyConnectionError(
                f"policy server at {self.url} refused the connection: HTTP {exc.response.status_code}{': ' + body if body else ''}"[:_MAX_MESSAGE]
            ) from None
        except TimeoutError:
            raise PolicyConnectionError(f"policy server at {self.url} did not complete the websocket handshake within {timeout:g} s") from None
        except (OSError, InvalidHandshake) as exc:
            reason = getattr(exc, "strerror", None) or one_line(str(exc)) or type(exc).__name__
            raise PolicyConnectionError(
                f"no openpi policy server is listening at {self.url} ({reason}); start one with "
                f"`htb-serve --protocol openpi --port {self.port}` or check --host/--port"
            ) from None
        try:
            first = ws.recv(timeout=timeout)
        except TimeoutError:
            ws.close()
            raise PolicyConnectionError(f"policy server at {self.url} sent no metadata within {timeout:g} s (is it an openpi server?)") from None
        except ConnectionClosed as exc:
            raise PolicyConnectionError(f"policy server at {self.url} sent no metadata: {_closed(exc)}") from None
        try:
            metadata = _frame_content(first, "sent an error instead of its metadata", "sent metadata that is not msgpack-numpy")
        except FrameError as exc:
            ws.close()
            raise PolicyConnectionError(f"policy server at {self.url} {exc}"[:_MAX_MESSAGE]) from None
        if not isinstance(metadata, dict):
            ws.close()
            raise PolicyConnectionError(f"policy server at {self.url} sent metadata that is not a dict but {type(metadata).__name__}")
        try:
            metadata = jsonable(metadata)
        except (TypeError, ValueError) as exc:
            ws.close()
            raise PolicyConnectionError(f"policy server at {self.url} sent metadata that cannot be recorded: {one_line(exc)}"[:_MAX_MESSAGE]) from None
        self._ws = ws
        return metadata

    def preflight(self) -> dict:
        """Connect and return the server's metadata (kept in `metadata`)."""
        self.metadata = self._open(self.preflight_timeout)
        return self.metadata

    def _drop(self) -> None:
        if self._ws is not None:
            ws, self._ws = self._ws, None
            ws.close()

    def _recv(self):
        """The next frame, waiting at most `timeout` and saying so every `wait_interval` seconds."""
        started = time.monotonic()
        while True:
            left = self.timeout - (time.monotonic() - started)
            if left <= 0:
                raise TimeoutError
            try:
                return self._ws.recv(timeout=min(left, self.wait_interval) if self.on_wait else left)
            except TimeoutError:
                if self.on_wait and time.monotonic() - started < self.timeout:
                    self.on_wait(f"waiting for the policy server at {self.url} ({time.monotonic() - started:.0f} s)")

    def act(self, request: dict) -> Reply:
        """Send the request as an observation (never its `privileged` entry); the reply's actions and metadata."""
        from websockets.exceptions import ConnectionClosed

        from .openpi_frames import FrameError, pack

        failed = f"openpi server request failed at {self.url}"
        if self._ws is None:
            try:
                metadata = self._open(min(self.preflight_timeout, self.timeout))
            except PolicyConnectionError as exc:
                raise PolicyError(f"{failed}: cannot reconnect: {exc}"[:_MAX_MESSAGE]) from None
            if self.metadata is not None and metadata != self.metadata:
                self._drop()
                raise PolicyError(f"{failed}: the server reconnected with other metadata (another policy?)")
        try:
            data = pack(self.keys.observation({k: v for k, v in request.items() if k != "privileged"}))
        except (TypeError, ValueError) as exc:
            raise PolicyError(f"{failed}: cannot encode the request: {one_line(exc)}") from None
        try:
            self._ws.send(data)
            reply = self._recv()
        except TimeoutError:
            self._drop()  # its late reply must not answer the next request
            raise PolicyError(f"{failed}: no answer within {self.timeout:g} s (raise --policy-timeout if the model is this slow)") from None
        except ConnectionClosed as exc:
            self._drop()
            raise PolicyError(f"{failed}: {_closed(exc)}") from None
        try:
            answer = _frame_content(reply, "the server sent an error", "the reply is not msgpack-numpy")
        except FrameError as exc:
            self._drop()
            raise PolicyError(f"{failed}: {exc}"[:_MAX_MESSAGE]) from None
        key = self.keys.actions
        if not isinstance(answer, dict) or key not in answer:
            got = f"keys {sorted(map(str, answer))}" if isinstance(answer, dict) else type(answer).__name__
            raise PolicyError(f"{failed}: the reply has no {key!r} ({got})"[:_MAX_MESSAGE])
        metadata = answer.get("metadata")
        return split_reply({"action": answer[key], "metadata": metadata if isinstance(metadata, dict) else None})

    def close(self) -> None:
        self._drop()
