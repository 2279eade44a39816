"""openpi's websocket protocol both ways: openpi's own client against `htb-serve --protocol openpi`, and
`htb-eval --protocol openpi` against a small openpi-style server built on `websockets` and openpi-client's
encoder, including every way such a server fails. All servers listen on 127.0.0.1; every wait is bounded."""

from __future__ import annotations

import contextlib
import json
import threading
import time
import urllib.request
from pathlib import Path

import msgpack
import numpy as np
import pytest

from openpi_client import msgpack_numpy  # noqa: E402
from openpi_client.websocket_client_policy import WebsocketClientPolicy  # noqa: E402
from websockets.exceptions import ConnectionClosed, InvalidStatus  # noqa: E402
from websockets.sync.client import connect  # noqa: E402
from websockets.sync.server import serve  # noqa: E402

from humanoidtoolbench.cli import eval as eval_cli  # noqa: E402
from humanoidtoolbench.cli import serve as serve_cli  # noqa: E402
from humanoidtoolbench.control.contracts import decoupled_v1 as contract  # noqa: E402
from humanoidtoolbench.policies.errors import PolicyError  # noqa: E402
from humanoidtoolbench.policies.loader import load_policy  # noqa: E402
from humanoidtoolbench.policies.openpi_keys import KeysError  # noqa: E402
from humanoidtoolbench.policies.openpi_ws_client import OpenpiClient  # noqa: E402
from humanoidtoolbench.policies.openpi_ws_server import OpenpiServer  # noqa: E402
from humanoidtoolbench.suites.toolbench.registry import parse  # noqa: E402
from humanoidtoolbench.suites.toolbench.suite import REQUEST_SCHEMA, SUITE, request  # noqa: E402

# openpi-client 0.1.2 opens its connection in a way websockets 17 deprecates; its code, not ours.
pytestmark = pytest.mark.filterwarnings("ignore:connect\\(\\) must be used as a context manager:DeprecationWarning")
KEYS = SUITE.openpi_keys()
CONDITION = "G1BallMove-L0-S"
FAST = ["--episodes", "1", "--max-steps", "20", "--no-video"]


def a_request(state=None) -> dict:
    state = np.zeros(contract.STATE_DIM, np.float32) if state is None else state
    return request(parse(CONDITION), np.zeros((360, 640, 3), np.uint8), state, True)


@contextlib.contextmanager
def openpi_server(policy="humanoidtoolbench.policies.pose_hold:predict", **limits):
    """`htb-serve --protocol openpi`'s server for the tool-use suite, on a free port."""
    srv = OpenpiServer(load_policy(policy), contract.DECOUPLED_V1, REQUEST_SCHEMA, KEYS, log=lambda line: None, **limits)
    port = srv.start()
    try:
        yield port
    finally:
        srv.shutdown()


# -- openpi's client against our server ----------------------------------------------------------


def test_openpis_own_client_gets_valid_chunks_and_the_metadata_declares_the_contract():
    with openpi_server() as port:
        client = WebsocketClientPolicy("127.0.0.1", port)
        metadata = client.get_server_metadata()
        state = np.linspace(-0.5, 0.5, contract.STATE_DIM).astype(np.float32)
        reply = client.infer(KEYS.observation(a_request(state)))
        client._ws.close()
        assert urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5).status == 200
    assert (metadata["action_schema"], metadata["request_schema"], metadata["action_dim"]) == ("decoupled_v1", "toolbench_request_v1", 36)
    actions = reply["actions"]
    assert actions.shape == (10, 36) and actions.dtype == np.float32 and np.isfinite(actions).all()
    np.testing.assert_allclose(actions[0], contract.hold_action(state.astype(np.float64)), atol=1e-6)


def test_an_observation_that_breaks_the_request_schema_is_refused_in_one_line_before_the_policy():
    with openpi_server() as port:
        client = WebsocketClientPolicy("127.0.0.1", port)
        obs = KEYS.observation(a_request())
        obs["observation/state"] = np.zeros(5, np.float32)
        with pytest.raises(RuntimeError) as info:
            client.infer(obs)
    assert "Invalid request: field 'state.states' must be a finite float array of shape (1, 32); got shape (1, 5)" in str(info.value)


