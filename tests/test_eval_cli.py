"""htb-eval end to end: policy sources, recordings, validated results, resume, `all`, bad input."""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from humanoidtoolbench.cli import eval as eval_cli
from humanoidtoolbench.eval.thread_pools import POOL_VARS
from humanoidtoolbench.eval.validation import validate_run
from humanoidtoolbench.policies.loader import load_policy

from conftest import tool_use_server

FAST = ["--episodes", "1", "--max-steps", "20"]


def results(out: Path, condition: str = "G1BallMove-L0-S") -> list[Path]:
    return sorted((out / condition).glob("run-*/benchmark_result.json"))


def runs(out: Path, condition: str = "G1BallMove-L0-S") -> list[Path]:
    return sorted((out / condition).glob("run-*"))


def write_policy(path: Path, body: str) -> Path:
    path.write_text(textwrap.dedent(body))
    return path


HOLD = """
    import numpy as np

    def act(request):
        state = np.asarray(request["state"]["states"], dtype=np.float64)[0]
        row = np.zeros(36)
        row[:32] = state
        return np.tile(row, (5, 1))
"""


STRICT = HOLD + """
    def strict(request):
        # Exactly the request of the public protocol, field by field.
        assert set(request) >= {"image", "state", "instruction", "history"}, sorted(request)
        assert list(request["image"]) == ["rgb_head_stereo_left"], list(request["image"])
        image = request["image"]["rgb_head_stereo_left"]
        assert image.shape == (360, 640, 3) and image.dtype == np.uint8 and image.any()
        states = request["state"]["states"]
        assert states.shape == (1, 32) and states.dtype == np.float32
        assert isinstance(request["instruction"], str) and request["instruction"]
        assert isinstance(request["history"].get("reset", False), bool)
        assert request["history"]["rgb_head_stereo_left"] == []
        return act(request)
"""


@pytest.fixture
def server():
    srv = tool_use_server(load_policy("humanoidtoolbench.policies.pose_hold:predict"))
    port = srv.start()
    yield port
    srv.shutdown()


