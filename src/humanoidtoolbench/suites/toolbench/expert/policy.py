"""The expert as a policy: each chunk planned from the latest privileged observation."""

from __future__ import annotations

import numpy as np

from ....planning.skills import Observation, PlanFollower
from .plans import plan_for
from .skills import bench_context

POLICY_NAME = "expert"
PRIVILEGED = True
CHUNK = 5  # rows per request: 0.1 s between observations


class Expert(PlanFollower):
    chunk = CHUNK

    def observe(self, request: dict) -> Observation:
        if "privileged" not in request:
            raise RuntimeError("the expert needs privileged simulator state; run it in process with htb-eval --policy expert")
        return Observation(np.asarray(request["state"]["states"], dtype=np.float64)[0], request["privileged"])

    def start(self, request: dict):
        ctx = bench_context(self.kin, self.observe(request))
        return ctx, plan_for(ctx)


predict = Expert.predictor()
