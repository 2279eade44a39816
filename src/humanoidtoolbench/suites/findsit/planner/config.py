"""The language-model planner's config file: the endpoint and decoding settings, the API key, the identity a result records.

Checked before any simulation (`FindSit.check_model_config`), so that a run
with a wrong config or no key fails in one line before it starts.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import msgspec

DECISION_DEADLINE_S = 300.0  # default: both stages of one decision, retries and pauses included
LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
NO_KEY = "EMPTY"  # what keyless local servers (vLLM, llama.cpp, Ollama) accept


class PlannerError(ValueError):
    """A model configuration that cannot be used; one line."""


class ModelConfig(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A model config file (JSON). The key is read from `api_key_env`, never stored in the file."""

    base_url: str
    model: str
    max_tokens: int
    api_key_env: str | None = None
    temperature: float = 0.0
    response_format: dict[str, Any] | None = None  # e.g. {"type": "json_object"}
    extra_body: dict[str, Any] | None = None  # provider options, passed through
    timeout_s: float = 120.0  # one call
    decision_deadline_s: float = DECISION_DEADLINE_S  # one decision: every call and pause of both stages

    def __post_init__(self) -> None:
        if self.temperature != 0.0:
            raise PlannerError(f"temperature must be 0.0 (the benchmark decodes greedily), got {self.temperature}")
        url = urlparse(self.base_url)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise PlannerError(f"base_url must be an http(s) URL with a host, got {self.base_url!r}")
        for name in ("max_tokens", "timeout_s", "decision_deadline_s"):
            if not getattr(self, name) > 0:
                raise PlannerError(f"{name} must be more than 0, got {getattr(self, name)}")


def parse_model_config(data: bytes) -> ModelConfig:
    """A model config from a file's bytes; PlannerError with one line saying what is wrong."""
    try:
        return msgspec.json.decode(data, type=ModelConfig)
    except msgspec.DecodeError as exc:
        raise PlannerError(f"not a model config ({exc})") from None


def load_model_config(path: str | Path) -> ModelConfig:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise PlannerError(f"{path}: cannot read it ({exc.strerror})") from None
    try:
        return parse_model_config(data)
    except PlannerError as exc:
        raise PlannerError(f"{path}: {exc}") from None


def model_identity(config: ModelConfig) -> dict:
    """What a result records of the planner's model: its name, endpoint and a hash of every setting."""
    text = json.dumps(msgspec.to_builtins(config), sort_keys=True, separators=(",", ":"))
    return {"model": config.model, "base_url": config.base_url, "sha256": hashlib.sha256(text.encode()).hexdigest()}


def api_key(config: ModelConfig, environ: Mapping[str, str] = os.environ) -> str:
    """The key from the environment; a local endpoint without one gets the placeholder keyless servers accept."""
    if config.api_key_env and environ.get(config.api_key_env):
        return environ[config.api_key_env]
    if urlparse(config.base_url).hostname in LOCAL_HOSTS:
        return NO_KEY
    raise PlannerError(f"no API key for {config.base_url}: set {config.api_key_env or 'api_key_env in the model config'}")
