"""ACT: image, state and language tokens (and, where the configuration asks, the elapsed time) through a
transformer encoder; a decoder turns `chunk_size` learned queries into a whole chunk of normalised actions
(the style latent is zero at inference, so it is left out)."""

from __future__ import annotations

import torch
from torch import nn

from .backbone import build_backbone, sine_2d
from .runconfig import ActConfig


class ACT(nn.Module):
    config_type = ActConfig

    def __init__(self, cfg: ActConfig, text_dim: int) -> None:
        super().__init__()
        d = cfg.dim_model
        self.chunk_size = cfg.chunk_size
        self.backbone = build_backbone(cfg.backbone)
        self.image_proj = nn.Conv2d(self.backbone.out_channels, d, 1)
        self.state_proj = nn.Linear(cfg.state_dim, d)
        self.text_proj = nn.Linear(text_dim, d)
        self.elapsed_horizon = cfg.elapsed_horizon
        if self.elapsed_horizon is not None:
            self.elapsed_proj = nn.Linear(1, d)
        self.token_pos = nn.Embedding(2 if self.elapsed_horizon is None else 3, d)  # state, language (, elapsed)
        enc = nn.TransformerEncoderLayer(d, cfg.n_heads, cfg.dim_feedforward, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(enc, cfg.n_encoder_layers, enable_nested_tensor=False)
        dec = nn.TransformerDecoderLayer(d, cfg.n_heads, cfg.dim_feedforward, dropout=0.0, batch_first=True)
        self.decoder = nn.TransformerDecoder(dec, cfg.n_decoder_layers)
        self.queries = nn.Embedding(cfg.chunk_size, d)
        self.action_head = nn.Linear(d, cfg.action_dim)

    @property
    def uses_elapsed(self) -> bool:
        return self.elapsed_horizon is not None

    def forward(self, image: torch.Tensor, state: torch.Tensor, text: torch.Tensor, elapsed: torch.Tensor | None = None) -> torch.Tensor:
        """`elapsed`: (B,) control steps since the episode began, for a network that reads them."""
        f = self.image_proj(self.backbone(image))
        b, d, h, w = f.shape
        image_tokens = f.flatten(2).transpose(1, 2) + sine_2d(h, w, d, f.device)
        tokens = [self.state_proj(state), self.text_proj(text)]
        if self.uses_elapsed:
            t = torch.clamp(elapsed.to(f.dtype), max=self.elapsed_horizon) / self.elapsed_horizon
            tokens.append(self.elapsed_proj(t[:, None]))
        other = torch.stack(tokens, 1) + self.token_pos.weight
        memory = self.encoder(torch.cat([other, image_tokens], 1))
        queries = self.queries.weight.unsqueeze(0).expand(b, -1, -1)
        return self.action_head(self.decoder(queries, memory))

    def sample(self, image, state, text, generator=None, elapsed=None) -> torch.Tensor:
        """(B, chunk_size, action_dim) normalised actions; deterministic, `generator` unused."""
        return self(image, state, text, elapsed)


def build(resolved, raw: dict, device):
    from .native import load_native

    return load_native(resolved, raw, device, ACT, stochastic=False)
