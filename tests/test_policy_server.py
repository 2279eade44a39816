"""The supplied policy server (request logic via `handle`, one real-socket round trip) and the HTTP client."""

from __future__ import annotations

import http.server
import socket
import threading
import urllib.request

import numpy as np
import pytest

from humanoidtoolbench.control.contracts import decoupled_v1 as contract
from humanoidtoolbench.policies import pose_hold, wire
from humanoidtoolbench.policies.errors import PolicyConnectionError, PolicyError
from humanoidtoolbench.policies.http_client import HttpPolicyClient
from humanoidtoolbench.policies.loader import LoadedPolicy, load_policy
from humanoidtoolbench.policies.request_schema import Array, Field, RequestSchema
from humanoidtoolbench.policies.server import PolicyServer

from conftest import tool_use_server


class FakeClock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def make_policy(predict=pose_hold.predict, **fields) -> LoadedPolicy:
    return LoadedPolicy(predict=predict, name="fake", source="test", file=None, adapter_sha256="0" * 64, **fields)


def request(session: str | None = "a", **extra) -> dict:
    r = {
        "image": {"rgb_head_stereo_left": np.zeros((360, 640, 3), np.uint8)},
        "instruction": "hold still",
        "history": {"reset": True},
        "state": {"states": np.full((1, contract.STATE_DIM), 0.5, np.float32)},
        **extra,
    }
    if session is not None:
        r["session"] = session
    return r


def act_with(server: PolicyServer, req: dict):
    return server.handle("POST", "/act", wire.encode(req))


def act(server: PolicyServer, session: str | None = "a", **extra):
    return act_with(server, request(session, **extra))


def release(server: PolicyServer, session: str):
    return server.handle("POST", "/release", wire.encode({"session": session}))


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def server(clock):
    return tool_use_server(make_policy(), checkpoint="ckpt-1", clock=clock, log=lambda message: None)


def test_act_returns_a_float32_chunk(server):
    status, body = act(server)
    assert status == 200 and body["action"].dtype == np.float32 and body["action"].shape == (10, 36)
    np.testing.assert_allclose(body["action"][:, 31], 0.5)
    np.testing.assert_array_equal(body["action"][:, 32:], 0)


def test_one_session_at_a_time_until_release_or_expiry(server, clock):
    assert act(server, "a")[0] == 200
    status, body = act(server, "b")
    assert status == 409 and "another evaluator (session a)" in body["error"] and "--port" in body["error"]
    assert release(server, "b") == (200, {"released": False})
    assert release(server, "a") == (200, {"released": True})
    assert act(server, "b")[0] == 200

    clock.now += 59
    assert act(server, None)[0] == 409  # a missing session is "anonymous"
    clock.now += 2
    assert server.handle("GET", "/info", None)[1]["server_state"]["active_session"] is None
    assert act(server, None)[0] == 200


def test_a_refusal_says_whether_the_other_session_is_idle_and_when_it_frees(clock):
    refusals = []

    def predict(req):
        if req["session"] == "crashed":
            refusals.append(act(server, "rerun")[1]["error"])
        return pose_hold.predict(req)

    server = tool_use_server(make_policy(predict), clock=clock, log=lambda message: None)
    assert act(server, "crashed")[0] == 200
    assert refusals == [
        "Policy server busy: another evaluator (session crashed) has a request in progress; "
        "start one server per evaluator on its own --port (or serve with --allow-shared)"
    ]
    clock.now += 12  # the evaluator died after its last answer
    assert act(server, "rerun") == (
        409,
        {
            "error": "Policy server busy: another evaluator (session crashed) has been idle for 12 s and frees in 48 s "
            "(or restart the server / serve with --allow-shared); "
            "to evaluate in parallel, start one server per evaluator on its own --port"
        },
    )
    assert server.handle("GET", "/info", None)[1]["server_state"]["frees_in_s"] == 48
    clock.now += 48
    assert act(server, "rerun")[0] == 200


def test_a_session_is_not_released_while_its_call_is_in_flight(clock):
    seen = {}

    def predict(req):
        seen["release"] = release(server, "a")
        seen["info"] = server.handle("GET", "/info", None)[1]["server_state"]
        clock.now += 3600  # a call in flight never expires
        seen["other"] = act(server, "b")[0]
        return pose_hold.predict(req)

    server = tool_use_server(make_policy(predict), clock=clock, log=lambda message: None)
    assert act(server, "a")[0] == 200
    assert seen["release"] == (200, {"released": False})
    assert seen["info"]["request_in_progress"] and seen["info"]["active_session"] == "a"
    assert seen["other"] == 409


