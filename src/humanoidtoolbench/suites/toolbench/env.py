"""Gymnasium environments for the 18 conditions, on the shared `TaskEpisode`.

`gymnasium.make("humanoidtoolbench/G1BallMove-L0-S")` (after `import
humanoidtoolbench`) gives an environment whose observation is what a policy
receives (head image, 32-value state, instruction) and whose action is one
36-value `decoupled_v1` command. The episode terminates on success (the
predicate held for 50 consecutive steps) or a fall (`info["fell"]`) and
truncates at the step budget. `controller` names what executes the
commands (`control.CONTROLLERS`: the protocol's balanced by default, or assisted).
Each action is a one-row chunk of the shared `Rollout`: the contract
validates it (a wrong shape or a non-finite value raises its `ActionError`)
and the episode's `on_chunk` sees it, as in `htb-eval`.
"""

from __future__ import annotations

import string

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ...control.contracts import decoupled_v1 as contract
from ...robot.cameras import HEIGHT, WIDTH
from ...sim.render import CameraRenderer
from ..base import FELL
from ..rollout import Rollout
from .episode import TaskEpisode
from .registry import MAX_STEPS, parse
from .suite import POLICY_CAMERA, SUITE


def action_space() -> spaces.Box:
    return contract.DECOUPLED_V1.action_space()


def observation_space() -> spaces.Dict:
    return spaces.Dict(
        {
            "image": spaces.Box(0, 255, (HEIGHT, WIDTH, 3), np.uint8),
            "state": contract.DECOUPLED_V1.state_space(),
            # The default charset is alphanumeric only, which excludes the instructions' spaces.
            "instruction": spaces.Text(max_length=256, charset=string.printable),
        }
    )


class HumanoidToolBenchEnv(gym.Env):
    metadata = {"render_modes": ["rgb_array"], "render_fps": 50}

    def __init__(
        self,
        condition: str,
        max_steps: int = MAX_STEPS,
        render_mode: str | None = None,
        detail: str = "fast",
        controller: str | None = None,
        look: str | None = None,
    ):
        self.condition = parse(condition)
        controller = controller or SUITE.protocol.controller
        SUITE.controller_class(controller)  # a name this suite cannot run fails here, naming those it can
        self.controller = controller
        self.max_steps = int(max_steps)
        self.render_mode = render_mode
        self.detail = detail
        self.look = look or SUITE.protocol.look
        if self.look not in SUITE.looks:
            raise ValueError(f"look {self.look!r}: the toolbench suite is drawn in {', '.join(SUITE.looks)}")
        self.action_space = action_space()
        self.observation_space = observation_space()
        self.episode: TaskEpisode | None = None
        self._rollout: Rollout | None = None
        self._cameras: CameraRenderer | None = None

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is None:
            seed = int(self.np_random.integers(2**31))
        self._close_cameras()
        self.episode = SUITE.make_episode(self.condition, seed, SUITE.make_controller(self.controller), self.detail, self.look)
        self.episode.reset()
        self._rollout = Rollout(self.episode, SUITE.action_contract(self.controller))
        self._cameras = CameraRenderer(self.episode.model, (POLICY_CAMERA,))
        info = {"seed": seed, "settle_steps": self.episode.settle_steps}
        return self._observation(), info

    def step(self, action):
        self._rollout.accept(np.asarray(action)[None])  # each step's row is its own chunk
        _, result = self._rollout.step()
        fell = result.outcome == FELL
        terminated = result.success or fell
        truncated = not terminated and self.episode.steps >= self.max_steps
        info = {
            "metrics": result.metrics,
            "success": result.success,
            "fell": fell,
            "success_now": result.success_now,
            "step": self.episode.steps,
        }
        return self._observation(), float(result.success), terminated, truncated, info

    def _observation(self) -> dict:
        return {
            "image": self._cameras.render(self.episode.data, POLICY_CAMERA).copy(),
            "state": self.episode.state(),
            "instruction": self.condition.instruction,
        }

    def render(self):
        if self.render_mode == "rgb_array" and self.episode is not None:
            return self._cameras.render(self.episode.data, POLICY_CAMERA).copy()
        return None

    def _close_cameras(self) -> None:
        if self._cameras is not None:
            self._cameras.close()
            self._cameras = None

    def close(self) -> None:
        self._close_cameras()
