"""Which files a `--model` argument means: a local path or a hub model ID, down to one weight file.

Native layout: `REPO/run/run_config.json` and `REPO/run/checkpoints/ckpt_STEP/`
holding `model.safetensors` and, for DP, `ema_net.pth`. A repository or run
directory selects the highest numeric step; a directory prefers
`ema_net.pth` (DP's EMA weights are what it infers with); a weight file is
loaded exactly. LeRobot layout: a `pretrained_model` directory
(`config.json` + `model.safetensors`), or a training output whose
`checkpoints/STEP/pretrained_model` is chosen by the highest step. The
hashes of the weight and configuration files identify the model in results.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from ...digest import file_sha256
from . import ModelError
from .families import LEROBOT_CONFIG, NATIVE_CONFIG

WEIGHT_FILES = ("ema_net.pth", "model.safetensors")  # preference order inside a checkpoint directory
LEROBOT_WEIGHTS = "model.safetensors"
CKPT = re.compile(r"ckpt_(\d+)")
HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+")
LAYOUT_HINT = "expected REPO/run/run_config.json with run/checkpoints/ckpt_STEP/model.safetensors, or a LeRobot pretrained_model directory"


@dataclass(frozen=True)
class ResolvedModel:
    """One model's files and where they came from; picklable, so workers load the same files."""

    source: str  # as given on the command line
    config_path: Path
    weights_path: Path
    step: int | None = None
    repo_id: str | None = None
    revision: str | None = None  # as asked (None: the default branch)
    commit: str | None = None  # what the hub resolved it to

    @property
    def layout(self) -> str:
        return "lerobot" if self.config_path.name == LEROBOT_CONFIG else "native"

    def provenance(self) -> dict:
        """What results record about the model; the two hashes decide whether a result is this model's."""
        return {
            "source": self.source,
            "repo_id": self.repo_id,
            "revision": self.revision,
            "commit": self.commit,
            "step": self.step,
            "weights_file": self.weights_path.name,
            "weights_sha256": file_sha256(self.weights_path),
            "config_sha256": config_sha256(self),
        }

    def checkpoint(self, weights_sha256: str) -> str:
        """The checkpoint identifier: the hub commit, else the weights' hash (a path is no identity)."""
        return f"{self.repo_id}@{self.commit}" if self.repo_id else f"sha256:{weights_sha256}"


def config_sha256(model: ResolvedModel) -> str:
    """The configuration file's hash; for LeRobot, every file of the directory but the weights (processor
    files hold its normalisation statistics), as name + hash lines."""
    if model.layout == "native":
        return file_sha256(model.config_path)
    files = sorted(p for p in model.config_path.parent.iterdir() if p.is_file() and p.name != LEROBOT_WEIGHTS)
    lines = "".join(f"{p.name}\0{file_sha256(p)}\n" for p in files)
    return hashlib.sha256(lines.encode()).hexdigest()


def looks_like_hub_id(text: str) -> bool:
    return bool(HUB_ID.fullmatch(text)) and not Path(text).expanduser().exists()


def _step(path: Path) -> int | None:
    match = CKPT.fullmatch(path.name) or re.fullmatch(r"(\d+)", path.name)
    return int(match.group(1)) if match else None


def _weights_in(ckpt: Path) -> Path | None:
    return next((ckpt / name for name in WEIGHT_FILES if (ckpt / name).is_file()), None)


def _latest(run: Path, source: str) -> ResolvedModel:
    """The highest numeric ckpt_STEP of a run directory that holds a weight file."""
    steps = [(s, d) for d in (run / "checkpoints").glob("ckpt_*") if (s := _step(d)) is not None and _weights_in(d)]
    if not steps:
        raise ModelError(f"{source}: no checkpoints/ckpt_STEP directory with {' or '.join(WEIGHT_FILES)} under {run}")
    step, ckpt = max(steps)
    return ResolvedModel(source, run / NATIVE_CONFIG, _weights_in(ckpt), step)


