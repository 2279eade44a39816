"""Short names for the contract-level policies that ship with the package (`--policy NAME`).

Suites add their own (a scripted expert) through `Suite.builtin_policies`.
"""

from __future__ import annotations

BUILTIN_POLICIES = {
    "pose-hold": "humanoidtoolbench.policies.pose_hold:predict",
    "zero": "humanoidtoolbench.policies.baselines:zero",
    "random": "humanoidtoolbench.policies.baselines:random_policy",
}


def builtin_checkpoint(name: str) -> str:
    """A built-in policy's weights are its code (hashed in the source digest): name it as its checkpoint."""
    return f"builtin:{name}"
