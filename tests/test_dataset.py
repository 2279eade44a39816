"""htb-dataset: demonstrations written as a LeRobot dataset that LeRobot itself loads."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from humanoidtoolbench.cli import dataset as dataset_cli
from humanoidtoolbench.eval import demonstrations
from humanoidtoolbench.eval.demonstrations import DemoError, record_condition
from humanoidtoolbench.eval.rundir import RunDir
from humanoidtoolbench.record.lerobot_dataset import (
    DatasetError, DatasetSpec, DemoEpisode, aggregate_stats, decode_frames, write_dataset,
)
from humanoidtoolbench.record.video import VideoWriter
from humanoidtoolbench.suites.toolbench import registry

CONDITION = "G1BallMove-L0-S"


# LeRobot is read in a fresh process: importing torch after Mesa's EGL has loaded its LLVM (as the
# episodes' rendering just did in this one) crashes in triton's LLVM.
LOAD = """
import json, sys
import numpy as np
import torch
from lerobot.datasets.lerobot_dataset import LeRobotDataset

ds = LeRobotDataset("local/htb-test", root=sys.argv[1])
column = lambda key: torch.stack(ds.hf_dataset[key]).numpy()
out = {"episode_index": column("episode_index"), "frame_index": column("frame_index"), "timestamp": column("timestamp"),
       "task_index": column("task_index"), "index": column("index"), "action": column("action"),
       "state": column("observation.state")}
first = 0
for ep in range(ds.meta.total_episodes):
    last = first + ds.meta.episodes[ep]["length"] - 1
    item = ds[last]  # LeRobot's own video decoder
    for key in ds.meta.video_keys:
        out[f"last_frame/{ep}/{key}"] = (item[key].numpy().transpose(1, 2, 0) * 255).round().astype(np.uint8)
    out[f"last_action/{ep}"] = item["action"].numpy()
    first = last + 1
np.savez(sys.argv[2], **out)
json.dump({"tasks": ds.meta.tasks, "lengths": [ds.meta.episodes[e]["length"] for e in range(ds.meta.total_episodes)],
           "video_keys": ds.meta.video_keys, "num_frames": ds.num_frames,
           "paths": {k: [str(ds.meta.get_video_file_path(e, k)) for e in range(ds.meta.total_episodes)] for k in ds.meta.video_keys}},
          open(sys.argv[3], "w"))
