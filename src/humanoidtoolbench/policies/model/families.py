"""The model families `--model` loads, as a table: how each is recognised and which module builds it.

A native checkpoint's family is read from the keys of its `run_config.json`
model section; a LeRobot checkpoint is recognised by its `config.json` with
a policy `type`. A row also says which action contract the family answers
and which request fields a checkpoint of it reads (`inputs`), which
`htb-eval` and `htb-serve` check against the suite's contract and request
schema: no suite is named here. Add a family with a row here and a module
with `build`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from . import ModelError

NATIVE_CONFIG = "run_config.json"
LEROBOT_CONFIG = "config.json"


def image_inputs(config: dict) -> tuple[str, ...]:
    """A native image checkpoint reads its camera's image, the state rows and the instruction."""
    from .runconfig import FORMAT_CAMERA

    camera = (config.get("data") or {}).get("camera", FORMAT_CAMERA)
    return (f"image.rgb_{camera}", "state.states", "instruction")


def lerobot_inputs(config: dict) -> tuple[str, ...]:
    """A LeRobot policy reads the request's one image, the state rows and the instruction."""
    return ("image", "state.states", "instruction")


def vector_inputs(config: dict) -> tuple[str, ...]:
    """A PPO actor reads the state vectors its `observation_keys` name (`state` travels as `states`)."""
    from .ppo import WIRE_NAMES

    keys = model_section(config).get("observation_keys") or ()
    return tuple(f"state.{WIRE_NAMES.get(k, k)}" for k in keys if isinstance(k, str))


@dataclass(frozen=True)
class Family:
    name: str
    config_file: str  # the configuration file that names the family
    keys: tuple[str, ...]  # all present in the model section: this family
    builder: str  # module under policies.model whose build(resolved, raw_config, device) returns the policy
    schema: str | None  # the model section's type in runconfig, checked before any model library loads
    inputs: Callable[[dict], tuple[str, ...]]  # the request fields (dotted paths) a checkpoint reads, from its config
    contract: str = "decoupled_v1"  # the action contract it answers


FAMILIES = (
    Family("act", NATIVE_CONFIG, ("chunk_size", "dim_model"), "act", "ActConfig", image_inputs),
    Family("dp", NATIVE_CONFIG, ("num_diffusion_iters", "action_chunk_size"), "dp", "DpConfig", image_inputs),
    Family("lerobot", LEROBOT_CONFIG, ("type",), "lerobot", None, lerobot_inputs),
    # A state-based PPO actor trained on the Fiatlux environments (`suites.fiatlux.learning.ppo`).
    Family("ppo", NATIVE_CONFIG, ("actor_hidden_dims", "observation_keys"), "ppo", None, vector_inputs, "joint_position_v1"),
)
BY_NAME = {f.name: f for f in FAMILIES}


def model_section(config: dict) -> dict:
    """The keys that name the family: the `model` object, or the top level of a flat file."""
    section = config.get("model")
    return section if isinstance(section, dict) else config


def detect(config: dict, path: Path) -> Family:
    """The one family whose keys the configuration carries; none or several is a one-line error."""
    keys = set(model_section(config))
    found = [f for f in FAMILIES if f.config_file == path.name and set(f.keys) <= keys]
    if len(found) == 1:
        return found[0]
    native = [f for f in FAMILIES if f.config_file == NATIVE_CONFIG]
    expected = "; ".join(f"{f.name.upper()}: {' + '.join(f.keys)}" for f in native)
    if not found:
        raise ModelError(f"{path}: the model section names no known family (expected {expected})")
    raise ModelError(f"{path}: contradictory model section: it has the keys of {' and '.join(f.name.upper() for f in found)}")
