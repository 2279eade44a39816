"""The model families `--model` loads, as a table: how each is recognised and which module builds it.

A native checkpoint's family is read from the keys of its `run_config.json`
model section; a LeRobot checkpoint is recognised by its `config.json` with
a policy `type`. A row also says which action contract the family answers
and which camera it sees, which `htb-eval` checks against the suite. Add a
family with a row here and a module with `build`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...robot.cameras import POLICY_CAMERA
from . import ModelError

NATIVE_CONFIG = "run_config.json"
LEROBOT_CONFIG = "config.json"


@dataclass(frozen=True)
class Family:
    name: str
    config_file: str  # the configuration file that names the family
    keys: tuple[str, ...]  # all present in the model section: this family
    builder: str  # module under policies.model whose build(resolved, raw_config, device) returns the policy
    schema: str | None  # the model section's type in runconfig, checked before any model library loads
    contract: str = "decoupled_v1"  # the action contract it answers
    camera: str | None = POLICY_CAMERA  # the camera it sees; None: it reads vectors only


FAMILIES = (
    Family("act", NATIVE_CONFIG, ("chunk_size", "dim_model"), "act", "ActConfig"),
    Family("dp", NATIVE_CONFIG, ("num_diffusion_iters", "action_chunk_size"), "dp", "DpConfig"),
    Family("lerobot", LEROBOT_CONFIG, ("type",), "lerobot", None),
    # A state-based PPO actor trained on the Fiatlux environments (`suites.fiatlux.learning.ppo`).
    Family("ppo", NATIVE_CONFIG, ("actor_hidden_dims", "observation_keys"), "ppo", None, "joint_position_v1", None),
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
