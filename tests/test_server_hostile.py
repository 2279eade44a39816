"""The policy server over raw sockets: every request, however malformed, gets a JSON answer or a prompt close."""

from __future__ import annotations

import json
import socket

import numpy as np
import pytest

from humanoidtoolbench.policies import wire
from humanoidtoolbench.policies.server import PolicyServer

from test_policy_server import make_policy, request


@pytest.fixture
def serve():
    """Start servers on free ports (with the given constructor arguments); collects their log lines."""
    def start(**kwargs) -> int:
        server = PolicyServer(make_policy(), log=start.logged.append, **kwargs)
        start.servers.append(server)
        return server.start()

    start.servers, start.logged = [], []
    yield start
    for server in start.servers:
        server.shutdown()


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
