"""htb-metrics: the report reads recorded files and names why episodes failed."""

from __future__ import annotations

import json

import pytest

from humanoidtoolbench.cli import metrics as metrics_cli
from humanoidtoolbench.metrics.report import failure_cause, load, markdown

import recorded_runs


def summary(success, step, final=None, ever=None, lift_max=0.2):
    return {
        "success": success,
        "step": step,
        "final_metrics": final or {},
        "ever_true": ever or {},
        "numeric_max": {"tool_lift": lift_max},
    }


@pytest.mark.parametrize(
    "name, s, cause",
    [
        ("G1BallMove-L1-S", summary(False, 3000, lift_max=0.0), "correct tool never lifted"),
        ("G1BallMove-L0-S", summary(False, 3000, lift_max=0.05), "tool lifted too little"),
        ("G1BallMove-L0-S", summary(False, 3000, ever={"picked_correct_tool": True}), "lift not held for 50 steps"),
        ("G1BallMove-L1-R", summary(False, 3000, {"tool_lift": 0.0}, {"picked_correct_tool": True}), "grasp lost"),
        ("G1BallMove-L2-S", summary(False, 3000, {"tool_lift": 0.2}, {"picked_correct_tool": True}), "ball never touched"),
        (
            "G1BallRetrieve-L1-S",
            summary(False, 3000, {"tool_lift": 0.2}, {"picked_correct_tool": True, "tool_touched_target": True, "in_target_area": True}),
            "ball reached the ring but did not stay",
        ),
        (
            "G1IceBreak-L1-S",
            summary(False, 3000, {"tool_lift": 0.2, "ice_broken_count": 1}, {"picked_correct_tool": True}),
            "one block broken",
        ),
    ],
)
def test_failure_causes(name, s, cause):
    assert failure_cause(name, s) == cause


def write_run(root, name, summaries):
    """A sealed run that passes validation (without videos) whose episodes end as `summaries` say."""
    return recorded_runs.write_run(root, name, [recorded_runs.episode(s["success"], s["step"], s["final_metrics"],
                                                                      s["ever_true"], s["numeric_max"]["tool_lift"])
                                                for s in summaries])


def test_report_from_output_directory(tmp_path, capsys):
    write_run(tmp_path, "G1IceBreak-L1-S", [summary(True, 900), summary(True, 1100), summary(False, 3000, {"ice_broken_count": 0, "tool_lift": 0.2}, {"picked_correct_tool": True})])
    reports, unreadable = load(tmp_path)
    [r] = reports
    assert (r.name, r.successes, r.episodes, r.median_steps, unreadable) == ("G1IceBreak-L1-S", 2, 3, 1000, [])
    assert r.causes == {"no block broken": 1}
    text = markdown(reports)
    assert "| IceBreak | L1 | 2/3 (66.7%) | — |" in text and "no block broken (1)" in text
    assert metrics_cli.main([str(tmp_path)]) == 0
    assert "2/3" in capsys.readouterr().out


def test_cli_errors(tmp_path, capsys):
    assert metrics_cli.main([str(tmp_path / "missing")]) == 2
    assert metrics_cli.main([str(tmp_path)]) == 2
    assert "no validated results" in capsys.readouterr().err


def test_a_corrupt_result_is_a_warning_naming_it_and_exit_2_when_nothing_else_is_left(tmp_path, capsys):
    write_run(tmp_path, "G1IceBreak-L1-S", [summary(True, 900)])
    [result] = tmp_path.glob("G1IceBreak-L1-S/run-*/benchmark_result.json")
    result.write_text('{"status": "validated", "episo')
    assert metrics_cli.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(f"htb-metrics: warning: {result} cannot be read: ") and len(err) == 2
    assert err[1] == f"htb-metrics: no validated results under {tmp_path}"


def test_a_result_that_is_not_a_result_is_not_verified_and_its_episodes_still_count(tmp_path, capsys):
    write_run(tmp_path, "G1IceBreak-L1-S", [summary(True, 900)])
    [result] = tmp_path.glob("G1IceBreak-L1-S/run-*/benchmark_result.json")
    result.write_text('{"status": "validated"}')
    assert metrics_cli.main([str(tmp_path)]) == 1
    out, err = capsys.readouterr()
    assert "benchmark_result.json: written without integrity hashes" in err
    assert "| G1IceBreak-L1-S (NOT VERIFIED) | 1/1 | — |" in out


def test_a_result_whose_files_changed_is_reported_as_not_verified(tmp_path, capsys):
    """Exit 1, one warning naming the file, marked in Markdown and JSON, in no mean; other results unaffected."""
    failed = summary(False, 3000, {"ice_broken_count": 0, "tool_lift": 0.2}, {"picked_correct_tool": True})
    damaged = write_run(tmp_path, "G1IceBreak-L1-S", [summary(True, 900), failed])
    write_run(tmp_path, "G1IceBreak-L0-S", [summary(True, 800)])
    (damaged / "metrics" / "episode_10001.jsonl").unlink()
    assert metrics_cli.main([str(tmp_path)]) == 1
    out, err = capsys.readouterr()
    assert err.splitlines() == [
        f"htb-metrics: warning: {damaged / 'benchmark_result.json'} is NOT VERIFIED: "
        "seed 10001: metrics/episode_10001.jsonl missing"
    ]
    assert "| G1IceBreak-L1-S (NOT VERIFIED) | 1/2 | — |" in out and "NOT VERIFIED: the files of G1IceBreak-L1-S" in out
    assert "| G1IceBreak-L0-S | 1/1 | 800 | none |" in out
    assert "| IceBreak | L1 | — | — |" in out  # not in the suite's table as if it were a result
    assert metrics_cli.main([str(tmp_path), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["G1IceBreak-L1-S"]["verified"] is False and report["G1IceBreak-L1-S"]["causes"] == {}
    [run] = (tmp_path / "G1IceBreak-L0-S").glob("run-*")
    assert report["G1IceBreak-L0-S"] == {"condition": "G1IceBreak-L0-S", "policy": "test-policy @ test-1",
                                         "episodes": 1, "successes": 1, "median_steps": 800, "causes": {},
                                         "verified": True, "problems": [], "source_digest": "0" * 64, "run": str(run),
                                         "other_runs": []}
