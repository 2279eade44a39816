"""Language embeddings, computed once per instruction.

The encoder is whatever the run configuration names: a hub model (the
pinned CLIP ViT-L/14 by default, its `text_embeds`), loaded through
`transformers` from the hub cache and run on the CPU in float32, as the
checkpoints were trained; or `vocabulary`, a one-hot code of the
instructions a run was trained on, which needs no download (a benchmark
suite's instructions are a short fixed list). Anything with `dim` and
`encode(text)` can stand in for either.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from . import ModelError, require
from .runconfig import VOCABULARY, Language


class TextEncoder(Protocol):
    dim: int

    def encode(self, text: str) -> np.ndarray: ...


class CachedEncoder:
    """Memoises another encoder per distinct text (an evaluation sends one instruction per condition)."""

    def __init__(self, inner: TextEncoder) -> None:
        self.inner, self.dim, self._cache = inner, inner.dim, {}

    def encode(self, text: str) -> np.ndarray:
        if text not in self._cache:
            self._cache[text] = np.asarray(self.inner.encode(text), np.float32).reshape(self.dim)
        return self._cache[text]


class ClipText:
    def __init__(self, lang: Language) -> None:
        torch = require("torch")
        transformers = require("transformers")
        transformers.utils.logging.disable_progress_bar()  # one line per load, not bars on stderr
        self._torch, self.max_length = torch, lang.max_length
        where = f"{lang.encoder}@{lang.revision or 'main'}"
        try:
            self.tokenizer = transformers.AutoTokenizer.from_pretrained(lang.encoder, revision=lang.revision)
            self.model = transformers.CLIPTextModelWithProjection.from_pretrained(
                lang.encoder, revision=lang.revision, torch_dtype=torch.float32
            ).eval()
        except OSError as exc:
            raise ModelError(f"cannot load the text encoder {where} (no network and no cached copy?): {' '.join(str(exc).split())[:300]}") from None
        self.dim = int(self.model.config.projection_dim)
        if self.dim != lang.projection_dim:
            raise ModelError(f"text encoder {where} projects to {self.dim} values; the run configuration expects {lang.projection_dim}")

    def encode(self, text: str) -> np.ndarray:
        tokens = self.tokenizer([text], padding="max_length", truncation=True, max_length=self.max_length, return_tensors="pt")
        with self._torch.no_grad():
            out = self.model(input_ids=tokens["input_ids"], attention_mask=tokens.get("attention_mask"))
        return out.text_embeds[0].float().numpy()


class VocabularyText:
    """One-hot over the run's instructions; an instruction it was not trained on is refused in one line."""

    def __init__(self, lang: Language) -> None:
        self.vocabulary = list(lang.vocabulary or [])
        self.dim = len(self.vocabulary)

    def encode(self, text: str) -> np.ndarray:
        if text not in self.vocabulary:
            raise ModelError(f"instruction {text!r} is not one of the {self.dim} this model was trained on ({'; '.join(self.vocabulary)})")
        code = np.zeros(self.dim, np.float32)
        code[self.vocabulary.index(text)] = 1.0
        return code


def text_encoder(lang: Language) -> CachedEncoder:
    return CachedEncoder(VocabularyText(lang) if lang.encoder == VOCABULARY else ClipText(lang))
