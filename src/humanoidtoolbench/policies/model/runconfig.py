"""`run_config.json` of a native checkpoint, as typed sections checked against the benchmark's contract.

The file carries what inference needs besides the weights: the network's
sizes (`model`), the text encoder (`language`), the bounds normalisation of
state and action (`data.transform.field`) and the image transform
(`data.transform.model`). Unknown keys are allowed (training runs record
more); a missing or mistyped one, or a value the contract forbids, is one
line naming the file.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from ...control.contracts.decoupled_v1 import ACTION_DIM
from . import ModelError

# A checkpoint of the original format names no camera: it sees the G1's left head stereo camera.
FORMAT_CAMERA = "head_stereo_left"
PADDED_STATE_DIM = 36  # the 32-value state, zero-padded as the original's field transform does
IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
CLIP_MODEL = "openai/clip-vit-large-patch14"
CLIP_REVISION = "32bd64288804d66eefd0ccbe215aa642df71cc41"
CLIP_PROJECTION_DIM = 768
CLIP_MAX_LENGTH = 77
DP_CHUNK = 16
DP_ITERATIONS = 100


BACKBONES = ("resnet", "efficientnet_lite0")
VOCABULARY = "vocabulary"  # Language.encoder: a one-hot code of the instructions a run was trained on


class Backbone(msgspec.Struct):
    """The image encoder: `resnet`, a ResNet of BasicBlocks (ResNet-18 is channels (64, 128, 256, 512),
    blocks (2, 2, 2, 2)), or `efficientnet_lite0` (its feature extractor; channels and blocks unused)."""

    channels: tuple[int, ...] = (64, 128, 256, 512)
    blocks: tuple[int, ...] = (2, 2, 2, 2)
    kind: str = "resnet"


class Language(msgspec.Struct):
    """A hub text encoder (CLIP by default), or `encoder: vocabulary` with the instructions it codes."""

    encoder: str = CLIP_MODEL
    revision: str | None = CLIP_REVISION
    projection_dim: int = CLIP_PROJECTION_DIM
    max_length: int = CLIP_MAX_LENGTH
    vocabulary: list[str] | None = None


class FieldTransform(msgspec.Struct):
    """Bounds normalisation: x -> 2 (x - min) / (max - min) - 1, the state zero-padded to `pad_state_dim` first."""

    state_min: list[float]
    state_max: list[float]
    action_min: list[float]
    action_max: list[float]
    normalization: str = "bounds"
    pad_state_dim: int = PADDED_STATE_DIM


class ImageTransform(msgspec.Struct):
    """Resize (height, width) with nearest-neighbour sampling, centre crop (height, width), then mean/std."""

    resize: tuple[int, int]
    center_crop: tuple[int, int]
    interpolation: str = "nearest"
    mean: tuple[float, float, float] = IMAGENET_MEAN
    std: tuple[float, float, float] = IMAGENET_STD


class Transforms(msgspec.Struct):
    field: FieldTransform
    model: ImageTransform


class Data(msgspec.Struct):
    """`camera`: the one the network sees, read from the request as `image.rgb_<camera>` (whether a suite
    sends it is checked against the suite's request schema, `cli/common.check_model_fits`)."""

    transform: Transforms
    camera: str = FORMAT_CAMERA


class ActConfig(msgspec.Struct):
    """ACT: a transformer encoder over image, state and language tokens, a decoder of `chunk_size` queries."""

    chunk_size: int
    dim_model: int
    n_action_steps: int | None = None
    n_heads: int = 8
    dim_feedforward: int = 3200
    n_encoder_layers: int = 4
    n_decoder_layers: int = 1
    state_dim: int = PADDED_STATE_DIM
    action_dim: int = ACTION_DIM
    n_obs_steps: int = 1
    backbone: Backbone = msgspec.field(default_factory=Backbone)
    # Set: the control steps since the episode began are one more input token, min(step, elapsed_horizon) /
    # elapsed_horizon (the policy counts them itself: whole chunks since its last reset).
    elapsed_horizon: int | None = None

    def problems(self) -> list[str]:
        steps = self.chunk_size if self.n_action_steps is None else self.n_action_steps
        return [
            *_contract(self.action_dim, self.state_dim, self.n_obs_steps),
            *_backbone(self.backbone),
            *([f"elapsed_horizon {self.elapsed_horizon} must be at least 1"] if self.elapsed_horizon is not None and self.elapsed_horizon < 1 else []),
            *([f"chunk_size {self.chunk_size} != n_action_steps {steps} (ACT returns whole chunks)"] if steps != self.chunk_size else []),
            *([f"dim_model {self.dim_model} is not divisible by n_heads {self.n_heads}"] if self.dim_model % max(self.n_heads, 1) else []),
        ]


class DpConfig(msgspec.Struct):
    """Diffusion Policy: a conditional 1-D UNet denoising a chunk of actions over `num_diffusion_iters` steps."""

    num_diffusion_iters: int
    action_chunk_size: int
    action_dim: int = ACTION_DIM
    state_dim: int = PADDED_STATE_DIM
    n_obs_steps: int = 1
    down_dims: tuple[int, ...] = (256, 512, 1024)
    kernel_size: int = 5
    n_groups: int = 8
    diffusion_step_embed_dim: int = 128
    image_feature_dim: int = 512
    num_train_timesteps: int = DP_ITERATIONS
    beta_schedule: str = "squaredcos_cap_v2"
    clip_sample: bool = True
    clip_sample_range: float = 1.0
    prediction_type: str = "epsilon"
    backbone: Backbone = msgspec.field(default_factory=Backbone)

    def problems(self) -> list[str]:
        out = [*_contract(self.action_dim, self.state_dim, self.n_obs_steps), *_backbone(self.backbone)]
        if self.action_chunk_size != DP_CHUNK:
            out.append(f"action_chunk_size {self.action_chunk_size} != {DP_CHUNK} (DP chunks are {DP_CHUNK} actions)")
        if self.num_diffusion_iters != DP_ITERATIONS:
            out.append(f"num_diffusion_iters {self.num_diffusion_iters} != {DP_ITERATIONS}")
        if self.num_train_timesteps < self.num_diffusion_iters:
            out.append(f"num_train_timesteps {self.num_train_timesteps} < num_diffusion_iters {self.num_diffusion_iters}")
        if self.beta_schedule not in ("squaredcos_cap_v2", "linear"):
            out.append(f"beta_schedule {self.beta_schedule!r} is not squaredcos_cap_v2 or linear")
        if self.prediction_type not in ("epsilon", "sample"):
            out.append(f"prediction_type {self.prediction_type!r} is not epsilon or sample")
        if any(d % self.n_groups for d in self.down_dims):
            out.append(f"down_dims {self.down_dims} are not all divisible by n_groups {self.n_groups}")
        return out


def _backbone(b: Backbone) -> list[str]:
    if b.kind not in BACKBONES:
        return [f"backbone.kind {b.kind!r} is not one of {', '.join(BACKBONES)}"]
    if b.kind == "resnet" and (len(b.channels) != len(b.blocks) or not b.channels):
        return [f"backbone channels {list(b.channels)} and blocks {list(b.blocks)} must be of one non-zero length"]
    return []


def _contract(action_dim: int, state_dim: int, n_obs_steps: int) -> list[str]:
    out = []
    if action_dim != ACTION_DIM:
        out.append(f"action_dim {action_dim} != {ACTION_DIM} (decoupled_v1)")
    if state_dim != PADDED_STATE_DIM:
        out.append(f"state_dim {state_dim} != {PADDED_STATE_DIM} (the 32-value state padded to {PADDED_STATE_DIM})")
    if n_obs_steps != 1:
        out.append(f"n_obs_steps {n_obs_steps} != 1 (requests carry one observation)")
    return out


class RunConfig(msgspec.Struct):
    """The whole file; `model` stays a dict until its family is known."""

    model: dict
    data: Data
    language: Language = msgspec.field(default_factory=Language)

    def problems(self) -> list[str]:
        f, m = self.data.transform.field, self.data.transform.model
        out = []
        if f.normalization != "bounds":
            out.append(f"data.transform.field.normalization {f.normalization!r} is not 'bounds'")
        if f.pad_state_dim != PADDED_STATE_DIM:
            out.append(f"data.transform.field.pad_state_dim {f.pad_state_dim} != {PADDED_STATE_DIM}")
        for name, dim in (("state", f.pad_state_dim), ("action", ACTION_DIM)):
            lo, hi = getattr(f, f"{name}_min"), getattr(f, f"{name}_max")
            if len(lo) != dim or len(hi) != dim:
                out.append(f"data.transform.field.{name}_min/max need {dim} values, got {len(lo)}/{len(hi)}")
            elif any(a > b for a, b in zip(lo, hi)):
                out.append(f"data.transform.field.{name}_min exceeds {name}_max at index {next(i for i, (a, b) in enumerate(zip(lo, hi)) if a > b)}")
        if m.interpolation != "nearest":
            out.append(f"data.transform.model.interpolation {m.interpolation!r} is not 'nearest'")
        if not all(c <= r for c, r in zip(m.center_crop, m.resize)) or min(*m.resize, *m.center_crop) < 1:
            out.append(f"data.transform.model.center_crop {list(m.center_crop)} does not fit in resize {list(m.resize)}")
        if any(s <= 0 for s in m.std):
            out.append("data.transform.model.std must be positive")
        lang = self.language
        if lang.encoder == VOCABULARY and (not lang.vocabulary or len(set(lang.vocabulary)) != len(lang.vocabulary)):
            out.append("language.vocabulary must list distinct instructions when language.encoder is 'vocabulary'")
        return out


def read_json(path: Path) -> dict:
    """A JSON object from `path`, or one line saying why not."""
    try:
        value = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise ModelError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ModelError(f"{path}: not readable JSON ({exc})") from None
    if not isinstance(value, dict):
        raise ModelError(f"{path}: expected a JSON object, got {type(value).__name__}")
    return value


def parse(raw: dict, model: type, path: Path, what: str):
    """`raw` as the typed `model`, its contract problems reported in one line naming `path`."""
    try:
        value = msgspec.convert(raw, model)
    except msgspec.ValidationError as exc:
        raise ModelError(f"{path}: {what}: {exc}") from None
    problems = value.problems()
    if problems:
        raise ModelError(f"{path}: {what}: " + "; ".join(problems))
    return value
