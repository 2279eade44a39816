"""How careful the planning skills are on a controller: a `Caution` row per controller, declared by each suite's expert.

A suite's expert keeps a table {controller name: Caution} (a subclass may add
the fields only its plans read) and hands `caution_for`'s row to its
`Context`. A controller without a row is an error, never a quiet default:
plans tuned on the assisted controller, which cannot fall, walk a balanced
robot into the furniture.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


class NoCaution(LookupError):
    """A controller the expert declares no caution for."""


@dataclass(frozen=True)
class Caution:
    """What the generic skills read; the defaults are the assisted controller's (the pelvis held up)."""

    walk_speed: float = 0.25  # m/s, walking upright with empty hands
    low_speed: float = 0.25  # m/s, walking below STANDING_HEIGHT or with a load in hand
    walk_timeout: float = 8.0  # s a walk may take
    walk_tol: float = 0.01  # m from its goal at which a walk stops
    resolve_reach: int = 0  # times a settling reach is solved again from the measured base
    distance_first: bool = False  # a walk corrects its world y (the distance from a bench it faces) before x
    hold_heading_standing: bool = True  # keep the heading flag on while not walking
    joint_speed: float | None = None  # rad/s a glide may move a joint at on average (None: no limit)
    clip_start: bool = False  # the first command is clipped to the action table (a settled free robot's fingers rest a hair past their limits)


def caution_for(table: Mapping[str, Caution], controller: str | None) -> Caution:
    """The row of `table` for a controller's name; NoCaution, naming the rows there are, for any other."""
    if controller not in table:
        raise NoCaution(f"no caution for controller {controller!r}; the expert declares {', '.join(table)}")
    return table[controller]
