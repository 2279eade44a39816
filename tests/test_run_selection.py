"""Which runs an output's report scores: per condition and policy the latest validated run, the others
listed; the suites' own sections (Fiatlux's S, find-navigate-sit's paper metrics) read only the
validated files of the runs the report scores."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from humanoidtoolbench.cli import eval as eval_cli
from humanoidtoolbench.cli import metrics as metrics_cli

TOOL = "G1BallMove-L0-S"
FIAT = "FIATLUX-S03-RemoveOldBulb-v0"
FIND = "FINDSIT-val100"


def runs(out: Path, condition: str) -> list[Path]:
    return sorted((out / condition).glob("run-*"))


def report(out: Path, capsys, *extra: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = metrics_cli.main([str(out), *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_help_states_the_rule():
    text = " ".join(metrics_cli.build_parser().format_help().split())
    assert "the latest validated run of each condition and policy is scored" in text
    assert "the others are listed" in text


# -- tool use: a rerun and a second policy in one output ----------------------------------------


def test_a_rerun_scores_the_latest_run_and_lists_the_other(tmp_path, capsys):
    out = tmp_path / "out"
    args = [TOOL, "--policy", "pose-hold", "--checkpoint", "k", "--episodes", "1", "--max-steps", "10", "--no-video",
            "--output", str(out)]
    assert eval_cli.main(args) == 0
    assert eval_cli.main([*args[:-2], "--episodes", "2", "--rerun", "--output", str(out)]) == 0
    old, new = sorted(runs(out, TOOL), key=lambda r: json.loads((r / "benchmark_result.json").read_text())["finished_at"])
    code, text, err = report(out, capsys)
    assert (code, err) == (0, "")
    assert f"| {TOOL} | 0/2 |" in text
    assert f"Also recorded, not scored: {TOOL}: {old} (validated, superseded by {new.name})" in text
    code, text, _ = report(out, capsys, "--json")
    entry = json.loads(text)[TOOL]
    assert (entry["episodes"], entry["run"], entry["policy"]) == (2, str(new), "pose-hold @ k")
    assert entry["other_runs"] == [{"run": str(old), "state": "validated"}]


def test_two_policies_in_one_output_are_kept_apart(tmp_path, capsys):
    out = tmp_path / "out"
    for policy in ("pose-hold", "zero"):
        assert eval_cli.main([TOOL, "--policy", policy, "--episodes", "1", "--max-steps", "10", "--no-video",
                              "--output", str(out)]) == 0
    code, text, err = report(out, capsys)
    assert (code, err) == (0, "")
    assert "#### pose-hold" in text and "#### zero" in text
    assert "Also recorded" not in text  # neither run supersedes the other
    code, text, _ = report(out, capsys, "--json")
    found = json.loads(text)
    assert {k: (v["condition"], v["policy"]) for k, v in found.items()} == {
        f"{TOOL} · pose-hold": (TOOL, "pose-hold"), f"{TOOL} · zero": (TOOL, "zero")}


# -- Fiatlux: the bag scorer over the runs scored ------------------------------------------------


@pytest.fixture(scope="module")
def fiatlux(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("fiatlux") / "out"
    args = ["S03", "--policy", "zero", "--checkpoint", "z", "--episodes", "2", "--max-steps", "5", "--no-video",
            "--output", str(out)]
    assert eval_cli.main(args) == 0
    assert eval_cli.main([*args, "--rerun"]) == 0  # the same seeds again, into the same output
    return out


def test_a_fiatlux_rerun_into_one_output_is_scored_once(fiatlux, capsys):
    code, text, err = report(fiatlux, capsys)
    assert (code, err) == (0, "")
    assert "| S03 RemoveOldBulb | 4.20 | 2 |" in text  # two episodes, not four
    assert text.count("(validated, superseded by") == 1
    code, text, _ = report(fiatlux, capsys, "--json")
    [subtask] = json.loads(text)["offline"]["fiatlux"]["subtasks"]
    assert len(subtask["episodes"]) == 2


def test_a_deleted_bag_is_not_verified_and_left_out_of_s(fiatlux, tmp_path, capsys):
    out = Path(shutil.copytree(fiatlux, tmp_path / "out"))
    latest = max(runs(out, FIAT), key=lambda r: json.loads((r / "benchmark_result.json").read_text())["finished_at"])
    [bag, _] = sorted((latest / "bags").glob("episode_*.h5"))
    bag.unlink()
    code, text, err = report(out, capsys)
    assert code == 1
    assert f"{latest / 'benchmark_result.json'} is NOT VERIFIED" in err and f"bags/{bag.name} missing" in err
    assert "| S03 RemoveOldBulb |" not in text  # scored from verified runs only
    assert f"Left out of the suite's scores (NOT VERIFIED): {FIAT}" in text


# -- find-navigate-sit: paper metrics per planner, from the runs scored ---------------------------


@pytest.fixture(scope="module")
def findsit(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("findsit") / "out"
    for policy in ("random", "oracle"):
        assert eval_cli.main([FIND, "--policy", policy, "--episodes", "2", "--max-steps", "50", "--no-video",
                              "--metrics", "--output", str(out)]) == 0
    return out


def paper_records(out: Path) -> dict[str, str]:
    return {str(p.relative_to(out)): json.loads(p.read_text())["planner"] for p in out.rglob("metrics.json")}


def test_paper_metrics_records_name_their_planner(findsit):
    planners = paper_records(findsit)
    assert len(planners) == 4 and sorted(set(planners.values())) == ["oracle", "random"]


def test_paper_metrics_of_two_planners_in_one_output_are_two_sections(findsit, capsys):
    code, text, err = report(findsit, capsys)
    assert (code, err) == (0, "")
    assert text.count("Find-navigate-sit paper metrics") == 2
    assert text.count("Episodes: 2 |") == 2  # each planner's two episodes, not four mixed
    code, text, _ = report(findsit, capsys, "--json")
    offline = json.loads(text)["offline"]
    assert sorted(offline) == ["findsit · oracle", "findsit · random"]
    assert all(o["counts"]["episodes"] == 2 for o in offline.values())


def test_an_edited_paper_metrics_file_is_not_verified_and_not_scored(findsit, tmp_path, capsys):
    out = Path(shutil.copytree(findsit, tmp_path / "out"))
    [path] = [p for p in out.rglob("episode_0/metrics.json") if json.loads(p.read_text())["planner"] == "random"]
    record = json.loads(path.read_text())
    record["success"]["find_sr"] = True
    path.write_text(json.dumps(record))
    code, text, err = report(out, capsys)
    assert code == 1 and "paper_metrics/episode_0/metrics.json changed after it was written" in err
    assert text.count("Find-navigate-sit paper metrics") == 1  # the oracle's only
    assert f"Left out of the suite's scores (NOT VERIFIED): {FIND}" in text
