"""The evaluator's client for a policy server speaking the public HTTP protocol.

Each client is one session: the supplied server serves one session at a time,
so `preflight` fails fast with an actionable message when nothing listens or
another evaluator holds the server, and every server used is released when the
process exits. A server that stops answering is never a silent hang: a call
fails after its timeout, and while it waits the client says so every
`wait_interval` seconds through `on_wait`.
"""

from __future__ import annotations

import atexit
import contextlib
import math
import socket
import time
import urllib.error
import urllib.request
import uuid
from typing import Callable


from . import wire
from .errors import PolicyConnectionError, PolicyError, one_line
from .heartbeat import heartbeat
from .reply import Reply, split_reply

_MAX_MESSAGE = 1000
# How a server without an /info route answers GET /info: not found, method not allowed, or
# not implemented (a stdlib http.server handler that defines only do_POST).
NO_INFO_ROUTE = (404, 405, 501)
DEFAULT_TIMEOUT_S = 600.0  # one policy call: generous, for a large model on slow hardware
PREFLIGHT_TIMEOUT_S = 30.0  # GET /info: a server answers it at once, even while a call runs
WAIT_REPORT_S = 10.0


def _error_text(exc: urllib.error.HTTPError) -> str:
    """The server's `{"error": ...}` message, else the start of the raw body."""
    raw = exc.read()
    try:
        body = wire.decode(raw)
        return one_line(body["error"] if isinstance(body, dict) and "error" in body else raw.decode("utf-8", "replace"))
    except wire.WireError:
        return one_line(raw.decode("utf-8", "replace"))


def _holding(state: dict) -> str:
    """How the session in `/info`'s `server_state` holds the server, and what to do about it.

    After an evaluator crashes its session holds the server until it has been
    idle for the server's session timeout: say how long that still is.
    """
    session, idle, frees_in = state.get("active_session"), state.get("seconds_since_request"), state.get("frees_in_s")
    if state.get("request_in_progress"):
        how = "which has a request in progress"
    elif isinstance(idle, (int, float)) and isinstance(frees_in, (int, float)):
        how = (
            f"which has been idle for {idle:.0f} s (its evaluator may have crashed); "
            f"the server frees in {math.ceil(frees_in)} s, run again then"
        )
    else:
        how = "which holds it"
    return (
        f"(session {session}), {how}; to evaluate in parallel, start one server per evaluator on its own --port, "
        "or serve a policy that keeps no state between requests with `htb-serve --allow-shared`"
    )


def _timed_out(exc: OSError) -> bool:
    """A socket timeout, raised as it is or wrapped by urllib in a URLError."""
    return isinstance(exc, TimeoutError) or isinstance(getattr(exc, "reason", None), TimeoutError)


class HttpPolicyClient:
    """Calls `POST /act` on http://HOST:PORT as one session.

    `read_timeout` bounds each wait for the server during a call (the socket
    timeout: connecting, or silence while reading); `preflight_timeout` is the
    shorter one of `GET /info`. `on_wait(line)` is called every `wait_interval`
    seconds while a request is pending, never for a request answered sooner.
    """

    def __init__(
        self,
        host: str,
        port: int,
        session: str | None = None,
        connect_timeout: float = 5.0,
        read_timeout: float = DEFAULT_TIMEOUT_S,
        preflight_timeout: float = PREFLIGHT_TIMEOUT_S,
        on_wait: Callable[[str], None] | None = None,
        wait_interval: float = WAIT_REPORT_S,
    ):
        self.host, self.port = host, int(port)
        self.session = session or uuid.uuid4().hex
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self.preflight_timeout = preflight_timeout
        self.on_wait = on_wait
        self.wait_interval = wait_interval
        self._release_at_exit = False

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def _request(self, method: str, path: str, payload: dict | None, timeout: float):
        data = None if payload is None else wire.encode(payload)
        request = urllib.request.Request(
            self.url + path, data=data, method=method, headers={"Content-Type": "application/json"}
        )
        with self._reporting_wait(), urllib.request.urlopen(request, timeout=timeout) as response:
            return wire.decode(response.read())

    @contextlib.contextmanager
    def _reporting_wait(self):
        """Call `on_wait` every `wait_interval` seconds until the block ends."""
        if self.on_wait is None:
            yield
            return
        started = time.monotonic()

        def report() -> None:
            self.on_wait(f"waiting for the policy server at {self.url} ({time.monotonic() - started:.0f} s)")

        with heartbeat(self.wait_interval, report, "htb-policy-wait"):
            yield

    def preflight(self) -> dict:
        """Check that a server listens and is free for this session; returns its `/info` ({} if it has none)."""
        try:
            socket.create_connection((self.host, self.port), timeout=self.connect_timeout).close()
        except OSError as exc:
            reason = exc.strerror or str(exc) or type(exc).__name__
            raise PolicyConnectionError(
                f"no policy server is listening at {self.url} ({reason}); start one with "
                f"`htb-serve --policy MODULE:FUNCTION --port {self.port}` or check --host/--port"
            ) from None
        try:
            info = self._request("GET", "/info", None, self.preflight_timeout)
        except urllib.error.HTTPError as exc:
            if exc.code in NO_INFO_ROUTE:
                return {}
            raise PolicyConnectionError(
                f"policy server at {self.url} answered GET /info with HTTP {exc.code} {exc.reason}: {_error_text(exc)}"[:_MAX_MESSAGE]
            ) from None
        except (OSError, wire.WireError) as exc:
            if _timed_out(exc):
                raise PolicyConnectionError(
                    f"policy server at {self.url} did not answer GET /info within {self.preflight_timeout:g} s (is it stuck?)"
                ) from None
            raise PolicyConnectionError(f"policy server at {self.url} did not answer GET /info: {one_line(str(exc))}") from None
        if not isinstance(info, dict):
            raise PolicyConnectionError(f"policy server at {self.url} answered GET /info with a non-object")
        state = info.get("server_state") or {}
        active = state.get("active_session")
        if state.get("exclusive") and active not in (None, self.session):
            raise PolicyConnectionError(f"policy server at {self.url} is busy serving another evaluator {_holding(state)}")
        return info

    def act(self, request: dict) -> Reply:
        """Send one request (never its `privileged` entry); returns the server's action and metadata."""
        payload = {key: value for key, value in request.items() if key != "privileged"}
        payload["session"] = self.session
        if not self._release_at_exit:
            atexit.register(self.release)
            self._release_at_exit = True
        failed = f"Policy server request failed at {self.url}/act"
        try:
            response = self._request("POST", "/act", payload, self.read_timeout)
        except urllib.error.HTTPError as exc:
            raise PolicyError(f"{failed}: HTTP {exc.code} {exc.reason}: {_error_text(exc)}"[:_MAX_MESSAGE]) from None
        except (OSError, wire.WireError) as exc:
            if _timed_out(exc):
                raise PolicyError(
                    f"{failed}: no answer within {self.read_timeout:g} s (raise --policy-timeout if the model is this slow)"
                ) from None
            raise PolicyError(f"{failed}: {one_line(str(exc))}"[:_MAX_MESSAGE]) from None
        if not isinstance(response, dict) or "action" not in response:
            raise PolicyError(f"{failed}: the response has no 'action'")
        return split_reply({"action": response["action"], "metadata": response.get("metadata")})

    def release(self) -> None:
        """Free the server for other evaluators; errors are ignored (the server also frees idle sessions)."""
        try:
            self._request("POST", "/release", {"session": self.session}, self.connect_timeout)
        except (OSError, wire.WireError):
            pass
