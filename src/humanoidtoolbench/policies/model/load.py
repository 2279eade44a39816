"""From a resolved model to a loaded policy with what results record about it.

`describe` reads only the configuration (family, chunk length): a dry run
and the CLI's checks use it without torch. `load` builds the network on the
requested device.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

from ..loader import LoadedPolicy
from . import families, runconfig
from .device import Device
from .resolve import ResolvedModel
from .runconfig import read_json


@dataclass(frozen=True)
class ModelInfo:
    family: str
    chunk_size: int | None
    contract: str  # the action contract it answers
    reads: tuple[str, ...]  # the request fields it reads, as dotted paths ("image.rgb_head", "state.states")


def describe(resolved: ResolvedModel) -> ModelInfo:
    """The family, chunk length, contract and inputs, after checking a native configuration's sections."""
    raw = read_json(resolved.config_path)
    family = families.detect(raw, resolved.config_path)
    section = families.model_section(raw)
    if family.schema is not None:
        runconfig.parse(raw, runconfig.RunConfig, resolved.config_path, "run configuration")
        runconfig.parse(section, getattr(runconfig, family.schema), resolved.config_path, "model section")
    chunk = section.get("chunk_size", section.get("action_chunk_size", section.get("n_action_steps")))
    return ModelInfo(family.name, chunk if isinstance(chunk, int) else None, family.contract, family.inputs(raw))


def load(resolved: ResolvedModel, device: Device) -> tuple[LoadedPolicy, dict]:
    """The policy and its provenance (`model` info, hashes), ready for `InProcessPolicy` or the server."""
    raw = read_json(resolved.config_path)
    family = families.detect(raw, resolved.config_path)
    builder = importlib.import_module(f"{__package__}.{family.builder}")
    device = device.resolved()
    predict: Callable = builder.build(resolved, raw, device.torch())
    provenance = resolved.provenance()
    info = {
        "checkpoint": resolved.checkpoint(provenance["weights_sha256"]),
        "model": {"family": family.name, "device": device.name, **provenance, **device.identity()},
        "weights_sha256": provenance["weights_sha256"],
        "config_sha256": provenance["config_sha256"],
        "chunk_size": getattr(predict, "chunk_size", None),
    }
    policy = LoadedPolicy(
        predict=predict,
        name=f"model:{family.name}",
        source=resolved.source,
        file=None,
        adapter_sha256=None,
    )
    return policy, info
