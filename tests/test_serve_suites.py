"""`htb-serve --suite` serves any suite's policy, and `htb-eval` evaluates it over HTTP or refuses a server that
speaks another suite's language before any episode."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from humanoidtoolbench.cli import eval as eval_cli

SRC = Path(__file__).resolve().parents[1] / "src"


@contextlib.contextmanager
def served(*argv: str):
    """`htb-serve ARGV` on a free loopback port, in its own process; yields the port."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    cmd = [sys.executable, "-m", "humanoidtoolbench.cli.serve", "--port", "0", "--checkpoint", "c", *argv]
    server = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        first = server.stdout.readline()
        assert first.startswith("serving policy"), first + server.stderr.read()
        yield int(first.rsplit(":", 1)[1])
    finally:
        server.terminate()
        server.wait(timeout=30)


def evaluate(env: str, port: int, out: Path, *extra: str) -> int:
    return eval_cli.main(
        [env, "--host", "127.0.0.1", "--port", str(port), "--episodes", "1", "--no-video", "--output", str(out), *extra]
    )


def run_of(out: Path, condition: str) -> tuple[dict, Path]:
    [path] = out.glob(f"{condition}/run-*/benchmark_result.json")
    return json.loads(path.read_text()), path.parent


def test_a_fiatlux_policy_is_evaluated_over_http(tmp_path):
    with served("--suite", "fiatlux", "--policy", "zero") as port:
        assert evaluate("S03", port, tmp_path, "--max-steps", "5") == 0
    result, run = run_of(tmp_path, "FIATLUX-S03-RemoveOldBulb-v0")
    info = result["policy_info"]
    assert info["transport"] == "http" and info["action_schema"] == "joint_position_v1"
    assert info["server_info"]["request_schema"] == "fiatlux_request_v1" and info["policy"] == "zero"
    actions = np.load(run / "steps" / "episode_0" / "action.npy")
    assert actions.shape == (5, 43) and not actions.any()  # q0 held, row by row, as the server sent it
    assert (run / "bags" / "episode_0.h5").is_file()  # the suite's own bag, as in process


def test_a_find_navigate_sit_planner_is_evaluated_over_http(tmp_path):
    with served("--suite", "findsit", "--policy", "random") as port:
        assert evaluate("FINDSIT-val100", port, tmp_path, "--max-steps", "30") == 0
    result, run = run_of(tmp_path, "FINDSIT-val100")
    assert result["policy_info"]["action_schema"] == "discrete_skill_v1"
    calls = [json.loads(line) for line in (run / "policy" / "episode_0.jsonl").read_text().splitlines()]
    assert len(calls) == 2 and all("decision" in c["metadata"] for c in calls)  # the planner's record, over the wire
    rows = np.load(run / "steps" / "episode_0" / "action.npy")
    assert rows.shape == (30, 3) and (rows[:25, 2] == np.arange(25)).all()  # one decision expanded to 25 rows


def test_a_server_of_another_suite_is_refused_in_one_line(tmp_path, capsys):
    with served("--policy", "pose-hold") as port:  # the tool-use suite's language, htb-serve's default
        assert evaluate("S03", port, tmp_path, "--max-steps", "5") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith(
        f"htb-eval: the policy server at http://127.0.0.1:{port} serves decoupled_v1 with toolbench_request_v1, "
        "but the fiatlux suite on servo takes joint_position_v1 with fiatlux_request_v1; "
        "serve the policy with htb-serve --suite fiatlux --controller servo"
    )
    assert not any(tmp_path.rglob("benchmark_result.json"))
