"""A native ACT or DP checkpoint as `predict(request)`: transforms in, network, bounds out.

Stochastic sampling (DP) draws its noise from a generator seeded by
SHA-256 of (episode, request index): in process the evaluator passes both;
over HTTP the episode is the hash of its first request's image and state
and the index counts requests since `history.reset`, so a rerun of the same
episode gets the same chunks either way.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from ..reply import EPISODE_SEED_KEY, REQUEST_INDEX_KEY
from . import ModelError, require
from .resolve import ResolvedModel
from .runconfig import RunConfig, parse
from .text import TextEncoder, text_encoder
from .transforms import FieldNormaliser, preprocess

def noise_seed(episode: str, index: int) -> int:
    return int.from_bytes(hashlib.sha256(f"{episode}:{index}".encode()).digest()[:8], "big")


def only_image(request: dict):
    """The request's one image, whatever its suite names it (a policy of one camera reads that)."""
    images = request["image"]
    if len(images) != 1:
        raise ModelError(f"the request has {len(images)} images ({', '.join(images)}); this policy reads one")
    return next(iter(images.values()))


class EpisodeCounter:
    """(episode key, request index) of each request, from the evaluator's keys or counted here."""

    def __init__(self, image_key: str | None) -> None:  # None: the request's one image
        self.image_key, self.episode, self.index = image_key, "", 0

    def __call__(self, request: dict) -> tuple[str, int]:
        reset = bool((request.get("history") or {}).get("reset"))
        if EPISODE_SEED_KEY in request:
            return f"seed:{int(request[EPISODE_SEED_KEY])}", int(request.get(REQUEST_INDEX_KEY, 0))
        if reset or not self.episode:
            digest = hashlib.sha256()
            image = only_image(request) if self.image_key is None else request["image"][self.image_key]
            for array in (image, request["state"]["states"]):
                digest.update(np.ascontiguousarray(array).tobytes())
            self.episode, self.index = f"obs:{digest.hexdigest()}", 0
        else:
            self.index += 1
        return self.episode, self.index


def read_state_dict(path) -> dict:
    """Tensors of a `.safetensors` file or a `.pth` state dict (never unpickling anything but tensors)."""
    torch = require("torch")
    try:
        if str(path).endswith(".safetensors"):
            return require("safetensors.torch").load_file(str(path))
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # a truncated or foreign file: the loaders raise many types
        raise ModelError(f"{path}: unreadable weights ({type(exc).__name__}: {' '.join(str(exc).split())[:200]})") from None
    if isinstance(state, dict) and isinstance(state.get("state_dict"), dict):
        state = state["state_dict"]
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise ModelError(f"{path}: not a state dict of tensors")
    return state


def load_strict(network, state: dict, path) -> None:
    """Every weight of the network from the file and nothing else, with matching shapes."""
    own = network.state_dict()
    missing, unexpected = sorted(set(own) - set(state)), sorted(set(state) - set(own))
    wrong = sorted(k for k in set(own) & set(state) if own[k].shape != state[k].shape)
    if missing or unexpected or wrong:
        parts = [f"{len(v)} {what} (first {v[0]})" for what, v in (("missing", missing), ("unexpected", unexpected), ("of another shape", wrong)) if v]
        raise ModelError(f"{path}: the weights do not fit the network its run_config.json describes: " + "; ".join(parts))
    network.load_state_dict(state, strict=True)


@dataclass
class NativePolicy:
    """Calls the network on one request and answers a physical-unit (T, 36) chunk."""

    network: object
    config: RunConfig
    text: TextEncoder
    device: object
    stochastic: bool

    def __post_init__(self) -> None:
        self.torch = require("torch")
        self.fields = FieldNormaliser.from_config(self.config.data.transform.field)
        self.image_key = f"rgb_{self.config.data.camera}"
        self.counter = EpisodeCounter(self.image_key)

    @property
    def chunk_size(self) -> int:
        return self.network.chunk_size

    def __call__(self, request: dict) -> dict:
        torch = self.torch
        episode, index = self.counter(request)
        image = torch.from_numpy(preprocess(request["image"][self.image_key], self.config.data.transform.model))[None]
        state = torch.from_numpy(self.fields.state_in(request["state"]["states"]))[None]
        text = torch.from_numpy(self.text.encode(str(request["instruction"])))[None]
        generator, metadata = None, {}
        if self.stochastic:
            seed = noise_seed(episode, index)
            generator, metadata = torch.Generator().manual_seed(seed), {"noise_seed": seed}
        extra = {}
        if getattr(self.network, "uses_elapsed", False):  # whole chunks are executed, so the step is index x chunk
            extra["elapsed"] = torch.tensor([index * self.chunk_size], dtype=torch.float32, device=self.device)
        with torch.inference_mode():
            out = self.network.sample(image.to(self.device), state.to(self.device), text.to(self.device), generator, **extra)
        chunk = self.fields.action_out(out[0].float().cpu().numpy())
        return {"action": chunk, "metadata": metadata} if metadata else chunk


def load_native(resolved: ResolvedModel, raw: dict, device, network_type, stochastic: bool):
    """Parse the configuration, build the network, load the weights strictly, and wrap it as a policy."""
    torch = require("torch")
    config = parse(raw, RunConfig, resolved.config_path, "run configuration")
    family_config = parse(config.model, network_type.config_type, resolved.config_path, "model section")
    text = text_encoder(config.language)
    torch.backends.cuda.matmul.allow_tf32 = False  # the original turns TF32 off: chunks match across GPUs
    torch.backends.cudnn.allow_tf32 = False
    network = network_type(family_config, text.dim)
    load_strict(network, read_state_dict(resolved.weights_path), resolved.weights_path)
    network.to(device).eval()
    return NativePolicy(network, config, text, device, stochastic)
