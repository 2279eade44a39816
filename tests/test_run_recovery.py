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


@pytest.mark.parametrize("left", ["run.lock only", "truncated configuration"])
@pytest.mark.parametrize("tool", ["htb-metrics", "htb-report"])
def test_a_run_dir_without_a_configuration_is_skipped_and_named_in_one_line(out, tmp_path, capsys, tool, left):
    from humanoidtoolbench.cli import metrics as metrics_cli
    from humanoidtoolbench.cli import report as report_cli

    empty = out / CONDITION / "run-20991231-000000-abcdef"  # newest: killed or out of disk at its start
    empty.mkdir()
    (empty / "run.lock").write_text("")
    if left == "truncated configuration":
        (empty / "evaluation_config.json").write_text('{"condition": ')
    capsys.readouterr()
    if tool == "htb-metrics":
        code = metrics_cli.main([str(out)])
    else:
        code = report_cli.main([str(out), "--output", str(tmp_path / "report")])
    captured = capsys.readouterr()
    assert code == 0, captured.err  # the validated run is scored as before
    assert "Traceback" not in captured.err
    [line] = [line for line in captured.err.splitlines() if str(empty) in line]
    assert line.startswith(f"{tool}: warning: skipping {empty}: no readable evaluation_config.json")
    if tool == "htb-metrics":
        assert "G1BallMove-L0-S" in captured.out


@pytest.mark.parametrize("stray", ["episode_99999.json", "episode_copy.json"])
@pytest.mark.parametrize("finished", [True, False])
def test_a_stray_summary_is_set_aside_and_a_valid_result_kept(out, capsys, stray, finished):
    [run] = the_runs(out)
    result = run / "benchmark_result.json"
    if not finished:
        result.unlink()
    before = result.read_bytes() if finished else None
    (run / "summaries" / stray).write_bytes((run / "summaries" / "episode_10000.json").read_bytes())
    capsys.readouterr()
    assert evaluate(out) == 0
    err = capsys.readouterr().err
    [line] = [line for line in err.splitlines() if stray in line]
    assert f"set aside stray summaries in {run / 'summaries'}" in line and f"{stray} -> {stray}.stray" in line
    assert "Traceback" not in err and the_runs(out) == [run] and verify_run(run) == []
    assert (run / "summaries" / f"{stray}.stray").is_file() and not (run / "summaries" / stray).exists()
    if finished:
        assert result.read_bytes() == before and "reusing validated result" in err
    assert evaluate(out) == 0
    assert "reusing validated result" in capsys.readouterr().err


def test_what_a_killed_write_left_is_removed_when_the_run_is_continued(out, capsys):
    [run] = the_runs(out)
    (run / "benchmark_result.json").unlink()  # killed while writing it: the run is continued
    (run / "summaries" / "episode_10001.json").unlink()
    left = [run / ".benchmark_result.json.k3j_h5g6.tmp", run / "summaries" / ".episode_10001.json.abcd1234.tmp",
            run / "steps" / "episode_10000" / ".action.npy.0a1b2c3d.tmp"]
    for path in left:
        path.write_bytes(b'{"half": ')
    kept = [run / "notes.tmp", run / ".notes.tmp"]  # not the writer's names: someone else's files
    for path in kept:
        path.write_text("mine")
    capsys.readouterr()
    assert evaluate(out) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err and f"continuing interrupted run {run}" in err
    assert the_runs(out) == [run] and verify_run(run) == []
    assert not any(p.exists() for p in left) and all(p.read_text() == "mine" for p in kept)
    log = (run / "eval_latest.log").read_text()
    assert all(f"removed {p.relative_to(run)}, left by a write that was killed" in log for p in left)


def test_a_full_disk_while_writing_results_is_one_line(tmp_path, capsys, monkeypatch):
    import errno
    import os

    from humanoidtoolbench.record import files

    real = files.write_bytes_atomic

    def full(path, data):
        if Path(path).name == "benchmark_result.json":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(path, data)

    monkeypatch.setattr(files, "write_bytes_atomic", full)
    out = tmp_path / "out"
    capsys.readouterr()
    assert evaluate(out) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    [line] = [line for line in err.splitlines() if "No space left on device" in line]
    assert line == f"{CONDITION}: FAILED: cannot write the results under {out}: No space left on device"
    assert not list(out.rglob("*.tmp"))