@pytest.mark.parametrize(
    "frame, message",
    [
        (b"\xc1", "Malformed request: not msgpack-numpy"),
        (msgpack_numpy.packb([1, 2]), "Malformed request: the observation must be a dict, not list"),
        # An object array would unpickle; NumPy refuses to build one from a buffer.
        (msgpack.packb({b"__ndarray__": True, b"data": b"\0" * 8, b"dtype": "|O", b"shape": (1,)}),
         "Malformed request: not msgpack-numpy: arrays of dtype object are not accepted"),
        ("text", "Malformed request: send each observation as a binary msgpack frame, not text"),
    ],
    ids=["not-msgpack", "not-a-dict", "object-array", "text"],
)
def test_hostile_frames_are_refused_in_one_line_and_the_connection_closed(frame, message):
    with openpi_server() as port, connect(f"ws://127.0.0.1:{port}", proxy=None) as ws:
        ws.recv(timeout=5)  # the metadata
        ws.send(frame)
        reply = ws.recv(timeout=5)
        with pytest.raises(ConnectionClosed) as info:
            ws.recv(timeout=5)
    assert isinstance(reply, str) and reply.startswith(message) and "\n" not in reply and info.value.rcvd.code == 1008


def test_a_policy_that_raises_sends_its_traceback_ending_in_the_one_line_description(tmp_path):
    (tmp_path / "bad.py").write_text("def predict(request):\n    raise RuntimeError('out of GPU memory')\n")
    with openpi_server(f"{tmp_path / 'bad.py'}:predict") as port:
        client = WebsocketClientPolicy("127.0.0.1", port)
        with pytest.raises(RuntimeError) as info:
            client.infer(KEYS.observation(a_request()))
    text = str(info.value)
    assert "Traceback" in text and text.splitlines()[-1] == "RuntimeError at bad.py:2 in predict: out of GPU memory"


def test_a_chunk_that_breaks_the_contract_is_an_error_frame(tmp_path):
    (tmp_path / "bad.py").write_text("import numpy as np\n\ndef predict(request):\n    return np.zeros((4, 7))\n")
    with openpi_server(f"{tmp_path / 'bad.py'}:predict") as port:
        client = WebsocketClientPolicy("127.0.0.1", port)
        with pytest.raises(RuntimeError, match=r"Policy must return an array of shape \(T, 36\) with T >= 1; got shape \(4, 7\)"):
            client.infer(KEYS.observation(a_request()))


def test_the_server_bounds_clients_like_the_http_server():
    with openpi_server(max_body_bytes=2**20, read_timeout_s=0.3) as port:
        first = WebsocketClientPolicy("127.0.0.1", port)
        # One evaluator at a time: a second is refused before the upgrade, in words.
        with pytest.raises(InvalidStatus) as refused:
            WebsocketClientPolicy("127.0.0.1", port)
        assert refused.value.response.status_code == 503 and b"another evaluator is connected" in refused.value.response.body
        # A message over the limit closes the connection (1009), unread.
        assert first.infer(KEYS.observation(a_request()))["actions"].shape == (10, 36)  # 691 kB: under the limit
        with pytest.raises(ConnectionClosed) as info:
            first.infer({"observation/image": np.zeros((2048, 1024), np.uint8)})
        assert info.value.rcvd.code == 1009
        # An idle client is closed after the read timeout, which frees the server.
        idle = connect_when_free(port)
        with pytest.raises(ConnectionClosed) as info:
            idle._ws.recv(timeout=5)
        assert "idle for 0.3 s" in info.value.rcvd.reason
        connect_when_free(port)._ws.close()


def connect_when_free(port: int) -> WebsocketClientPolicy:
    """openpi's client, once the server has seen the previous connection end (within 5 s)."""
    deadline = time.monotonic() + 5
    while True:
        try:
            return WebsocketClientPolicy("127.0.0.1", port)
        except InvalidStatus:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


# -- htb-eval against an openpi-style server -----------------------------------------------------


def hold(obs: dict, rows: int = 5) -> np.ndarray:
    return np.tile(contract.hold_action(np.asarray(obs["observation/state"], np.float64)), (rows, 1)).astype(np.float32)


