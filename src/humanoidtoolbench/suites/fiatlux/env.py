"""Gymnasium environments for the twelve Fiatlux subtasks and the errand, on the shared `FiatluxEpisode`.

`gymnasium.make("FIATLUX-S03-RemoveOldBulb-v0")` (after `import
humanoidtoolbench`) gives the policy's observation (head image, lidar, state
vector, instruction) and takes one `joint_position_v1` row per step (with
`controller="balanced"`, one `decoupled_v1` command for the whole-body
controller on the same robot). The
episode terminates on success or on a termination (fall, tipped ladder,
dropped or crushed bulb, bulb pulled from its seat) and truncates at the
condition's horizon (120 s; the errand 1440 s); `info["outcome"]` says which
and `info["stage"]` which subtask's gate the next step is judged by.

With `image_features=True` (needs the `model` extra) the observation also
holds the head image's ResNet-18 features; `env.metadata["image_features"]`
says which weights made them (random where no ImageNet weights are cached).
"""

from __future__ import annotations

import string

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ...control.contract import get as get_contract
from ...control.joint_position import JOINT_POSITION_V1
from ...sim.render import CameraRenderer
from .observation import IMAGE_SIZE, LIDAR_AZIMUTHS, LIDAR_CHANNELS, STATE_DIM
from .suite import CAMERA, SUITE


class FiatluxEnv(gym.Env):
    metadata = {"render_modes": ["rgb_array"], "render_fps": 50}

    def __init__(self, subtask: str, render_mode: str | None = None, randomize: bool = True, prop_scale: bool = False,
                 image_features: bool = False, controller: str = "servo", look: str | None = None):
        """`randomize=False` gives the nominal scene every reset; `prop_scale` scales the ladder, socket
        and fresh bulb (see `randomisation.py`); `controller` is one of the suite's controllers; `look`
        one of its looks (default the protocol's)."""
        self.task = SUITE.parse(subtask)
        SUITE.controller_class(controller)  # a name this suite cannot run fails here, naming those it can
        self.controller = controller
        self.look = look or SUITE.protocol.look
        if self.look not in SUITE.looks:
            raise ValueError(f"look {self.look!r}: the fiatlux suite is drawn in {', '.join(SUITE.looks)}")
        self.contract = get_contract(SUITE.contract_for(controller))
        self.render_mode = render_mode
        self.randomize, self.prop_scale = randomize, prop_scale
        self.action_space = self.contract.action_space()
        fields = {
            "image": spaces.Box(0, 255, (IMAGE_SIZE, IMAGE_SIZE, 3), np.uint8),
            "lidar": spaces.Box(0.0, 1.0, (LIDAR_CHANNELS, LIDAR_AZIMUTHS), np.float32),
            "state": spaces.Box(-np.inf, np.inf, (STATE_DIM,), np.float32),
            "instruction": spaces.Text(max_length=256, charset=string.printable),
        }
        self.encoder = None
        if image_features:  # here, before this environment renders anything (see features.py)
            from .features import FEATURE_DIM, ImageEncoder

            self.encoder = ImageEncoder()
            fields["image_features"] = spaces.Box(-np.inf, np.inf, (FEATURE_DIM,), np.float32)
            self.metadata = {**self.metadata, "image_features": self.encoder.describe()}
        self.observation_space = spaces.Dict(fields)
        self.episode = None
        self._camera: CameraRenderer | None = None

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        from .episode import FiatluxEpisode

        if seed is None:
            seed = int(self.np_random.integers(2**31))
        self.close()
        self.episode = FiatluxEpisode(self.task, seed, controller=SUITE.make_controller(self.controller),
                                      randomize=self.randomize, prop_scale=self.prop_scale, look=self.look)
        self.episode.reset()
        self._camera = CameraRenderer(self.episode.model, (CAMERA,), IMAGE_SIZE, IMAGE_SIZE)
        return self._observation(), {"seed": seed}

    def step(self, action):
        row = np.asarray(action, dtype=np.float64).reshape(self.contract.action_dim)
        if self.contract is JOINT_POSITION_V1:
            row = np.clip(row, -1.0, 1.0)
        result = self.episode.step(row)
        terminated = result.outcome is not None
        truncated = not terminated and self.episode.steps >= self.task.max_steps
        info = {"outcome": result.outcome, "conjuncts": dict(self.episode.conjuncts), "step": self.episode.steps,
                "stage": self.episode.stages[self.episode.stage].key}
        return self._observation(), float(result.success), terminated, truncated, info

    def _observation(self) -> dict:
        obs = {
            "image": self._camera.render(self.episode.data, CAMERA).copy(),
            "lidar": self.episode.lidar(),
            "state": self.episode.state(),
            "instruction": self.task.instruction,
        }
        if self.encoder is not None:
            obs["image_features"] = self.encoder(obs["image"])
        return obs

    def render(self):
        if self.render_mode == "rgb_array" and self.episode is not None:
            return self._camera.render(self.episode.data, CAMERA).copy()
        return None

    def close(self) -> None:
        if self._camera is not None:
            self._camera.close()
            self._camera = None
