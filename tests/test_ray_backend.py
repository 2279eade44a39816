"""htb-eval --backend ray: a local Ray instance runs a short condition into the same validated run directory."""

from __future__ import annotations

import json

import pytest

from humanoidtoolbench.cli import eval as eval_cli
from humanoidtoolbench.eval.validation import validate_run

ray = pytest.importorskip("ray")


def test_a_condition_runs_as_ray_tasks(tmp_path):
    out = tmp_path / "out"
    args = ["--policy", "pose-hold", "--episodes", "2", "--max-steps", "10", "--backend", "ray", "--workers", "2"]
    assert eval_cli.main([*args, "--output", str(out)]) == 0
    assert not ray.is_initialized()  # the local instance it started is stopped again
    [result_path] = out.glob("G1BallMove-L0-S/run-*/benchmark_result.json")
    result = json.loads(result_path.read_text())
    assert result["status"] == "validated"
    assert result["execution"]["backend"] == "ray" and result["execution"]["workers"] == 2
    assert [o["seed"] for o in result["outcomes"]] == [10000, 10001]
    assert len(result["videos"]) == 8
    assert validate_run(result_path.parent) == []