def _lerobot_latest(root: Path, source: str) -> ResolvedModel:
    steps = [(s, d / "pretrained_model") for d in (root / "checkpoints").iterdir() if (s := _step(d)) is not None]
    steps = [(s, p) for s, p in steps if (p / LEROBOT_CONFIG).is_file() and (p / LEROBOT_WEIGHTS).is_file()]
    if not steps:
        raise ModelError(f"{source}: no checkpoints/STEP/pretrained_model with {LEROBOT_CONFIG} and {LEROBOT_WEIGHTS} under {root}")
    step, pretrained = max(steps)
    return ResolvedModel(source, pretrained / LEROBOT_CONFIG, pretrained / LEROBOT_WEIGHTS, step)


def _config_for_weights(weights: Path) -> tuple[Path, int | None]:
    """run_config.json of a weight file in run/checkpoints/ckpt_STEP/, or a LeRobot config.json beside it."""
    ckpt = weights.parent
    if (ckpt / LEROBOT_CONFIG).is_file() and weights.name == LEROBOT_WEIGHTS and not CKPT.fullmatch(ckpt.name):
        return ckpt / LEROBOT_CONFIG, _step(ckpt.parent)
    run = ckpt.parent.parent
    if CKPT.fullmatch(ckpt.name) and ckpt.parent.name == "checkpoints" and (run / NATIVE_CONFIG).is_file():
        return run / NATIVE_CONFIG, _step(ckpt)
    raise ModelError(
        f"{weights}: a weight file without its configuration: no {NATIVE_CONFIG} two levels up "
        f"(run/checkpoints/ckpt_STEP/{weights.name}); keep run_config.json and the checkpoint directories together"
    )


def resolve_local(path: Path, source: str) -> ResolvedModel:
    """The model a local path names (repository, run, ckpt_STEP directory, weight file, LeRobot directory)."""
    path = path.expanduser()
    if not path.exists():
        raise ModelError(f"--model {source}: no such file or directory")
    if path.is_file():
        if path.suffix not in (".safetensors", ".pth", ".pt", ".bin"):
            raise ModelError(f"--model {source}: not a weight file (.safetensors or .pth); {LAYOUT_HINT}")
        config, step = _config_for_weights(path)
        return ResolvedModel(source, config, path, step)
    if (path / NATIVE_CONFIG).is_file():
        return _latest(path, source)
    if (path / "run" / NATIVE_CONFIG).is_file():
        return _latest(path / "run", source)
    if CKPT.fullmatch(path.name):
        weights = _weights_in(path)
        if weights is None:
            raise ModelError(f"--model {source}: the checkpoint directory holds neither {' nor '.join(WEIGHT_FILES)}")
        config, step = _config_for_weights(weights)
        return ResolvedModel(source, config, weights, step)
    if (path / LEROBOT_CONFIG).is_file() and (path / LEROBOT_WEIGHTS).is_file():
        return ResolvedModel(source, path / LEROBOT_CONFIG, path / LEROBOT_WEIGHTS, _step(path.parent))
    if (path / "pretrained_model" / LEROBOT_CONFIG).is_file():
        return resolve_local(path / "pretrained_model", source)
    if (path / "checkpoints").is_dir():
        return _lerobot_latest(path, source)
    raise ModelError(f"--model {source}: no {NATIVE_CONFIG} found; {LAYOUT_HINT}")


def resolve(source: str, revision: str | None = None) -> ResolvedModel:
    """A local path, or a hub model ID (downloaded into, or read from, the hub cache)."""
    if not looks_like_hub_id(source):
        if revision is not None:
            raise ModelError(f"--revision selects a hub revision; {source} is a local path (a local model has no revisions)")
        return resolve_local(Path(source), source)
    from .hub import snapshot

    root, commit = snapshot(source, revision)
    local = resolve_local(root, source)
    return ResolvedModel(source, local.config_path, local.weights_path, local.step, source, revision, commit)