"""


def _load(root: Path, tmp_path: Path) -> tuple[dict, dict]:
    """What LeRobotDataset returns for the dataset at `root`: its rows and last frames, and its metadata."""
    rows, meta = tmp_path / "rows.npz", tmp_path / "meta.json"
    done = subprocess.run([sys.executable, "-c", LOAD, str(root), str(rows), str(meta)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    return dict(np.load(rows)), json.loads(meta.read_text())


def _runs_of(runs: Path) -> dict[int, RunDir]:
    """seed -> the run that recorded it."""
    return {seed: run for run in RunDir.all_runs(runs, CONDITION) for seed in run.completed_seeds()}


def _check_against_runs(root: Path, runs: Path, seeds: list[int], tmp_path: Path) -> None:
    """Every row, task and video of the dataset is what the runs recorded, as LeRobot reads it."""
    rows, meta = _load(root, tmp_path)
    recorded = _runs_of(runs)
    about = json.loads((root / "meta" / "humanoidtoolbench.json").read_text())
    assert [e["seed"] for e in about["episodes"]] == seeds
    assert len(meta["lengths"]) == len(seeds)
    total = 0
    for index, seed in enumerate(seeds):
        run = recorded[seed]
        actions = np.load(run.steps(seed) / "action.npy")
        states = np.load(run.steps(seed) / "state.npy")
        mine = np.flatnonzero(rows["episode_index"] == index)
        assert len(mine) == len(actions) == len(states) == meta["lengths"][index] == run.read_summary(seed).step
        assert np.array_equal(rows["action"][mine], actions.astype(np.float32))
        assert np.array_equal(rows["state"][mine], states)
        assert np.array_equal(rows["frame_index"][mine], np.arange(len(mine)))
        assert np.allclose(rows["timestamp"][mine], np.arange(len(mine)) / 50.0)
        assert meta["tasks"][str(rows["task_index"][mine[0]])] == run.read_summary(seed).instruction
        assert np.array_equal(rows[f"last_action/{index}"], actions[-1].astype(np.float32))
        for key in meta["video_keys"]:
            camera = key.rsplit(".", 1)[1]
            video = root / meta["paths"][key][index]
            assert video.read_bytes() == (run.videos(seed) / f"{camera}.mp4").read_bytes()
            frames = list(decode_frames(video))
            assert len(frames) == len(mine) + 1  # plus the scene after the last command
            # LeRobot's decoder hands the last row the frame the policy saw before the last command.
            theirs = rows[f"last_frame/{index}/{key}"]
            assert np.array_equal(theirs, frames[-2])
            assert not np.array_equal(theirs, frames[-1]) and not np.array_equal(theirs, frames[-3])
        total += len(mine)
    assert total == meta["num_frames"] == len(rows["index"])


def test_two_expert_episodes_load_with_lerobot_and_match_the_runs(tmp_path, capsys):
    """Short episodes (the budget cuts them, so --keep-failed keeps them) through the whole command."""
    pytest.importorskip("lerobot")
    out, runs = tmp_path / "demos", tmp_path / "runs"
    rc = dataset_cli.main([CONDITION, "--episodes", "2", "--max-steps", "25", "--keep-failed",
                           "--output", str(out), "--runs", str(runs)])
    assert rc == 0, capsys.readouterr().err
    _check_against_runs(out, runs, [20000, 20001], tmp_path)
    info = json.loads((out / "meta" / "info.json").read_text())
    assert info["codebase_version"] == "v2.1" and info["fps"] == 50
    assert info["features"]["action"]["shape"] == [36] and info["features"]["observation.state"]["shape"] == [32]
    assert len(info["features"]["action"]["names"]) == 36
    cams = [k for k, f in info["features"].items() if f["dtype"] == "video"]
    assert cams == [f"observation.images.{c}" for c in ("head_stereo_left", "head_stereo_right", "wrist_left", "wrist_right")]
    stats = json.loads((out / "meta" / "stats.json").read_text())
    assert stats["action"]["count"] == [50]
    # Recorded on the protocol's controller, which the dataset names.
    assert json.loads((out / "meta" / "humanoidtoolbench.json").read_text())["controller"] == "balanced"
    assert {json.loads(p.read_text())["controller"] for p in runs.rglob("evaluation_config.json")} == {"balanced"}
    assert np.array(stats[cams[0]]["mean"]).shape == (3, 1, 1)
    # The same command again reuses the recorded runs; the dataset directory is never overwritten.
    assert dataset_cli.main([CONDITION, "--episodes", "2", "--max-steps", "25", "--keep-failed",
                             "--output", str(out), "--runs", str(runs)]) == 2
    assert "already exists" in capsys.readouterr().err
    again = tmp_path / "again"
    assert dataset_cli.main([CONDITION, "--episodes", "2", "--max-steps", "25", "--keep-failed",
                             "--output", str(again), "--runs", str(runs)]) == 0
    assert "reusing validated result" in capsys.readouterr().err
    for name in ("episodes.jsonl", "tasks.jsonl", "episodes_stats.jsonl", "info.json"):
        assert (again / "meta" / name).read_bytes() == (out / "meta" / name).read_bytes()
    # The policy's camera alone: what a policy served through the public request can be trained on.
    head = tmp_path / "head"
    assert dataset_cli.main([CONDITION, "--episodes", "2", "--max-steps", "25", "--keep-failed", "--cameras",
                             "head_stereo_left", "--output", str(head), "--runs", str(runs)]) == 0
    info = json.loads((head / "meta" / "info.json").read_text())
    assert [k for k, f in info["features"].items() if f["dtype"] == "video"] == ["observation.images.head_stereo_left"]
    assert info["total_videos"] == 2 and len(list((head / "videos").rglob("*.mp4"))) == 2
    # Those runs rendered and recorded that camera alone.
    configs = [json.loads(p.read_text()) for p in runs.rglob("evaluation_config.json")]
    assert sorted(len(c["cameras"]) for c in configs) == [1, 4]
    head_run = next(p.parent for p in runs.rglob("evaluation_config.json") if len(json.loads(p.read_text())["cameras"]) == 1)
    assert sorted(p.name for p in head_run.rglob("*.mp4")) == ["head_stereo_left.mp4"] * 2
    # The same episodes as v3.0: other files, the same rows and frames (the runs are reused).
    from humanoidtoolbench.training.demos import read_demos

    v30 = tmp_path / "head-v30"
    assert dataset_cli.main([CONDITION, "--episodes", "2", "--max-steps", "25", "--keep-failed", "--cameras",
                             "head_stereo_left", "--format", "v3.0", "--output", str(v30), "--runs", str(runs)]) == 0
    assert json.loads((v30 / "meta" / "info.json").read_text())["codebase_version"] == "v3.0"
    a, b = read_demos(head, "head_stereo_left"), read_demos(v30, "head_stereo_left")
    assert np.array_equal(a.actions, b.actions) and np.array_equal(a.states, b.states) and a.tasks == b.tasks
    # Another controller by name: runs of their own, and the dataset says which.
    assisted = tmp_path / "assisted"
    capsys.readouterr()
    assert dataset_cli.main([CONDITION, "--episodes", "1", "--max-steps", "25", "--keep-failed", "--controller", "assisted",
                             "--cameras", "head_stereo_left", "--output", str(assisted), "--runs", str(runs)]) == 0
    assert "reusing" not in capsys.readouterr().err
    assert json.loads((assisted / "meta" / "humanoidtoolbench.json").read_text())["controller"] == "assisted"


def test_a_rerun_removes_what_a_killed_write_left_in_its_runs(tmp_path, capsys):
    from humanoidtoolbench.eval.integrity import verify_run

    runs = tmp_path / "runs"
    args = [CONDITION, "--episodes", "1", "--max-steps", "25", "--keep-failed", "--cameras", "head_stereo_left", "--runs", str(runs)]
    assert dataset_cli.main([*args, "--output", str(tmp_path / "first")]) == 0
    [run] = runs.glob(f"{CONDITION}/run-*")
    (run / "benchmark_result.json").unlink()
    left = run / "summaries" / ".episode_20000.json.abcd1234.tmp"
    left.write_text("{")
    capsys.readouterr()
    assert dataset_cli.main([*args, "--output", str(tmp_path / "second")]) == 0
    assert f"continuing interrupted run {run}" in capsys.readouterr().err
    assert not left.exists() and verify_run(run) == [] and (tmp_path / "second" / "meta" / "info.json").is_file()


@pytest.mark.slow
def test_the_standard_export_keeps_successful_expert_episodes(tmp_path, capsys):
    pytest.importorskip("lerobot")
    out, runs = tmp_path / "demos", tmp_path / "runs"
    assert dataset_cli.main([CONDITION, "--episodes", "2", "--output", str(out), "--runs", str(runs)]) == 0
    _check_against_runs(out, runs, [20000, 20001], tmp_path)
    about = json.loads((out / "meta" / "humanoidtoolbench.json").read_text())
    assert {e["outcome"] for e in about["episodes"]} == {"success"}
    assert about["episodes_kept"] == "successful"


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--seed-start", "10050"], "overlap the evaluation seeds 10000..10099"),
        (["--seed-start", "9990", "--episodes", "10"], "overlap the evaluation seeds"),  # 2 x 10 seeds reach 10009
        (["--episodes", "0"], "--episodes must be between"),
        (["--max-steps", "3001"], "--max-steps must be between 1 and 3000"),
        (["--workers", "0"], "--workers must be a number from 1"),
        (["--workers", "two"], "--workers must be a number from 1"),
        (["--workers", "9" * 5000], "--workers must be a number from 1"),
        (["G1Nothing-L0-S"], "G1Nothing"),
        (["--cameras", "head_stereo_left,belly"], "--cameras: belly; the cameras are head_stereo_left"),
        (["FINDSIT-val100", "--policy", "random"], "FINDSIT-val100 has seeds 0..99"),
        (["--controller", "servo"], "the toolbench suite's commands run on assisted, balanced"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, fragment, tmp_path, capsys):
    argv = args if args and not args[0].startswith("-") else [CONDITION, *args]
    assert dataset_cli.main([*argv, "--output", str(tmp_path / "d")]) == 2
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") == 1
    assert not (tmp_path / "d").exists() and not (tmp_path / "d-runs").exists()


class _FakeRun:
    def __init__(self, seeds, success):
        self.seeds, self.success = seeds, success

    def read_summary(self, seed):
        return type("S", (), {"seed": seed, "success": self.success(seed)})()


def test_batches_ask_only_for_the_missing_successes_and_give_up_at_twice_the_request(monkeypatch):
    asked = []

    def fake_evaluate(settings, *args, **kwargs):
        asked.append(settings.seeds)
        return type("O", (), {"run": _FakeRun(settings.seeds, lambda s: s % 3 != 0)})()

    monkeypatch.setattr(demonstrations, "evaluate_condition", fake_evaluate)
    cond = registry.parse(CONDITION)
    picked = record_condition(cond, None, None, Path("unused"), None, 5, 20000, 30, False, CONDITION)
    # 20001 and 20004 fail: the second batch asks for the 2 successes still missing.
    assert asked == [[20000, 20001, 20002, 20003, 20004], [20005, 20006]]
    assert [p.summary.seed for p in picked] == [20000, 20002, 20003, 20005, 20006]
    asked.clear()
    monkeypatch.setattr(demonstrations, "evaluate_condition", lambda settings, *a, **k: (
        asked.append(settings.seeds), type("O", (), {"run": _FakeRun(settings.seeds, lambda s: s == 20000)})())[1])
    with pytest.raises(DemoError, match=r"only 1 successful episodes in seeds 20000\.\.20005"):
        record_condition(cond, None, None, Path("unused"), None, 3, 20000, 30, False, CONDITION)
    assert sum(len(s) for s in asked) == 6


def _episode(tmp_path: Path, name: str, steps: int, cameras=("cam",), task="push") -> DemoEpisode:
    rng = np.random.default_rng(steps)
    videos = {}
    for cam in cameras:
        writer = VideoWriter(tmp_path / f"{name}-{cam}.mp4", 64, 48)
        for i in range(steps + 1):
            writer.write(np.full((48, 64, 3), (i * 7) % 256, np.uint8))
        videos[cam] = writer.close()
    return DemoEpisode(task, rng.normal(size=(steps, 3)).astype(np.float32), rng.normal(size=(steps, 2)), videos, {"name": name})


def test_a_failed_export_leaves_neither_the_dataset_nor_a_partial_directory(tmp_path):
    pytest.importorskip("pyarrow")
    spec = DatasetSpec(fps=50, robot_type="test", cameras=("cam",), state_names=("a", "b", "c"))
    good = _episode(tmp_path, "good", 5)
    bad = _episode(tmp_path, "bad", 4, cameras=("other",))
    root = tmp_path / "ds"
    with pytest.raises(DatasetError, match="episode 1: no video of camera cam"):
        write_dataset(root, spec, [good, bad], {})
    assert [p.name for p in tmp_path.iterdir() if p.is_dir()] == []
    info = write_dataset(root, spec, [good, _episode(tmp_path, "short", 3)], {"about": 1})
    assert (info["total_episodes"], info["total_frames"], info["total_tasks"]) == (2, 8, 1)
    assert info["features"]["observation.state"]["names"] == ["a", "b", "c"]
    assert info["features"]["action"]["names"] is None
    with pytest.raises(DatasetError, match="already exists"):
        write_dataset(root, spec, [good], {})


def test_dataset_statistics_are_those_of_all_rows_together():
    rng = np.random.default_rng(0)
    parts = [rng.normal(size=(n, 4)) for n in (3, 10, 1)]
    per_episode = [{"x": {"min": p.min(0), "max": p.max(0), "mean": p.mean(0), "std": p.std(0), "count": np.array([len(p)])}}
                   for p in parts]
    whole = np.concatenate(parts)
    agg = aggregate_stats(per_episode)["x"]
    assert np.allclose(agg["mean"], whole.mean(0)) and np.allclose(agg["std"], whole.std(0))
    assert np.array_equal(agg["min"], whole.min(0)) and np.array_equal(agg["max"], whole.max(0))
    assert agg["count"].tolist() == [14]
