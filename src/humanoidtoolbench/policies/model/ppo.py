"""A PPO actor (`python -m humanoidtoolbench.suites.fiatlux.learning.ppo`) as a `--model` policy: vectors in, joint targets out.

The checkpoint is the native layout: `run/run_config.json` names the family
by its model keys (`actor_hidden_dims`, `observation_keys`) and
`run/checkpoints/ckpt_STEP/model.safetensors` holds the observation
normaliser (`mean`, `std`) and the MLP (`mlp.N.weight`, `mlp.N.bias`, ELU
between layers, as RSL-RL builds it). The policy reads the request's
`state` vectors named by `observation_keys` (`state` travels as `states`),
concatenates them, normalises, and answers the network's mean as one
`joint_position_v1` row, clipped to [-1, 1]: deterministic.
"""

from __future__ import annotations

import numpy as np

from . import ModelError, require
from .native import load_strict, read_state_dict
from .resolve import ResolvedModel

NORMALISER_EPS = 1e-2  # RSL-RL's EmpiricalNormalization: (x - mean) / (std + eps)
WIRE_NAMES = {"state": "states"}  # observation key -> its name under the request's `state`


def network(hidden: list[int], inputs: int, outputs: int):
    """The actor as RSL-RL's MLPModel lays it out, with its normaliser as buffers."""
    torch = require("torch")
    nn = torch.nn

    class Actor(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("mean", torch.zeros(inputs))
            self.register_buffer("std", torch.ones(inputs))
            sizes, layers = [inputs, *hidden], []
            for a, b in zip(sizes, sizes[1:]):
                layers += [nn.Linear(a, b), nn.ELU()]
            self.mlp = nn.Sequential(*layers, nn.Linear(sizes[-1], outputs))

        def forward(self, x):
            return self.mlp((x - self.mean) / (self.std + NORMALISER_EPS))

    return Actor()


class PpoPolicy:
    chunk_size = 1

    def __init__(self, actor, keys: list[str], inputs: int, device) -> None:
        self.torch = require("torch")
        self.actor, self.keys, self.inputs, self.device = actor, keys, inputs, device

    def __call__(self, request: dict) -> np.ndarray:
        vectors = request.get("state") or {}
        missing = [k for k in self.keys if WIRE_NAMES.get(k, k) not in vectors]
        if missing:
            hint = " (run htb-eval with --obs-mode privileged)" if "privileged" in missing else ""
            raise ModelError(f"the request's state lacks {', '.join(missing)}, which this PPO checkpoint reads{hint}")
        x = np.concatenate([np.asarray(vectors[WIRE_NAMES.get(k, k)], dtype=np.float32).reshape(-1) for k in self.keys])
        if x.shape != (self.inputs,):
            raise ModelError(f"the request's observation has {x.shape[0]} values; this PPO checkpoint reads {self.inputs}")
        with self.torch.inference_mode():
            out = self.actor(self.torch.from_numpy(x)[None].to(self.device))
        return np.clip(out.cpu().numpy().astype(np.float64), -1.0, 1.0)


def build(resolved: ResolvedModel, raw: dict, device):
    section = raw["model"]
    try:
        hidden, keys = [int(h) for h in section["actor_hidden_dims"]], [str(k) for k in section["observation_keys"]]
        inputs, outputs = int(section["observation_dim"]), int(section["action_dim"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ModelError(f"{resolved.config_path}: the PPO model section is incomplete ({type(exc).__name__}: {exc})") from None
    actor = network(hidden, inputs, outputs)
    load_strict(actor, read_state_dict(resolved.weights_path), resolved.weights_path)
    actor.to(device).eval()
    return PpoPolicy(actor, keys, inputs, device)
