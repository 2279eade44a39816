"""How careful the Fiatlux expert's skills are, per controller: its rows of `planning.caution`.

It runs under `balanced` alone (the expert refuses any other controller). Its
plans glide arm, hand and waist slots and solve arms; what acts there is the
joint speed limit (2 rad/s on average: a new arm posture swung fast spins a
balancing robot off its feet) and the first command clipped to the action
table (a settled free robot's fingers rest a hair past their limits). The
walking fields are the tool-use expert's balanced values, for a plan that
walks with `planning.skills.walk_to`.
"""

from __future__ import annotations

from ....planning.caution import Caution

CAUTIONS = {
    "balanced": Caution(
        walk_speed=0.18,
        low_speed=0.12,
        walk_timeout=20.0,
        walk_tol=0.04,
        resolve_reach=2,
        distance_first=True,
        hold_heading_standing=False,
        joint_speed=2.0,
        clip_start=True,
    ),
}