class OpenpiStyleServer:
    """An openpi-style server in a few lines: metadata on connect, one reply per observation. `fail` picks a
    way to go wrong at request `at` (counted over the server's life): traceback, drop, object, key, shape, nan,
    silent."""

    def __init__(self, fail: str | None = None, at: int = 0, metadata: object = None) -> None:
        self.fail, self.at, self.requests, self.resets = fail, at, 0, 0
        self.metadata = {"policy": "hold", "checkpoint": "hold-v1"} if metadata is None else metadata
        self.release = threading.Event()

    def handler(self, ws) -> None:
        ws.send(msgpack_numpy.packb(self.metadata))
        try:
            for frame in ws:
                obs = msgpack_numpy.unpackb(frame)
                n, self.requests = self.requests, self.requests + 1
                self.resets += bool(obs.get("reset"))
                fail = self.fail if n >= self.at else None
                if fail == "traceback":
                    ws.send("Traceback (most recent call last):\n  File \"serve.py\", line 9, in infer\nValueError: bad prompt\n")
                    ws.close()
                    return
                if fail == "drop":
                    ws.socket.close()  # no close frame
                    return
                if fail == "object":  # an object array, which would be built from raw pointers
                    forged = {b"__ndarray__": True, b"data": b"\1" * 8, b"dtype": "|O", b"shape": (1,)}
                    ws.send(msgpack.packb({"actions": forged}))
                    continue
                if fail == "silent":
                    self.release.wait(10)
                    return
                actions = hold(obs)
                if fail == "shape":
                    actions = actions[:, :7]
                if fail == "nan":
                    actions[2, 3] = np.nan
                key = "action" if fail == "key" else "actions"
                ws.send(msgpack_numpy.packb({key: actions, "server_timing": {"infer_ms": 1.0}}))
        except ConnectionClosed:
            pass

    @contextlib.contextmanager
    def running(self):
        server = serve(self.handler, "127.0.0.1", 0, compression=None, max_size=None)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield server.socket.getsockname()[1]
        finally:
            self.release.set()
            server.shutdown()
            thread.join(10)


def run_eval(port: int, out: Path, *extra: str) -> int:
    return eval_cli.main(["--host", "127.0.0.1", "--port", str(port), "--protocol", "openpi", *extra, "--output", str(out)])


def test_htb_eval_scores_two_episodes_from_an_openpi_server(tmp_path, capsys):
    server = OpenpiStyleServer()
    with server.running() as port:
        assert run_eval(port, tmp_path / "out", "--episodes", "2", "--max-steps", "30", "--no-video") == 0
    [result] = (tmp_path / "out").glob(f"{CONDITION}/run-*/benchmark_result.json")
    data = json.loads(result.read_text())
    assert data["episodes"] == 2 and server.resets == 2 and server.requests == 12  # 30 steps in chunks of 5
    assert data["policy_info"]["transport"] == "openpi" and data["policy_info"]["url"] == f"ws://127.0.0.1:{port}"


def run_log(out: Path) -> Path:
    [log] = out.glob(f"{CONDITION}/run-*/eval_latest.log")
    return log


@pytest.mark.parametrize(
    "fail, message",
    [
        ("traceback", "the server sent an error: ValueError: bad prompt"),
        ("drop", "the connection dropped without a close frame"),
        ("object", "the reply is not msgpack-numpy: arrays of dtype object are not accepted (numbers, booleans and strings only)"),
        ("key", "the reply has no 'actions' (keys ['action', 'server_timing'])"),
        ("shape", "Policy must return an array of shape (T, 36) with T >= 1; got shape (5, 7)"),
        ("nan", "Policy returned NaN or infinite values in 1 of 5 rows (first row 2)"),
        ("silent", "no answer within 0.5 s (raise --policy-timeout if the model is this slow)"),
    ],
)
def test_each_way_an_openpi_server_fails_is_one_line_naming_condition_seed_step_and_request(tmp_path, capsys, fail, message):
    out = tmp_path / "out"
    with OpenpiStyleServer(fail, at=2).running() as port:
        assert run_eval(port, out, *FAST, "--policy-timeout", "0.5") == 1
    prefix = "" if fail in ("shape", "nan") else f"openpi server request failed at ws://127.0.0.1:{port}: "
    failure = f"policy failed on {CONDITION} seed 10000 at step 11 (request 2): {prefix}{message}"
    err = capsys.readouterr().err
    assert f"htb-eval: {failure} (details in {run_log(out)})" in err.splitlines()
    assert "Traceback" not in err and failure in run_log(out).read_text()


def test_a_failed_condition_resumes_where_it_stopped(tmp_path, capsys):
    out = tmp_path / "out"
    args = ("--episodes", "2", "--max-steps", "30", "--no-video", "--policy-timeout", "5")
    with OpenpiStyleServer("drop", at=6).running() as port:  # the second episode's first request
        assert run_eval(port, out, *args) == 1
    assert "seed 10001 at step 1 (request 0)" in capsys.readouterr().err
    server = OpenpiStyleServer()
    with server.running() as port:
        assert run_eval(port, out, *args) == 0
    assert server.resets == 1 and server.requests == 6  # only the lost episode ran again


def test_the_client_reconnects_after_a_failure_and_never_takes_a_late_reply_for_the_next():
    server = OpenpiStyleServer("silent", at=0)
    with server.running() as port:
        client = OpenpiClient("127.0.0.1", port, KEYS, timeout=0.3)
        client.preflight()
        with pytest.raises(PolicyError, match="no answer within 0.3 s"):
            client.act(a_request())
        server.fail = None
        assert client.act(a_request()).action.shape == (5, 36)
        client.close()


