"""The supplied HTTP policy server: one loaded policy, served to one evaluator at a time.

A policy usually keeps per-episode state (action queues, observation history),
so two evaluators sharing one server would silently corrupt each other's
episodes. By default the server is exclusive: a second session is refused with
409 while the first is active (a request in progress, or one less than
`session_timeout_s` ago) until it is released. `handle` is the whole request
logic, testable without sockets; the HTTP layer only moves bytes.

A server speaks one suite's language: its action contract (each chunk is
validated with it) and its request schema (each request is checked against it
before the policy is called, so a malformed one is a 400 naming the field, not
a 500 from inside the policy); `/info` declares both, and the evaluator
refuses a server that speaks another. The chunk travels as float32, so a value
float32 cannot hold is the policy's error, not an infinity on the wire.

Whatever a client sends, it gets a JSON answer or a closed connection, and
no client can hold more than its share: a body is bounded (`max_body_bytes`),
every wait on the socket (`read_timeout_s`) and the whole request, headers and
body (`request_timeout_s`); at most `max_connections` connections are served
at once (more are answered 503 at once, a burst of them included: the listen
backlog holds 1024) and at most `max_buffer_bytes` of
request bodies are held at once (a body that does not fit waits, until its
request's deadline, then 503).

Requests are read on their own threads, so `/info` and a refusal answer at once
while a `predict` call runs; the calls themselves are queued to the serving
thread (the main thread of `htb-serve`), where the policy was imported, one at
a time.
"""

from __future__ import annotations

import io
import math
import queue
import socket
import sys
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable
from urllib.parse import urlsplit

import numpy as np

from ..control.contracts.base import ActionContract
from . import wire
from .errors import PolicyError, check_chunk, check_float32, describe_exception, one_line
from .loader import LoadedPolicy
from .reply import split_reply
from .request_schema import SESSION, RequestSchema


# Four 640x360 RGB images in base64 (under 4 MiB) with a history, many times over.
DEFAULT_MAX_BODY_BYTES = 64 * 2**20
# How long a connection may send nothing (before its request, or in the middle of it) before it is closed.
DEFAULT_READ_TIMEOUT_S = 60.0
# How long one request may take to arrive whole, headers and body: a largest body at about 1 MB/s.
DEFAULT_REQUEST_TIMEOUT_S = 120.0
# Connections served at once: an evaluator uses one at a time (its workers one each with --allow-shared).
DEFAULT_MAX_CONNECTIONS = 16
# Request bodies held at once, over all connections: four largest bodies.
DEFAULT_MAX_BUFFER_BYTES = 4 * DEFAULT_MAX_BODY_BYTES


def print_to_stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class _Refusal(Exception):
    """A request refused with `status` (4xx) before it reaches the policy; the message is one line."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class _DeadlinePassed(TimeoutError):
    """The request's whole-request deadline passed while reading it."""


class _DeadlineSocket(io.RawIOBase):
    """A connection's reading end: every read waits at most `read_timeout_s`, and none goes past the deadline
    `arm` set for the request being read, however slowly its bytes trickle in."""

    def __init__(self, sock: socket.socket, read_timeout_s: float) -> None:
        self.sock, self.read_timeout_s = sock, read_timeout_s
        self.deadline = math.inf

    def arm(self, seconds: float) -> None:
        self.deadline = time.monotonic() + seconds

    def passed(self) -> bool:
        return time.monotonic() >= self.deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise _DeadlinePassed("the request's deadline passed")
        self.sock.settimeout(min(self.read_timeout_s, left))
        return self.sock.recv_into(buffer)


class _ByteBudget:
    """Bytes of request bodies held at once, over all connections, at most `capacity`."""

    def __init__(self, capacity: int) -> None:
        self.capacity, self.used = capacity, 0
        self._changed = threading.Condition()

    def take(self, n: int, deadline: float) -> bool:
        """Reserve `n` bytes, waiting for others to be given back until `deadline` (monotonic); False if they were not."""
        with self._changed:
            while self.used + n > self.capacity:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._changed.wait(left)
            self.used += n
            return True

    def give(self, n: int) -> None:
        with self._changed:
            self.used -= n
            self._changed.notify_all()


