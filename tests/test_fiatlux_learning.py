"""Fiatlux for learning: the Gymnasium checker in both observation modes, vectorised runs, repeatable resets,
the episode options through htb-eval, the reward in bags and summaries, and PPO end to end."""

from __future__ import annotations

import hashlib
import json
import math
from functools import partial

import gymnasium
import numpy as np
import pytest

from humanoidtoolbench.cli import eval as eval_cli
from humanoidtoolbench.record.records import BenchmarkResult, EpisodeSummary, read
from humanoidtoolbench.suites.fiatlux import SUITE
from humanoidtoolbench.suites.fiatlux.bag import read_bag
from humanoidtoolbench.suites.fiatlux.observation import PRIVILEGED_DIM, STATE_DIM
from humanoidtoolbench.suites.fiatlux.rewards import CLIMB_TERMS
from humanoidtoolbench.suites.fiatlux.scoring import score_run
from humanoidtoolbench.suites.fiatlux.subtasks import BY_KEY, CLIMB

from conftest import fiatlux_episode

ENV_IDS = [c.env_id for c in SUITE.listed]


@pytest.mark.parametrize("obs_mode", ["standard", "privileged"])
def test_every_environment_passes_the_checker(obs_mode):
    from gymnasium.utils.env_checker import check_env

    for env_id in ENV_IDS:
        env = gymnasium.make(env_id, obs_mode=obs_mode, vision=False, cache=4)
        check_env(env.unwrapped, skip_render_check=True)
        obs, _ = env.reset(seed=1)
        assert obs["state"].shape == (STATE_DIM,) and ("privileged" in obs) == (obs_mode == "privileged"), env_id
        assert ("rung_forces" in obs) == (env_id == CLIMB.env_id)
        env.close()


def test_privileged_mode_is_the_exact_state_and_the_papers_48_values():
    env = gymnasium.make("FIATLUX-S12-ClimbDown-v0", obs_mode="privileged")
    obs, _ = env.reset(seed=0)
    assert "image" not in obs and "lidar" not in obs and obs["privileged"].shape == (PRIVILEGED_DIM,) == (48,)
    ep = env.unwrapped.episode
    assert np.array_equal(obs["state"], ep.observer.exact_state(ep.data, ep.forces))
    assert obs["privileged"][-2:].tolist() == [0.0, 1.0]  # S12: the old bulb in the crate, the fresh one seated
    assert obs["privileged"][:3] == pytest.approx(ep.data.qpos[ep.observer.qadr : ep.observer.qadr + 3], abs=1e-6)
    standard = gymnasium.make("FIATLUX-S12-ClimbDown-v0", vision=False).reset(seed=0)[0]
    noise = standard["state"][:10] - obs["state"][:10]  # same start, the standard state carries the sensor noise
    assert 0 < np.abs(noise).max() <= 0.2 + 1e-6
    request = SUITE.build_request(ep, np.zeros((256, 256, 3), np.uint8), reset=True)
    assert "image" not in request and request["state"]["privileged"].shape == (1, 48)
    env.close()


def _qpos_digest(episode, steps: int, rng) -> str:
    digest = hashlib.sha256()
    for _ in range(steps):
        episode.step(rng.uniform(-0.3, 0.3, 43))
        digest.update(episode.data.qpos.tobytes())
    return digest.hexdigest()


def test_a_reset_episode_repeats_its_first_run_and_a_start_seed_draws_a_new_start():
    fresh = fiatlux_episode(BY_KEY["S03"], 5)
    fresh.reset()
    first = _qpos_digest(fresh, 40, np.random.default_rng(0))
    fresh.reset()
    assert _qpos_digest(fresh, 40, np.random.default_rng(0)) == first
    other = fiatlux_episode(BY_KEY["S03"], 5)
    other.reset()
    assert _qpos_digest(other, 40, np.random.default_rng(0)) == first
    fresh.reset(start_seed=77)
    jittered = _qpos_digest(fresh, 40, np.random.default_rng(0))
    fresh.reset(start_seed=77)
    assert _qpos_digest(fresh, 40, np.random.default_rng(0)) == jittered != first


def _vector_run(cls, **kwargs):
    make = partial(gymnasium.make, f"humanoidtoolbench:{CLIMB.env_id}", vision=False)
    envs = cls([make, make], **kwargs)
    obs, _ = envs.reset(seed=11)
    rng, states, rewards = np.random.default_rng(3), [obs["state"]], []
    for _ in range(70):  # long enough for random actions to end an episode and autoreset it
        obs, reward, terminated, truncated, _ = envs.step(rng.uniform(-1, 1, (2, 43)).astype(np.float32))
        states.append(obs["state"])
        rewards.append(reward)
    envs.close()
    return np.array(states), np.array(rewards)


