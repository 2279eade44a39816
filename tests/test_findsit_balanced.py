"""Find-navigate-sit on the balanced controller: the suite takes it, its skills move the free robot, a fall ends the episode."""

from __future__ import annotations

import math

import numpy as np
import pytest

from humanoidtoolbench.cli import eval as eval_cli
from humanoidtoolbench.control.balanced.balanced import BalancedController
from humanoidtoolbench.control.contracts.decoupled_v1 import JOINT_SLOTS
from humanoidtoolbench.suites.base import FELL
from humanoidtoolbench.suites.findsit.contract import DISCRETE_SKILL_V1
from humanoidtoolbench.suites.findsit.episode import FindSitEpisode
from humanoidtoolbench.suites.findsit.profiles import PROFILES
from humanoidtoolbench.suites.findsit.suite import CONDITIONS, SUITE
from humanoidtoolbench.suites.rollout import Rollout

EPISODE = 9  # a start with room to move every way
SKILLS = 4  # 2 s: one skill alone is mostly the start-up and the pelvis' sway from foot to foot


def episode() -> FindSitEpisode:
    ep = SUITE.make_episode(CONDITIONS[0], EPISODE, BalancedController(), "fast")
    ep.reset()
    return ep


def run_skill(ep: FindSitEpisode, skill_id: int, value: float) -> str | None:
    rollout = Rollout(ep, DISCRETE_SKILL_V1)
    rollout.accept([[skill_id, value]], {})
    while not rollout.needs_request:
        outcome = rollout.step()[1].outcome
        if outcome is not None:
            return outcome
    return None


def moved(skill_id: int, value: float) -> tuple[float, float, float]:
    """Forward and leftward distance (m) and left turn (degrees) over SKILLS repeats, in the start's frame."""
    ep = episode()
    start = ep.sim.base_pose()
    for _ in range(SKILLS):
        assert run_skill(ep, skill_id, value) is None
    end = ep.sim.base_pose()
    c, s = math.cos(start.yaw), math.sin(start.yaw)
    dx, dy = end.x - start.x, end.y - start.y
    return dx * c + dy * s, -dx * s + dy * c, math.degrees(math.remainder(end.yaw - start.yaw, 2 * math.pi))


def test_findsit_accepts_balanced(capsys):
    assert "balanced" in SUITE.controllers and FELL in SUITE.outcomes
    assert eval_cli.main(["FINDSIT-val100", "--policy", "oracle", "--controller", "balanced", "--dry-run"]) == 0
    assert "balanced" in capsys.readouterr().out


# Tolerances from docs/PERFORMANCE.md (find-navigate-sit on balanced): 2 s at the suite's speed limits,
# less the start-up; the pelvis sways about 0.1 m sideways at each step.
@pytest.mark.parametrize(
    "skill_id, value, forward, left, turn",
    [
        (0, 0.6, (0.3, 0.75), (-0.15, 0.15), (-8, 8)),  # Walk<forward><fast>: at 0.3 m/s, not 0.6
        (5, 0.3, (-0.35, -0.05), (-0.15, 0.15), (-8, 8)),  # Step back<0.30>: at 0.15 m/s
        # Side step<left/right><0.30>: at 0.15 m/s, drifting a little forward
        (6, 0.3, (-0.1, 0.2), (0.15, 0.45), (-8, 8)),
        (6, -0.3, (-0.1, 0.2), (-0.45, -0.15), (-8, 8)),
        (2, 30.0, (-0.1, 0.1), (-0.15, 0.15), (35, 80)),  # Turn<left><30>: about 17 degrees a skill
    ],
)
def test_each_skill_moves_the_balanced_robot_its_way(skill_id, value, forward, left, turn):
    f, l, t = moved(skill_id, value)
    assert forward[0] <= f <= forward[1] and left[0] <= l <= left[1] and turn[0] <= t <= turn[1], (f, l, t)


def test_speeds_beyond_the_limits_are_commanded_at_them():
    ep = episode()
    ep._skill_start = (0.0, 0.0, 0.0)
    lim = PROFILES["balanced"].limits
    row = {k: ep._command(DISCRETE_SKILL_V1.decode(np.array([k, v, 0.0]))) for k, v in ((0, 0.6), (5, 0.6), (6, -0.5))}
    assert row[0][32] == lim.forward and row[5][32] == -lim.backward and row[6][33] == -lim.lateral


def test_a_fall_ends_the_findsit_episode_as_fell():
    ep = episode()
    ep.data.qvel[ep.controller._root_dof + 1] = 3.0  # a sideways shove of about 100 N s, five times what it catches
    outcomes = [run_skill(ep, 0, 0.2) for _ in range(3)]
    assert FELL in outcomes and ep.outcome == FELL and ep.sim.fallen()


