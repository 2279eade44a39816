"""htb-report: the HTML report from two small recorded runs, rendered in headless Chromium, and its failure paths."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import av
import numpy as np
import pytest

import humanoidtoolbench
from humanoidtoolbench import suites
from humanoidtoolbench.cli import eval as eval_cli
from humanoidtoolbench.cli import report as report_cli
from humanoidtoolbench.eval.identity import policy_label
from humanoidtoolbench.record.records import BenchmarkResult, read
from humanoidtoolbench.metrics import gather
from humanoidtoolbench.metrics.stats import wilson

import recorded_runs

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or "/usr/bin/chromium"
RANDOM, POSE_HOLD = "G1BallMove-L0-S", "G1IceBreak-L0-R"


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, Path]:
    """Two small runs in two output directories: random on an S condition (diagnostic, not reportable) and
    pose-hold on an R condition, whose result is then marked reportable as a standard-protocol result
    would be (100 episodes of 3000 steps are too long for a test)."""
    root = tmp_path_factory.mktemp("runs")
    a, b = root / "a", root / "b"
    assert eval_cli.main([RANDOM, "--policy", "random", "--episodes", "2", "--max-steps", "30", "--output", str(a)]) == 0
    assert eval_cli.main([POSE_HOLD, "--policy", "pose-hold", "--episodes", "1", "--max-steps", "30", "--output", str(b)]) == 0
    [path] = (b / POSE_HOLD).glob("run-*/benchmark_result.json")
    recorded_runs.reseal(path, reportable=True, reasons=[])
    return a, b


def copy_runs(runs, tmp_path) -> tuple[Path, Path]:
    a, b = (shutil.copytree(d, tmp_path / d.name) for d in runs)
    return Path(a), Path(b)


class Dom(HTMLParser):
    """Elements of a page as (tag, attributes), and its text."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict]] = []
        self.text: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, {k: v or "" for k, v in attrs}))

    def handle_data(self, data):
        self.text.append(data)

    def find(self, tag: str, cls: str | None = None, **attrs) -> list[dict]:
        return [a for t, a in self.elements if t == tag and (cls is None or cls in a.get("class", "").split())
                and all(a.get(k) == v for k, v in attrs.items())]


def chromium(page: Path, *args: str, profile: Path) -> subprocess.CompletedProcess:
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
           "--window-size=1400,2400", *args, page.as_uri()]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=True)


@pytest.mark.skipif(not os.access(CHROMIUM, os.X_OK), reason="needs headless Chromium on PATH (apt-get install chromium)")
def test_the_report_renders_in_chromium_with_tables_plots_videos_and_the_not_reportable_marker(runs, tmp_path):
    out = tmp_path / "report"
    assert report_cli.main([*map(str, runs), "--output", str(out)]) == 0
    dom = Dom(chromium(out / "index.html", "--dump-dom", profile=tmp_path / "profile").stdout)

    # The leaderboard: both policies, every one of the 18 conditions as a column, the missing ones marked.
    [suite] = dom.find("section", "suite")
    assert suite["id"] == "suite-toolbench"
    assert len(dom.find("tr", "policy")) == 2 and len(dom.find("th", "cond")) == 18
    assert len(dom.find("td", "missing")) >= 2 * 16
    # Every plot div was drawn by Plotly (it adds its own class and SVG layers once rendered).
    plots = [a for t, a in dom.elements if t == "div" and a.get("id", "").startswith("plot-")]
    assert len(plots) >= 4 and all("js-plotly-plot" in p["class"].split() for p in plots)
    assert len(dom.find("svg", "main-svg")) >= len(plots)
    # Provenance: the diagnostic run is marked not reportable with its reasons; the other is reportable.
    rows = dom.find("tr", "provenance-row")
    assert [r["class"].split()[1] for r in rows] == ["not-reportable", "reportable"]  # S conditions come first
    text = "".join(dom.text)
    assert "not reportable: 2 episodes instead of 100; 30 steps instead of 3000" in text
    assert len(dom.find("td", "not-reportable")) == 1  # the random policy's leaderboard cell
    # One failure video per result, copied into the folder.
    videos = dom.find("video")
    assert len(videos) == 2 and all((out / v["src"]).is_file() for v in videos)

    shot = tmp_path / "shot.png"
    chromium(out / "index.html", f"--screenshot={shot}", profile=tmp_path / "profile")
    with av.open(str(shot)) as container:
        image = next(container.decode(video=0)).to_ndarray(format="rgb24")
    assert image.shape == (2400, 1400, 3)
    not_white = (image < 235).any(axis=2).mean()
    assert image.std() > 20 and 0.03 < not_white < 0.9  # text, tables and plots, not a blank page


