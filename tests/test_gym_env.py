"""The Gymnasium environments: spaces, reset, step, termination and truncation."""

from __future__ import annotations

import subprocess
import sys

import gymnasium
import mujoco
import numpy as np
import pytest

import humanoidtoolbench  # noqa: F401  (registers the environments)
from humanoidtoolbench.control.contracts import decoupled_v1 as contract
from humanoidtoolbench.suites.toolbench import bench, layout
from humanoidtoolbench.suites.toolbench.registry import CONDITIONS, HOLD_STEPS, parse

ENV_ID = "humanoidtoolbench/G1BallMove-L0-S"
SEED = 10000


@pytest.fixture
def make():
    envs = []

    def _make(env_id: str = ENV_ID, **kwargs):
        env = gymnasium.make(env_id, **kwargs)
        envs.append(env)
        return env

    yield _make
    for env in envs:
        env.close()


def in_space_action(env, obs) -> np.ndarray:
    """The pose-holding action, clipped onto the action box.

    `contract.hold_action(state)` can lie just outside the box: a finger resting on a range
    bound of 0 rad measures up to about 1e-6 rad past it (joint limits are soft constraints)."""
    space = env.action_space
    action = contract.hold_action(obs["state"])
    assert np.all(action >= space.low - 1e-5) and np.all(action <= space.high + 1e-5)
    return np.clip(action, space.low, space.high)


def test_all_conditions_are_registered():
    for cond in CONDITIONS:
        assert cond.env_id in gymnasium.registry


def test_the_environment_passes_gymnasiums_checker(make):
    """Spaces, seeding (the same seed, the same observation), dtypes and the step API as Gymnasium expects."""
    from gymnasium.utils.env_checker import check_env

    check_env(make(controller="assisted").unwrapped, skip_render_check=True)


def test_reset_observation(make):
    env = make()
    obs, info = env.reset(seed=SEED)
    assert set(obs) == {"image", "state", "instruction"}
    assert obs["image"].shape == (360, 640, 3) and obs["image"].dtype == np.uint8
    assert obs["image"].std() > 5  # a rendered scene, not a blank frame
    assert obs["state"].shape == (32,) and obs["state"].dtype == np.float32
    assert obs["state"][31] == np.float32(0.74)
    assert obs["instruction"] == parse(ENV_ID).instruction == "Pick the tool for moving the ball to the target."
    assert env.observation_space.contains(obs)
    assert info["seed"] == SEED
    # Unnamed, the controller is the standard protocol's: the free robot that can fall.
    assert env.unwrapped.controller == "balanced" and env.unwrapped.episode.controller.name == "balanced"


def test_step(make):
    env = make()
    obs, _ = env.reset(seed=SEED)
    action = in_space_action(env, obs)
    action[31] = 0.70  # a lower pelvis: the state reports it back in slot 31
    assert env.action_space.contains(action)
    obs, reward, terminated, truncated, info = env.step(action)
    assert env.observation_space.contains(obs)
    assert obs["state"][31] == np.float32(0.70)
    assert reward == 0.0 and terminated is False and truncated is False
    assert info["success"] is False and info["step"] == 1
    metrics = info["metrics"]
    assert {"tool_lift", "picked_correct_tool", "first_touch_role", "on_spot", "level", "reasoning_mode"} <= set(metrics)
    assert metrics["level"] == 0 and metrics["reasoning_mode"] == 0


def test_truncation_at_max_steps(make):
    env = make(max_steps=5)
    obs, _ = env.reset(seed=SEED)
    action = in_space_action(env, obs)
    flags = [env.step(action)[2:4] for _ in range(5)]
    assert flags == [(False, False)] * 4 + [(False, True)]


def test_terminates_on_success(make):
    env = make("humanoidtoolbench/G1BallMove-L1-S")
    obs, _ = env.reset(seed=SEED)
    episode = env.unwrapped.episode
    ball = episode.model.joint("ball_joint")
    ring = episode.layout.ring
    episode.data.qpos[ball.qposadr[0] : ball.qposadr[0] + 3] = [ring[0], ring[1], bench.TOP + layout.BALL_RADIUS]
    mujoco.mj_forward(episode.model, episode.data)
    action = in_space_action(env, obs)
    results = [env.step(action) for _ in range(HOLD_STEPS)]
    assert all(r[4]["success_now"] for r in results)
    assert [r[2] for r in results] == [False] * (HOLD_STEPS - 1) + [True]
    assert results[-1][1] == 1.0 and results[-1][4]["success"] and not results[-1][3]


def test_reset_with_the_same_seed_is_reproducible(make):
    env = make()
    first, _ = env.reset(seed=SEED)
    env.step(in_space_action(env, first))
    again, _ = env.reset(seed=SEED)
    assert np.array_equal(first["image"], again["image"]) and np.array_equal(first["state"], again["state"])
    other, _ = make().reset(seed=SEED + 1)
    assert not np.array_equal(first["image"], other["image"])  # another layout, another room


def test_an_environment_never_closed_exits_quietly():
    """Its renderer is freed at exit while the GL libraries are loaded, not by a destructor at teardown."""
    script = f"import gymnasium, humanoidtoolbench\nenv = gymnasium.make({ENV_ID!r})\nenv.reset(seed={SEED})\n"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Exception ignored" not in done.stderr and "Traceback" not in done.stderr, done.stderr