def test_the_oracle_routes_the_balanced_robot_around_the_clutter_on_the_floor():
    """Its knees and feet trip over baskets and stools the assisted robot's legs pass through."""
    from humanoidtoolbench.control.assisted.assisted import AssistedController
    from humanoidtoolbench.planning.navgrid import NavGrid

    seed = 41  # a start whose straight way crosses a basket
    paths = {}  # each controller's privileged route: its grid and path
    for controller in (AssistedController(), BalancedController()):
        ep = SUITE.make_episode(CONDITIONS[0], seed, controller, "fast")
        ep.reset()
        paths[controller.name] = ep.privileged()
    clutter = NavGrid.build(ep.apartment, clutter=True)
    assert np.array_equal(paths["balanced"]["grid"].free, clutter.free)
    assert np.array_equal(paths["assisted"]["grid"].free, NavGrid.build(ep.apartment).free)
    dense = lambda path: np.concatenate([np.linspace(a, b, 20) for a, b in zip(path[:-1], path[1:])])
    assert all(clutter.navigable(xy) for xy in dense(paths["balanced"]["path"]))
    assert not all(clutter.navigable(xy) for xy in dense(paths["assisted"]["path"]))  # straight over the basket


def test_the_balanced_robot_carries_its_hands_in_through_every_skill():
    """A hand that brushes a wall or a stool while it walks pushes the free robot over."""
    from humanoidtoolbench.control.assisted.assisted import AssistedController
    from humanoidtoolbench.sim.simulation import home_upper_pose

    def hands_apart(ep) -> float:
        d, m = ep.data, ep.model
        return float(np.linalg.norm(d.xpos[m.body("left_wrist_yaw_link").id] - d.xpos[m.body("right_wrist_yaw_link").id]))

    assisted = SUITE.make_episode(CONDITIONS[0], EPISODE, AssistedController(), "fast")
    assisted.reset()
    ep = episode()
    assert np.array_equal(assisted._row[:31], home_upper_pose())  # the assisted robot keeps the home pose
    assert hands_apart(ep) < hands_apart(assisted) - 0.1  # the wrists 0.34 m apart against 0.46
    for _ in range(2):
        assert run_skill(ep, 0, 0.2) is None
    assert hands_apart(ep) < hands_apart(assisted) - 0.1
    ep._skill_start = (0.0, 0.0, 0.0)
    rolls = [JOINT_SLOTS.index(f"{side}_shoulder_roll_joint") for side in ("left", "right")]
    for skill_id, value in ((0, 0.2), (2, 30.0), (4, 0.45), (5, 0.2), (6, 0.2)):  # a sit leans, its arms in too
        row = ep._command(DISCRETE_SKILL_V1.decode(np.array([skill_id, value, 0.0])))
        assert np.array_equal(row[rolls], [0.05, -0.05]) and np.array_equal(row[rolls], ep._row[rolls])


def test_the_balanced_robot_sits_leaning_forward_and_stops_lowering_where_its_pelvis_meets_the_seat():
    """val100 episode 6, a bed: the oracle backs the robot up and sits it; the sit leans the torso and arms
    forward (the hips go back over the seat) and lowers the pelvis only until it touches the bed."""
    from humanoidtoolbench.suites.base import SUCCESS
    from humanoidtoolbench.suites.findsit import actions
    from humanoidtoolbench.suites.findsit.episode import SIT_PRESS_M
    from humanoidtoolbench.suites.findsit.planner.interface import Observation
    from humanoidtoolbench.suites.findsit.policies import OraclePlanner, _value

    ep = SUITE.make_episode(CONDITIONS[0], 6, BalancedController(), "fast")
    ep.reset()
    oracle = OraclePlanner()
    oracle.reset("", 6)
    touched, commanded, lean = None, [], 0.0
    rollout = Rollout(ep, DISCRETE_SKILL_V1)
    while not (rollout.needs_request and rollout.requests == 100):
        if rollout.needs_request:
            action = oracle.decide(Observation(np.zeros((2, 2, 3), np.uint8), rollout.requests, ep.privileged())).action
            rollout.accept([[action.id, _value(action)]], {})
        if action.skill == actions.SIT and touched is None and ep._pelvis_partners().size:
            touched = ep.sim.base_pose().z
        outcome = rollout.step()[1].outcome
        if action.skill == actions.SIT and touched is not None:
            commanded.append(ep._row[31])
            lean = max(lean, ep._row[JOINT_SLOTS.index("waist_pitch_joint")])
        if outcome is not None:
            break
    assert ep.outcome == SUCCESS and ep.privileged()["pelvis_on_target"] and not ep.sim.fallen()
    assert lean == pytest.approx(0.5)
    assert touched is not None and min(commanded) >= touched - SIT_PRESS_M - 1e-9
    assert min(commanded) > 0.5 - 0.05  # held where it touched, above the height the sit asked (0.45 m)
