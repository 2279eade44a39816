"""What identifies the policy behind a run: the fields compared before a result is reused, and the label
reports keep runs apart by (a planner's model and a controller other than the protocol's included)."""

from __future__ import annotations

IDENTITY = ("policy", "checkpoint", "adapter_sha256", "transport", "privileged", "weights_sha256", "config_sha256")
GIVEN_ONLY = ("model_config",)  # part of the identity where the run was given one (a planner's model)


def policy_identity(policy_info: dict) -> dict:
    """The parts of the policy info that decide whether an earlier result is the same policy's."""
    return {k: policy_info.get(k) for k in IDENTITY} | {k: policy_info[k] for k in GIVEN_ONLY if k in policy_info}


def policy_label(policy_info: dict, controller: str | None = None, protocol_controller: str | None = None,
                 look: str | None = None, protocol_look: str | None = None) -> str:
    """A policy's name, with its checkpoint where that says more than the built-in's own name, the model
    of its model configuration, and its controller and look where they are not the protocol's: scores on
    two controllers, in two looks or of two models never share a row."""
    name, checkpoint = policy_info.get("policy") or "unknown policy", policy_info.get("checkpoint")
    label = name if checkpoint in (None, "", f"builtin:{name}") else f"{name} @ {checkpoint}"
    model = (policy_info.get("model_config") or {}).get("model")
    label = f"{label} · {model}" if model else label
    tags = ([controller] if controller not in (None, protocol_controller) else []) + (
        [f"{look} look"] if look not in (None, protocol_look) else [])  # None: a record that does not say
    return f"{label} [{', '.join(tags)}]" if tags else label
