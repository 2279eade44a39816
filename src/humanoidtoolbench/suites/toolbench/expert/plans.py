"""What the expert does in each condition: L0 picks and holds; L1 and L2 use the tool."""

from __future__ import annotations

from ....planning.skills import Context, Steps, hold_still
from .ball_move import ball_move
from .ball_retrieve import ball_retrieve
from .ice_break import ice_break
from .pick import pick, raise_arm

USE = {"BallMove": ball_move, "BallRetrieve": ball_retrieve, "IceBreak": ice_break}


def select(ctx: Context) -> Steps:
    """L0: pick the correct tool and hold it up."""
    yield from raise_arm(ctx)
    yield from pick(ctx)
    yield from hold_still(ctx)


def plan_for(ctx: Context) -> Steps:
    world = ctx.obs.world
    return select(ctx) if world["level"] == 0 else USE[world["scenario"]](ctx)