def test_shared_server_accepts_several_sessions(clock):
    server = tool_use_server(make_policy(), allow_shared=True, clock=clock, log=lambda message: None)
    assert act(server, "a")[0] == 200 and act(server, "b")[0] == 200


@pytest.mark.parametrize("body", [b"{oops", b"[1, 2]", None])
def test_malformed_requests_are_400(server, body):
    status, reply = server.handle("POST", "/act", body)
    assert status == 400 and reply["error"].startswith("Malformed request")


STATES = "field 'state.states' must be a finite float array of shape (1, 32)"
RGB = "field 'image.rgb_head_stereo_left' must be a uint8 array of shape (H, W, 3)"


def with_states(states):
    return lambda r: r["state"].update(states=states)


def with_rgb(rgb):
    return lambda r: r["image"].update(rgb_head_stereo_left=rgb)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda r: r.pop("state"), "field 'state' is missing; it must be an object"),
        (lambda r: r.update(state=[0.5] * 32), "field 'state' must be an object; got a list"),
        (
            lambda r: r["state"].pop("states"),
            "field 'state.states' is missing; it must be a finite float array of shape (1, 32)",
        ),
        (with_states(np.zeros((1, 31), np.float32)), f"{STATES}; got shape (1, 31)"),
        (with_states(np.zeros(32, np.float32)), f"{STATES}; got shape (32,)"),
        (with_states(np.zeros((1, 32), np.int64)), f"{STATES}; got dtype int64"),
        (with_states([[0.0] * 32]), f"{STATES}; got a list"),
        (with_states(np.full((1, 32), np.inf)), f"{STATES}; got 32 NaN or infinite values (first at index (0, 0))"),
        (
            with_states(np.where(np.arange(32) == 5, np.nan, 0.0)[None]),
            f"{STATES}; got 1 NaN or infinite values (first at index (0, 5))",
        ),
        (lambda r: r.pop("image"), "field 'image' is missing; it must be an object"),
        (with_rgb(np.zeros((360, 640, 3), np.float32)), f"{RGB}; got dtype float32"),
        (with_rgb(np.zeros((360, 640, 4), np.uint8)), f"{RGB}; got shape (360, 640, 4)"),
        (with_rgb(np.zeros((0, 640, 3), np.uint8)), f"{RGB}; got shape (0, 640, 3)"),
        (with_rgb("base64 of a PNG"), f"{RGB}; got a string"),
        (lambda r: r.update(instruction=None), "field 'instruction' must be a string; got null"),
        (lambda r: r.update(instruction=["go"]), "field 'instruction' must be a string; got a list"),
        (lambda r: r.update(history=[]), "field 'history' must be an object; got a list"),
        (
            lambda r: r.update(session=np.arange(3)),
            "field 'session' must be a string; got an array of dtype int64 and shape (3,)",
        ),
        (lambda r: r.update(session=7), "field 'session' must be a string; got a number"),
    ],
)
def test_invalid_requests_are_400_naming_the_field_before_the_policy_is_called(clock, change, message):
    called = []
    server = tool_use_server(make_policy(lambda r: called.append(r)), clock=clock, log=lambda m: None)
    bad = request()
    change(bad)
    assert act_with(server, bad) == (400, {"error": f"Invalid request: {message}"})
    assert called == []


def test_extra_keys_are_allowed_anywhere(server):
    req = request(extra={"depth": np.zeros((2, 2))})
    req["image"]["rgb_head_stereo_right"] = np.zeros((2, 2), np.float32)
    req["state"]["velocities"] = [1, 2]
    req["history"]["rgb_head_stereo_left"] = []
    assert act_with(server, req)[0] == 200


def test_a_suite_passes_its_own_request_schema(clock):
    schema = RequestSchema("proprio_v1", (Field("proprio", Array("float", ("N",))),))
    server = PolicyServer(make_policy(lambda r: np.zeros((1, 36))), contract.DECOUPLED_V1, schema, clock=clock, log=lambda m: None)
    assert server.handle("GET", "/info", None)[1]["request_schema"] == "proprio_v1"
    assert act_with(server, {"proprio": np.zeros(7)})[0] == 200
    assert act_with(server, {"proprio": np.zeros((2, 7))}) == (
        400,
        {"error": "Invalid request: field 'proprio' must be a float array of shape (N,); got shape (2, 7)"},
    )
    # The session is checked whatever the schema: the server's own logic needs a string.
    assert act_with(server, {"proprio": np.zeros(7), "session": ["a"]})[1]["error"] == (
        "Invalid request: field 'session' must be a string; got a list"
    )