def _clip(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


class _SerialCalls:
    """Runs functions handed over by request threads on the one thread that called `run`."""

    def __init__(self) -> None:
        self._jobs: queue.Queue = queue.Queue()

    def call(self, fn, *args):
        done, outcome = threading.Event(), {}
        self._jobs.put((fn, args, outcome, done))
        done.wait()
        if "error" in outcome:
            raise outcome["error"]
        return outcome["value"]

    def run(self, stop: threading.Event) -> None:
        while not stop.is_set():
            try:
                fn, args, outcome, done = self._jobs.get(timeout=0.2)
            except queue.Empty:
                continue
            try:
                outcome["value"] = fn(*args)
            except Exception as exc:  # re-raised, with its traceback, on the request's thread
                outcome["error"] = exc
            done.set()


class _HTTPServer(ThreadingHTTPServer):
    """One thread per connection, at most `max_connections` at once: a connection beyond them is answered 503
    from the accepting thread and closed, so no number of clients can make the server start more threads."""

    daemon_threads = True
    # The listen backlog holds a burst until the accepting thread answers it (a 503 beyond the cap takes no
    # thread). The standard library's 5 is overflowed by a few dozen clients at once, and an overflowing
    # backlog drops or resets connections instead of refusing them; the kernel caps it at net.core.somaxconn.
    request_queue_size = 1024

    def __init__(self, address, handler, log: Callable[[str], None], max_connections: int):
        self._log = log
        self._slots = threading.BoundedSemaphore(max_connections)
        self.max_connections = max_connections
        super().__init__(address, handler)

    def process_request(self, request, client_address):
        if not self._slots.acquire(blocking=False):
            self._refuse(request, client_address)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:  # no thread started: nothing else gives the slot back
            self._slots.release()
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def _refuse(self, request: socket.socket, client_address) -> None:
        """503 in JSON, sent without waiting on a client that does not read (its request is never read)."""
        message = (
            f"Server busy: all {self.max_connections} connections this server serves at once are taken "
            "(htb-serve --max-connections); retry shortly"
        )
        body = wire.encode({"error": message})
        head = (
            "HTTP/1.0 503 Service Unavailable\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\nRetry-After: 1\r\n\r\n"
        )
        self._log(f"refused connection from {client_address[0]}:{client_address[1]}: {message}")
        try:
            request.settimeout(0.5)
            request.sendall(head.encode("ascii") + body)
            request.setblocking(False)
            for _ in range(16):  # what already arrived, so that closing does not reset the answer away
                if not request.recv(2**16):
                    break
        except OSError:  # nothing more to read, or a client already gone
            pass

    def handle_error(self, request, client_address):
        """A connection that fails outside a request (reset by the client) is one log line, not a traceback."""
        exc = sys.exc_info()[1]
        self._log(f"connection from {client_address[0]}:{client_address[1]} failed: {type(exc).__name__}: {exc}")


def _check_limits(**limits) -> None:
    """Every limit a positive, finite number (a whole one for counts and bytes): none can be switched off."""
    for name, value in limits.items():
        whole = name.startswith("max_")
        if not (isinstance(value, int) if whole else isinstance(value, (int, float))) or not 0 < value < math.inf:
            raise ValueError(f"{name} must be a positive, finite {'integer' if whole else 'number'}; got {value!r}")


class PolicyServer:
    """Serve `policy.predict` over `POST /act`, with `GET /info` and `POST /release`, in the language of one
    suite: its action `contract` and its request `schema` (None: only the session is checked)."""

    def __init__(
        self,
        policy: LoadedPolicy,
        contract: ActionContract,
        schema: RequestSchema | None,
        checkpoint: str | None = None,
        allow_shared: bool = False,
        clock: Callable[[], float] = time.monotonic,
        session_timeout_s: float = 60.0,
        log: Callable[[str], None] = print_to_stderr,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        read_timeout_s: float = DEFAULT_READ_TIMEOUT_S,
        request_timeout_s: float = DEFAULT_REQUEST_TIMEOUT_S,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
        max_buffer_bytes: int = DEFAULT_MAX_BUFFER_BYTES,
        extra_info: dict | None = None,
    ):
        _check_limits(
            max_body_bytes=max_body_bytes, read_timeout_s=read_timeout_s, request_timeout_s=request_timeout_s,
            max_connections=max_connections, max_buffer_bytes=max_buffer_bytes,
        )
        if max_buffer_bytes < max_body_bytes:
            raise ValueError(f"max_buffer_bytes ({max_buffer_bytes}) must be at least max_body_bytes ({max_body_bytes})")
        self.policy = policy
        self.extra_info = dict(extra_info or {})  # a model's provenance, reported by /info
        self.schema = schema
        self.contract = contract
        self.max_body_bytes = max_body_bytes
        self.read_timeout_s = read_timeout_s
        self.request_timeout_s = request_timeout_s
        self.max_connections = max_connections
        self._buffer = _ByteBudget(max_buffer_bytes)
        self.checkpoint = checkpoint
        self.allow_shared = allow_shared
        self._clock = clock
        self._timeout = session_timeout_s
        self._log = log
        self._lock = threading.Lock()
        self._session: str | None = None
        self._last_request: float | None = None
        self._in_flight = 0
        self._calls: _SerialCalls | None = None  # set while serving; `handle` alone calls directly
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # --- request logic -------------------------------------------------------------

    def handle(self, method: str, path: str, body: bytes | None) -> tuple[int, dict]:
        """Answer one request: (HTTP status, JSON-able body); every error body is `{"error": one line}`."""
        routes = {"/act": ("POST", self._act), "/info": ("GET", self._info), "/release": ("POST", self._release)}
        try:
            route = urlsplit(path).path
        except ValueError as exc:  # "http://[x": an absolute URL with a broken host
            return 400, {"error": f"Malformed request: path {_clip(path)!r}: {exc}"}
        if route not in routes:
            return 404, {"error": f"Not found: {route} (routes: POST /act, GET /info, POST /release)"}
        allowed, handler = routes[route]
        if method != allowed and not (method == "HEAD" and allowed == "GET"):  # HEAD: the GET's headers
            return 405, {"error": f"Method {method} not allowed for {route}; use {allowed}"}
        return handler(body)

    def _active_session(self) -> str | None:
        """The session holding the server, or None once it has been idle for `session_timeout_s`."""
        if self._session is None:
            return None
        if self._in_flight or self._clock() - self._last_request < self._timeout:
            return self._session
        return None

    def _frees_in(self) -> float | None:
        """Seconds until the active session expires; None when none is active or a call is in flight."""
        if self._in_flight or self._active_session() is None:
            return None
        return self._timeout - (self._clock() - self._last_request)

    def _busy(self, active: str) -> str:
        """Why another evaluator is refused: an idle session (a crashed evaluator's, often) frees the server soon."""
        frees_in = self._frees_in()
        if frees_in is None:
            return (
                f"Policy server busy: another evaluator (session {active}) has a request in progress; "
                "start one server per evaluator on its own --port (or serve with --allow-shared)"
            )
        return (
            f"Policy server busy: another evaluator (session {active}) has been idle for "
            f"{self._timeout - frees_in:.0f} s and frees in {frees_in:.0f} s (or restart the server / serve with "
            "--allow-shared); to evaluate in parallel, start one server per evaluator on its own --port"
        )

    def _parse(self, body: bytes | None, schema: RequestSchema | None = None) -> tuple[dict, str]:
        """The request object and its session ("anonymous" if none), or a 400 `_Refusal` naming what is wrong."""
        try:
            request = wire.decode(body or b"")
        except wire.WireError as exc:
            raise _Refusal(400, f"Malformed request: {exc}") from None
        if not isinstance(request, dict):
            raise _Refusal(400, f"Malformed request: body must be a JSON object, not {type(request).__name__}")
        # The session is the server's own business, checked whatever schema a suite passes.
        problem = SESSION.problem(request) or (schema.problem(request) if schema else None)
        if problem:
            raise _Refusal(400, f"Invalid request: {problem}")
        return request, request.get("session") or "anonymous"

    def _act(self, body):
        try:
            request, session = self._parse(body, self.schema)
        except _Refusal as exc:
            self._log(str(exc))
            return exc.status, {"error": str(exc)}
        if not self.policy.privileged:
            request.pop("privileged", None)
        with self._lock:
            active = self._active_session()
            if not self.allow_shared and active not in (None, session):
                self._log(f"refused session {session}: session {active} is active")
                return 409, {"error": self._busy(active)}
            self._session = session
            self._in_flight += 1
            self._last_request = self._clock()
        try:
            try:
                calls = self._calls
                value = calls.call(self.policy.predict, request) if calls else self.policy.predict(request)
            except Exception as exc:
                self._log(f"policy raised while serving session {session}:\n{traceback.format_exc()}")
                return 500, {"error": describe_exception(exc)}
            try:
                reply = split_reply(value)
                check_chunk(reply.action, self.contract)  # sent as returned: the evaluator expands it (a skill's rows)
                chunk = check_float32(np.asarray(reply.action, dtype=np.float64))
            except PolicyError as exc:
                self._log(f"session {session}: {exc}")
                return 500, {"error": str(exc)}
            answer = {"action": chunk}
            return 200, {**answer, "metadata": reply.metadata} if reply.metadata else answer
        finally:
            with self._lock:
                self._in_flight -= 1
                self._last_request = self._clock()

    def _info(self, body):
        with self._lock:
            since = None if self._last_request is None else self._clock() - self._last_request
            state = {
                "exclusive": not self.allow_shared,
                "active_session": self._active_session(),
                "request_in_progress": self._in_flight > 0,
                "seconds_since_request": since,
                "frees_in_s": self._frees_in(),
            }
        return 200, {
            "policy": self.policy.name,
            "action_schema": self.contract.name,
            "request_schema": self.schema.name if self.schema else None,
            "diagnostic": self.policy.diagnostic,
            "checkpoint": self.checkpoint,
            "adapter_sha256": self.policy.adapter_sha256,
            "privileged": self.policy.privileged,
            **self.extra_info,
            "server_state": state,
        }

    def _release(self, body):
        try:
            session = self._parse(body)[1]
        except _Refusal as exc:
            return exc.status, {"error": str(exc)}
        with self._lock:
            released = not self._in_flight and self._active_session() == session
            if released:
                self._session = None
        return 200, {"released": released}

    # --- HTTP ----------------------------------------------------------------------

    def _bind(self, host: str, port: int) -> ThreadingHTTPServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            """Every answer, the standard library's own errors included, is JSON: `{"error": one line}` if not 200.

            Reads go through a `_DeadlineSocket`: each waits at most `read_timeout_s` and a request (from the
            first wait for it to its last body byte) at most `request_timeout_s`, so a client that stops sending
            or trickles (a Content-Length larger than its body, a connection left open, a byte a minute) is
            answered or closed instead of holding its thread.
            """

            def setup(self) -> None:
                super().setup()
                self.rfile.close()  # the socket's own reader, unused: reads go through the deadline
                self._reader = _DeadlineSocket(self.connection, server.read_timeout_s)
                self.rfile = io.BufferedReader(self._reader)
                self._reserved = 0  # bytes of the buffer budget this request holds

            def handle_one_request(self) -> None:
                self._reader.arm(server.request_timeout_s)
                try:
                    super().handle_one_request()
                finally:
                    server._buffer.give(self._reserved)
                    self._reserved = 0

            def _respond(self) -> None:
                try:
                    body = self._body()
                except _Refusal as refusal:
                    server._log(f"refused {self.command} {_clip(self.path)}: {refusal}")
                    self.close_connection = True  # what follows on the connection is not a request
                    self._send(refusal.status, {"error": str(refusal)})
                    return
                try:
                    status, payload = server.handle(self.command, self.path, body)
                except Exception as exc:  # a bug of the server's: still an answer, the traceback in the log
                    server._log(f"error answering {self.command} {_clip(self.path)}:\n{traceback.format_exc()}")
                    status, payload = 500, {"error": f"Internal server error: {describe_exception(exc)}"}
                self._send(status, payload)

            def _body(self) -> bytes | None:
                """The body, or a `_Refusal` before reading it when it has no valid length, exceeds the limit or
                does not fit the buffer budget by the request's deadline."""
                lengths = self.headers.get_all("Content-Length", [])
                if not lengths:
                    if self.command == "POST":
                        raise _Refusal(411, "Length required: send the body with a Content-Length (not chunked)")
                    return None
                text = lengths[0].strip(" \t")
                if len(lengths) > 1 or not (text.isascii() and text.isdigit()):  # str.isdigit alone accepts "²"
                    shown = _clip(", ".join(lengths))
                    raise _Refusal(400, f"Malformed request: Content-Length must be one decimal number; got {shown!r}")
                digits, limit = text.lstrip("0") or "0", server.max_body_bytes
                if len(digits) > len(str(limit)) or int(digits) > limit:  # by length first: int() refuses 4300+ digits
                    raise _Refusal(
                        413,
                        f"Request body too large: Content-Length {_clip(digits)} exceeds this server's limit of "
                        f"{limit} bytes (htb-serve --max-body-mb)",
                    )
                length = int(digits)
                if not server._buffer.take(length, self._reader.deadline):
                    raise _Refusal(
                        503,
                        f"Server busy: a body of {length} bytes does not fit beside the request bodies being received "
                        f"(at most {server._buffer.capacity} bytes at once, htb-serve --max-buffer-mb); retry shortly",
                    )
                self._reserved = length
                body, got = bytearray(length), 0  # untouched pages cost no memory: it grows with what arrives
                view = memoryview(body)
                while got < length:
                    try:
                        n = self.rfile.readinto1(view[got : got + 2**20])
                    except TimeoutError:
                        raise _Refusal(408, self._late(got, length)) from None
                    if not n:
                        raise _Refusal(400, f"Malformed request: the body ended after {got} of {length} bytes")
                    got += n
                return body

            def _late(self, got: int, length: int) -> str:
                if self._reader.passed():
                    return (
                        f"Request timeout: {got} of {length} bytes arrived within the {server.request_timeout_s:g} s "
                        "a request may take (htb-serve --request-timeout-s)"
                    )
                return f"Request timeout: {got} of {length} bytes arrived, then nothing for {server.read_timeout_s:g} s"

            # Methods the routes do not take get 405 from `handle`; methods not listed get 501 from `send_error`.
            do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _respond

            def _send(self, status: int, payload: dict) -> None:
                try:
                    data = wire.encode(payload)
                except wire.WireError as exc:
                    status, data = 500, wire.encode({"error": one_line(f"cannot encode the response: {exc}")})
                try:
                    self.connection.settimeout(server.read_timeout_s)  # writes: the answer is not bound by the deadline
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    if self.close_connection:
                        self.send_header("Connection", "close")
                    self.end_headers()
                    if self.command != "HEAD":
                        self.wfile.write(data)
                except OSError:  # the client left before its answer: nobody to tell
                    self.close_connection = True

            def send_error(self, code, message=None, explain=None):
                """The standard library's answer to a request it cannot parse (bad request line, headers too long)."""
                self.close_connection = True
                self.request_version = self.protocol_version  # a status line, even for an unreadable request line
                text = message or self.responses.get(code, ("Error",))[0]
                self._send(code, {"error": one_line(f"{text}: {explain}" if explain else text)})

            def log_message(self, format, *args):  # errors are logged by `handle`; skip per-request lines
                pass

        return _HTTPServer((host, port), Handler, self._log, self.max_connections)

    def _serve(self, httpd: ThreadingHTTPServer, host: str, ready: Callable[[str], None] | None) -> None:
        """Read requests on background threads and run `predict` on this one until `_stop` is set."""
        self._calls = _SerialCalls()
        reader = threading.Thread(target=httpd.serve_forever, name="policy-http", daemon=True)
        reader.start()
        try:
            if ready is not None:
                ready(f"http://{host}:{httpd.server_address[1]}")
            self._calls.run(self._stop)
        finally:
            httpd.shutdown()
            httpd.server_close()
            self._calls = None

    def serve_forever(self, host: str, port: int, ready: Callable[[str], None] | None = None) -> None:
        """Serve until interrupted, calling `predict` on the calling thread (where the policy was imported).

        Binding errors (port in use) raise `OSError` before `ready(url)` is called.
        """
        self._serve(self._bind(host, port), host, ready)

    def start(self, host: str = "127.0.0.1", port: int = 0) -> int:
        """Serve from a background thread, which then runs the `predict` calls (for tests); returns the port."""
        httpd = self._bind(host, port)
        self._stop.clear()
        self._thread = threading.Thread(target=self._serve, args=(httpd, host, None), name="policy-server", daemon=True)
        self._thread.start()
        return httpd.server_address[1]

    def shutdown(self) -> None:
        """Stop a server started with `start`."""
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None
