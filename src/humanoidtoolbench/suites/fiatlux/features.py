"""ResNet-18 features of the head image: the original's 512-value image term, on request.

Needs torch and torchvision (the `model` extra); nothing here imports them
until an encoder is made, so the suite runs without them. The ImageNet
weights are used when torchvision finds them in its local cache; they are
never downloaded. Without them the network keeps seeded random weights, and
`weights` says so, so a result never passes random features off as
pretrained ones.

Triton is kept out of the process first (`policies.model.keep_triton_out`):
imported after Mesa's EGL has rendered, it crashes the process.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ...policies.model import keep_triton_out

FEATURE_DIM = 512
RANDOM_SEED = 0
MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)  # ImageNet normalisation


class FeatureError(RuntimeError):
    """Image features asked for where torch or torchvision is missing; one line."""


class ImageEncoder:
    """uint8 (H, W, 3) RGB in, float32 (512,) out: ResNet-18 up to its global average pool, on the CPU."""

    def __init__(self) -> None:
        keep_triton_out()
        try:
            import torch
            from torchvision.models import ResNet18_Weights, resnet18
        except ModuleNotFoundError as exc:
            raise FeatureError(f"image features need torch and torchvision ({exc.name} is missing): "
                               "pip install 'humanoidtoolbench[model]'") from None
        self._torch = torch
        pretrained = ResNet18_Weights.IMAGENET1K_V1
        cached = Path(torch.hub.get_dir()) / "checkpoints" / Path(pretrained.url).name
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(RANDOM_SEED)  # the random weights are the same in every process
            net = resnet18(weights=None)
        if cached.is_file():
            net.load_state_dict(torch.load(cached, map_location="cpu", weights_only=True))
            self.weights = "imagenet1k_v1"
        else:
            self.weights = f"random (seed {RANDOM_SEED}; no ImageNet weights in the local cache)"
        net.fc = torch.nn.Identity()
        self.net = net.eval()
        self._mean = torch.tensor(MEAN).view(1, 3, 1, 1)
        self._std = torch.tensor(STD).view(1, 3, 1, 1)

    def describe(self) -> dict:
        return {"model": "resnet18", "dim": FEATURE_DIM, "weights": self.weights}

    def __call__(self, image: np.ndarray) -> np.ndarray:
        torch = self._torch
        x = torch.from_numpy(np.ascontiguousarray(image)).permute(2, 0, 1).unsqueeze(0).float() / 255.0
        with torch.inference_mode():
            out = self.net((x - self._mean) / self._std)
        return out[0].numpy().astype(np.float32)
