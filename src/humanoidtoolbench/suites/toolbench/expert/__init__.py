"""The scripted expert: solves the conditions through the public 36-value action, with privileged truth.

It knows which tool is correct and where everything is (the `privileged`
entry of its requests, which only privileged in-process policies receive),
walks with the navigation slots, moves the arm with inverse kinematics and
closes the Dex3 fingers on the handle: the tool rises by friction alone.
Each chunk is planned from the latest observation, so a slipped tool or a
rolling ball is corrected rather than ignored. Its results are never
reportable.
"""

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