@pytest.mark.parametrize(
    "metadata, message",
    [
        ({"action_dim": 7}, "answers actions of width 7, but the toolbench suite on balanced takes 36 (decoupled_v1)"),
        ({"action_schema": "joint_position_v1"}, "serves joint_position_v1, but the toolbench suite on balanced takes decoupled_v1"),
        ({"observation_keys": {"keys": {}, "actions": "actions"}}, "reads observation keys"),
        (["not", "a", "dict"], "sent metadata that is not a dict but list"),
    ],
    ids=["width", "schema", "keys", "not-a-dict"],
)
def test_the_preflight_refuses_metadata_that_does_not_fit_the_suite_in_one_line(tmp_path, capsys, metadata, message):
    server = OpenpiStyleServer(metadata=metadata)
    with server.running() as port:
        assert run_eval(port, tmp_path / "out", *FAST) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("htb-eval: ") and message in line and server.requests == 0


def test_metadata_holding_arrays_is_recorded_as_json():
    server = OpenpiStyleServer(metadata={"policy": "hold", "norm_stats": {"mean": np.arange(3.0)}, "blob": b"\x01"})
    with server.running() as port:
        client = OpenpiClient("127.0.0.1", port, KEYS)
        assert client.preflight() == {"policy": "hold", "norm_stats": {"mean": [0.0, 1.0, 2.0]}, "blob": "01"}
        client.close()


def test_nothing_listening_is_one_line(tmp_path, capsys):
    with OpenpiStyleServer().running() as port:
        pass
    assert run_eval(port, tmp_path / "out", *FAST) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith(f"htb-eval: no openpi policy server is listening at ws://127.0.0.1:{port}")


# -- the key table -------------------------------------------------------------------------------


def test_a_protocol_map_renames_keys_and_both_directions_agree(tmp_path):
    keys = KEYS.overridden(json.dumps({"keys": {"image.rgb_head_stereo_left": "observation/exterior_image_1_left",
                                                "instruction": "task"}, "actions": "action"}), "map")
    obs = keys.observation(a_request())
    assert sorted(obs) == ["observation/exterior_image_1_left", "observation/state", "reset", "task"]
    assert obs["observation/state"].shape == (32,) and keys.actions == "action"
    back = keys.request(obs)
    assert REQUEST_SCHEMA.problem(back) is None and back["state"]["states"].shape == (1, 32)


@pytest.mark.parametrize(
    "text, message",
    [
        ("{", "map: not valid JSON"),
        ('{"keys": {"image.nope": "x"}}', "map: unknown request path 'image.nope'; this suite sends"),
        ('{"keys": {"instruction": "reset"}}', "map: two request paths travel under the same observation key"),
        ('{"actions": 3}', "map: \"actions\" must be the reply's action key"),
    ],
)
def test_a_bad_protocol_map_is_one_line(text, message):
    with pytest.raises(KeysError) as info:
        KEYS.overridden(text, "map")
    assert str(info.value).startswith(message) and "\n" not in str(info.value)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--host", "127.0.0.1", "--protocol-map", "m.json"], "htb-eval: --protocol-map goes with --protocol openpi"),
        (["--policy", "zero", "--protocol", "openpi"], "htb-eval: --protocol openpi goes with --host: it names what a policy server speaks"),
        (["--host", "127.0.0.1", "--protocol", "openpi", "--protocol-map", "/nonexistent.json"], "htb-eval: --protocol-map /nonexistent.json: No such file or directory"),
    ],
)
def test_protocol_flags_are_checked_before_anything_runs(argv, message, capsys):
    assert eval_cli.main([*argv, "--dry-run"]) == 2
    assert capsys.readouterr().err.strip() == message


def test_a_dry_run_names_the_websocket_server(capsys):
    assert eval_cli.main(["--host", "10.0.0.1", "--port", "8000", "--protocol", "openpi", "--dry-run"]) == 0
    assert "policy source: server ws://10.0.0.1:8000 (not loaded or contacted in a dry run)" in capsys.readouterr().out.splitlines()


def test_htb_serve_protocol_openpi_serves_a_built_in_for_openpis_client(monkeypatch):
    served = {}

    def serve_forever(self, host, port, ready=None):
        served.update(server=self, host=host, port=port)

    monkeypatch.setattr(OpenpiServer, "serve_forever", serve_forever)
    assert serve_cli.main(["--protocol", "openpi", "--policy", "zero", "--max-connections", "3", "--read-timeout-s", "5"]) == 0
    srv = served["server"]
    assert isinstance(srv, OpenpiServer) and srv.read_timeout_s == 5 and srv.max_connections == 1  # exclusive
    assert srv.metadata()["policy"] == "zero" and srv.keys == KEYS
