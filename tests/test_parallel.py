"""htb-eval --workers: the same results as a serial run, crash safety, HTTP servers per worker."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from humanoidtoolbench.cli import eval as eval_cli
from humanoidtoolbench.eval.validation import validate_run
from humanoidtoolbench.policies.loader import load_policy

from conftest import tool_use_server

from test_eval_cli import HOLD, write_policy

SHORT = ["--episodes", "3", "--max-steps", "30"]
TIMING = ("episode_seconds", "seconds")


def run_dir(out: Path) -> Path:
    [run] = sorted((out / "G1BallMove-L0-S").glob("run-*"))
    return run


def files(run: Path) -> dict[str, str]:
    """SHA-256 of every metrics file and video, by path in the run."""
    paths = [*run.glob("metrics/*.jsonl"), *run.glob("videos/*/*.mp4"), *run.glob("steps/*/*.npy")]
    return {p.relative_to(run).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}


def summaries(run: Path) -> dict[str, dict]:
    out = {}
    for p in sorted(run.glob("summaries/*.json")):
        s = json.loads(p.read_text())
        out[p.name] = {k: v for k, v in s.items() if k not in TIMING}
        # Policy calls record their latency; everything else an episode wrote is the same bytes.
        out[p.name]["files"] = {f: h for f, h in s["files"].items() if not f.startswith("policy/")}
    return out


def test_two_workers_match_a_serial_run_and_results_are_reused_across_worker_counts(tmp_path, capsys):
    base = ["--policy", "pose-hold", *SHORT]
    assert eval_cli.main([*base, "--output", str(tmp_path / "serial")]) == 0
    assert eval_cli.main([*base, "--workers", "2", "--output", str(tmp_path / "parallel")]) == 0
    serial, parallel = run_dir(tmp_path / "serial"), run_dir(tmp_path / "parallel")
    assert len(files(serial)) == 3 + 3 * 4 + 3 * 2
    assert files(parallel) == files(serial)
    assert summaries(parallel) == summaries(serial)
    result = json.loads((parallel / "benchmark_result.json").read_text())
    assert result["status"] == "validated"
    assert result["execution"]["backend"] == "local" and result["execution"]["workers"] == 2
    assert json.loads((serial / "benchmark_result.json").read_text())["execution"]["workers"] == 1
    capsys.readouterr()
    assert eval_cli.main([*base, "--output", str(tmp_path / "parallel")]) == 0
    assert "reusing validated result" in capsys.readouterr().err


KILLER = HOLD + """
    import os, signal
    from pathlib import Path

    MARKER = Path(__file__).with_name("killed-once")

    def act_or_die(request):
        # Kill this worker in the middle of seed 10001, once.
        if request["humanoidtoolbench_episode_seed"] == 10001 and request["humanoidtoolbench_request_index"] == 2:
            if not MARKER.exists():
                MARKER.touch()
                os.kill(os.getpid(), signal.SIGKILL)
        return act(request)
"""


def test_a_killed_worker_loses_only_its_episode_and_the_rerun_completes_it(tmp_path, capsys):
    policy = write_policy(tmp_path / "killer.py", KILLER)
    out = tmp_path / "out"
    args = ["--policy", f"{policy}:act_or_die", "--checkpoint", "k", *SHORT, "--workers", "2", "--output", str(out)]
    assert eval_cli.main(args) == 1
    err = capsys.readouterr().err
    run = run_dir(out)
    # One line naming the seed and the log; the traceback is in the run's log, not on the terminal.
    assert "Traceback" not in err, err
    [line] = [x for x in err.splitlines() if "FAILED" in x]
    assert "died while running seed 10001" in line and str(run / "eval_latest.log") in line
    log = (run / "eval_latest.log").read_text()
    assert "Traceback" in log and "WorkerLost: worker" in log
    assert sorted(p.name for p in (run / "summaries").iterdir()) == ["episode_10000.json", "episode_10002.json"]
    assert not (run / "benchmark_result.json").exists()

    assert eval_cli.main(args) == 0
    assert "continuing interrupted run" in capsys.readouterr().err
    assert run_dir(out) == run
    result = json.loads((run / "benchmark_result.json").read_text())
    assert [o["seed"] for o in result["outcomes"]] == [10000, 10001, 10002]
    assert len(list((run / "summaries").iterdir())) == 3
    assert not list(run.rglob("*.partial"))
    assert validate_run(run) == []


def test_workers_of_a_killed_evaluator_exit_quietly(tmp_path):
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "humanoidtoolbench.cli.eval", "--policy", "pose-hold", "--episodes", "4",
           "--max-steps", "3000", "--no-video", "--workers", "2", "--output", str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while len(list(out.glob("*/run-*/metrics/*.partial"))) < 2:
        assert proc.poll() is None and time.monotonic() < deadline, "the workers never started their episodes"
        time.sleep(0.05)
    proc.kill()
    # The workers hold the same stderr: reading it to the end waits for both to exit.
    _, err = proc.communicate(timeout=60)
    assert "Traceback" not in err, err
    assert not list(out.glob("*/run-*/benchmark_result.json"))


@pytest.fixture
def servers():
    started = []

    def start(allow_shared: bool = False) -> int:
        srv = tool_use_server(load_policy("humanoidtoolbench.policies.pose_hold:predict"), allow_shared=allow_shared)
        started.append(srv)
        return srv.start()

    yield start
    for srv in started:
        srv.shutdown()


FAST = ["--episodes", "2", "--max-steps", "10", "--no-video", "--workers", "2"]


def test_http_workers_need_one_server_each_or_a_shared_one(servers, tmp_path, capsys):
    port = servers()
    assert eval_cli.main(["--host", "127.0.0.1", "--port", str(port), *FAST, "--output", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "one port per worker" in err and "--allow-shared" in err and "\n" not in err
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("shared", [False, True], ids=["server-per-worker", "shared-server"])
def test_http_workers_run(servers, tmp_path, shared):
    ports = [servers(allow_shared=True)] if shared else [servers(), servers()]
    out = tmp_path / "out"
    args = ["--host", "127.0.0.1", "--port", ",".join(map(str, ports)), *FAST, "--output", str(out)]
    assert eval_cli.main(args) == 0
    result = json.loads((run_dir(out) / "benchmark_result.json").read_text())
    assert result["status"] == "validated" and result["policy_info"]["transport"] == "http"
    assert result["execution"]["workers"] == 2


def test_backend_ray_without_ray_is_one_line(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(__import__("sys").modules, "ray", None)
    assert eval_cli.main(["--policy", "zero", "--backend", "ray", "--output", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert 'pip install "humanoidtoolbench[ray]"' in err and "\n" not in err


def test_workers_auto_is_the_core_count_capped_at_the_episodes(monkeypatch, capsys):
    monkeypatch.setattr("os.cpu_count", lambda: 8)
    assert eval_cli.main(["--policy", "zero", "--workers", "auto", "--episodes", "5", "--dry-run"]) == 0
    assert "local backend, 5 worker(s)" in capsys.readouterr().out
    assert eval_cli.main(["--policy", "zero", "--workers", "auto", "--episodes", "100", "--dry-run"]) == 0
    assert "local backend, 8 worker(s)" in capsys.readouterr().out
