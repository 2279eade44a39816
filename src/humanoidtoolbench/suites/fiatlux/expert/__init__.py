"""The Fiatlux scripted expert: the manipulation subtasks through `decoupled_v1` under `balanced`.

It reads the privileged observation (bulb, crate, seat and base poses, joint
angles) and sends arm, hand and waist targets; the balanced controller keeps
the legs under the robot. One plan per subtask, chosen from the privileged
state; each is a generator of the planning skills, re-planned from
the latest observation at every chunk. Its results are never reportable.
"""

from __future__ import annotations

import numpy as np

from ....planning.skills import Observation, PlanFollower
from .caution import CAUTIONS
from .common import context, observe
from . import dispose, grab, insert, ladder, navigate, remove

POLICY_NAME = "expert"
PRIVILEGED = True
CHUNK = 5  # rows per request: 0.1 s between observations
PLANS = {"S01": ladder.plan, "S03": remove.plan, "S06": dispose.plan, "S08": grab.plan, "S11": insert.plan, **dict.fromkeys(navigate.ERRANDS, navigate.plan)}


class Expert(PlanFollower):
    chunk = CHUNK

    def observe(self, request: dict) -> Observation:
        world = request.get("privileged")
        if world is None:
            raise RuntimeError("the Fiatlux expert needs privileged simulator state; run it in process with htb-eval --policy expert")
        if world["controller"] not in CAUTIONS:
            raise RuntimeError(f"the Fiatlux expert runs under --controller {', '.join(CAUTIONS)} only, not {world['controller']}")
        if world["subtask"] not in PLANS:
            raise RuntimeError(f"the Fiatlux expert solves {', '.join(PLANS)}; not {world['subtask']}")
        return observe(world)

    def start(self, request: dict):
        self.observe(request)  # the checks above
        world = request["privileged"]
        ctx = context(self.kin, world)
        return ctx, PLANS[world["subtask"]](ctx)

    def row(self) -> np.ndarray:
        return self.ctx.cmd.copy()  # the heading flag as the plan left it (turns in place hold it)


predict = Expert.predictor()
