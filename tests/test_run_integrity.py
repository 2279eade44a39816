"""Scores you can trust under abuse: one writer per run directory, files re-checked before reuse, damaged
episodes named and redone, and a policy server's refusal that says when it frees."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from humanoidtoolbench.cli import eval as eval_cli
from humanoidtoolbench.eval import rundir
from humanoidtoolbench.eval.rundir import RunDir
from humanoidtoolbench.eval.validation import validate_run
from humanoidtoolbench.policies import pose_hold
from humanoidtoolbench.policies.errors import PolicyConnectionError
from humanoidtoolbench.policies.http_client import HttpPolicyClient
from humanoidtoolbench.policies.loader import LoadedPolicy

from conftest import tool_use_server

CONDITION = "G1BallMove-L0-S"
FAST = ["--episodes", "2", "--max-steps", "20"]

# Holds the home pose; while HTB_TEST_GATE names a file that does not exist yet, the first call
# marks `entered` beside it and waits for it, so a test can hold an evaluator inside its run.
GATED = """
    import os
    import time
    from pathlib import Path

    import numpy as np

    def act(request):
        gate = os.environ.get("HTB_TEST_GATE")
        if gate:
            (Path(gate).parent / "entered").touch()
            deadline = time.monotonic() + 120
            while not Path(gate).exists() and time.monotonic() < deadline:
                time.sleep(0.02)
        state = np.asarray(request["state"]["states"], dtype=np.float64)[0]
        row = np.zeros(36)
        row[:32] = state
        return np.tile(row, (5, 1))
