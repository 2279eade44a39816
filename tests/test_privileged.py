"""Simulator truth reaches only policies that declare themselves privileged, never over HTTP."""

from __future__ import annotations

import json
import textwrap

import pytest

from humanoidtoolbench.cli import eval as eval_cli
from humanoidtoolbench.policies.loader import load_policy

from conftest import tool_use_server

SPY = """
    import json, numpy as np
    {flag}
    SEEN = []

    def act(request):
        SEEN.append("privileged" in request)
        if "privileged" in request:
            objects = request["privileged"]["objects"]
            assert request["privileged"]["correct_tool"] == "tool" and "tool" in objects
        with open({log!r}, "a") as f:
            f.write(json.dumps(sorted(request)) + "\\n")
        row = np.zeros(36)
        row[:32] = np.asarray(request["state"]["states"])[0]
        return row[None, :]
"""


def spy(tmp_path, privileged: bool):
    log = tmp_path / "keys.jsonl"
    path = tmp_path / "spy.py"
    path.write_text(textwrap.dedent(SPY.format(flag="PRIVILEGED = True" if privileged else "", log=str(log))))
    return path, log


def keys_seen(log):
    return [json.loads(line) for line in log.read_text().splitlines()]


@pytest.mark.parametrize("privileged", [True, False])
def test_in_process_privileged_entry_only_when_declared(tmp_path, privileged):
    path, log = spy(tmp_path, privileged)
    out = tmp_path / "out"
    args = ["--policy", f"{path}:act", "--checkpoint", "x", "--episodes", "1", "--max-steps", "3", "--no-video", "--output", str(out)]
    assert eval_cli.main(args) == 0
    seen = keys_seen(log)
    assert len(seen) == 3
    assert all(("privileged" in keys) is privileged for keys in seen)
    result = json.loads(next(out.glob("*/run-*/benchmark_result.json")).read_text())
    assert result["policy_info"]["privileged"] is privileged
    assert ("the policy read privileged simulator state" in result["reasons"]) is privileged


def test_privileged_policy_behind_http_never_receives_simulator_state(tmp_path):
    path, log = spy(tmp_path, privileged=True)
    server = tool_use_server(load_policy(f"{path}:act"))
    port = server.start()
    try:
        args = ["--host", "127.0.0.1", "--port", str(port), "--episodes", "1", "--max-steps", "3", "--no-video",
                "--output", str(tmp_path / "out")]
        assert eval_cli.main(args) == 0
    finally:
        server.shutdown()
    assert keys_seen(log) and all("privileged" not in keys for keys in keys_seen(log))
