"""`htb-serve` reports bad input in one line and exits 2."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from humanoidtoolbench.cli import serve
from humanoidtoolbench.cli.serve import main
from humanoidtoolbench.suites.toolbench.suite import request
from humanoidtoolbench.suites.toolbench.registry import parse
from humanoidtoolbench.policies.http_client import HttpPolicyClient


def test_unloadable_policy_exits_2_with_one_line(capsys):
    assert main(["--policy", "htb_no_such_module:predict"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("htb-serve: cannot import policy module 'htb_no_such_module'")


def test_port_in_use_exits_2_with_one_line(capsys):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["--port", str(port), "--checkpoint", "ckpt"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"htb-serve: cannot listen on 127.0.0.1:{port}")


@pytest.mark.parametrize("port", ["65536", "-5"])
def test_port_out_of_range_exits_2_with_one_line(port, capsys):
    assert main(["--port", port, "--checkpoint", "ckpt"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--port must be between 0 (any free port) and 65535" in err


BAD_NUMBERS = ["0", "-1", "nan", "inf", "-inf", "1e-300", "1e300"]


@pytest.mark.parametrize(
    "flag", ["--max-body-mb", "--read-timeout-s", "--request-timeout-s", "--max-buffer-mb", "--max-connections"]
)
@pytest.mark.parametrize("value", BAD_NUMBERS + ["abc"])
def test_limits_outside_their_range_exit_2_with_one_line(flag, value, capsys):
    assert main([flag, value, "--checkpoint", "ckpt"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("htb-serve: ") and flag in err and "Traceback" not in err


def test_the_buffer_must_hold_a_largest_body(capsys):
    assert main(["--max-body-mb", "8", "--max-buffer-mb", "4", "--checkpoint", "c"]) == 2
    err = capsys.readouterr().err
    assert err == "htb-serve: --max-buffer-mb (4) must be at least --max-body-mb (8)\n"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--suite", "nope"], "htb-serve: unknown suite 'nope'"),
        (["--suite", "fiatlux", "--controller", "assisted"], "htb-serve: --controller assisted: the fiatlux suite's commands run on"),
        (["--suite", "fiatlux"], "htb-serve: name a --policy: MODULE:FUNCTION, path/to/file.py:FUNCTION or a built-in (zero, random, expert)"),
    ],
)
def test_a_suite_or_controller_that_cannot_serve_exits_2(argv, message, capsys):
    assert main([*argv, "--checkpoint", "c"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(message)


class Recorder:
    made: dict = {}

    def __init__(self, policy, **kwargs):
        Recorder.made = kwargs

    def serve_forever(self, host, port, ready=None):
        pass


def test_limits_reach_the_server(monkeypatch):
    monkeypatch.setattr(serve, "PolicyServer", Recorder)
    argv = ["--checkpoint", "c", "--max-body-mb", "0.5", "--read-timeout-s", "2.5", "--request-timeout-s", "30",
            "--max-connections", "3", "--max-buffer-mb", "1"]
    assert main(argv) == 0
    made = Recorder.made
    assert (made["max_body_bytes"], made["read_timeout_s"], made["request_timeout_s"]) == (2**19, 2.5, 30)
    assert (made["max_connections"], made["max_buffer_bytes"]) == (3, 2**20)
    assert main(["--checkpoint", "c"]) == 0
    made = Recorder.made
    assert made["max_body_bytes"] == 64 * 2**20 and made["read_timeout_s"] == 60 and made["request_timeout_s"] == 120
    assert made["max_connections"] == 16 and made["max_buffer_bytes"] == 256 * 2**20


@pytest.mark.parametrize(
    "argv, action, schema",
    [
        ([], "decoupled_v1", "toolbench_request_v1"),  # the default suite, as before --suite existed
        (["--suite", "fiatlux", "--policy", "zero"], "joint_position_v1", "fiatlux_request_v1"),
        (["--suite", "fiatlux", "--controller", "balanced", "--policy", "zero"], "decoupled_v1", "fiatlux_request_v1"),
        (["--suite", "findsit", "--policy", "random"], "discrete_skill_v1", "findsit_request_v1"),
    ],
)
def test_the_suite_picks_the_contract_and_the_request_schema(monkeypatch, argv, action, schema):
    monkeypatch.setattr(serve, "PolicyServer", Recorder)
    assert main([*argv, "--checkpoint", "c"]) == 0
    assert (Recorder.made["contract"].name, Recorder.made["schema"].name) == (action, schema)


# A model's own environment: NumPy and the standard library, none of the simulator's dependencies.
NUMPY_ONLY = """
import runpy, sys

class Missing:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"mujoco", "gymnasium", "av", "rich", "ray", "OpenGL"}:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

sys.meta_path.insert(0, Missing())
script = sys.argv[1]
sys.argv = [script, "--port", "0", "--checkpoint", "c"]
runpy.run_path(script, run_name="__main__")
"""


def test_the_example_server_runs_from_the_source_tree_with_numpy_alone():
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root / "src")}
    cmd = [sys.executable, "-c", NUMPY_ONLY, str(root / "examples" / "serve_policy.py")]
    server = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        first = server.stdout.readline()
        assert first.startswith("serving policy 'pose-hold'"), first + server.stderr.read()
        port = int(first.rsplit(":", 1)[1])
        client = HttpPolicyClient("127.0.0.1", port)
        assert client.preflight()["checkpoint"] == "c"
        blank = request(parse("G1BallMove-L0-S"), np.zeros((360, 640, 3), np.uint8), np.zeros(32, np.float32), True)
        assert client.act(blank).action.shape[1] == 36
        client.release()
    finally:
        server.terminate()
        server.wait(timeout=30)
