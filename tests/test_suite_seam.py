"""The Suite seam holds: a suite outside the package runs through every core path unchanged."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from humanoidtoolbench import suites
from humanoidtoolbench.cli import eval as eval_cli
from humanoidtoolbench.cli import metrics as metrics_cli
from humanoidtoolbench.eval import provenance
from humanoidtoolbench.eval.validation import validate_run
from humanoidtoolbench.record.records import BenchmarkResult, EpisodeSummary, read

HERE = Path(__file__).resolve().parent
ARGS = ["example/PuckPush-v0", "--policy", "pusher", "--checkpoint", "c1"]


@pytest.fixture
def example(monkeypatch):
    monkeypatch.setenv(suites.ENV_VAR, "example_suite")
    # Ray workers start from the environment, not from this process's sys.path.
    monkeypatch.setenv("PYTHONPATH", f"{HERE}:{':'.join(p for p in sys.path if p)}")
    return suites.get("example")


def result_of(out: Path) -> BenchmarkResult:
    [path] = out.glob("PuckPush-v0/run-*/benchmark_result.json")
    return read(path, BenchmarkResult)


def test_an_outside_suite_is_listed_parsed_and_digested_on_its_own(example, capsys):
    assert suites.parse("PUCKPUSH-v0").suite == "example"
    assert eval_cli.main(["--list-envs"]) == 0
    listed = capsys.readouterr().out.split()
    assert "example/PuckPush-v0" in listed and "humanoidtoolbench/G1BallMove-L0-S" in listed
    toolbench = provenance.source_hashes(suites.get("toolbench"))
    mine = provenance.source_hashes(example)
    assert "tests/example_suite.py" in mine and "tests/example_suite.py" not in toolbench
    assert not any(p.startswith(("suites/toolbench/", "planning/")) for p in mine)
    assert "planning/skills.py" in toolbench  # the shared expert code its expert imports
    assert {p for p in toolbench if not p.startswith(("suites/toolbench/", "planning/"))} == set(mine) - {"tests/example_suite.py"}


def test_the_example_suite_runs_resumes_and_reports(example, tmp_path, capsys):
    out = tmp_path / "out"
    assert eval_cli.main([*ARGS, "--output", str(out)]) == 0
    result = result_of(out)
    assert result.suite == "example" and result.reportable  # the suite's own protocol, a named checkpoint
    assert [o["outcome"] for o in result.outcomes] == ["success"] * 3
    run = Path(result.run_dir)
    assert validate_run(run) == []
    summary = read(run / "summaries" / "episode_0.json", EpisodeSummary)
    assert summary.final_metrics["puck_x"] >= 0.3 and summary.first_true_step["past_line"] == summary.step - 4
    calls = [json.loads(line) for line in (run / "policy" / "episode_0.jsonl").read_text().splitlines()]
    assert calls[0]["metadata"] == {"tokens": 7} and calls[1]["step"] == 5
    actions = np.load(run / "steps" / "episode_0" / "action.npy")
    states = np.load(run / "steps" / "episode_0" / "state.npy")
    assert actions.shape == (summary.step, 36) and np.all(actions[:, 32] == 0.5)
    assert states.shape == (summary.step, 32) and np.all(np.diff(states[:, 0]) >= 0)  # the puck moves forward
    assert len((run / "metrics" / "episode_0.jsonl").read_text().splitlines()) == summary.step

    capsys.readouterr()
    assert eval_cli.main([*ARGS, "--output", str(out)]) == 0
    assert "reusing validated result" in capsys.readouterr().err

    assert metrics_cli.main([str(out)]) == 0
    assert "| PuckPush-v0 | 3/3 |" in capsys.readouterr().out


def test_a_suites_own_option_is_an_htb_eval_flag_and_makes_the_run_diagnostic(example, tmp_path, capsys):
    """The example suite's `slippery` (declared in the suite alone) becomes `--slippery`; the run records it."""
    with pytest.raises(SystemExit):
        eval_cli.main(["--help"])
    assert "--slippery" in capsys.readouterr().out
    out = tmp_path / "out"
    assert eval_cli.main([*ARGS, "--slippery", "--episodes", "1", "--output", str(out)]) == 0
    result = result_of(out)
    assert result.configuration["options"] == {"slippery": True}
    assert not result.reportable and "rail damping lowered" in result.reasons
    capsys.readouterr()
    assert eval_cli.main(["G1BallMove-L0-S", "--policy", "zero", "--slippery", "--dry-run"]) == 2
    assert "--slippery: the toolbench suite's episodes have no such option (example's have)" in capsys.readouterr().err


def test_the_example_suite_resumes_an_interrupted_run(example, tmp_path, capsys):
    out = tmp_path / "out"
    assert eval_cli.main([*ARGS, "--output", str(out), "--episodes", "2"]) == 0
    run = Path(result_of(out).run_dir)
    (run / "benchmark_result.json").unlink()
    (run / "summaries" / "episode_1.json").unlink()
    capsys.readouterr()
    assert eval_cli.main([*ARGS, "--output", str(out), "--episodes", "2"]) == 0
    assert "continuing interrupted run" in capsys.readouterr().err
    assert [o["seed"] for o in result_of(out).outcomes] == [0, 1]


