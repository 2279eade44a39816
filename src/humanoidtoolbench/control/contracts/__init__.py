"""Action contracts: the seam (`base.ActionContract`), an open registry by name, and the generic contracts.

`decoupled_v1` is fixed by the public tool-use protocol (the walking
controllers execute it); `joint_position` and `discrete_skill` are generic,
each taking its suite's vocabulary (a standing pose, skill ids) as arguments.
A suite builds the objects it speaks and registers them when its module is
imported, a suite loaded through `HTB_SUITES` included, so nothing here lists
the contracts there are; `get(name)` finds a registered one.
"""

from __future__ import annotations

from .base import ActionContract

_REGISTRY: dict[str, ActionContract] = {}


def register(contract: ActionContract) -> ActionContract:
    """Make `contract` known by its name (again, for the same object); returns it. Another object under a
    taken name is refused: two meanings of one schema name would make recorded results ambiguous."""
    known = _REGISTRY.setdefault(contract.name, contract)
    if known is not contract:
        raise ValueError(f"action contract {contract.name!r} is registered already, by another object")
    return contract


def get(name: str) -> ActionContract:
    if name not in _REGISTRY:
        raise ValueError(f"unknown action contract {name!r}; registered: {', '.join(sorted(_REGISTRY)) or 'none'}")
    return _REGISTRY[name]


def names() -> tuple[str, ...]:
    return tuple(sorted(_REGISTRY))
