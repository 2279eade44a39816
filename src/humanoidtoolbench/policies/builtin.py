"""The floor baselines that ship with the package, one table per kind of action (short name -> MODULE:FUNCTION).

A suite offers the table of the contract its policies speak, beside its own
policies (a scripted expert), through `Suite.builtin_policies_for`.
"""

from __future__ import annotations

DECOUPLED_V1_BASELINES = {
    "pose-hold": "humanoidtoolbench.policies.pose_hold:predict",
    "zero": "humanoidtoolbench.policies.baselines:zero",
    "random": "humanoidtoolbench.policies.baselines:random_policy",
}
JOINT_POSITION_BASELINES = {
    "zero": "humanoidtoolbench.policies.baselines:zero_joint_position",
    "random": "humanoidtoolbench.policies.baselines:random_joint_position",
}


def builtin_checkpoint(name: str) -> str:
    """A built-in policy's weights are its code (hashed in the source digest): name it as its checkpoint."""
    return f"builtin:{name}"
