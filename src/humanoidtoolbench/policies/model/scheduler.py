"""A DDPM sampler (the reverse process of Ho et al. 2020 with the 'fixed small' variance), written out
because it is thirty lines; its sums follow diffusers' DDPMScheduler so checkpoints trained with it
denoise the same way."""

from __future__ import annotations

import math

import torch


def betas(schedule: str, steps: int) -> torch.Tensor:
    if schedule == "linear":
        return torch.linspace(1e-4, 0.02, steps, dtype=torch.float64)

    def alpha_bar(t: float) -> float:  # squaredcos_cap_v2 (Nichol & Dhariwal 2021)
        return math.cos((t + 0.008) / 1.008 * math.pi / 2) ** 2

    return torch.tensor([min(1 - alpha_bar((i + 1) / steps) / alpha_bar(i / steps), 0.999) for i in range(steps)], dtype=torch.float64)


class DDPM:
    def __init__(self, train_steps: int, schedule: str, inference_steps: int, clip: float | None, prediction: str) -> None:
        self.alphas_cumprod = torch.cumprod(1.0 - betas(schedule, train_steps), 0)
        self.ratio = train_steps // inference_steps
        self.timesteps = [i * self.ratio for i in reversed(range(inference_steps))]  # diffusers' "leading" spacing
        self.clip, self.prediction = clip, prediction

    def step(self, model_output: torch.Tensor, t: int, sample: torch.Tensor, noise: torch.Tensor) -> torch.Tensor:
        """x_{t-1} from x_t and the network's output; `noise` is used unless t == 0."""
        ab_t = float(self.alphas_cumprod[t])
        ab_prev = float(self.alphas_cumprod[t - self.ratio]) if t - self.ratio >= 0 else 1.0
        alpha_t = ab_t / ab_prev
        if self.prediction == "epsilon":
            x0 = (sample - math.sqrt(1 - ab_t) * model_output) / math.sqrt(ab_t)
        else:
            x0 = model_output
        if self.clip is not None:
            x0 = x0.clamp(-self.clip, self.clip)
        mean = (math.sqrt(ab_prev) * (1 - alpha_t) * x0 + math.sqrt(alpha_t) * (1 - ab_prev) * sample) / (1 - ab_t)
        if t == 0:
            return mean
        variance = max((1 - ab_prev) / (1 - ab_t) * (1 - alpha_t), 1e-20)
        return mean + math.sqrt(variance) * noise
