"""The policy server over raw sockets: every request, however malformed, gets a JSON answer or a prompt close."""

from __future__ import annotations

import json
import socket
import struct
import threading
import time

import numpy as np
import pytest

from humanoidtoolbench.policies import wire

from conftest import tool_use_server

from test_policy_server import make_policy, request


@pytest.fixture
def serve():
    """Start servers on free ports (with the given constructor arguments); collects their log lines."""
    def start(policy=None, **kwargs) -> int:
        server = tool_use_server(policy or make_policy(), log=start.logged.append, **kwargs)
        start.servers.append(server)
        return server.start()

    start.servers, start.logged = [], []
    yield start
    for server in start.servers:
        server.shutdown()


def eventually(condition) -> bool:
    """Whether `condition()` turns true within 20 s: waits for an event on the server's threads, times nothing."""
    deadline = time.monotonic() + 20
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def exchange(port: int, raw: bytes, shut_write: bool = False) -> tuple[int, dict, bytes]:
    """Send raw bytes, read until the server closes; returns (status, headers, body)."""
    with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
        s.sendall(raw)
        if shut_write:
            s.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("iso-8859-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), {k.lower(): v for k, v in headers.items()}, body


def json_error(port: int, raw: bytes, **kwargs) -> tuple[int, str]:
    """Status and the one-line `error` of a JSON error answer."""
    status, headers, body = exchange(port, raw, **kwargs)
    assert headers["content-type"] == "application/json" and int(headers["content-length"]) == len(body)
    error = json.loads(body)["error"]
    assert isinstance(error, str) and "\n" not in error
    return status, error


def post(path: str, body: bytes, length: str | None = None) -> bytes:
    length = str(len(body)) if length is None else length
    return f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {length}\r\n\r\n".encode("latin-1") + body


@pytest.mark.parametrize("route", ["/act", "/release"])
@pytest.mark.parametrize("session", [np.arange(3), ["a"], 7, {"id": "a"}])
def test_a_session_that_is_not_a_string_is_400(serve, capfd, route, session):
    port = serve()
    status, error = json_error(port, post(route, wire.encode(request(session))))
    assert status == 400 and "field 'session' must be a string" in error
    assert capfd.readouterr().err == ""


@pytest.mark.parametrize("length", ["\xb2", "-1", "+5", "1e3", "0x10", "5 5", ""])
def test_a_malformed_content_length_is_400(serve, capfd, length):
    port = serve()
    status, error = json_error(port, post("/act", b"{}", length=length))
    assert status == 400 and "Content-Length" in error
    assert capfd.readouterr().err == ""


@pytest.mark.parametrize("length", [str(2**40), str(10**20), "9" * 5000, "1001"])
def test_a_body_over_the_limit_is_413_before_it_is_read(serve, capfd, length):
    port = serve(max_body_bytes=1000)
    # No body follows: answering at all shows that the server did not wait to read it.
    status, error = json_error(port, post("/act", b"", length=length))
    assert status == 413 and "1000 bytes" in error
    assert capfd.readouterr().err == ""


def test_a_body_at_the_limit_is_read(serve):
    port = serve(max_body_bytes=1000)
    status, error = json_error(port, post("/act", b"[" + b" " * 998 + b"]"))
    assert status == 400 and error.startswith("Malformed request: body must be a JSON object")


def test_a_post_without_content_length_is_411(serve):
    port = serve()
    status, error = json_error(port, b"POST /act HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
    assert status == 411 and "Content-Length" in error


def test_a_body_that_ends_early_is_400(serve):
    port = serve()
    status, error = json_error(port, post("/act", b'{"a": 1}', length="100"), shut_write=True)
    assert status == 400 and "8 of 100 bytes" in error


def test_a_lying_content_length_is_answered_after_the_read_timeout_and_frees_the_thread(serve):
    port = serve(read_timeout_s=0.2)
    threads = threading.active_count()
    with socket.create_connection(("127.0.0.1", port), timeout=20) as liar:
        liar.sendall(post("/act", b'{"a": 1}', length="100"))  # and keeps the connection open
        data = b""
        while chunk := liar.recv(65536):  # the server answers, then closes its end
            data += chunk
        assert data.startswith(b"HTTP/1.0 408 ") and b"8 of 100 bytes" in data
        assert eventually(lambda: threading.active_count() <= threads)  # its handler thread ended
    status, _, body = exchange(port, b"GET /info HTTP/1.1\r\nHost: x\r\n\r\n")
    assert status == 200 and json.loads(body)["policy"] == "fake"


def test_a_silent_connection_is_closed_after_the_read_timeout(serve):
    port = serve(read_timeout_s=0.2)
    with socket.create_connection(("127.0.0.1", port), timeout=20) as silent:
        assert silent.recv(1) == b""  # closed by the server, not by the 20 s client timeout


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH", "OPTIONS"])
def test_other_methods_are_405_in_json(serve, method):
    port = serve()
    status, error = json_error(port, f"{method} /act HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert status == 405 and error == f"Method {method} not allowed for /act; use POST"


def test_an_unknown_method_is_501_in_json(serve):
    port = serve()
    status, error = json_error(port, b"BREW /act HTTP/1.1\r\nHost: x\r\n\r\n")
    assert status == 501 and "BREW" in error


@pytest.mark.parametrize("path, expected", [("/info", 200), ("/act", 405)])
def test_head_answers_the_headers_of_the_get(serve, path, expected):
    port = serve()
    status, headers, body = exchange(port, f"HEAD {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert status == expected and headers["content-type"] == "application/json" and body == b""


@pytest.mark.parametrize(
    "raw, expected",
    [
        (b"GARBAGE\r\n\r\n", 400),
        (b"GET /info HTTP/x.y\r\n\r\n", 400),
        (b"GET /info HTTP/2.0\r\n\r\n", 505),
        # Over-long lines end where the server stops reading, so that no unread data resets the connection.
        (b"GET /" + b"a" * 65532, 414),
        (b"GET /info HTTP/1.1\r\nX-Big: " + b"a" * 65530, 431),
    ],
)
def test_the_standard_librarys_own_errors_are_json(serve, capfd, raw, expected):
    port = serve()
    status, error = json_error(port, raw)
    assert status == expected and error
    assert capfd.readouterr().err == ""


def test_an_unexpected_failure_is_500_in_json_with_the_traceback_in_the_log(serve, capfd, monkeypatch):
    port = serve()

    def broken(method, path, body):
        raise RuntimeError("boom")

    monkeypatch.setattr(serve.servers[0], "handle", broken)
    status, error = json_error(port, b"GET /info HTTP/1.1\r\nHost: x\r\n\r\n")
    assert status == 500 and error.startswith("Internal server error: RuntimeError at ") and error.endswith(": boom")
    assert "Traceback (most recent call last)" in serve.logged[-1] and capfd.readouterr().err == ""


def test_a_connection_reset_mid_request_is_one_log_line(serve, capfd):
    port = serve()
    with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
        s.sendall(b"GET /info HTTP/1.1\r\nHost: x\r\n")  # headers not finished
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close with a reset
        client_port = s.getsockname()[1]
    assert eventually(lambda: serve.logged)  # once the server's read fails
    assert len(serve.logged) == 1
    assert serve.logged[0].startswith(f"connection from 127.0.0.1:{client_port} failed: ConnectionResetError: ")
    assert capfd.readouterr().err == ""


# -- what one client can hold: time, threads, memory ----------------------------------------------------------


def trickle(sock: socket.socket, data: bytes, every: float, stop: threading.Event) -> threading.Thread:
    """Send `data` a byte every `every` seconds (well inside any read timeout) until done, stopped or closed."""
    def run():
        for byte in data:
            if stop.wait(every):
                return
            try:
                sock.sendall(bytes([byte]))
            except OSError:
                return

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def read_all(sock: socket.socket) -> bytes:
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def test_a_body_that_trickles_in_is_answered_408_at_the_request_deadline(serve):
    port = serve(read_timeout_s=10, request_timeout_s=0.5)
    threads = threading.active_count()
    stop = threading.Event()
    with socket.create_connection(("127.0.0.1", port), timeout=20) as slow:
        slow.sendall(post("/act", b"", length="1000"))
        trickle(slow, b"x" * 1000, 0.05, stop)  # a byte every 50 ms: never 10 s of silence, 50 s in all
        started = time.monotonic()
        data = read_all(slow)
        stop.set()
    assert data.startswith(b"HTTP/1.0 408 ") and b"within the 0.5 s a request may take" in data
    assert time.monotonic() - started < 5  # the deadline, not the trickle's 50 s
    assert eventually(lambda: threading.active_count() <= threads)  # its thread is free again


def test_headers_that_trickle_in_are_cut_off_at_the_request_deadline(serve):
    port = serve(read_timeout_s=10, request_timeout_s=0.5)
    stop = threading.Event()
    with socket.create_connection(("127.0.0.1", port), timeout=20) as slow:
        trickle(slow, b"GET /info HTTP/1.1\r\n" + b"X-Pad: " + b"a" * 1000, 0.05, stop)
        started = time.monotonic()
        assert read_all(slow) == b""  # closed: a request that never finished its headers gets no answer
        stop.set()
    assert time.monotonic() - started < 5


def test_connections_beyond_the_cap_are_503_at_once_and_hold_no_thread(serve):
    port = serve(max_connections=2, read_timeout_s=30)
    threads = threading.active_count()
    idle = [socket.create_connection(("127.0.0.1", port), timeout=20) for _ in range(2)]
    try:
        assert eventually(lambda: threading.active_count() == threads + 2)  # one handler each, waiting for a request
        for _ in range(5):
            status, error = json_error(port, b"GET /info HTTP/1.1\r\nHost: x\r\n\r\n")
            assert status == 503 and "all 2 connections" in error and "--max-connections" in error
        assert threading.active_count() == threads + 2
    finally:
        for sock in idle:
            sock.close()
    assert eventually(lambda: threading.active_count() <= threads)
    status, _, body = exchange(port, b"GET /info HTTP/1.1\r\nHost: x\r\n\r\n")
    assert status == 200 and json.loads(body)["policy"] == "fake"


def test_a_body_beyond_the_buffer_budget_waits_then_is_503_and_the_budget_comes_back(serve):
    released = threading.Event()

    def slow_predict(request):  # holds its request's body (and its share of the budget) until released
        released.wait(20)
        return np.zeros((1, 36), np.float32)

    body = wire.encode(request("a"))
    port = serve(policy=make_policy(slow_predict), max_body_bytes=len(body), max_buffer_bytes=len(body) + 100,
                 request_timeout_s=1.0, allow_shared=True)
    answers = {}
    first = threading.Thread(target=lambda: answers.setdefault("first", exchange(port, post("/act", body))))
    first.start()
    assert eventually(lambda: serve.servers[0]._buffer.used == len(body))  # read whole, its predict waits
    # The second does not fit beside it (its body is never sent: the answer comes before any is read).
    status, error = json_error(port, post("/act", b"", length=str(len(body))))
    assert status == 503 and "--max-buffer-mb" in error and f"a body of {len(body)} bytes" in error
    released.set()
    first.join(20)
    assert answers["first"][0] == 200
    assert eventually(lambda: serve.servers[0]._buffer.used == 0)
    assert exchange(port, post("/act", body))[0] == 200  # the budget is whole again


def test_a_burst_of_clients_beyond_the_cap_is_answered_503_not_reset(serve):
    port = serve(max_connections=4)
    clients = 100
    start = threading.Barrier(clients, timeout=20)
    outcomes: list = []

    def client() -> None:
        try:
            start.wait()
            status, _, _ = exchange(port, b"GET /info HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            outcomes.append(status)
        except OSError as exc:  # ConnectionResetError above all: what a full listen backlog gives
            outcomes.append(type(exc).__name__)

    threads = [threading.Thread(target=client, daemon=True) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(outcomes) == clients
    assert set(outcomes) <= {200, 503}, {o: outcomes.count(o) for o in set(outcomes)}
