"""Gymnasium environments for the twelve Fiatlux subtasks, the errand and the climbing task.

`gymnasium.make("FIATLUX-S03-RemoveOldBulb-v0")` (after `import
humanoidtoolbench`) drives the shared `FiatluxEpisode` one `joint_position_v1`
row per step (with `controller="balanced"`, one `decoupled_v1` command for the
whole-body controller on the same robot), a one-row chunk of the shared
`Rollout`: the contract validates it (`joint_position_v1` refuses a value
outside [-1, 1] with its `ActionError` rather than clipping it; the batched
training environments clip their Gaussian samples first) and the episode's
`on_chunk` sees it, as in `htb-eval`. The reward is the paper's (III-E;
the climbing task's, III-D): `rewards.py`, every term in
`info["reward_terms"]` on each step, already weighted. The episode
terminates on success or on a termination (fall, tipped ladder, dropped or
crushed bulb, bulb pulled from its seat) and truncates at the condition's
horizon (120 s; the errand 1440 s); `info["outcome"]` says which and
`info["stage"]` which subtask's gate the next step is judged by.

The observation (a `Dict`) follows `obs_mode`:

- `"standard"`: `state` (the noisy state vector of `observation.py`), with
  `vision=True` (the default) also the head `image` and the `lidar` scan;
- `"privileged"`: `state` without noise and `privileged` (the paper's 48
  values: six poses, four score distances, two seat flags); no image or lidar.

Both carry the `instruction`; the climbing task adds `rung_forces` (F_rung,
12 values). With `image_features=True` (standard mode with vision; needs the
`model` extra) the observation also holds the head image's ResNet-18
features; `env.metadata["image_features"]` says which weights made them.

`reset(seed=s)` is the episode of seed s, as `htb-eval` runs it; the compiled
scene of the last `cache` seeds is kept and reused (a reset repeats its first
run exactly). For training, `layouts=N` maps seed s to the scene of layout
`layout_start + s % N` and draws the start jitter and noise from s itself, so
N compiled scenes serve every seed.
"""

from __future__ import annotations

import string
from collections import OrderedDict

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ...control.contracts import get as get_contract
from ...sim.render import CameraRenderer
from ..rollout import Rollout
from .observation import LIDAR_AZIMUTHS, LIDAR_CHANNELS, PRIVILEGED_DIM, STATE_DIM
from .rewards import REWARDS
from .rungs import RUNG_DIM
from .suite import SUITE
from .views import CAMERA, IMAGE_SIZE, OBS_MODES


def _vector(n: int) -> spaces.Box:
    return spaces.Box(-np.inf, np.inf, (n,), np.float32)


