"""Tiny checkpoints built in the tests: random weights, small sizes, the real file layouts.

A native checkpoint is `REPO/run/run_config.json` + `run/checkpoints/ckpt_STEP/`;
a hub cache is laid out by hand (`models--ORG--NAME/snapshots/COMMIT`,
`refs/main`) so `huggingface_hub` resolves it offline. The text encoder is a
random two-layer CLIP text model with a word-level tokenizer, saved in that
cache under TINY_CLIP.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import torch

TINY_CLIP = "htb-test/tiny-clip"
CLIP_COMMIT = "c" * 40
TEXT_DIM = 16
WORDS = "push pull the ball ring into with a stick hook hammer break ice use long short block".split()


def hub_repo(cache: Path, repo_id: str, commit: str, files: Path, ref: str = "main") -> Path:
    """Copy `files` into the hub cache as `repo_id` at `commit`, with `ref` pointing at it."""
    repo = cache / ("models--" + repo_id.replace("/", "--"))
    snapshot = repo / "snapshots" / commit
    shutil.copytree(files, snapshot, dirs_exist_ok=True)
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / ref).write_text(commit)
    return snapshot


def tiny_clip(cache: Path) -> None:
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import CLIPTextConfig, CLIPTextModelWithProjection, PreTrainedTokenizerFast

    vocab = {"<|startoftext|>": 0, "<|endoftext|>": 1, "[UNK]": 2, **{w: i + 3 for i, w in enumerate(WORDS)}}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(
        single="<|startoftext|> $A <|endoftext|>", special_tokens=[("<|startoftext|>", 0), ("<|endoftext|>", 1)]
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token="<|startoftext|>", eos_token="<|endoftext|>", pad_token="<|endoftext|>", unk_token="[UNK]"
    )
    config = CLIPTextConfig(
        vocab_size=len(vocab), hidden_size=16, intermediate_size=32, num_hidden_layers=2, num_attention_heads=2,
        max_position_embeddings=77, projection_dim=TEXT_DIM, bos_token_id=0, eos_token_id=1, pad_token_id=1,
    )
    torch.manual_seed(0)
    model = CLIPTextModelWithProjection(config).eval()
    staging = cache / "staging-clip"
    model.save_pretrained(staging)
    fast.save_pretrained(staging)
    hub_repo(cache, TINY_CLIP, CLIP_COMMIT, staging)
    shutil.rmtree(staging)


def bounds(lo: float, hi: float) -> tuple[list[float], list[float]]:
    return [lo] * 36, [hi] * 36


def run_config(family: str) -> dict:
    backbone = {"channels": [8, 16], "blocks": [1, 1]}
    if family == "act":
        model = {"chunk_size": 10, "n_action_steps": 10, "dim_model": 32, "n_heads": 4, "dim_feedforward": 64,
                 "n_encoder_layers": 1, "n_decoder_layers": 1, "backbone": backbone}
    else:
        model = {"num_diffusion_iters": 100, "action_chunk_size": 16, "down_dims": [16, 32], "n_groups": 4,
                 "diffusion_step_embed_dim": 16, "image_feature_dim": 16, "backbone": backbone}
    state_min, state_max = bounds(-3.0, 3.0)
    # Actions stay near the home pose: +-0.2 around zero for the joints, the standing height for slot 31.
    action_min, action_max = bounds(-0.2, 0.2)
    action_min[31] = action_max[31] = 0.74
    return {
        "model": model,
        "language": {"encoder": TINY_CLIP, "revision": CLIP_COMMIT, "projection_dim": TEXT_DIM, "max_length": 77},
        "data": {"transform": {
            "field": {"normalization": "bounds", "pad_state_dim": 36, "state_min": state_min, "state_max": state_max,
                      "action_min": action_min, "action_max": action_max},
            "model": {"resize": [72, 128], "center_crop": [64, 112], "interpolation": "nearest"},
        }},
    }


def network(family: str, seed: int):
    from humanoidtoolbench.policies.model.act import ACT
    from humanoidtoolbench.policies.model.dp import DiffusionPolicy
    from humanoidtoolbench.policies.model.runconfig import ActConfig, DpConfig
    import msgspec

    torch.manual_seed(seed)
    model = run_config(family)["model"]
    if family == "act":
        return ACT(msgspec.convert(model, ActConfig), TEXT_DIM)
    return DiffusionPolicy(msgspec.convert(model, DpConfig), TEXT_DIM)


def native_repo(root: Path, family: str, steps=(100, 2000), ema: bool = False, config: dict | None = None) -> Path:
    """REPO/run/{run_config.json, checkpoints/ckpt_STEP/model.safetensors [+ ema_net.pth]}; each step its own weights."""
    from safetensors.torch import save_file

    run = root / "run"
    run.mkdir(parents=True, exist_ok=True)
    (run / "run_config.json").write_text(json.dumps(config or run_config(family), indent=1))
    for k, step in enumerate(steps):
        ckpt = run / "checkpoints" / f"ckpt_{step}"
        ckpt.mkdir(parents=True)
        state = {n: t.contiguous() for n, t in network(family, k).state_dict().items()}
        save_file(state, str(ckpt / "model.safetensors"))
        if ema:
            torch.save({n: t.contiguous() for n, t in network(family, 100 + k).state_dict().items()}, ckpt / "ema_net.pth")
    return root


def ppo_repo(root: Path, observation_dim: int, action_dim: int, keys=("state",)) -> Path:
    """A PPO actor in the layout the Fiatlux trainer exports (`suites.fiatlux.learning.ppo.export_actor`)."""
    from safetensors.torch import save_file

    from humanoidtoolbench.policies.model.ppo import network as ppo_network

    run = root / "run"
    run.mkdir(parents=True, exist_ok=True)
    model = {"actor_hidden_dims": [8], "observation_keys": list(keys), "observation_dim": observation_dim, "action_dim": action_dim}
    (run / "run_config.json").write_text(json.dumps({"model": model, "contract": "joint_position_v1", "controller": "servo"}))
    torch.manual_seed(0)
    actor = ppo_network([8], observation_dim, action_dim)
    ckpt = run / "checkpoints" / "ckpt_100"
    ckpt.mkdir(parents=True)
    save_file({n: t.contiguous() for n, t in actor.state_dict().items()}, str(ckpt / "model.safetensors"))
    return root
