"""Find-navigate-sit through the core: the oracle finds and sits, the random floor, a language model end to end."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from humanoidtoolbench.cli import eval as eval_cli
from humanoidtoolbench.cli import metrics as metrics_cli
from humanoidtoolbench.record.records import EpisodeSummary, read
from humanoidtoolbench.robot import assets
from humanoidtoolbench.suites.findsit.contract import DISCRETE_SKILL_V1, SKILL_STEPS
from humanoidtoolbench.suites.findsit import split
from humanoidtoolbench.suites.findsit import suite as findsit_suite
from humanoidtoolbench.suites.findsit.suite import CONDITIONS, episodes_of, split_dir

from test_findsit_planner import Provider, ok, plan, verdict

VAL100 = CONDITIONS[0]


def run(tmp_path, *args) -> Path:
    out = tmp_path / "out"
    assert eval_cli.main(["FINDSIT-val100", *args, "--no-video", "--output", str(out)]) == 0
    [result] = out.glob("FINDSIT-val100/run-*/benchmark_result.json")
    return result.parent


def runs(out: Path) -> list[Path]:
    return sorted(p.parent for p in out.glob("FINDSIT-val100/run-*/benchmark_result.json"))


def paper(run_dir: Path, seed: int) -> dict:
    return json.loads((run_dir / "paper_metrics" / f"episode_{seed}" / "metrics.json").read_text())


def test_the_split_behind_the_conditions_is_fixed():
    episodes = episodes_of("val100")
    assert len(episodes) == 100 and len({e.scene_id for e in episodes}) == 5
    assert len(episodes_of("val")) >= 40 * 30
    assert all(e.instruction.startswith("Find the ") for e in episodes)


def test_the_generated_split_has_the_recorded_digest():
    assert split.split_digest(split.file_digests(split_dir())) == split.SPLIT_SHA256
    assert json.loads((split_dir() / split.MANIFEST).read_text()) == split.file_digests(split_dir())


@pytest.fixture
def split_copy(tmp_path):
    copy = tmp_path / "split"
    shutil.copytree(split_dir(), copy)
    return copy


def test_a_changed_or_missing_split_file_is_named(split_copy):
    shard = sorted(p for p in split_copy.rglob("*") if p.is_file() and p.name != split.MANIFEST)[0]
    name = shard.relative_to(split_copy).as_posix()
    data = bytearray(shard.read_bytes())
    data[len(data) // 2] ^= 0x01
    shard.write_bytes(bytes(data))
    with pytest.raises(split.SplitError, match=f"at {split_copy} is not the generated one \\({name} is changed\\)"):
        split.check_split(split_copy)
    shard.unlink()
    with pytest.raises(split.SplitError, match=f"\\({name} is missing\\)"):
        split.check_split(split_copy)
    (split_copy / split.MANIFEST).unlink()  # without the manifest no file can be named, the refusal stands
    with pytest.raises(split.SplitError, match="its files differ from the generated split"):
        split.check_split(split_copy)


def test_htb_eval_refuses_a_changed_split_in_one_line_before_any_episode(split_copy, tmp_path, capsys, monkeypatch):
    (split_copy / "val100.json").write_text("[]")
    monkeypatch.setattr(findsit_suite, "split_dir", lambda: split.check_split(split_copy))
    out = tmp_path / "out"
    assert eval_cli.main(["FINDSIT-val100", "--policy", "oracle", "--episodes", "1", "--no-video", "--output", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("htb-eval: the find-navigate-sit split at ") and "(val100.json is changed)" in err, err
    assert not out.exists()


@pytest.mark.parametrize("kind", ["findsit is a file", "read-only"])
def test_htb_eval_cannot_write_the_split_under_htb_home_in_one_line(robot_asset, tmp_path, capsys, monkeypatch, kind):
    if kind == "read-only" and os.geteuid() == 0:
        pytest.skip("root writes into a read-only directory")
    home = tmp_path / "home"
    home.mkdir()
    (home / "robot").symlink_to(robot_asset.root.parent)  # the asset is installed; the split is not made yet
    if kind == "read-only":
        home.chmod(0o555)
    else:
        (home / "findsit").write_text("")
    monkeypatch.setenv(assets.HOME_ENV, str(home))
    split_dir.cache_clear()
    out = tmp_path / "out"
    try:
        code = eval_cli.main(["FINDSIT-val100", "--policy", "oracle", "--episodes", "1", "--no-video", "--output", str(out)])
    finally:
        home.chmod(0o755)
        split_dir.cache_clear()
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"htb-eval: cannot write the find-navigate-sit split under {home} (")
    assert err.rstrip().endswith("; set HTB_HOME to a writable directory") and not out.exists()


def test_a_decision_is_25_control_rows_and_stop_is_one():
    walk = DISCRETE_SKILL_V1.validate([[0, 0.4]])
    assert walk.shape == (SKILL_STEPS, 3) and (walk[:, 2] == np.arange(SKILL_STEPS)).all()
    assert DISCRETE_SKILL_V1.validate([[1, 0.0]]).shape == (1, 3)
    with pytest.raises(ValueError, match="integer 0-7"):
        DISCRETE_SKILL_V1.validate([[8, 0.0]])
    with pytest.raises(ValueError, match="one decision"):
        DISCRETE_SKILL_V1.validate(np.zeros((2, 2)))


@pytest.mark.slow
def test_the_oracle_reaches_a_plant_and_sits_on_a_bed(tmp_path):
    """Episodes 0 and 1 of val100: a potted plant (touch and stop) and a bed (touch, turn, back up, sit, stop)."""
    run_dir = run(tmp_path, "--policy", "oracle", "--episodes", "2", "--metrics")
    plant, bed = paper(run_dir, 0), paper(run_dir, 1)
    assert plant["episode"]["object_category"] == "potted_plant" and bed["episode"]["object_category"] == "bed"
    assert plant["success"]["nav_sr_20cm"] and plant["success"]["active_stop"] and not plant["success"]["is_interact_episode"]
    assert bed["success"]["interact_sr"] and bed["success"]["n_sit"] == 1
    assert plant["success"]["geo_find_sr"] and plant["success"]["max_target_pixel_count"] >= 100
    for seed in (0, 1):
        summary = read(run_dir / "summaries" / f"episode_{seed}.json", EpisodeSummary)
        assert summary.outcome == "success" and summary.step % SKILL_STEPS == 1  # whole skills, then one Stop row
        assert f"paper_metrics/episode_{seed}/metrics.json" in summary.files


@pytest.mark.slow
def test_the_random_floor_and_the_paper_table(tmp_path, capsys):
    run_dir = run(tmp_path, "--policy", "random", "--checkpoint", "r", "--episodes", "3", "--metrics")
    outcomes = [read(run_dir / "summaries" / f"episode_{s}.json", EpisodeSummary).outcome for s in range(3)]
    assert set(outcomes) <= {"stopped", "timeout", "success"}
    capsys.readouterr()
    assert metrics_cli.main([str(run_dir.parent.parent)]) == 0
    out = capsys.readouterr().out
    assert "| FindSR | NavSR@20cm | InteractSR |" in out and "Token source: unavailable_no_calls" in out
    # The same report from a process that cannot import MuJoCo or a model client.
    blocked = ("import sys; sys.modules['mujoco'] = None; sys.modules['openai'] = None; "
               "from humanoidtoolbench.cli import metrics; sys.exit(metrics.main(sys.argv[1:]))")
    done = subprocess.run([sys.executable, "-c", blocked, str(run_dir.parent.parent)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout == out


def test_paper_metrics_are_opt_in_and_a_run_with_them_is_never_one_without(tmp_path, capsys):
    """Without --metrics: no segmentation pixels, no paper_metrics files, one line from htb-metrics; with it, a new run."""
    out = tmp_path / "out"
    plain = run(tmp_path, "--policy", "random", "--checkpoint", "r", "--episodes", "1")
    assert not (plain / "paper_metrics").exists()
    assert json.loads((plain / "evaluation_config.json").read_text())["paper_metrics"] is False
    calls = [json.loads(line) for line in (plain / "policy" / "episode_0.jsonl").read_text().splitlines()]
    assert calls and all(c["metadata"]["decision"]["target_pixels"] is None for c in calls)
    capsys.readouterr()
    assert metrics_cli.main([str(out)]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if "Find-navigate-sit" in line]
    assert lines == ["Find-navigate-sit: no paper metrics recorded (the runs were made without htb-eval --metrics)."]

    # The same command with --metrics neither reuses nor continues the run without them.
    assert eval_cli.main(["FINDSIT-val100", "--policy", "random", "--checkpoint", "r", "--episodes", "1", "--no-video",
                          "--metrics", "--output", str(out)]) == 0
    [metered] = [r for r in runs(out) if r != plain]
    assert json.loads((metered / "evaluation_config.json").read_text())["paper_metrics"] is True
    assert paper(metered, 0)["success"]["max_target_pixel_count"] >= 0
    capsys.readouterr()
    assert metrics_cli.main([str(out)]) == 0  # the paper table, now from the metered run
    report = capsys.readouterr().out
    assert "| FindSR | NavSR@20cm | InteractSR |" in report and "no paper metrics recorded" not in report
    # And again without: the run without them is reused, not the metered one.
    assert eval_cli.main(["FINDSIT-val100", "--policy", "random", "--checkpoint", "r", "--episodes", "1", "--no-video",
                          "--output", str(out)]) == 0
    assert runs(out) == sorted([plain, metered])


def test_metrics_is_refused_where_a_suite_has_none(capsys):
    assert eval_cli.main(["G1BallMove-L0-S", "--policy", "zero", "--metrics", "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "htb-eval: --metrics: the toolbench suite has no paper metrics (find-navigate-sit has)"


def test_a_language_model_planner_end_to_end_against_a_local_server(tmp_path):
    """Walk (verified), then a turn (no verifier), then Stop (verified): tokens summed exactly, per step."""
    provider = Provider()
    thread = threading.Thread(target=provider.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        usage = {"prompt_tokens": 1000, "completion_tokens": 100}
        provider.script(
            ok(plan(0, "Walk<forward><slow>"), usage), ok(verdict(), usage),
            ok(plan(2, "Turn<left><30>"), usage),
            ok(plan(1, "Stop/Stand", visible_state="There is no plant here."), usage), ok(verdict(), usage),
        )
        config = tmp_path / "model.json"
        config.write_text(json.dumps({"base_url": provider.url, "model": "test-model", "max_tokens": 256,
                                      "response_format": {"type": "json_object"}}))
        run_dir = run(tmp_path, "--policy", "llm", "--model-config", str(config), "--checkpoint", "test-model",
                      "--episodes", "1", "--metrics")
    finally:
        provider.server.shutdown()
        provider.server.server_close()
    cost = paper(run_dir, 0)["cost"]
    assert cost["decision_steps"] == 3 and cost["vlm_calls"] == 5 and cost["token_source"] == "provider_exact"
    assert cost["input_tokens"] == 5000 and cost["visible_output_tokens"] == 500
    assert cost["input_tokens_per_step"] == pytest.approx(5000 / 3)
    calls = [json.loads(line) for line in (run_dir / "policy" / "episode_0.jsonl").read_text().splitlines()]
    assert [c["metadata"]["decision"]["skill"] for c in calls] == ["walk_forward", "turn", "stand"]
    summary = read(run_dir / "summaries" / "episode_0.json", EpisodeSummary)
    assert summary.outcome == "stopped" and summary.step == 2 * SKILL_STEPS + 1


@pytest.mark.parametrize(
    "content, message",
    [
        ("{", "not a model config"),
        ({"base_url": "http://localhost/v1", "model": "m", "max_tokens": 64, "temperature": 0.7}, "temperature must be 0.0"),
        ({"base_url": "https://api.example.com/v1", "model": "m", "max_tokens": 64, "api_key_env": "HTB_TEST_NO_SUCH_KEY"},
         "set HTB_TEST_NO_SUCH_KEY"),
        ({"base_url": "localhost:8000", "model": "m", "max_tokens": 64}, "base_url must be an http"),
        ({"base_url": "http://localhost/v1", "model": "m"}, "max_tokens"),
    ],
    ids=["not JSON", "temperature", "no key", "base_url", "missing field"],
)
def test_an_invalid_model_config_is_one_line_and_exit_2_before_any_simulation(tmp_path, capsys, content, message):
    path = tmp_path / "model.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    out = tmp_path / "out"
    assert eval_cli.main(["FINDSIT-val100", "--policy", "llm", "--model-config", str(path), "--episodes", "1",
                          "--no-video", "--output", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"htb-eval: --model-config {path}: ") and message in err, err
    assert not out.exists()


def test_the_llm_planner_without_a_model_config_is_refused_in_one_line_before_any_episode(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("HTB_MODEL_CONFIG", raising=False)
    out = tmp_path / "out"
    assert eval_cli.main(["FINDSIT-val100", "--policy", "llm", "--episodes", "1", "--no-video", "--output", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == "htb-eval: --policy llm needs --model-config FILE (the planner's endpoint and model)\n"
    assert not out.exists()


def test_planner_fallbacks_are_lines_in_the_run_log_counted_by_htb_metrics_and_the_model_is_named(tmp_path, capsys):
    """One decision whose endpoint fails until its deadline (a fallback walk), then Stop: the fallback is a line on
    the terminal and in the run log, counted in the paper metrics, and the records name the planner's model."""
    provider = Provider()
    thread = threading.Thread(target=provider.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        provider.script((500, {"error": {"message": "overloaded"}}), ok(plan(1, "Stop/Stand")), ok(verdict()))
        config = tmp_path / "model.json"
        config.write_text(json.dumps({"base_url": provider.url, "model": "test-model", "max_tokens": 256,
                                      "decision_deadline_s": 0.5}))
        capsys.readouterr()
        run_dir = run(tmp_path, "--policy", "llm", "--model-config", str(config), "--episodes", "1", "--metrics")
    finally:
        provider.server.shutdown()
        provider.server.server_close()
    err = capsys.readouterr().err
    [fallback] = [line for line in err.splitlines() if line.startswith("llm planner")]
    assert fallback.startswith("llm planner, step 0: no usable planner answer before the 0.5 s decision deadline "
                               "(last: InternalServerError")
    assert fallback in (run_dir / "eval_latest.log").read_text()
    assert paper(run_dir, 0)["cost"]["planner_fallbacks"] == 1
    result = json.loads((run_dir / "benchmark_result.json").read_text())
    assert result["policy_info"]["model_config"]["model"] == "test-model"
    assert paper(run_dir, 0)["planner"] == "llm · test-model"
    assert metrics_cli.main([str(run_dir.parent.parent)]) == 0
    out = capsys.readouterr().out
    assert "Planner fallbacks: 1 | Verifier fallbacks: 0 | Retries: 0 | Invalid actions: 0" in out