def test_release_needs_a_string_session(server):
    status, body = server.handle("POST", "/release", wire.encode({"session": {"id": "a"}}))
    assert status == 400 and body["error"] == "Invalid request: field 'session' must be a string; got an object"


def test_exception_names_the_users_file_and_line(tmp_path, clock):
    (tmp_path / "failing_policy.py").write_text("def predict(request):\n    raise ValueError('bad gripper')\n")
    logged = []
    policy = load_policy(f"{tmp_path / 'failing_policy.py'}:predict")
    server = tool_use_server(policy, clock=clock, log=logged.append)
    status, body = act(server)
    assert status == 500 and body == {"error": "ValueError at failing_policy.py:2 in predict: bad gripper"}
    assert "Traceback (most recent call last)" in logged[0]


@pytest.mark.parametrize(
    "returned, message",
    [
        (np.zeros((10, 35)), "Policy must return an array of shape (T, 36) with T >= 1; got shape (10, 35)"),
        (np.zeros(36), "Policy must return an array of shape (T, 36) with T >= 1; got shape (36,)"),
        (None, "Policy must return an array of shape (T, 36) with T >= 1; got NoneType"),
        (
            np.where(np.arange(4)[:, None] % 2 == 1, np.nan, np.zeros((4, 36))),
            "Policy returned NaN or infinite values in 2 of 4 rows (first row 1)",
        ),
    ],
)
def test_bad_returns_are_500_with_the_contract_message(clock, returned, message):
    server = tool_use_server(make_policy(lambda r: returned), clock=clock, log=lambda m: None)
    assert act(server) == (500, {"error": message})


def test_a_finite_value_beyond_float32_is_500_naming_it(clock):
    chunk = np.zeros((3, 36))
    chunk[1, 5], chunk[2, 7] = 1e39, -3.5e38  # finite in float64; float32 would send infinities
    server = tool_use_server(make_policy(lambda r: chunk), clock=clock, log=lambda m: None)
    assert act(server) == (500, {"error": (
        "Policy returned values beyond float32's range (|a| > 3.403e+38), which the server sends as float32: "
        "2 of 3 rows (first row 1) at slots [5, 7], e.g. 1e+39"
    )})
    chunk[1, 5], chunk[2, 7] = 3.4e38, -3.4e38  # within it: sent, finite
    status, body = act(server)
    assert status == 200 and np.isfinite(body["action"]).all() and body["action"][1, 5] == np.float32(3.4e38)


def test_the_action_goes_out_as_the_policy_returned_it_not_as_the_contract_expands_it(clock):
    from humanoidtoolbench.suites.findsit.contract import DISCRETE_SKILL_V1
    from humanoidtoolbench.suites.findsit.suite import REQUEST_SCHEMA as FINDSIT_REQUEST

    server = PolicyServer(make_policy(lambda r: np.array([[0, 0.4]])), DISCRETE_SKILL_V1, FINDSIT_REQUEST, clock=clock,
                          log=lambda m: None)
    req = request()
    req["image"] = {"rgb_ego": np.zeros((448, 448, 3), np.uint8)}
    status, body = act_with(server, req)
    assert status == 200 and body["action"].tolist() == [[0.0, 0.4000000059604645]]  # one decision, not its 25 rows
    assert server.handle("GET", "/info", None)[1]["action_schema"] == "discrete_skill_v1"


def test_info_and_unknown_paths(server, clock):
    status, info = server.handle("GET", "/info", None)
    assert status == 200
    keys = ("policy", "action_schema", "request_schema", "diagnostic", "checkpoint", "privileged")
    assert {k: info[k] for k in keys} == {
        "policy": "fake",
        "action_schema": "decoupled_v1",
        "request_schema": "toolbench_request_v1",
        "diagnostic": False,
        "checkpoint": "ckpt-1",
        "privileged": False,
    }
    assert info["adapter_sha256"] == "0" * 64
    assert info["server_state"] == {
        "exclusive": True,
        "active_session": None,
        "request_in_progress": False,
        "seconds_since_request": None,
        "frees_in_s": None,
    }
    act(server, "a")
    clock.now += 5
    state = server.handle("GET", "/info", None)[1]["server_state"]
    assert state["active_session"] == "a" and state["seconds_since_request"] == 5 and state["frees_in_s"] == 55
    assert server.handle("GET", "/nope", None)[0] == 404
    assert server.handle("GET", "/act", None)[0] == 405
    assert server.handle("GET", "http://[oops/info", None) == (
        400,
        {"error": "Malformed request: path 'http://[oops/info': Invalid IPv6 URL"},
    )


