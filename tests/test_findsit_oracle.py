"""The find-navigate-sit oracle's decisions on hand-made geometry: clear paths, lanes, stalls, sitting."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import ndimage

from humanoidtoolbench.suites.findsit import actions
from humanoidtoolbench.planning.navgrid import RESOLUTION, NavGrid
from humanoidtoolbench.suites.findsit.planner.interface import Observation
from humanoidtoolbench.suites.findsit.policies import EDGE_INSET_M, OraclePlanner, _clearance, _lookahead


def doorway_grid() -> NavGrid:
    """Two 3 m x 2 m rooms side by side; a wall at x = 3 m with a 0.6 m free gap from y = 0.2 to 0.8 m."""
    free = np.ones((40, 120), dtype=bool)  # 2 m x 6 m
    free[:, 58:62] = False
    free[4:16, 58:62] = True
    return NavGrid(free)


def clearance_along(grid: NavGrid, path) -> float:
    edt = ndimage.distance_transform_edt(grid.free) * RESOLUTION
    points = np.array(path)
    return float(edt[(points[:, 1] / RESOLUTION).astype(int), (points[:, 0] / RESOLUTION).astype(int)].min())


def test_a_clear_path_runs_through_the_middle_of_a_doorway_the_shortest_hugs_its_frame():
    grid = doorway_grid()
    start, goal = (1.0, 1.8), [grid.cell((5.0, 1.8))]
    shortest, clear = grid.path(start, goal), grid.path(start, goal, keep_clear=True)
    assert shortest and clear and shortest[-1] == clear[-1]
    dense = lambda path: np.concatenate([np.linspace(a, b, 20) for a, b in zip(path[:-1], path[1:])])
    assert clearance_along(grid, dense(clear)) > clearance_along(grid, dense(shortest))
    assert clearance_along(grid, dense(clear)) >= 0.25  # the middle of a 0.6 m gap: 0.3 m from each frame


def test_the_lookahead_takes_the_far_point_of_a_straight_lane_but_not_across_a_frame():
    grid = doorway_grid()
    straight = _lookahead(grid, (0.5, 0.5), [(2.5, 0.5)])
    assert straight == pytest.approx((2.5, 0.5), abs=1e-9)
    # Round the frame: the point is as far along as a lane 0.1 m clear of the margins reaches, not the far room.
    path = [(2.5, 1.9), (2.5, 0.5), (3.5, 0.5), (3.5, 1.9)]
    point = _lookahead(grid, (2.0, 1.9), path)
    assert point[0] > 2.5 and point[1] < 1.0  # past the first corner of the path, towards the gap
    lane = np.linspace((2.0, 1.9), point, 200)
    lane = lane[np.hypot(*(lane - (2.0, 1.9)).T) > 0.2]
    assert clearance_along(grid, lane) - RESOLUTION / 2 >= 0.1 - 1e-9
    assert clearance_along(grid, np.linspace((2.0, 1.9), (3.5, 0.5), 200)) == 0.0  # straight at the goal: the wall
    assert _lookahead(grid, (3.5, 1.5), [(3.5, 1.55)]) is None  # the path's end: walk at the target itself


COUCH = {"centre": (2.0, 2.0, 0.4), "yaw": math.pi / 2, "half_extents": (0.45, 1.0, 0.4), "backrest": 0.2,
         "seat_height": 0.45, "aabb": ((1.0, 1.55, 0.0), (3.0, 2.45, 0.8)), "approach": (2.0, 2.8)}


def privileged(pose, *, on_seat=False, contacts=(), target=COUCH, interact=True, distance=1.0) -> dict:
    return {"pose": pose, "interact": interact, "targets": [target], "target_distance": distance, "grid": None,
            "path": [], "contacts": list(contacts), "pelvis_on_target": on_seat, "sits": 0, "controller": "assisted"}


def decide(oracle: OraclePlanner, p: dict) -> actions.Action:
    return oracle.decide(Observation(np.zeros((2, 2, 3), np.uint8), 0, p)).action


def test_at_a_seat_it_faces_its_way_gets_in_line_backs_to_the_edge_sits_checks_and_retries():
    oracle = OraclePlanner()
    oracle.reset("", 0)
    front_edge = 2.0 + 0.45
    assert decide(oracle, privileged((2.0, 2.8, -math.pi / 2))).skill == actions.TURN  # facing the couch
    off_line = decide(oracle, privileged((2.3, 2.8, math.pi / 2)))  # 0.3 m to the seat's right of its middle
    assert off_line.name == "Side step<left><0.30>"
    back = decide(oracle, privileged((2.0, 2.8, math.pi / 2)))
    assert back.skill == actions.STEP_BACK
    assert back.parameters["distance_m"] == pytest.approx(2.8 - (front_edge - EDGE_INSET_M), abs=0.01)
    sit = decide(oracle, privileged((2.0, front_edge - EDGE_INSET_M + 0.02, math.pi / 2)))
    assert sit.skill == actions.SIT and sit.parameters["height_m"] == pytest.approx(0.40)
    # The pelvis did not come to rest on the seat: nearer the edge, then sit again.
    retry = decide(oracle, privileged((2.0, front_edge - EDGE_INSET_M - 0.1, math.pi / 2)))
    assert retry.name == "Walk<forward><slow>"
    assert decide(oracle, privileged((2.0, front_edge - EDGE_INSET_M + 0.02, math.pi / 2))).skill == actions.SIT
    assert decide(oracle, privileged((2.0, front_edge - 0.04, math.pi / 2), on_seat=True)).active_stop


def test_a_stalled_walk_steps_back_then_aside_away_from_what_it_touches():
    oracle = OraclePlanner()
    oracle.reset("", 0)
    plant = {**COUCH, "approach": (4.0, 4.0), "centre": (4.0, 4.0, 0.3), "aabb": ((3.8, 3.8, 0.0), (4.2, 4.2, 0.6))}
    p = privileged((1.0, 1.0, 0.0), target=plant, interact=False, distance=3.0)
    p["grid"] = NavGrid(np.ones((100, 100), dtype=bool))
    p["path"] = [(4.0, 1.0), (4.0, 3.5)]
    assert decide(oracle, p).name == "Walk<forward><fast>"
    stuck = {**p, "pose": (1.01, 1.0, 0.0), "contacts": [(1.2, 1.25)]}  # touching something ahead on the left
    assert decide(oracle, stuck).name == "Step back<0.25>"
    assert decide(oracle, stuck).name == "Side step<right><0.30>"
    assert decide(oracle, {**p, "target_distance": 0.17}).active_stop  # within NavSR@20cm: done


def test_on_balanced_it_aligns_within_the_sway_turns_not_at_the_seat_and_stops_at_the_radius():
    skew = math.pi / 2 + math.radians(10)  # the balanced pelvis' sway at one step
    at_seat = dict(on_seat=False, distance=0.02)
    for controller, first, at_edge in (("assisted", actions.TURN, actions.TURN), ("balanced", actions.STEP_BACK, actions.SIT)):
        oracle = OraclePlanner()
        oracle.reset("", 0)
        p = privileged((2.0, 2.8, skew))
        assert decide(oracle, {**p, "controller": controller}).skill == first, controller
        p = privileged((2.0, 2.45 - EDGE_INSET_M, math.pi / 2 + math.radians(20)), **at_seat)
        assert decide(oracle, {**p, "controller": controller}).skill == at_edge, controller
    plant = {**COUCH, "centre": (4.0, 4.0, 0.3), "aabb": ((3.8, 3.8, 0.0), (4.2, 4.2, 0.6))}
    near = privileged((3.6, 4.0, 0.0), target=plant, interact=False, distance=0.19)
    near["grid"], near["path"] = NavGrid(np.ones((100, 100), dtype=bool)), [(3.8, 4.0)]
    for controller, stops in (("assisted", False), ("balanced", True)):
        oracle = OraclePlanner()
        oracle.reset("", 0)
        assert decide(oracle, {**near, "controller": controller}).active_stop is stops, controller


def test_on_balanced_a_walk_pressed_against_furniture_counts_as_stalled_and_near_the_target_it_stops():
    """The balanced pelvis sways several centimetres a step even with a knee against a TV stand, so
    there a touching walk is judged by its progress; near a target it only has to reach, it stops."""
    plant = {**COUCH, "approach": (4.0, 4.0), "centre": (4.0, 4.0, 0.3), "aabb": ((3.8, 3.8, 0.0), (4.2, 4.2, 0.6))}
    far = privileged((1.0, 1.0, 0.0), target=plant, interact=False, distance=3.0)
    far["grid"], far["path"] = NavGrid(np.ones((100, 100), dtype=bool)), [(4.0, 1.0), (4.0, 3.5)]
    # Moved 6 cm (the sway), touching something, no nearer the target.
    pressed = {**far, "pose": (1.06, 1.0, 0.0), "contacts": [(1.2, 1.25)], "target_distance": 2.995}
    for controller, after in (("assisted", "Walk<forward><fast>"), ("balanced", "Step back<0.25>")):
        oracle = OraclePlanner()
        oracle.reset("", 0)
        assert decide(oracle, {**far, "controller": controller}).name == "Walk<forward><fast>"
        assert decide(oracle, {**pressed, "controller": controller}).name == after, controller
    # Still getting nearer (2 cm), the touching walk goes on.
    oracle = OraclePlanner()
    oracle.reset("", 0)
    decide(oracle, {**far, "controller": "balanced"})
    assert decide(oracle, {**pressed, "target_distance": 2.98, "controller": "balanced"}).name == "Walk<forward><fast>"
    # 0.21 m from the TV, a knee on its stand: stop there, short of the radius, rather than walk on.
    near = {**far, "pose": (3.5, 4.0, 0.0), "path": [(3.8, 4.0)], "target_distance": 0.21, "contacts": [(3.7, 3.95)]}
    for controller, stops in (("assisted", False), ("balanced", True)):
        oracle = OraclePlanner()
        oracle.reset("", 0)
        assert decide(oracle, {**near, "controller": controller}).active_stop is stops, controller
    assert not decide(oracle, {**near, "contacts": [], "controller": "balanced"}).active_stop  # touching nothing: on
    assert not decide(oracle, {**near, "target_distance": 0.35, "controller": "balanced"}).active_stop  # further: on


def test_on_balanced_it_sits_from_in_front_of_the_edge_and_sits_on_until_the_pelvis_rests():
    """The balanced robot's sit leans its hips back over the seat, so it sits down from 0.17 m in front of
    the edge; a sit takes it more than one decision, so it sits on in place, three sits at most."""
    balanced = {"controller": "balanced"}
    front_edge = 2.0 + 0.45
    oracle = OraclePlanner()
    oracle.reset("", 0)
    back = decide(oracle, {**privileged((2.0, 2.8, math.pi / 2)), **balanced})
    assert back.skill == actions.STEP_BACK
    assert back.parameters["distance_m"] == pytest.approx(2.8 - (front_edge + 0.17), abs=0.01)
    # The gait starts slowly: a step back that moved 1 cm, touching nothing, backs on; touching, it sits.
    slow = {**privileged((2.0, 2.79, math.pi / 2)), **balanced}
    assert decide(oracle, slow).skill == actions.STEP_BACK
    assert decide(oracle, {**slow, "pose": (2.0, 2.785, math.pi / 2), "contacts": [(2.0, 2.6)]}).skill == actions.SIT
    oracle = OraclePlanner()
    oracle.reset("", 0)
    sit = decide(oracle, {**privileged((2.0, front_edge + 0.17 + 0.02, math.pi / 2)), **balanced})
    assert sit.skill == actions.SIT and sit.parameters["height_m"] == pytest.approx(0.40)
    # Not yet on the seat, the hips 10 cm further back: it sits on where it is, twice, then stops.
    lowered = {**privileged((2.0, front_edge + 0.02, math.pi / 2)), **balanced}
    assert [decide(oracle, lowered).name for _ in range(3)] == [sit.name, sit.name, actions.STOP.name]
    oracle = OraclePlanner()
    oracle.reset("", 0)
    assert decide(oracle, {**privileged((2.0, front_edge + 0.17 + 0.02, math.pi / 2)), **balanced}) == sit
    assert decide(oracle, {**lowered, "pelvis_on_target": True}).active_stop


def test_the_clearance_cache_never_serves_a_freed_grid_to_a_new_one():
    """A grid made after the last one was freed may take its id; its clearance is its own."""
    for shape in ((10, 10), (20, 30), (10, 10)):
        grid = NavGrid(np.ones(shape, dtype=bool))
        assert _clearance(grid).shape == shape
        del grid