def test_a_result_whose_files_changed_is_marked_and_nothing_of_it_is_plotted(runs, tmp_path, capsys):
    a, b = copy_runs(runs, tmp_path)
    [run] = (a / RANDOM).glob("run-*")
    (run / "metrics" / "episode_10001.jsonl").unlink()
    out = tmp_path / "report"
    assert report_cli.main([str(a), str(b), "--output", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"htb-report: warning: {run / 'benchmark_result.json'} is NOT VERIFIED") and err.count("\n") == 1
    dom = Dom((out / "index.html").read_text())
    assert len(dom.find("td", "not-verified")) == 1 and len(dom.find("video")) == 1  # pose-hold's only


def test_results_are_gathered_per_policy_newest_first_across_directories(runs, tmp_path):
    a, b = copy_runs(runs, tmp_path)
    [old] = (a / RANDOM).glob("run-*")
    newer = old.with_name("run-20991231-000000-ffffff")
    shutil.copytree(old, newer)
    recorded_runs.reseal(newer / "benchmark_result.json", finished_at="2099-12-31T00:00:00+00:00")
    results, _ = gather.find_results([a, b])
    assert [(r.condition.name, r.policy, r.run_dir.name) for r in results] == [
        (RANDOM, "random", newer.name), (POSE_HOLD, "pose-hold", next((b / POSE_HOLD).glob("run-*")).name)]
    [table] = gather.suite_tables(results)
    assert table.policies == ["pose-hold", "random"]  # equal means (0 %): by name
    assert table.mean("random") is None  # 1 of 18 conditions
    breakdowns = table.breakdowns()
    assert list(breakdowns) == ["Mode", "Level", "Scenario"]
    assert breakdowns["Mode"] == {"S (no decoy)": {"random": gather.Rate(0, 2)}, "R (decoy tool)": {"pose-hold": gather.Rate(0, 1)}}
    assert list(breakdowns["Level"]) == ["L0", "L1", "L2"] and breakdowns["Level"]["L1"] == {}


def test_one_success_and_one_failure_video_lowest_seeds_first(runs):
    [path] = (runs[0] / RANDOM).glob("run-*/benchmark_result.json")
    outcomes = {o["seed"]: o["seed"] == 10001 for o in read(path, BenchmarkResult).outcomes}
    suite = suites.get("toolbench")
    videos = gather._sample_videos(suite, path.parent, outcomes)
    assert [(v.success, v.seed, v.camera) for v in videos] == [(True, 10001, "head_stereo_left"), (False, 10000, "head_stereo_left")]
    assert all(v.source.is_file() for v in videos)


def test_policy_labels():
    assert policy_label({"policy": "random", "checkpoint": "builtin:random"}) == "random"
    assert policy_label({"policy": "my_policy.py:predict", "checkpoint": "run-42"}) == "my_policy.py:predict @ run-42"
    assert policy_label({}) == "unknown policy"
    assert policy_label({"policy": "zero"}, "assisted", "balanced") == "zero [assisted]"
    assert policy_label({"policy": "zero"}, "balanced", "balanced") == "zero"
    llm = {"policy": "llm", "checkpoint": "builtin:llm", "model_config": {"model": "m-7b"}}
    assert policy_label(llm, "balanced", "assisted") == "llm · m-7b [balanced]"


def test_a_result_on_a_controller_the_protocol_no_longer_names_is_its_own_row_and_not_reportable(runs, tmp_path):
    """Recorded reportable when `assisted` was the protocol's controller; now a diagnostic run, never
    mixed into the row of the protocol's controller."""
    a, b = copy_runs(runs, tmp_path)
    old = tmp_path / "old"
    assert eval_cli.main([POSE_HOLD, "--policy", "pose-hold", "--controller", "assisted", "--episodes", "1",
                          "--max-steps", "30", "--output", str(old)]) == 0
    [path] = (old / POSE_HOLD).glob("run-*/benchmark_result.json")
    recorded_runs.reseal(path, reportable=True, reasons=[])
    results = {r.policy: r for r in gather.find_results([b, old])[0]}
    assert sorted(results) == ["pose-hold", "pose-hold [assisted]"]
    assert results["pose-hold"].report.reportable and not results["pose-hold"].report.reasons
    stale = results["pose-hold [assisted]"].report
    assert not stale.reportable and stale.reasons == ["controller 'assisted' instead of 'balanced'"]


@pytest.mark.parametrize("k, n, low, high", [(0, 10, 0.0, 0.2775), (45, 100, 0.3561, 0.5476), (10, 10, 0.7225, 1.0)])
def test_wilson_interval(k, n, low, high):
    assert np.allclose(wilson(k, n), (low, high), atol=5e-5)


def test_wilson_rejects_impossible_counts():
    with pytest.raises(ValueError):
        wilson(0, 0)
    with pytest.raises(ValueError):
        wilson(3, 2)


def test_another_suite_gets_its_generic_table(tmp_path):
    out = tmp_path / "fiatlux"
    assert eval_cli.main(["S01", "--policy", "zero", "--episodes", "1", "--max-steps", "10", "--output", str(out)]) == 0
    assert report_cli.main([str(out), "--output", str(tmp_path / "report")]) == 0
    dom = Dom((tmp_path / "report" / "index.html").read_text())
    [suite] = dom.find("section", "suite")
    assert suite["id"] == "suite-fiatlux" and len(dom.find("th", "cond")) == 12 and len(dom.find("tr", "policy")) == 1


def test_errors_are_one_line_and_an_unrelated_folder_is_never_replaced(runs, tmp_path, capsys):
    assert report_cli.main([str(tmp_path / "missing")]) == 2
    assert report_cli.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"htb-report: no such directory: {tmp_path / 'missing'}", f"htb-report: no validated results under {tmp_path}"]
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    assert report_cli.main([str(runs[0]), "--output", str(mine)]) == 2
    assert capsys.readouterr().err == f"htb-report: {mine} exists and is not a report folder; choose another --output\n"
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]
    blocked = mine / "notes.txt" / "report"  # its parent is a file: the folder asked for is named
    assert report_cli.main([str(runs[0]), "--output", str(blocked)]) == 2
    assert capsys.readouterr().err.startswith(f"htb-report: cannot write a report at {blocked}: ")


