"""The saved transforms of a native checkpoint, in NumPy: bounds normalisation and the image pipeline.

Nearest-neighbour resizing samples source pixel floor((i + 0.5) * in / out),
the rule PIL's NEAREST follows, so a model sees the pixels it was trained on.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .runconfig import FieldTransform, ImageTransform


@dataclass(frozen=True)
class Bounds:
    """x <-> 2 (x - lo) / (hi - lo) - 1; a zero-width dimension maps to 0 and back to lo."""

    lo: np.ndarray
    hi: np.ndarray

    @property
    def span(self) -> np.ndarray:
        return np.where(self.hi > self.lo, self.hi - self.lo, 1.0)

    def normalise(self, x: np.ndarray) -> np.ndarray:
        return np.where(self.hi > self.lo, 2.0 * (x - self.lo) / self.span - 1.0, 0.0)

    def unnormalise(self, y: np.ndarray) -> np.ndarray:
        return np.where(self.hi > self.lo, (y + 1.0) / 2.0 * self.span + self.lo, self.lo)


@dataclass(frozen=True)
class FieldNormaliser:
    state: Bounds
    action: Bounds
    pad_state_dim: int

    @classmethod
    def from_config(cls, f: FieldTransform) -> "FieldNormaliser":
        def b(lo, hi):
            return Bounds(np.asarray(lo, np.float64), np.asarray(hi, np.float64))

        return cls(b(f.state_min, f.state_max), b(f.action_min, f.action_max), f.pad_state_dim)

    def state_in(self, state: np.ndarray) -> np.ndarray:
        """The request's (1, 32) state, zero-padded and normalised, as float32 (pad_state_dim,)."""
        flat = np.asarray(state, np.float64).reshape(-1)
        padded = np.zeros(self.pad_state_dim)
        padded[: min(flat.size, self.pad_state_dim)] = flat[: self.pad_state_dim]
        return self.state.normalise(padded).astype(np.float32)

    def action_out(self, chunk: np.ndarray) -> np.ndarray:
        return self.action.unnormalise(np.asarray(chunk, np.float64))


def nearest_indices(size_in: int, size_out: int) -> np.ndarray:
    return np.minimum(((np.arange(size_out) + 0.5) * size_in / size_out).astype(np.int64), size_in - 1)


def resize_crop(image: np.ndarray, t: ImageTransform) -> np.ndarray:
    """(H, W, 3) uint8 -> (crop_h, crop_w, 3) uint8: nearest resize, then centre crop (pixels picked, none blended)."""
    img = np.asarray(image)
    if img.ndim != 3 or img.shape[2] != 3:
        raise ValueError(f"expected an (H, W, 3) RGB image, got shape {img.shape}")
    (rh, rw), (ch, cw) = t.resize, t.center_crop
    top, left = int(round((rh - ch) / 2.0)), int(round((rw - cw) / 2.0))  # torchvision's CenterCrop
    rows = nearest_indices(img.shape[0], rh)[top : top + ch]
    cols = nearest_indices(img.shape[1], rw)[left : left + cw]
    return img[rows][:, cols]


def normalise_image(pixels, t: ImageTransform, xp=np):
    """(..., H, W, 3) uint8 -> (..., 3, H, W) float32: [0, 1], then mean/std; `xp` is NumPy or torch, the same arithmetic."""
    mean = xp.asarray(np.asarray(t.mean, np.float32)) if xp is np else xp.tensor(t.mean, dtype=xp.float32)
    std = xp.asarray(np.asarray(t.std, np.float32)) if xp is np else xp.tensor(t.std, dtype=xp.float32)
    x = pixels.astype(np.float32) if xp is np else pixels.to(xp.float32)
    out = (x / 255.0 - mean) / std
    return np.moveaxis(out, -1, -3) if xp is np else out.movedim(-1, -3)


def preprocess(image: np.ndarray, t: ImageTransform) -> np.ndarray:
    """(H, W, 3) uint8 -> (3, crop_h, crop_w) float32: nearest resize, centre crop, [0, 1], mean/std."""
    return np.ascontiguousarray(normalise_image(resize_crop(image, t), t))