def test_privileged_entries_reach_only_privileged_policies(clock):
    received = []

    def predict(req):
        received.append("privileged" in req)
        return pose_hold.predict(req)

    for privileged in (False, True):
        server = tool_use_server(make_policy(predict, privileged=privileged), clock=clock, log=lambda m: None)
        act(server, privileged={"ball_xyz": [0, 0, 0]})
    assert received == [False, True]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def assert_refused(port: int, session: str) -> None:
    """Another evaluator's session is turned away, at pre-flight and at /act."""
    other = HttpPolicyClient("127.0.0.1", port, session=session)
    with pytest.raises(PolicyConnectionError, match="busy serving another evaluator"):
        other.preflight()
    with pytest.raises(PolicyError, match="HTTP 409"):
        other.act(request(None))


def test_http_round_trip_sessions_and_privilege():
    received = []

    def predict(req):
        received.append(req)
        return pose_hold.predict(req)

    server = tool_use_server(make_policy(predict, privileged=True), log=lambda m: None)
    port = server.start(port=0)
    try:
        first = HttpPolicyClient("127.0.0.1", port, session="first")
        assert first.url == f"http://127.0.0.1:{port}"
        assert first.preflight()["policy"] == "fake"
        chunk = first.act(request(None, privileged={"secret": 1})).action
        assert chunk.shape == (10, 36) and chunk.dtype == np.float32  # as sent; the evaluator's contract checks it
        assert received[0]["session"] == "first" and "privileged" not in received[0]

        assert_refused(port, "second")
        first.release()
        assert HttpPolicyClient("127.0.0.1", port, session="second").act(request(None)).action.shape == (10, 36)
    finally:
        server.shutdown()


def test_preflight_against_a_closed_port():
    client = HttpPolicyClient("127.0.0.1", free_port(), connect_timeout=1.0)
    with pytest.raises(PolicyConnectionError, match="no policy server is listening") as info:
        client.preflight()
    assert "htb-serve --policy" in str(info.value)


class _PostOnly(http.server.BaseHTTPRequestHandler):
    """A minimal custom server: answers /act and has no /info route (a GET gets 501)."""

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        body = wire.encode({"action": np.zeros((2, 36), np.float32)})
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.mark.parametrize("code", [None, 404, 405, 500])
def test_a_server_without_info_passes_the_preflight_but_a_failing_info_does_not(code):
    handler = type("Handler", (_PostOnly,), {})
    if code is not None:
        handler.do_GET = lambda self: self.send_error(code)
    httpd = http.server.HTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        client = HttpPolicyClient("127.0.0.1", httpd.server_address[1])
        if code == 500:
            with pytest.raises(PolicyConnectionError, match="answered GET /info with HTTP 500"):
                client.preflight()
        else:
            assert client.preflight() == {}
            assert client.act(request(None)).action.shape == (2, 36)
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_while_a_call_runs_info_answers_and_another_session_is_refused_at_once():
    entered, release, callers = threading.Event(), threading.Event(), []

    def slow(request):
        callers.append(threading.current_thread().name)
        entered.set()
        assert release.wait(60)
        return pose_hold.predict(request)

    srv = tool_use_server(make_policy(slow), log=lambda m: None)
    port = srv.start()
    try:
        first, answer = HttpPolicyClient("127.0.0.1", port, session="a"), {}
        call = threading.Thread(target=lambda: answer.setdefault("chunk", first.act(request(None))))
        call.start()
        assert entered.wait(60)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/info", timeout=10) as response:
            state = wire.decode(response.read())["server_state"]
        assert state["request_in_progress"] is True and state["active_session"] == "a"
        assert_refused(port, "b")
        release.set()
        call.join(60)
        assert answer["chunk"].action.shape == (10, 36)
        assert callers == ["policy-server"]  # the serving thread, never a request thread
    finally:
        release.set()
        srv.shutdown()


def test_reply_metadata_travels_beside_the_action():
    def predict(req):
        return {"action": np.zeros((3, 36)), "metadata": {"tokens": {"prompt": 11}, "latency_s": np.float32(0.5)}}

    server = tool_use_server(make_policy(predict), log=lambda m: None)
    port = server.start(port=0)
    try:
        reply = HttpPolicyClient("127.0.0.1", port).act(request(None))
        assert reply.action.shape == (3, 36) and reply.metadata == {"tokens": {"prompt": 11}, "latency_s": 0.5}
    finally:
        server.shutdown()
