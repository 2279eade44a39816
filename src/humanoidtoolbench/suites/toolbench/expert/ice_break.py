"""IceBreak: bring the hammer's head down on each block, picking it up again if a blow knocks it loose."""

from __future__ import annotations

import numpy as np

from ....planning.skills import Context, Steps, hold_still, wait
from .ball_retrieve import hook_side
from .geometry import BENCH_TOP, NEAREST_STAND, UP, stand_for
from .pick import holding, pick, raise_arm
from .skills import go_to_bench, shape_hand, tool_reach

ICE_TOP = BENCH_TOP + 0.16
HAMMER_TILT = np.radians(15)
WIND_UP = 0.18  # head this far above the block before a blow
FOLLOW_THROUGH = 0.03  # ... and aimed this far into it
BLOW_TIME = 0.10  # s for the head to come down
HAMMER_REACH = 0.34  # hand to head centre, roughly


def head_centre(tool: dict) -> np.ndarray:
    """Centre of the hammer's head: the striking face, moved onto the handle's line."""
    return np.asarray(tool["tip"], float) - hook_side(tool)


def hammer_pointing() -> np.ndarray:
    return np.array([0.0, -np.cos(HAMMER_TILT), -np.sin(HAMMER_TILT)])


def broken(ctx: Context, block: str) -> bool:
    """A fractured block leaves the scene (its shards take its place)."""
    return ctx.obs.obj(block)["pos"][2] < 0.0


def ice_break(ctx: Context) -> Steps:
    yield from raise_arm(ctx)
    yield from pick(ctx)
    pointing = hammer_pointing()
    blocks = sorted(n for n in ctx.obs.world["objects"] if n.startswith("ice_"))
    for block in blocks:
        for _ in range(4):
            if broken(ctx, block):
                break
            if not holding(ctx):
                yield from shape_hand(ctx, "left", "open")
                yield from pick(ctx)
            centre = np.asarray(ctx.obs.obj(block)["pos"], float)
            above = np.array([centre[0], centre[1], ICE_TOP + WIND_UP])
            hand_at = above - HAMMER_REACH * pointing
            x, y = stand_for(hand_at, NEAREST_STAND + ctx.caution.stand_back)
            yield from go_to_bench(ctx, (ctx.caution.clear_of_legs(x), y))
            held_as = dict(tool_up=UP, point=head_centre)
            bias = yield from tool_reach(ctx, "left", "tool", above, pointing, 1.0, ctx.caution.arm_floor, search=True, **held_as)
            into = np.array([centre[0], centre[1], ICE_TOP - FOLLOW_THROUGH])
            yield from tool_reach(ctx, "left", "tool", into, pointing, BLOW_TIME, ctx.caution.arm_floor, corrections=0, bias=bias, **held_as)
            yield from wait(ctx, 0.06)
            # Straight back up: a head left on the shards would hold them together.
            yield from tool_reach(ctx, "left", "tool", above, pointing, 0.3, ctx.caution.arm_floor, corrections=0, bias=bias, **held_as)
            yield from wait(ctx, 0.3)
    yield from hold_still(ctx)