class FiatluxEnv(gym.Env):
    metadata = {"render_modes": ["rgb_array"], "render_fps": 50}

    def __init__(self, subtask: str, render_mode: str | None = None, randomize: bool = True, prop_scale: bool = False,
                 image_features: bool = False, controller: str = "servo", obs_mode: str = "standard",
                 vision: bool = True, layouts: int | None = None, layout_start: int = 0, cache: int = 1,
                 look: str | None = None):
        """`randomize=False` gives the nominal scene every reset; `prop_scale` scales the ladder, socket
        and fresh bulb (see `randomisation.py`); `controller` is one of the suite's controllers; `look`
        one of its looks (default the protocol's)."""
        self.task = SUITE.parse(subtask)
        if self.task is None:
            raise ValueError(f"{subtask!r} is not a Fiatlux condition")
        SUITE.controller_class(controller)  # a name this suite cannot run fails here, naming those it can
        if obs_mode not in OBS_MODES:
            raise ValueError(f"obs_mode {obs_mode!r}: use one of {', '.join(OBS_MODES)}")
        if layouts is not None and layouts < 1:
            raise ValueError(f"layouts must be at least 1, got {layouts}")
        self.controller, self.obs_mode = controller, obs_mode
        self.vision = vision and obs_mode == "standard"
        self.look = look or SUITE.protocol.look
        if self.look not in SUITE.looks:
            raise ValueError(f"look {self.look!r}: the fiatlux suite is drawn in {', '.join(SUITE.looks)}")
        self.contract = get_contract(SUITE.contract_for(controller))
        self.render_mode = render_mode
        self.randomize, self.prop_scale = randomize, prop_scale
        self.layouts, self.layout_start = layouts, int(layout_start)
        self.cache = max(int(cache), layouts or 1)
        self.action_space = self.contract.action_space()
        self.reward_terms = REWARDS[self.task.reward].terms  # the keys of info["reward_terms"]
        fields = {"state": _vector(STATE_DIM)}
        if self.vision:
            fields["image"] = spaces.Box(0, 255, (IMAGE_SIZE, IMAGE_SIZE, 3), np.uint8)
            fields["lidar"] = spaces.Box(0.0, 1.0, (LIDAR_CHANNELS, LIDAR_AZIMUTHS), np.float32)
        if obs_mode == "privileged":
            fields["privileged"] = _vector(PRIVILEGED_DIM)
        if self.task.reward == "climb":
            fields["rung_forces"] = _vector(RUNG_DIM)
        fields["instruction"] = spaces.Text(max_length=256, charset=string.printable)
        self.encoder = None
        if image_features and self.vision:  # here, before this environment renders anything (see features.py)
            from .features import FEATURE_DIM, ImageEncoder

            self.encoder = ImageEncoder()
            fields["image_features"] = spaces.Box(-np.inf, np.inf, (FEATURE_DIM,), np.float32)
            self.metadata = {**self.metadata, "image_features": self.encoder.describe()}
        self.observation_space = spaces.Dict(fields)
        self.episode = None
        self._rollout: Rollout | None = None
        self._episodes: OrderedDict[int, object] = OrderedDict()
        self._camera: CameraRenderer | None = None
        self._camera_model = None

    def _episode(self, scene_seed: int):
        """The episode of a scene seed, compiled once and kept while among the last `cache` used."""
        episode = self._episodes.pop(scene_seed, None)
        if episode is None:
            episode = SUITE.make_episode(self.task, scene_seed, SUITE.make_controller(self.controller), "fast",
                                         look=self.look, randomize=self.randomize, prop_scale=self.prop_scale,
                                         obs_mode=self.obs_mode)
            while len(self._episodes) >= self.cache:
                self._episodes.popitem(last=False)
        self._episodes[scene_seed] = episode
        return episode

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is None:
            seed = int(self.np_random.integers(2**31))
        if self.layouts is None:
            self.episode = self._episode(seed)
            self.episode.reset()
        else:
            self.episode = self._episode(self.layout_start + seed % self.layouts)
            self.episode.reset(start_seed=seed)
        self._rollout = Rollout(self.episode, self.contract)
        if self.vision or self.render_mode == "rgb_array":
            if self._camera is None or self._camera_model is not self.episode.model:
                self._close_camera()
                self._camera = CameraRenderer(self.episode.model, (CAMERA,), IMAGE_SIZE, IMAGE_SIZE)
                self._camera_model = self.episode.model
        return self._observation(), {"seed": seed, "scene_seed": self.episode.seed}

    def step(self, action):
        self._rollout.accept(np.asarray(action)[None])  # each step's row is its own chunk
        _, result = self._rollout.step()
        terminated = result.outcome is not None
        truncated = not terminated and self.episode.steps >= self.task.max_steps
        terms = dict(self.episode.terms)
        info = {"outcome": result.outcome, "conjuncts": dict(self.episode.progress.conjuncts), "step": self.episode.steps,
                "stage": self.episode.progress.current.key, "success": bool(result.success),
                "reward_terms": terms}
        return self._observation(), float(sum(terms.values())), terminated, truncated, info

    def _observation(self) -> dict:
        obs = dict(self.episode.observation())
        if self.vision:
            obs["image"] = self._camera.render(self.episode.data, CAMERA).copy()
            obs["lidar"] = self.episode.lidar()
            if self.encoder is not None:
                obs["image_features"] = self.encoder(obs["image"])
        obs["instruction"] = self.task.instruction
        return obs

    def render(self):
        if self.render_mode == "rgb_array" and self.episode is not None:
            return self._camera.render(self.episode.data, CAMERA).copy()
        return None

    def _close_camera(self) -> None:
        if self._camera is not None:
            self._camera.close()
            self._camera = None

    def close(self) -> None:
        self._close_camera()
        self._episodes.clear()
        self.episode = None