def test_http_pose_holder_end_to_end(server, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    rc = eval_cli.main(["--host", "127.0.0.1", "--port", str(server), "--episodes", "1", "--max-steps", "100", "--output", "out"])
    assert rc == 0
    [result_path] = results(out)
    result = json.loads(result_path.read_text())
    assert result["status"] == "validated" and result["reportable"] is False
    assert result["policy_info"]["policy"] == "pose-hold" and result["policy_info"]["transport"] == "http"
    assert len(result["videos"]) == 4 and all(v["frames"] >= 2 for v in result["videos"])
    # Paths in the result are absolute even for a relative --output.
    assert Path(result["run_dir"]) == result_path.parent.resolve()
    for video in result["videos"]:
        path = Path(video["path"])
        assert path.is_absolute() and path.parent.parent.parent == result_path.parent.resolve()
        assert hashlib.sha256(path.read_bytes()).hexdigest() == video["sha256"]
    assert validate_run(result_path.parent) == []
    summary = json.loads((result_path.parent / "summaries" / "episode_10000.json").read_text())
    assert summary["step"] == 100 and summary["outcome"] == "timeout"
    assert len((result_path.parent / "metrics" / "episode_10000.jsonl").read_text().splitlines()) == 100


def test_the_request_has_the_public_field_names_in_process_and_over_http(tmp_path):
    policy = write_policy(tmp_path / "strict.py", STRICT)
    args = ["--checkpoint", "k", *FAST, "--no-video"]
    assert eval_cli.main(["--policy", f"{policy}:strict", *args, "--output", str(tmp_path / "local")]) == 0
    srv = tool_use_server(load_policy(f"{policy}:strict"))
    port = srv.start()
    try:
        assert eval_cli.main(["--host", "127.0.0.1", "--port", str(port), *FAST, "--no-video", "--output", str(tmp_path / "http")]) == 0
    finally:
        srv.shutdown()
    assert results(tmp_path / "local") and results(tmp_path / "http")


def test_in_process_policy_from_file_path(tmp_path):
    policy = write_policy(tmp_path / "my_adapter.py", HOLD)
    out = tmp_path / "out"
    assert eval_cli.main(["--policy", f"{policy}:act", "--checkpoint", "v1", *FAST, "--output", str(out)]) == 0
    result = json.loads(results(out)[0].read_text())
    assert result["policy_info"]["policy"] == "my_adapter:act"
    assert result["policy_info"]["checkpoint"] == "v1" and result["policy_info"]["chunk_size"] == 5
    assert result["reasons"] == ["1 episodes instead of 100", "20 steps instead of 3000"]
    assert result["controller"] == "balanced"  # the protocol's, when none is named


def test_resume_skips_identical_and_reruns_on_changed_checkpoint(tmp_path, capsys):
    policy = write_policy(tmp_path / "adapter.py", HOLD)
    out = tmp_path / "out"
    base = ["--policy", f"{policy}:act", *FAST, "--output", str(out), "--no-video"]
    assert eval_cli.main(base + ["--checkpoint", "a"]) == 0
    assert eval_cli.main(base + ["--checkpoint", "a"]) == 0
    assert "reusing validated result" in capsys.readouterr().err
    assert len(runs(out)) == 1
    assert eval_cli.main(base + ["--checkpoint", "b"]) == 0
    assert "evaluating again because policy checkpoint changed: 'a' -> 'b'" in capsys.readouterr().err
    assert len(runs(out)) == 2
    assert eval_cli.main(base + ["--checkpoint", "b", "--rerun"]) == 0
    assert len(runs(out)) == 3


def test_policy_without_checkpoint_is_never_skipped(tmp_path, capsys):
    policy = write_policy(tmp_path / "adapter.py", HOLD)
    out = tmp_path / "out"
    args = ["--policy", f"{policy}:act", *FAST, "--output", str(out), "--no-video"]
    assert eval_cli.main(args) == 0
    assert "no checkpoint identifier" in capsys.readouterr().err
    assert eval_cli.main(args) == 0
    assert len(results(out)) == 2
    assert "no checkpoint identifier" in json.loads(results(out)[0].read_text())["reasons"][-1]


def test_killed_run_is_completed_by_the_rerun_without_duplicates(tmp_path):
    policy = write_policy(tmp_path / "adapter.py", HOLD)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "humanoidtoolbench.cli.eval", "--policy", f"{policy}:act", "--checkpoint", "k",
           "--episodes", "3", "--max-steps", "40", "--output", str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not list(out.glob("*/run-*/summaries/episode_10000.json")):
        assert proc.poll() is None and time.monotonic() < deadline, "first episode never finished"
        time.sleep(0.05)
    proc.kill()
    proc.wait()
    [run] = runs(out)
    assert not (run / "benchmark_result.json").exists()
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "continuing interrupted run" in done.stderr
    assert runs(out) == [run]
    result = json.loads((run / "benchmark_result.json").read_text())
    assert [o["seed"] for o in result["outcomes"]] == [10000, 10001, 10002]
    assert sorted(p.name for p in (run / "summaries").iterdir()) == [f"episode_{s}.json" for s in (10000, 10001, 10002)]
    assert not list(run.rglob("*.partial"))
    assert validate_run(run) == []


def test_all_runs_every_condition_and_keeps_going_after_a_failure(tmp_path, capsys):
    policy = write_policy(
        tmp_path / "picky.py",
        HOLD
        + """
    def picky(request):
        if "ice" in request["instruction"]:
            raise RuntimeError("no ice please")
        return act(request)
    """,
    )
    out = tmp_path / "out"
    rc = eval_cli.main(["all", "--policy", f"{policy}:picky", "--checkpoint", "p", "--episodes", "1",
                        "--max-steps", "3", "--no-video", "--output", str(out)])
    err = capsys.readouterr().err
    assert rc == 1
    assert "[1/18] G1BallMove-L0-S" in err and "[18/18] G1IceBreak-L2-R" in err
    assert "Traceback" not in err
    assert "htb-eval: policy failed on G1IceBreak-L0-S seed 10000 at step 1 (request 0): RuntimeError at picky.py" in err
    assert err.count("no ice please") == 6
    summary = json.loads((out / "summary.json").read_text())
    assert len(summary["conditions"]) == 18 and summary["mean_success_rate"] is None and not summary["reportable"]
    failed = [r for r in summary["conditions"] if r["episodes"] is None]
    assert {r["env_id"].split("/")[1] for r in failed} == {f"G1IceBreak-L{l}-{m}" for l in (0, 1, 2) for m in "SR"}
    assert all(r["episodes"] == 1 for r in summary["conditions"] if r not in failed)
    assert (out / "summary.md").is_file()
    log = next((out / "G1IceBreak-L0-S").glob("run-*/eval_latest.log")).read_text()
    assert "no ice please" in log and "Traceback" in log


def test_dry_run_opens_no_socket_and_builds_no_simulator(monkeypatch, capsys):
    def forbidden(*a, **k):
        raise AssertionError("dry run must not do this")

    monkeypatch.setattr(socket.socket, "connect", forbidden)
    monkeypatch.setattr("humanoidtoolbench.suites.toolbench.episode.TaskEpisode.__init__", forbidden)
    monkeypatch.setattr("mujoco.MjModel.from_xml_path", forbidden)
    assert eval_cli.main(["all", "--host", "10.0.0.1", "--dry-run", "--episodes", "2"]) == 0
    out = capsys.readouterr().out
    assert "[18/18] humanoidtoolbench/G1IceBreak-L2-R" in out and "diagnostic: 2 episodes instead of 100" in out
    assert "3000 steps, the balanced controller," in out


def test_a_list_of_conditions_runs_each_in_order_and_summarises_them(tmp_path, capsys):
    out = tmp_path / "out"
    rc = eval_cli.main(["G1IceBreak-L0-S,G1BallMove-L1-S", "--policy", "zero", "--episodes", "1",
                        "--max-steps", "3", "--no-video", "--output", str(out)])
    err = capsys.readouterr().err
    assert rc == 0
    assert err.index("[1/2] G1IceBreak-L0-S") < err.index("[2/2] G1BallMove-L1-S")
    assert results(out, "G1IceBreak-L0-S") and results(out, "G1BallMove-L1-S")
    summary = json.loads((out / "summary.json").read_text())
    ran = {r["name"] for r in summary["conditions"] if r["episodes"] == 1}
    assert ran == {"G1IceBreak-L0-S", "G1BallMove-L1-S"}
    for row in summary["conditions"]:
        if row["result_path"]:  # relative to the summary, and pointing at the result
            assert json.loads((out / row["result_path"]).read_text())["env_id"] == row["env_id"]
    assert not summary["complete"] and summary["mean_success_rate"] is None


def test_list_envs(capsys):
    assert eval_cli.main(["--list-envs"]) == 0
    lines = capsys.readouterr().out.split()
    assert len(lines) == 18 + 14 + 2 and lines[0] == "humanoidtoolbench/G1BallMove-L0-S"
    assert lines[18] == "FIATLUX-S01-MoveLadder-v0" and lines[29] == "FIATLUX-S12-ClimbDown-v0"
    assert lines[30] == "FIATLUX-Replace-v0"  # the whole errand, listed after the subtasks it chains
    assert lines[31] == "FIATLUX-Climb-v0"  # the standalone climbing task
    assert lines[32:] == ["FINDSIT-val100", "FINDSIT-val"]


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["G1BallMov-L0-S", "--policy", "zero"], "did you mean G1BallMove-L0-S"),
        (["--max-steps", "0", "--policy", "zero"], "--max-steps must be between 1 and 3000"),
        (["--max-steps", "3001", "--policy", "zero"], "--max-steps must be between 1 and 3000"),
        (["S01,FIATLUX-Replace-v0", "--max-steps", "6001", "--policy", "zero"], "--max-steps must be between 1 and 6000"),
        (["--episodes", "0", "--policy", "zero"], "--episodes must be between 1 and 100000, got 0"),
        (["--episodes", "1000000000000", "--policy", "zero", "--dry-run"], "--episodes must be between 1 and 100000"),
        (["--episodes", "ten", "--policy", "zero", "--dry-run"], "argument --episodes: invalid int value: 'ten'"),
        (["--episodes", "9" * 5000, "--policy", "zero", "--dry-run"], "argument --episodes: invalid int value"),
        (["--seed-start", "-1", "--policy", "zero", "--dry-run"], "--seed-start must be between 0 and 2147483548 for 100 episodes"),
        (["--seed-start", "2147483600", "--policy", "zero", "--dry-run"], "--seed-start must be between 0 and 2147483548"),
        (["--seed-start", "2147483647", "--episodes", "2", "--policy", "zero", "--dry-run"], "between 0 and 2147483646"),
        (["--workers", "1025", "--policy", "zero", "--dry-run"], "--workers must be a number from 1 to 1024 or 'auto'"),
        (["--workers", "9" * 5000, "--policy", "zero", "--dry-run"], "--workers must be a number from 1 to 1024 or 'auto'"),
        (["--host", "127.0.0.1", "--port", "65536", "--dry-run"], "--port must be between 1 and 65535, got 65536"),
        (["--host", "127.0.0.1", "--port", "9" * 5000, "--dry-run"], "--port takes a port or a comma-separated list"),
        (["--policy", "", "--dry-run"], "--policy must not be empty"),
        (["--policy", "zero", "--checkpoint", "", "--dry-run"], "--checkpoint must not be empty"),
        (["--host", "", "--dry-run"], "--host must not be empty"),
        (["--host", " ", "--dry-run"], "--host must not be empty"),
        (["--host", "127.0.0.1", "--port", "", "--dry-run"], "--port must not be empty"),
        (["--policy", "zero", "--workers", "", "--dry-run"], "--workers must not be empty"),
        (["--policy", "zero", "--backend", "ray", "--ray-address", "", "--dry-run"], "--ray-address must not be empty"),
        (["--policy", "zero", "--no-such-flag", "--dry-run"], "unrecognized arguments: --no-such-flag"),
        (["--host", "127.0.0.1", "--policy-timeout", "0", "--dry-run"], "--policy-timeout must be more than 0 and at most 86400 seconds, got 0"),
        (["--host", "127.0.0.1", "--policy-timeout", "-1", "--dry-run"], "--policy-timeout must be more than 0 and at most 86400"),
        (["--host", "127.0.0.1", "--policy-timeout", "nan", "--dry-run"], "--policy-timeout must be more than 0 and at most 86400"),
        (["--host", "127.0.0.1", "--policy-timeout", "inf", "--dry-run"], "--policy-timeout must be more than 0 and at most 86400"),
        (["--host", "127.0.0.1", "--policy-timeout", "86401", "--dry-run"], "--policy-timeout must be more than 0 and at most 86400"),
        (["--host", "127.0.0.1", "--policy-timeout", "soon", "--dry-run"], "argument --policy-timeout: invalid float value: 'soon'"),
        (["--policy", "zero", "--policy-timeout", "60", "--dry-run"], "--policy-timeout goes with --host"),
        (["--policy", "no_such_module_xyz:predict"], "cannot import policy module"),
        (["--policy", "humanoidtoolbench.policies.pose_hold:nothing"], "has no function 'nothing'"),
        ([], "choose a policy"),
        (["--policy", "zero", "--host", "localhost"], "alternative policy sources"),
        (["--host", "127.0.0.1", "--port", "9"], "no policy server is listening"),
        (["--workers", "0", "--policy", "zero"], "--workers must be a number from 1 to 1024 or 'auto'"),
        (["--workers", "-2", "--policy", "zero"], "--workers must be a number from 1 to 1024 or 'auto'"),
        (["--workers", "two", "--policy", "zero"], "--workers must be a number from 1 to 1024 or 'auto'"),
        (["--workers", "\u00b2", "--policy", "zero"], "--workers must be a number from 1 to 1024 or 'auto'"),
        (["--policy", "zero", "--ray-address", "auto"], "--ray-address goes with --backend ray"),
        (["--host", "127.0.0.1", "--port", "9,10,11", "--workers", "2"], "give one port per worker"),
        (["--host", "127.0.0.1", "--port", "9,x"], "--port takes a port or a comma-separated list"),
        (["G1BallMove-L0-S,G1BallMov-L1-S", "--policy", "zero"], "did you mean G1BallMove-L1-S"),
        (["G1BallMove-L0-S,humanoidtoolbench/g1ballmove-l0-s", "--policy", "zero"], "a condition is named twice"),
        ([",", "--policy", "zero"], "name a condition"),
        (["--policy", "zero", "--controller", "servo", "--dry-run"], "the toolbench suite's commands run on assisted, balanced"),
        (["S01", "--policy", "zero", "--controller", "assisted", "--dry-run"], "the fiatlux suite's commands run on servo, balanced"),
        (["FINDSIT-val100", "--policy", "random", "--controller", "servo", "--dry-run"], "commands run on assisted, balanced"),
        (["FINDSIT-val100", "--policy", "random", "--seed-start", "99", "--episodes", "2", "--dry-run"],
         "FINDSIT-val100 has seeds 0..99"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, fragment, capsys, tmp_path):
    assert eval_cli.main(args + ["--output", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert fragment in err and "\n" not in err and "Traceback" not in err
    assert not any(tmp_path.iterdir())


def test_outcomes_identical_with_and_without_video(tmp_path):
    """Recording is observation only: the same seed gives the same steps, metrics and outcome."""
    policy = write_policy(
        tmp_path / "mover.py",
        """
        import numpy as np

        def act(request):
            state = np.asarray(request["state"]["states"], dtype=np.float64)[0]
            row = np.zeros(36)
            row[:32] = state
            row[14] -= 0.3   # swing the left shoulder forward
            row[32] = 0.2    # and walk
            return np.tile(row, (4, 1))
        """,
    )
    outs = {}
    for flag in ([], ["--no-video"]):
        out = tmp_path / ("novideo" if flag else "video")
        args = ["G1IceBreak-L1-R", "--policy", f"{policy}:act", "--checkpoint", "m", "--episodes", "1",
                "--max-steps", "40", "--output", str(out), *flag]
        assert eval_cli.main(args) == 0
        [run] = runs(out, "G1IceBreak-L1-R")
        summary = json.loads((run / "summaries" / "episode_10000.json").read_text())
        outs[bool(flag)] = ((run / "metrics" / "episode_10000.jsonl").read_bytes(), summary["outcome"], summary["step"],
                            summary["final_metrics"], len(summary["videos"]))
    assert outs[False][:4] == outs[True][:4]
    assert (outs[False][4], outs[True][4]) == (4, 0)


def test_the_recorded_state_at_each_request_is_the_state_the_policy_was_sent(tmp_path):
    """State slot 31 reports the last chunk's height: at a chunk's first row the record keeps the
    request's value, not the height of the chunk that request returned."""
    seen = tmp_path / "seen.npy"
    policy = write_policy(
        tmp_path / "heights.py",
        f"""
        import numpy as np

        sent = []

        def act(request):
            state = np.asarray(request["state"]["states"], dtype=np.float32)[0]
            sent.append(state)
            np.save({str(seen)!r}, np.array(sent))
            row = np.zeros(36)
            row[:31] = state[:31]
            row[31] = 0.70 if len(sent) % 2 else 0.74   # a new height every chunk
            return np.tile(row, (5, 1))
        """,
    )
    out = tmp_path / "out"
    assert eval_cli.main(["--policy", f"{policy}:act", "--checkpoint", "m", *FAST, "--no-video", "--output", str(out)]) == 0
    [run] = runs(out)
    states = np.load(run / "steps" / "episode_10000" / "state.npy")
    sent = np.load(seen)
    assert len(sent) == 4 and len(states) == 20
    assert np.array_equal(states[::5], sent)  # steps 1, 6, 11, 16 are the requests
    assert {round(float(h), 2) for h in sent[1:, 31]} == {0.70, 0.74}  # the check can tell the chunks apart
    assert np.allclose(states[1:5, 31], 0.70) and np.allclose(states[6:10, 31], 0.74)  # within a chunk: its height


@pytest.mark.parametrize("dry_run", [[], ["--dry-run"]])
def test_an_output_that_is_a_file_or_cannot_be_made_is_one_line_and_exit_2(tmp_path, capsys, dry_run):
    blocker = tmp_path / "results.txt"
    blocker.write_text("not a directory")
    for output, fragment in ((blocker, "--output must be a directory"), (blocker / "sub", "cannot create --output")):
        assert eval_cli.main(["--policy", "zero", *FAST, *dry_run, "--output", str(output)]) == 2
        err = capsys.readouterr().err.strip()
        assert fragment in err and "\n" not in err
    assert blocker.read_text() == "not a directory"


def test_an_empty_output_is_refused_rather_than_writing_into_the_current_directory(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert eval_cli.main(["--policy", "zero", *FAST, "--no-video", "--output", ""]) == 2
    assert capsys.readouterr().err.strip() == "htb-eval: --output must not be empty"
    assert not any(tmp_path.iterdir())


def test_a_dry_run_checks_a_new_output_but_does_not_create_it(tmp_path, capsys):
    output = tmp_path / "new" / "results"
    assert eval_cli.main(["--policy", "zero", "--dry-run", "--output", str(output)]) == 0
    assert f"output: {output}" in capsys.readouterr().out
    assert not any(tmp_path.iterdir())


POOLS = HOLD + """
    import json, os
    from pathlib import Path

    Path(__file__).with_suffix(".json").write_text(
        json.dumps({v: os.environ.get(v) for v in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")})
    )
"""


@pytest.mark.parametrize("workers, preset", [("1", None), ("2", None), ("1", "3")])
def test_math_thread_pools_are_bounded_before_the_policy_loads(tmp_path, monkeypatch, workers, preset):
    for var in POOL_VARS:
        monkeypatch.setenv(var, "placeholder")  # so that monkeypatch restores the variable afterwards
        monkeypatch.delenv(var)
    if preset:
        monkeypatch.setenv("OMP_NUM_THREADS", preset)
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    policy = write_policy(tmp_path / "pools.py", POOLS)
    args = ["--policy", f"{policy}:act", "--checkpoint", "k", *FAST, "--no-video", "--workers", workers]
    assert eval_cli.main([*args, "--output", str(tmp_path / "out")]) == 0
    seen = json.loads(policy.with_suffix(".json").read_text())
    share = str(min(4, 8 // int(workers)))
    assert seen == {"OMP_NUM_THREADS": preset or share, "MKL_NUM_THREADS": share, "OPENBLAS_NUM_THREADS": share}
