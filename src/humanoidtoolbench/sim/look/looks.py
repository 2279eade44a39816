"""The looks a suite can be rendered in, as data: what each costs and shows.

A look is part of a suite's standard protocol (`StandardProtocol.look`) and
recorded in every result. This module imports nothing heavy, so the protocol
and the command line can name looks without a simulator.
"""

from __future__ import annotations

from dataclasses import dataclass


class LookError(ValueError):
    """An unknown look name; one line."""


@dataclass(frozen=True)
class Look:
    """How a scene is drawn. `dressed` looks get textured materials and the suites' visual-only
    dressing; the others keep flat colours. The settings below are the ones that cost render time
    (docs/PERFORMANCE.md measures each)."""

    name: str
    dressed: bool
    texture_size: int = 0  # px, side of every procedural texture
    shadow_size: int = 0  # px, side of the shadow map; 0: no light casts shadows
    offsamples: int = 0  # multisampling of offscreen images (anti-aliasing)
    headlight: float = 0.0  # diffuse level of the light riding on the camera (softens what room lights leave dark)


# Chosen by benchmarks/look_cost.py (docs/PERFORMANCE.md): on one core this look takes 1.14 x the fast
# look's time for the four cameras; any shadow map took 2.8-5.9 x and multisampling 2.3 x.
STANDARD = Look(
    "standard",
    dressed=True,
    texture_size=256,
    shadow_size=0,
    offsamples=0,
    headlight=0.12,
)
FAST = Look("fast", dressed=False)  # flat colours: the cheapest, for diagnostics (not reportable)

LOOKS = {look.name: look for look in (STANDARD, FAST)}


def get(name: str | Look) -> Look:
    """The look of that name (a Look passes through)."""
    if isinstance(name, Look):
        return name
    try:
        return LOOKS[name]
    except KeyError:
        raise LookError(f"unknown look {name!r}; choose one of {', '.join(LOOKS)}") from None
