"""Action contracts and the controllers that execute them."""

from __future__ import annotations

# Controller name -> "module:class", imported on use (importing a controller loads MuJoCo).
CONTROLLERS = {
    "assisted": "humanoidtoolbench.control.assisted.assisted:AssistedController",
    "servo": "humanoidtoolbench.control.servo:ServoController",
    "balanced": "humanoidtoolbench.control.balanced.balanced:BalancedController",
}


def controller_class(name: str):
    """The controller class of a name; its `variant` says which robot model it drives."""
    import importlib

    if name not in CONTROLLERS:
        raise ValueError(f"unknown controller {name!r}; available: {sorted(CONTROLLERS)}")
    module, cls = CONTROLLERS[name].split(":")
    return getattr(importlib.import_module(module), cls)


def make_controller(name: str):
    """A fresh controller by name (results record the name)."""
    return controller_class(name)()
