"""Short names for the policies that ship with the package (`--policy NAME`), per action contract.

The floor baselines exist for every contract; suites add their own (a
scripted expert) through `Suite.builtin_policies`.
"""

from __future__ import annotations

BUILTIN_POLICIES = {
    "decoupled_v1": {
        "pose-hold": "humanoidtoolbench.policies.pose_hold:predict",
        "zero": "humanoidtoolbench.policies.baselines:zero",
        "random": "humanoidtoolbench.policies.baselines:random_policy",
    },
    "joint_position_v1": {
        "zero": "humanoidtoolbench.policies.baselines:zero_joint_position",
        "random": "humanoidtoolbench.policies.baselines:random_joint_position",
    },
}


def builtin_checkpoint(name: str) -> str:
    """A built-in policy's weights are its code (hashed in the source digest): name it as its checkpoint."""
    return f"builtin:{name}"