def test_a_new_report_replaces_the_earlier_one_whole(runs, tmp_path):
    out = tmp_path / "report"
    assert report_cli.main([*map(str, runs), "--output", str(out)]) == 0
    first = sorted(p.relative_to(out) for p in out.rglob("*.mp4"))
    page = (out / "index.html").read_bytes()
    assert report_cli.main([*map(str, runs), "--output", str(out)]) == 0
    assert (out / "index.html").read_bytes() == page  # same results, same bytes
    assert report_cli.main([str(runs[1]), "--output", str(out)]) == 0
    assert sorted(p.relative_to(out) for p in out.rglob("*.mp4")) == [f for f in first if POSE_HOLD in str(f)]
    assert [p.name for p in tmp_path.iterdir()] == ["report"]  # no temporary folder left beside it


def test_the_report_reads_files_without_mujoco(runs, tmp_path):
    code = ("import sys; sys.modules['mujoco'] = None\n"
            "from humanoidtoolbench.cli import report\n"
            f"sys.exit(report.main([{str(runs[0])!r}, '--output', {str(tmp_path / 'r')!r}]))\n")
    env = {**os.environ, "PYTHONPATH": str(Path(humanoidtoolbench.__file__).parents[1])}
    subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True)
    assert (tmp_path / "r" / "index.html").is_file() and (tmp_path / "r" / "plotly.min.js").stat().st_size > 1_000_000


@pytest.mark.slow
def test_a_solved_condition_gets_its_steps_plot_and_success_video(tmp_path):
    out = tmp_path / "expert"
    assert eval_cli.main([RANDOM, "--policy", "expert", "--episodes", "1", "--max-steps", "900", "--output", str(out)]) == 0
    assert report_cli.main([str(out), "--output", str(tmp_path / "report")]) == 0
    [result], _ = gather.find_results([out])
    [steps] = result.report.steps_to_success
    page = (tmp_path / "report" / "index.html").read_text()
    dom = Dom(page)
    assert len(dom.find("figure", "success")) == 1 and not dom.find("figure", "failure") and '"text":"Steps to success"' in page
    assert f'<td class="num">{steps}</td>' in page  # the median of one
