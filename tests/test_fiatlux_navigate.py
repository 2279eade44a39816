"""The Fiatlux navigation expert: routes keep clear of the furniture, stand points meet the gate's
distance, and under `--controller balanced` it walks to the fresh bulb (S07)."""

from __future__ import annotations

import numpy as np

from humanoidtoolbench.suites.findsit.navgrid import Rect
from humanoidtoolbench.suites.fiatlux import SUITE
from humanoidtoolbench.suites.fiatlux.expert import CHUNK, Expert
from humanoidtoolbench.suites.fiatlux.expert import navigate as nav
from humanoidtoolbench.suites.fiatlux.gates import BULB_APPROACH
from humanoidtoolbench.suites.fiatlux.subtasks import BY_KEY

ROOM = (-4.5, -3.5, 4.5, 4.7)


def test_a_route_goes_round_the_bench_and_keeps_its_clearance():
    bench = Rect(0.0, 0.0, 1.24, 0.38)
    rects = {"workbench": bench}
    path = nav.route((0.0, -1.5), (0.0, 1.5), rects, ROOM)
    assert path is not None and len(path) >= 3  # not through the bench
    for a, b in zip(path[:-1], path[1:]):
        pts = np.asarray(a) + np.linspace(0, 1, 50)[:, None] * (np.asarray(b) - a)
        assert bench.distance(pts).min() >= nav.CLEARANCE["workbench"] - 1e-9
    assert nav.route((0.0, -1.5), (0.0, -0.5), rects, ROOM) is None  # a goal inside the clearance


def test_a_start_inside_the_clearance_may_only_move_away():
    rects = {"crate": Rect(0.0, 0.0, 0.3, 0.2)}
    assert nav.clear((0.0, 0.35), (0.0, 1.0), rects)
    assert not nav.clear((0.0, 0.35), (0.0, 0.25), rects)


def world(key: str, seed: int) -> dict:
    ep = SUITE.make_episode(BY_KEY[key], seed, SUITE.make_controller("balanced"), "fast")
    ep.reset()
    return ep.privileged()


def test_stand_points_by_the_fresh_bulb_are_within_the_gate_and_clear_of_the_bench():
    w = world("S07", 1)
    rects = nav.footprints(w)
    aim = nav.target_point(w, nav.ERRANDS["S07"])
    points = nav.stand_points(w, nav.ERRANDS["S07"], rects)
    assert points
    for p in points:
        assert np.linalg.norm(p - aim) < BULB_APPROACH - nav.GOAL_TOL
        assert rects["workbench"].distance(p) >= nav.CLEARANCE["workbench"] - 1e-9
    assert nav.best_route(w, nav.ERRANDS["S07"]) is not None


def test_the_expert_walks_to_the_fresh_bulb():
    """S07 seed 3 (2.1 m, straight): near (0.63 m) and facing (0.5 rad) the bulb, standing, in 60 s."""
    ep = SUITE.make_episode(BY_KEY["S07"], 3, SUITE.make_controller("balanced"), "fast")
    ep.reset()
    expert = Expert()
    for step in range(3000):
        if step % CHUNK == 0:
            rows = expert({"privileged": ep.privileged(), "history": {"reset": step == 0}, "state": {}})
        result = ep.step(rows[step % CHUNK])
        if result.outcome:
            break
    assert result.outcome == "success" and result.success
    assert result.metrics["pelvis_z"] > 0.6
