"""Diffusion Policy: a conditional 1-D UNet (FiLM-conditioned residual blocks over the time axis of the
chunk) predicts the noise of a 16-action chunk; DDPM sampling runs `num_diffusion_iters` steps from
Gaussian noise drawn from the caller's generator, so a seeded call is repeatable on any device."""

from __future__ import annotations

import math

import torch
from torch import nn

from .backbone import build_backbone
from .runconfig import DpConfig
from .scheduler import DDPM


class StepEmbedding(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.dim = dim
        self.mlp = nn.Sequential(nn.Linear(dim, dim * 4), nn.Mish(), nn.Linear(dim * 4, dim))

    def forward(self, t: torch.Tensor) -> torch.Tensor:
        half = self.dim // 2
        freq = torch.exp(-math.log(10000) * torch.arange(half, device=t.device) / max(half - 1, 1))
        angle = t.float()[:, None] * freq[None]
        return self.mlp(torch.cat([angle.sin(), angle.cos()], -1))


def conv_block(cin: int, cout: int, k: int, groups: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv1d(cin, cout, k, padding=k // 2), nn.GroupNorm(groups, cout), nn.Mish())


class FilmBlock(nn.Module):
    """Two conv blocks; the condition scales and shifts the first one's output per channel."""

    def __init__(self, cin: int, cout: int, cond_dim: int, k: int, groups: int) -> None:
        super().__init__()
        self.first, self.second = conv_block(cin, cout, k, groups), conv_block(cout, cout, k, groups)
        self.film = nn.Sequential(nn.Mish(), nn.Linear(cond_dim, 2 * cout))
        self.residual = nn.Conv1d(cin, cout, 1) if cin != cout else nn.Identity()

    def forward(self, x: torch.Tensor, cond: torch.Tensor) -> torch.Tensor:
        scale, shift = self.film(cond).unsqueeze(-1).chunk(2, 1)
        return self.second(self.first(x) * scale + shift) + self.residual(x)


class ConditionalUnet1D(nn.Module):
    def __init__(self, action_dim: int, cond_dim: int, cfg: DpConfig) -> None:
        super().__init__()
        k, g, dims = cfg.kernel_size, cfg.n_groups, [action_dim, *cfg.down_dims]
        self.step_embedding = StepEmbedding(cfg.diffusion_step_embed_dim)
        cond = cond_dim + cfg.diffusion_step_embed_dim
        pairs = list(zip(dims[:-1], dims[1:]))
        self.down = nn.ModuleList(
            nn.ModuleList([FilmBlock(a, b, cond, k, g), FilmBlock(b, b, cond, k, g), nn.Conv1d(b, b, 3, 2, 1) if i < len(pairs) - 1 else nn.Identity()])
            for i, (a, b) in enumerate(pairs)
        )
        mid = dims[-1]
        self.mid = nn.ModuleList([FilmBlock(mid, mid, cond, k, g), FilmBlock(mid, mid, cond, k, g)])
        ups = list(reversed(pairs[1:]))
        self.up = nn.ModuleList(
            nn.ModuleList([FilmBlock(b * 2, a, cond, k, g), FilmBlock(a, a, cond, k, g), nn.ConvTranspose1d(a, a, 4, 2, 1)])
            for a, b in ups  # one upsampling per downsampling
        )
        self.final = nn.Sequential(conv_block(dims[1], dims[1], k, g), nn.Conv1d(dims[1], action_dim, 1))

    def forward(self, x: torch.Tensor, t: torch.Tensor, global_cond: torch.Tensor) -> torch.Tensor:
        """x: (B, T, action_dim) -> the predicted noise (or sample) of the same shape."""
        cond = torch.cat([self.step_embedding(t), global_cond], -1)
        h, skips = x.transpose(1, 2), []
        for first, second, down in self.down:
            h = second(first(h, cond), cond)
            skips.append(h)
            h = down(h)
        for block in self.mid:
            h = block(h, cond)
        for first, second, up in self.up:
            h = up(second(first(torch.cat([h, skips.pop()], 1), cond), cond))
        return self.final(h).transpose(1, 2)


class DiffusionPolicy(nn.Module):
    config_type = DpConfig

    def __init__(self, cfg: DpConfig, text_dim: int) -> None:
        super().__init__()
        self.chunk_size, self.action_dim = cfg.action_chunk_size, cfg.action_dim
        self.backbone = build_backbone(cfg.backbone)
        self.image_proj = nn.Linear(self.backbone.out_channels, cfg.image_feature_dim)
        self.unet = ConditionalUnet1D(cfg.action_dim, cfg.image_feature_dim + cfg.state_dim + text_dim, cfg)
        clip = cfg.clip_sample_range if cfg.clip_sample else None
        self.scheduler = DDPM(cfg.num_train_timesteps, cfg.beta_schedule, cfg.num_diffusion_iters, clip, cfg.prediction_type)

    def condition(self, image, state, text) -> torch.Tensor:
        features = self.image_proj(self.backbone(image).mean((2, 3)))
        return torch.cat([features, state, text], -1)

    def sample(self, image, state, text, generator: torch.Generator) -> torch.Tensor:
        """(B, chunk, action_dim) normalised actions; every random draw comes from `generator` (on the CPU)."""
        cond = self.condition(image, state, text)
        shape = (image.shape[0], self.chunk_size, self.action_dim)

        def noise() -> torch.Tensor:
            return torch.randn(shape, generator=generator, dtype=torch.float32).to(image.device)

        x = noise()
        for t in self.scheduler.timesteps:
            out = self.unet(x, torch.full((shape[0],), t, device=image.device), cond)
            x = self.scheduler.step(out, t, x, noise() if t > 0 else None)
        return x


def build(resolved, raw: dict, device):
    from .native import load_native

    return load_native(resolved, raw, device, DiffusionPolicy, stochastic=True)
