"""S01's skill under `balanced`: the ladder's steps end lifted on the backs of the hands (a fixed seed,
the robot placed where the walk to the steps ends)."""

from __future__ import annotations

import mujoco
import numpy as np

from humanoidtoolbench.control.base import BasePose
from humanoidtoolbench.suites.fiatlux.contract import Q0_VECTOR
from humanoidtoolbench.suites.fiatlux import SUITE
from humanoidtoolbench.suites.fiatlux.expert import ladder
from humanoidtoolbench.suites.fiatlux.expert.common import context, observe
from humanoidtoolbench.suites.fiatlux.subtasks import BY_KEY
from humanoidtoolbench.planning.skills import PlanFollower, hold_still

from rollouts import play


class Lifter(PlanFollower):
    def observe(self, request):
        return observe(request["privileged"])

    def start(self, request):
        ctx = context(self.kin, request["privileged"])

        def plan():
            yield from ladder.lift(ctx)
            yield from hold_still(ctx)
        return ctx, plan()


def test_the_robot_lifts_the_ladders_steps_end_and_holds_it():
    """From 0.95 m out, facing the steps: the steps end comes off the floor (the far feet stay down),
    the hands carry part of the ladder's 107 N, and the robot stands."""
    ep = SUITE.make_episode(BY_KEY["S01"], 0, SUITE.make_controller("balanced"), "fast")
    ep.reset()
    world = ep.privileged()
    xy, heading = ladder.approach_point(world), ladder.stand_point(world)[1]
    ep.controller.reset(ep.data, BasePose(xy[0], xy[1], 0.792, heading), Q0_VECTOR.copy())
    mujoco.mj_forward(ep.model, ep.data)
    ep.last = ep.snapshot()
    lifter, carried = Lifter(), []

    def act(requests: int) -> np.ndarray:
        return lifter({"privileged": ep.privileged(), "history": {"reset": requests == 0}, "state": {}})

    for k, result in enumerate(play(ep, SUITE.action_contract("balanced"), act, 1450)):
        assert result.outcome is None, f"{result.outcome} at step {k}"
        if k >= 1350:  # the last two seconds, the ladder held up
            carried.append(-(ep.controller.arm_loads.wrench["left"][2] + ep.controller.arm_loads.wrench["right"][2]))
    d, m = ep.data, ep.model
    lb = m.body("ladder").id
    rot = d.xmat[lb].reshape(3, 3)
    front, back = (d.xpos[lb] + rot @ np.array([0.0, y, 0.0]) for y in (-0.49, 0.49))
    assert front[2] > 0.01 and back[2] < 0.005  # the steps end up, the back feet on the floor
    assert ep.last.ladder_tilt < 0.6 and ep.last.pelvis[2] > 0.6
    assert np.mean(carried) > 20.0  # N, down on the hands (the statics ask 62 N of a held ladder)
