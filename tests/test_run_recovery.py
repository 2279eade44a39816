"""Runs left half-written by a kill or a full disk, or with a stray file in them, are recovered, not stuck:
what is missing is redone, a run without a configuration is skipped by name, and a stray summary is set
aside instead of costing a valid result."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from humanoidtoolbench.cli import eval as eval_cli
from humanoidtoolbench.eval.integrity import verify_run

CONDITION = "G1BallMove-L0-S"


def evaluate(out: Path, *extra: str) -> int:
    return eval_cli.main([CONDITION, "--policy", "pose-hold", "--checkpoint", "k", "--episodes", "2", "--max-steps", "20",
                          "--no-video", "--output", str(out), *extra])


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("pristine") / "out"
    assert evaluate(out) == 0
    return out


@pytest.fixture
def out(pristine, tmp_path) -> Path:
    return Path(shutil.copytree(pristine, tmp_path / "out"))


def the_runs(out: Path) -> list[Path]:
    return sorted((out / CONDITION).glob("run-*"))


def test_a_run_killed_before_its_policy_info_is_completed_by_the_next_evaluation(out, capsys):
    [run] = the_runs(out)
    for name in ("benchmark_result.json", "policy_info.json"):  # killed between the configuration and policy info
        (run / name).unlink()
    shutil.rmtree(run / "summaries")
    capsys.readouterr()
    assert evaluate(out) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err and f"continuing interrupted run {run}" in err
    assert the_runs(out) == [run] and verify_run(run) == []
    info = json.loads((run / "policy_info.json").read_text())
    assert info == json.loads((run / "evaluation_config.json").read_text())["policy_info"]
    assert evaluate(out) == 0
    assert "reusing validated result" in capsys.readouterr().err
