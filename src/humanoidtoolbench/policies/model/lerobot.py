"""LeRobot policies (ACT, Diffusion, and any class LeRobot's factory loads) from a `pretrained_model`.

The policy's input features must map onto one request: at most one camera
(the request's one image, resized to the feature's size, RGB in [0, 1]), the state
(the 32 values zero-padded to the feature's width) and, for language
policies, the instruction as `task`; its `action` must have 36 values. A
request returns `n_action_steps` actions from `select_action`, so the
policy's own queueing and normalisation apply; `history.reset` resets it.
Random draws (Diffusion's noise) come from a generator seeded per episode
and request, as for native checkpoints.
"""

from __future__ import annotations

import contextlib
import sys

import numpy as np

from ...control.contracts.decoupled_v1 import ACTION_DIM, STATE_DIM
from . import ModelError, require
from .native import EpisodeCounter, noise_seed, only_image
from .resolve import ResolvedModel
from .transforms import nearest_indices

IMAGE_MODE = "VISUAL"
STATE_MODE = "STATE"


def _features(config) -> tuple[str | None, tuple, str | None, int]:
    """(image key, image shape, state key, state width) of the policy's inputs, or a one-line refusal."""
    images = [(k, f) for k, f in config.input_features.items() if f.type.name == IMAGE_MODE]
    states = [(k, f) for k, f in config.input_features.items() if f.type.name == STATE_MODE]
    other = [k for k, f in config.input_features.items() if f.type.name not in (IMAGE_MODE, STATE_MODE)]
    if len(images) > 1 or len(states) > 1 or other:
        raise ModelError(
            f"the LeRobot policy expects inputs {sorted(config.input_features)}; the benchmark sends one head image and the state"
        )
    action = config.output_features.get("action")
    if action is None or tuple(action.shape) != (ACTION_DIM,):
        raise ModelError(f"the LeRobot policy's action is {None if action is None else tuple(action.shape)}, not ({ACTION_DIM},)")
    image_key, image_shape = (images[0][0], images[0][1].shape) if images else (None, ())
    state_key, state_width = (states[0][0], int(states[0][1].shape[0])) if states else (None, 0)
    if state_key and state_width < STATE_DIM:
        raise ModelError(f"the LeRobot policy's state has {state_width} values; the benchmark's has {STATE_DIM}")
    return image_key, tuple(image_shape), state_key, state_width


class LeRobotPolicy:
    def __init__(self, policy, config, device, processors) -> None:
        self.torch = require("torch")
        self.policy, self.config, self.device = policy, config, device
        self.preprocess, self.postprocess = processors
        self.image_key, self.image_shape, self.state_key, self.state_width = _features(config)
        self.chunk_size = int(getattr(config, "n_action_steps", 1) or 1)
        self.counter = EpisodeCounter(None)

    def _batch(self, request: dict) -> dict:
        torch, batch = self.torch, {"task": [str(request["instruction"])]}
        if self.image_key:
            _, h, w = self.image_shape
            img = np.asarray(only_image(request))
            img = img[nearest_indices(img.shape[0], h)][:, nearest_indices(img.shape[1], w)]
            batch[self.image_key] = torch.from_numpy(img.transpose(2, 0, 1).astype(np.float32) / 255.0)[None].to(self.device)
        if self.state_key:
            state = np.zeros(self.state_width, np.float32)
            state[:STATE_DIM] = np.asarray(request["state"]["states"], np.float32).reshape(-1)[:STATE_DIM]
            batch[self.state_key] = torch.from_numpy(state)[None].to(self.device)
        return batch

    def __call__(self, request: dict) -> dict:
        torch = self.torch
        episode, index = self.counter(request)
        if (request.get("history") or {}).get("reset"):
            self.policy.reset()
        batch = self.preprocess(self._batch(request))
        seed = noise_seed(episode, index)
        devices = [self.device] if self.device.type == "cuda" else []
        with torch.random.fork_rng(devices=devices), torch.inference_mode():
            torch.manual_seed(seed)
            rows = [self.postprocess(self.policy.select_action(batch)) for _ in range(self.chunk_size)]
        chunk = torch.cat([r.reshape(1, -1) for r in rows]).float().cpu().numpy()
        return {"action": chunk.astype(np.float64), "metadata": {"noise_seed": seed}}


def _processors(factory, config, path: str):
    """LeRobot 0.4 and later keep normalisation in processor pipelines saved beside the weights; earlier
    versions normalise inside the policy."""
    make = getattr(factory, "make_pre_post_processors", None)
    if make is None:
        return (lambda batch: batch), (lambda action: action)
    return make(config, pretrained_path=path)


def build(resolved: ResolvedModel, raw: dict, device):
    require("lerobot")
    factory = require("lerobot.policies.factory")
    configs = require("lerobot.configs.policies")
    path = str(resolved.config_path.parent)
    try:
        config = configs.PreTrainedConfig.from_pretrained(path)
        config.device = device.type
        with contextlib.redirect_stdout(sys.stderr):  # LeRobot prints its progress; stdout is the server's
            policy = factory.get_policy_class(config.type).from_pretrained(path, config=config)
    except (NotImplementedError, ValueError, KeyError, OSError, RuntimeError) as exc:
        raise ModelError(f"{path}: LeRobot cannot load this policy: {type(exc).__name__}: {' '.join(str(exc).split())[:300]}") from None
    policy.to(device).eval()
    return LeRobotPolicy(policy, config, device, _processors(factory, config, path))