def test_vectorised_sync_and_async_runs_are_the_same_for_the_same_seed():
    sync = _vector_run(gymnasium.vector.SyncVectorEnv)
    again = _vector_run(gymnasium.vector.SyncVectorEnv)
    # The instruction is a Text space, which shared memory cannot hold.
    parallel = _vector_run(gymnasium.vector.AsyncVectorEnv, context="spawn", shared_memory=False)
    for a, b in ((sync, again), (sync, parallel)):
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert (sync[1] < -3.0).any()  # a fall was charged, so an episode ended and was reset


def test_training_layouts_reuse_their_scenes_and_draw_each_start():
    env = gymnasium.make("FIATLUX-S07-ApproachNewBulb-v0", vision=False, layouts=2, layout_start=1000).unwrapped
    starts = {}
    for seed in (0, 1, 2, 3):
        obs, info = env.reset(seed=seed)
        starts[seed] = (info["scene_seed"], obs["state"][:10].copy(), env.episode)
    assert [starts[s][0] for s in range(4)] == [1000, 1001, 1000, 1001]
    assert starts[0][2] is starts[2][2] and not np.array_equal(starts[0][1], starts[2][1])
    assert np.array_equal(env.reset(seed=2)[0]["state"][:10], starts[2][1])
    env.close()


def _run(tmp_path, args) -> tuple[BenchmarkResult, dict, list[EpisodeSummary]]:
    assert eval_cli.main(args + ["--output", str(tmp_path), "--no-video"]) == 0
    (result_path,) = tmp_path.glob("*/run-*/benchmark_result.json")
    config = json.loads((result_path.parent / "evaluation_config.json").read_text())
    summaries = [read(p, EpisodeSummary) for p in sorted(result_path.parent.glob("summaries/episode_*.json"))]
    return read(result_path, BenchmarkResult), config, summaries


def test_htb_eval_records_the_options_and_a_privileged_run_is_never_reportable(tmp_path):
    result, config, _ = _run(tmp_path / "p", ["S07", "--policy", "zero", "--episodes", "1", "--max-steps", "3",
                                              "--obs-mode", "privileged", "--no-randomize", "--prop-scale"])
    assert config["options"] == {"obs_mode": "privileged", "randomize": False, "prop_scale": True}
    assert not result.reportable and any("privileged" in r for r in result.reasons)
    assert "randomisation off" in result.reasons and "prop scale randomised" in result.reasons
    _, config, _ = _run(tmp_path / "s", ["S07", "--policy", "zero", "--episodes", "1", "--max-steps", "3"])
    assert config["options"] == {"obs_mode": "standard", "randomize": True, "prop_scale": False}


def test_an_option_a_suite_lacks_is_one_line(capsys):
    assert eval_cli.main(["G1BallMove-L0-S", "--policy", "zero", "--obs-mode", "privileged", "--dry-run"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--obs-mode: the toolbench suite's episodes have no such option" in err


def test_the_bag_and_the_summary_hold_the_same_reward_breakdown(tmp_path):
    _, _, summaries = _run(tmp_path, [CLIMB.env_id, "--policy", "random", "--episodes", "1"])
    (summary,) = summaries
    assert summary.outcome == "fell"
    meta, columns = read_bag(next(tmp_path.glob("*/run-*/bags/episode_0.h5")))
    assert meta["reward_terms"] == list(CLIMB_TERMS) and columns["rung_forces"].shape[1] == 12
    sums = {t: math.fsum(columns[f"reward_{t}"]) for t in meta["reward_terms"]}
    assert sums == pytest.approx({t: summary.final_metrics[f"return/{t}"] for t in sums}, abs=1e-12)
    assert math.fsum(columns["reward"]) == pytest.approx(summary.final_metrics["return"], abs=1e-9)
    assert sums["fall"] == pytest.approx(-4.0)
    score = score_run(tmp_path)
    assert score.climb is not None and score.climb.mean_return == pytest.approx(summary.final_metrics["return"])


def test_ppo_trains_briefly_and_htb_eval_scores_its_checkpoint(tmp_path):
    pytest.importorskip("rsl_rl")
    from humanoidtoolbench.suites.fiatlux.learning import ppo

    out = tmp_path / "ppo"
    assert ppo.main([CLIMB.env_id, "--steps", "3000", "--num-envs", "2", "--steps-per-env", "50", "--layouts", "1",
                     "--output", str(out)]) == 0
    curve = json.loads((out / "curve.json").read_text())
    assert [r["iteration"] for r in curve] == list(range(30)) and curve[-1]["steps"] == 3000
    assert any("/reward/fall" in r for r in curve)
    assert (out / "curve.svg").read_text().startswith("<?xml")
    (weights,) = out.glob("run/checkpoints/ckpt_3000/model.safetensors")
    result, _, summaries = _run(tmp_path / "eval", [CLIMB.env_id, "--model", str(out), "--episodes", "1", "--max-steps", "20"])
    assert result.policy_info["checkpoint"].startswith("sha256:") and result.policy_info["model"]["family"] == "ppo"
    assert summaries[0].step >= 1
    assert eval_cli.main([CLIMB.env_id, "--model", str(out), "--controller", "balanced", "--dry-run"]) == 2
