"""Action contracts and the controllers that execute them."""

from __future__ import annotations


def make_controller(name: str):
    """A fresh controller by name (results record the name)."""
    from .assisted import AssistedController

    controllers = {"assisted": AssistedController}
    if name not in controllers:
        raise ValueError(f"unknown controller {name!r}; available: {sorted(controllers)}")
    return controllers[name]()
