"""S03: take the old bulb out of the fixture, standing on the ladder's top tread.

The hand closes round the glass as S08's does (`grab.pinch`), coming in from
the side the bulb points to (below a ceiling socket, in front of a wall one),
then draws the bulb straight out along the socket's axis, past the magnet's
reach and the 0.10 m the gate asks, and holds it there.
"""

from __future__ import annotations

import numpy as np

from ....planning.skills import Context, Steps, hold_still
from .common import move
from .grab import GRASP, pinch

PULL = 0.22  # m along the socket's axis: the plug ends well past the gate's 0.10 m from the seat (0.14 left the slipping bulb short)


def plan(ctx: Context) -> Steps:
    out = np.asarray(ctx.obs.world["seat_axis"], float)  # out of the socket, towards the glass
    hand = yield from pinch(ctx, "old_bulb", out)
    yield from move(ctx, "right", hand, ctx.commanded_kinematics().point("right", GRASP) + PULL * out, 1.5, pieces=6)
    yield from hold_still(ctx)
