"""A score is derived from its episodes, never trusted: an edit anywhere in a run is NOT VERIFIED and named.

The chain: each episode's files are hashed in its summary, the summaries and the run's configuration
in `benchmark_result.json`, and the result's own figures are derived again from the episodes (its
remaining fields sealed by `record_sha256`). `htb-metrics`, `htb-report` and `htb-eval`'s reuse all
check the same chain.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from humanoidtoolbench.cli import eval as eval_cli
from humanoidtoolbench.cli import metrics as metrics_cli
from humanoidtoolbench.cli import report as report_cli
from humanoidtoolbench.eval.integrity import verify_run

CONDITION = "G1BallMove-L0-S"  # pose-hold never succeeds on it: 0/2


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
    import shutil

    return Path(shutil.copytree(pristine, tmp_path / "out"))


def the_run(out: Path) -> Path:
    [run] = (out / CONDITION).glob("run-*")
    return run


def flip_bit(path: Path, anchor: str, bit: int = 1) -> None:
    """Flip one bit of the first character after `anchor` in the file."""
    data = bytearray(path.read_bytes())
    at = data.index(anchor.encode()) + len(anchor)
    data[at] ^= bit
    path.write_bytes(bytes(data))


def metrics_report(out: Path, capsys, *extra: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = metrics_cli.main([str(out), *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_an_untouched_run_is_verified_with_figures_from_its_episodes(out, capsys):
    run = the_run(out)
    assert verify_run(run) == []
    code, text, err = metrics_report(out, capsys)
    assert (code, err) == (0, "")
    assert f"| {CONDITION} | 0/2 | — | correct tool never lifted (2) |" in text


@pytest.mark.parametrize("edit", ["successes 0 -> 2", "one bit of successes", "one bit of finished_at",
                                  "one bit of a recorded hash"])
def test_an_edited_result_is_not_verified_names_the_file_and_shows_the_episodes_figures(out, capsys, edit):
    run = the_run(out)
    result = run / "benchmark_result.json"
    if edit == "successes 0 -> 2":
        text = result.read_text()
        result.write_text(text.replace('"successes": 0', '"successes": 2').replace('"success_rate": 0.0', '"success_rate": 1.0'))
    elif edit == "one bit of successes":
        flip_bit(result, '"successes": ')  # '0' -> '1'
    elif edit == "one bit of finished_at":
        flip_bit(result, '"finished_at": "20')
    else:
        flip_bit(result, '"summaries/episode_10001.json": "')
    problems = verify_run(run)
    assert problems and all(p.startswith("benchmark_result.json: ") for p in problems), problems

    code, text, err = metrics_report(out, capsys)
    assert code == 1
    [line] = err.splitlines()
    assert line.startswith(f"htb-metrics: warning: {result} is NOT VERIFIED: benchmark_result.json: ")
    # The figures shown are the episodes', never the edited claim.
    assert f"| {CONDITION} (NOT VERIFIED) | 0/2 | — |" in text
    code, text, _ = metrics_report(out, capsys, "--json")
    report = json.loads(text)[CONDITION]
    assert (code, report["verified"], report["successes"], report["episodes"]) == (1, False, 0, 2)


def test_an_edited_result_names_the_figure_it_changed(out):
    result = the_run(out) / "benchmark_result.json"
    result.write_text(result.read_text().replace('"successes": 0', '"successes": 2'))
    assert "benchmark_result.json: successes is 2, its episodes give 0" in verify_run(result.parent)


def test_an_edited_summary_of_a_finished_run_is_not_verified(out, capsys):
    run = the_run(out)
    summary = run / "summaries" / "episode_10001.json"
    record = json.loads(summary.read_text())
    summary.write_text(json.dumps({**record, "instruction": "something else"}, indent=2))
    assert verify_run(run) == [
        "benchmark_result.json: summaries/episode_10001.json changed after the result was written (sha256 mismatch)"]
    code, _, err = metrics_report(out, capsys)
    assert code == 1 and "summaries/episode_10001.json changed after the result was written" in err


def test_a_summary_claiming_success_is_caught_by_its_metrics_file_even_before_a_result_exists(out, capsys):
    run = the_run(out)
    (run / "benchmark_result.json").unlink()  # an interrupted run: nothing above the summaries yet
    summary = run / "summaries" / "episode_10000.json"
    record = json.loads(summary.read_text())
    summary.write_text(json.dumps({**record, "success": True, "outcome": "success", "terminated": True,
                                   "truncated": False}, indent=2))
    problems = verify_run(run)
    assert any(p.startswith("seed 10000: summaries/episode_10000.json says success") and "metrics/episode_10000.jsonl" in p
               for p in problems), problems
    # The evaluator redoes that episode instead of scoring the claim.
    assert evaluate(out) == 0
    assert "redoing seed 10000" in capsys.readouterr().err
    assert json.loads((run / "benchmark_result.json").read_text())["successes"] == 0
    assert verify_run(run) == []


def test_an_edited_result_is_not_reused_by_htb_eval_and_is_written_again(out, capsys):
    run = the_run(out)
    result = run / "benchmark_result.json"
    result.write_text(result.read_text().replace('"successes": 0', '"successes": 2'))
    capsys.readouterr()
    assert evaluate(out) == 0
    err = capsys.readouterr().err
    assert "reusing validated result" not in err
    [line] = [x for x in err.splitlines() if "cannot be reused" in x]
    assert str(result) in line and "successes is 2, its episodes give 0" in line
    assert json.loads(result.read_text())["successes"] == 0 and verify_run(run) == []
    assert evaluate(out) == 0
    assert "reusing validated result" in capsys.readouterr().err


def test_htb_report_marks_an_edited_result_and_exits_1(out, tmp_path, capsys):
    result = the_run(out) / "benchmark_result.json"
    result.write_text(result.read_text().replace('"successes": 0', '"successes": 2'))
    capsys.readouterr()
    assert report_cli.main([str(out), "--output", str(tmp_path / "report")]) == 1
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith(f"htb-report: warning: {result} is NOT VERIFIED: benchmark_result.json: successes is 2")
    assert "2/2" not in (tmp_path / "report" / "index.html").read_text()


def test_a_result_written_without_hashes_is_not_verified_and_sealed_again_on_reuse(out, capsys):
    """A result of an earlier version, before results carried their hashes."""
    run = the_run(out)
    result = run / "benchmark_result.json"
    record = json.loads(result.read_text())
    for key in ("files", "record_sha256"):
        record.pop(key)
    result.write_text(json.dumps(record, indent=2))
    assert any("written without integrity hashes" in p for p in verify_run(run))
    capsys.readouterr()
    assert evaluate(out) == 0
    assert "validating that run again" in capsys.readouterr().err
    assert verify_run(run) == []


def test_an_edited_configuration_is_not_verified_and_its_run_is_left_for_a_new_one(out, capsys):
    run = the_run(out)
    config = run / "evaluation_config.json"
    config.write_text(config.read_text().replace('"policy_label": "pose-hold @ k"', '"policy_label": "expert"'))
    assert verify_run(run) == [
        "benchmark_result.json: evaluation_config.json changed after the result was written (sha256 mismatch)"]
    capsys.readouterr()
    assert evaluate(out) == 0
    err = capsys.readouterr().err
    assert "evaluating again because evaluation_config.json changed after its result was written" in err
    [new] = [r for r in (out / CONDITION).glob("run-*") if r != run]
    assert verify_run(new) == []