@pytest.mark.parametrize("backend", ["local", "ray"])
def test_the_example_suite_runs_on_two_workers(example, tmp_path, backend):
    if backend == "ray":
        pytest.importorskip("ray")
    serial, parallel = tmp_path / "serial", tmp_path / "parallel"
    assert eval_cli.main([*ARGS, "--output", str(serial), "--no-video"]) == 0
    assert eval_cli.main([*ARGS, "--output", str(parallel), "--no-video", "--workers", "2", "--backend", backend]) == 0
    a, b = result_of(serial), result_of(parallel)
    assert b.execution["backend"] == backend and b.execution["workers"] == 2
    assert a.outcomes == b.outcomes
    for seed in (0, 1, 2):
        rel = f"metrics/episode_{seed}.jsonl"
        assert (Path(a.run_dir) / rel).read_bytes() == (Path(b.run_dir) / rel).read_bytes()


@pytest.fixture
def dial(monkeypatch):
    monkeypatch.setenv(suites.ENV_VAR, "example_dial")
    monkeypatch.setenv("PYTHONPATH", f"{HERE}:{':'.join(p for p in sys.path if p)}")
    return suites.get("example-dial")


def test_a_suite_with_its_own_contract_runs_in_process_and_over_http(dial, tmp_path):
    import example_dial

    from humanoidtoolbench.control import contracts

    from test_serve_suites import served

    assert contracts.get("dial_turn_v1") is example_dial.DIAL_TURN_V1 is dial.action_contract()  # registered by the suite
    argv = ["example/DialTurn-v0", "--policy", "turner", "--checkpoint", "c1", "--no-video"]
    assert eval_cli.main([*argv, "--output", str(tmp_path / "local")]) == 0
    with served("--suite", "example-dial", "--policy", "turner") as port:
        host = ["example/DialTurn-v0", "--host", "127.0.0.1", "--port", str(port), "--no-video"]
        assert eval_cli.main([*host, "--output", str(tmp_path / "http")]) == 0
    for where in ("local", "http"):
        [path] = (tmp_path / where).glob("DialTurn-v0/run-*/benchmark_result.json")
        result = read(path, BenchmarkResult)
        assert result.suite == "example-dial" and [o["outcome"] for o in result.outcomes] == ["success"] * 2
        assert validate_run(path.parent) == []
        config = json.loads((path.parent / "evaluation_config.json").read_text())
        assert config["action_schema"] == "dial_turn_v1"
        summary = read(path.parent / "summaries" / "episode_1.json", EpisodeSummary)
        actions = np.load(path.parent / "steps" / "episode_1" / "action.npy")
        assert actions.shape == (summary.step, 1) and np.abs(actions).max() <= 1.0
        assert summary.final_metrics["off_mark"] < 0.05
    http = read(next((tmp_path / "http").glob("DialTurn-v0/run-*/benchmark_result.json")), BenchmarkResult)
    assert http.policy_info["server_info"]["request_schema"] == "example_dial_request_v1"
    local = read(next((tmp_path / "local").glob("DialTurn-v0/run-*/benchmark_result.json")), BenchmarkResult)
    assert [o["step"] for o in http.outcomes] == [o["step"] for o in local.outcomes]  # float32 on the wire, same steps


def test_a_subclassed_suite_with_a_controller_of_its_own_runs_its_episodes():
    """Each suite's episode takes the controller and look its suite hands it, so a subclass that binds a new
    controller name (with a row in every per-controller table) runs episodes without editing the suite."""
    from humanoidtoolbench.control.assisted.assisted import AssistedController
    from humanoidtoolbench.suites.per_controller import PerController
    from humanoidtoolbench.suites.rollout import Rollout
    from humanoidtoolbench.suites.toolbench.expert.caution import CAUTIONS
    from humanoidtoolbench.suites.toolbench.registry import parse
    from humanoidtoolbench.suites.toolbench.suite import ToolBench

    class Slow(AssistedController):
        name = "slow"

    class WithSlow(ToolBench):
        controllers = ("assisted", "balanced", "slow")
        controller_tables = (PerController("CAUTIONS with slow", {**CAUTIONS.rows, "slow": CAUTIONS["assisted"]}),)

        def controller_class(self, name):
            return Slow if name == "slow" else super().controller_class(name)

    suite = WithSlow()
    episode = suite.make_episode(parse("G1BallMove-L0-S"), 10000, suite.make_controller("slow"), "fast")
    episode.reset()
    rollout = Rollout(episode, suite.action_contract("slow"))
    rollout.accept(np.zeros((3, 36)))  # what the `zero` policy sends
    results = [rollout.step()[1] for _ in range(3)]
    assert episode.controller.name == "slow" and episode.look.name == suite.protocol.look
    assert len(results) == 3 and all(r.outcome is None for r in results)
