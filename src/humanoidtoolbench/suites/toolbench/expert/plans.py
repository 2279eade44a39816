"""What the expert does in each condition: L0 picks and holds; L1 and L2 use the tool as the scenario's row says."""

from __future__ import annotations

from ....planning.skills import Context, Steps, hold_still
from .. import scenarios
from .pick import pick, raise_arm


def select(ctx: Context) -> Steps:
    """L0: pick the correct tool and hold it up."""
    yield from raise_arm(ctx)
    yield from pick(ctx)
    yield from hold_still(ctx)


def plan_for(ctx: Context) -> Steps:
    world = ctx.obs.world
    return select(ctx) if world["level"] == 0 else scenarios.get(world["scenario"]).load("expert")(ctx)