"""


def runs(out: Path) -> list[Path]:
    return sorted((out / CONDITION).glob("run-*"))


def digests(run: Path, seed: int) -> dict[str, str]:
    """SHA-256 of every file of one episode, by run-relative path."""
    files = [run / "summaries" / f"episode_{seed}.json", run / "metrics" / f"episode_{seed}.jsonl",
             run / "policy" / f"episode_{seed}.jsonl", *(run / "steps" / f"episode_{seed}").glob("*"),
             *(run / "videos" / f"episode_{seed}").glob("*")]
    return {p.relative_to(run).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


def evaluate(out: Path, *extra: str) -> int:
    return eval_cli.main([CONDITION, "--policy", "pose-hold", "--checkpoint", "k", *FAST, "--output", str(out), *extra])


def lines_with(text: str, fragment: str) -> list[str]:
    return [line for line in text.splitlines() if fragment in line]


# -- 1. one writer per run directory -----------------------------------------------------------


def gated_command(tmp_path: Path, out: Path) -> list[str]:
    policy = tmp_path / "gated.py"
    policy.write_text(textwrap.dedent(GATED))
    return [sys.executable, "-m", "humanoidtoolbench.cli.eval", CONDITION, "--policy", f"{policy}:act",
            "--checkpoint", "k", *FAST, "--no-video", "--output", str(out)]


def start_gated(tmp_path: Path, cmd: list[str]) -> subprocess.Popen:
    """An evaluator held inside the first episode of its run (after its configuration is written)."""
    env = {**os.environ, "HTB_TEST_GATE": str(tmp_path / "gate")}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not (tmp_path / "entered").exists():
        assert proc.poll() is None and time.monotonic() < deadline, "the gated evaluator never called its policy"
        time.sleep(0.05)
    return proc


def test_a_second_evaluator_starts_its_own_run_while_the_first_writes(tmp_path, capsys):
    out = tmp_path / "out"
    cmd = gated_command(tmp_path, out)
    first = start_gated(tmp_path, cmd)
    try:
        [run] = runs(out)
        assert eval_cli.main(cmd[3:]) == 0  # the same command, in this process
        err = capsys.readouterr().err
        message = f"run {run} is being written by pid {first.pid} on host {socket.gethostname()}; starting a new run"
        assert len(lines_with(err, message)) == 1, err
        assert "continuing interrupted run" not in err
        [mine] = [r for r in runs(out) if r != run]
        assert validate_run(mine) == [] and (mine / "benchmark_result.json").is_file()
        (tmp_path / "gate").touch()
        _, first_err = first.communicate(timeout=300)
    finally:
        first.kill()
    assert first.returncode == 0, first_err
    assert validate_run(run) == []  # every metrics file has its lines: nobody else wrote there
    assert json.loads((run / "benchmark_result.json").read_text())["run_dir"] == str(run.resolve())
    assert not list(out.rglob("run.lock")), "a lock outlived its evaluator"


def test_the_run_of_a_killed_evaluator_is_taken_over(tmp_path, capsys):
    out = tmp_path / "out"
    cmd = gated_command(tmp_path, out)
    first = start_gated(tmp_path, cmd)
    first.send_signal(signal.SIGKILL)
    first.communicate(timeout=60)
    [run] = runs(out)
    assert json.loads((run / "run.lock").read_text())["pid"] == first.pid  # left behind, nobody holds it
    assert eval_cli.main(cmd[3:]) == 0
    err = capsys.readouterr().err
    assert f"continuing interrupted run {run}" in err and "being written by" not in err
    assert runs(out) == [run] and validate_run(run) == []
    assert not (run / "run.lock").exists()


def test_a_run_lock_names_its_holder_is_released_and_a_dead_holder_is_stale(tmp_path):
    run = RunDir(tmp_path)
    with run.lock():
        holder = json.loads((tmp_path / "run.lock").read_text())
        assert (holder["pid"], holder["host"]) == (os.getpid(), socket.gethostname())
        with pytest.raises(rundir.RunLocked) as locked:
            with run.lock():
                pass
        assert str(locked.value) == f"run {tmp_path} is being written by pid {os.getpid()} on host {socket.gethostname()}"
    assert not (tmp_path / "run.lock").exists()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (tmp_path / "run.lock").write_text(json.dumps({"pid": dead.pid, "host": socket.gethostname(), "started": "x"}))
    with run.lock():
        assert json.loads((tmp_path / "run.lock").read_text())["pid"] == os.getpid()


def test_a_run_held_by_this_process_is_not_written_by_a_second_evaluation(tmp_path, capsys):
    out = tmp_path / "out"
    assert evaluate(out, "--no-video") == 0
    [run] = runs(out)
    (run / "benchmark_result.json").unlink()  # an unfinished run, as if its evaluator were still validating
    before = {seed: digests(run, seed) for seed in (10000, 10001)}
    with RunDir(run).lock():
        assert evaluate(out, "--no-video") == 0
    err = capsys.readouterr().err
    assert len(lines_with(err, f"run {run} is being written by pid {os.getpid()}")) == 1, err
    assert {seed: digests(run, seed) for seed in (10000, 10001)} == before
    assert not (run / "benchmark_result.json").exists() and len(runs(out)) == 2


# -- 2. a finished result is re-checked before it is reused ------------------------------------


@pytest.mark.parametrize("damage", ["video deleted", "summary truncated"])
def test_a_damaged_finished_result_is_named_and_its_episode_redone(tmp_path, capsys, damage):
    out = tmp_path / "out"
    video = [] if damage == "video deleted" else ["--no-video"]
    assert evaluate(out, *video) == 0
    [run] = runs(out)
    healthy = digests(run, 10000)
    if damage == "video deleted":
        damaged = "videos/episode_10001/wrist_left.mp4"
        (run / damaged).unlink()
    else:
        damaged = "summaries/episode_10001.json"
        (run / damaged).write_bytes((run / damaged).read_bytes()[:40])
    capsys.readouterr()
    assert evaluate(out, *video) == 0
    err = capsys.readouterr().err
    assert "reusing validated result" not in err
    [line] = lines_with(err, damaged)
    assert str(run) in line and "redoing seed 10001" in line
    assert runs(out) == [run] and validate_run(run) == []
    assert digests(run, 10000) == healthy
    assert (run / damaged).is_file()
    result = json.loads((run / "benchmark_result.json").read_text())
    assert result["status"] == "validated" and [o["seed"] for o in result["outcomes"]] == [10000, 10001]
    assert evaluate(out, *video) == 0
    assert "reusing validated result" in capsys.readouterr().err


# -- 3. a damaged episode of an unfinished run is named and redone -----------------------------


@pytest.mark.parametrize("damage", ["summaries/episode_10000.json", "metrics/episode_10000.jsonl"])
def test_a_damaged_episode_of_an_unfinished_run_is_named_and_redone(tmp_path, capsys, damage):
    out = tmp_path / "out"
    assert evaluate(out, "--no-video") == 0
    [run] = runs(out)
    (run / "benchmark_result.json").unlink()  # interrupted before its result was written
    healthy = digests(run, 10001)
    if damage.startswith("summaries"):
        (run / damage).write_text('{"schema_version": 1, "env_id": ')
    else:
        (run / damage).unlink()
    capsys.readouterr()
    assert evaluate(out, "--no-video") == 0
    err = capsys.readouterr().err
    [line] = lines_with(err, damage)
    assert str(run) in line and "redoing seed 10000" in line
    assert runs(out) == [run] and validate_run(run) == []
    assert digests(run, 10001) == healthy
    assert json.loads((run / "benchmark_result.json").read_text())["status"] == "validated"


# -- 4. an unreadable result is a damaged finished result --------------------------------------


def test_a_truncated_result_is_named_and_written_again_in_the_same_run(tmp_path, capsys):
    out = tmp_path / "out"
    assert evaluate(out, "--no-video") == 0
    [run] = runs(out)
    episodes = {seed: digests(run, seed) for seed in (10000, 10001)}
    result = run / "benchmark_result.json"
    result.write_bytes(result.read_bytes()[:100])
    capsys.readouterr()
    assert evaluate(out, "--no-video") == 0
    err = capsys.readouterr().err
    [line] = lines_with(err, "unreadable")
    assert f"{run / 'benchmark_result.json'}" in line and "cannot be reused" in line
    assert runs(out) == [run]
    assert {seed: digests(run, seed) for seed in (10000, 10001)} == episodes  # nothing needed redoing
    assert json.loads(result.read_text())["status"] == "validated"


# -- 6. the policy server's refusal says when it frees ------------------------------------------


class FakeClock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_preflight_refusal_says_how_long_the_other_session_idles_and_when_the_server_frees():
    clock, entered, release = FakeClock(), threading.Event(), threading.Event()

    def predict(request):
        if request.get("instruction") == "block":
            entered.set()
            assert release.wait(60)
        return pose_hold.predict(request)

    policy = LoadedPolicy(predict=predict, name="fake", source="test", file=None, adapter_sha256="0" * 64)
    server = tool_use_server(policy, clock=clock, session_timeout_s=60.0, log=lambda m: None)
    port = server.start(port=0)
    crashed, other = HttpPolicyClient("127.0.0.1", port, session="crashed"), HttpPolicyClient("127.0.0.1", port)
    request = {"image": {"rgb_head_stereo_left": np.zeros((360, 640, 3), np.uint8)},
               "instruction": "hold", "history": {"reset": True},
               "state": {"states": np.zeros((1, 32), np.float32)}}
    try:
        crashed.act(request)
        clock.now += 25
        with pytest.raises(PolicyConnectionError) as idle:
            other.preflight()
        message = str(idle.value)
        assert "session crashed" in message and "idle for 25 s" in message and "frees in 35 s" in message
        assert "htb-serve --allow-shared" in message and "one server per evaluator" in message
        assert "\n" not in message

        call = threading.Thread(target=crashed.act, args=({**request, "instruction": "block"},))
        call.start()
        assert entered.wait(60)
        with pytest.raises(PolicyConnectionError) as busy:
            other.preflight()
        message = str(busy.value)
        assert "request in progress" in message and "idle" not in message
        assert "htb-serve --allow-shared" in message and "one server per evaluator" in message
        release.set()
        call.join(60)
    finally:
        release.set()
        server.shutdown()
