"""The Fiatlux navigation expert: routes keep clear of the furniture, stand points meet the gate's
distance, and under `--controller balanced` it walks to the fresh bulb (S07) and carries the old
bulb to the crate (S05)."""

from __future__ import annotations

import numpy as np
import pytest

from humanoidtoolbench.control.contracts.decoupled_v1 import JOINT_SLOTS
from humanoidtoolbench.control.contracts.joint_position import JOINT_NAMES
from humanoidtoolbench.suites.fiatlux import SUITE
from humanoidtoolbench.suites.fiatlux.start import GRIP_FINGERS, GRIP_POSE
from humanoidtoolbench.suites.fiatlux.expert import CHUNK, Expert
from humanoidtoolbench.suites.fiatlux.expert import navigate as nav
from humanoidtoolbench.suites.fiatlux.gates import BULB_APPROACH, LADDER_REACH
from humanoidtoolbench.suites.fiatlux.subtasks import BY_KEY
from humanoidtoolbench.planning.navgrid import Rect

from rollouts import play

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


def test_a_walked_arc_that_would_swing_into_the_bench_is_not_clear():
    """Beside the bench, 1.1 rad off a clear straight leg along it: walked, the heading swings at
    0.1 rad/s and the first metres head into the bench's clearance; facing the leg it walks clear."""
    rects = {"workbench": Rect(0.0, 0.0, 1.24, 0.38)}
    start, to = np.array([-1.0, 0.73]), np.array([2.0, 1.4])  # 0.35 m from the bench edge
    assert nav.clear(start, to, rects)
    bearing = np.arctan2(*(to - start)[::-1])
    assert not nav.walked_clear(start, bearing - 1.1, to, 0.07, rects)
    assert nav.walked_clear(start, bearing, to, 0.07, rects)
    assert nav.walked_clear(start, bearing + 1.1, to, 0.07, rects)  # swinging away from it


def world(key: str, seed: int) -> dict:
    ep = SUITE.make_episode(BY_KEY[key], seed, SUITE.make_controller("balanced"), "fast")
    ep.reset()
    return ep.privileged()


# S07: near the fresh bulb, clear of the bench. S09: the gate counts 0.85 m from the ladder's origin,
# so only points beside its long sides, clear of its footprint by the route's clearance, will do.
@pytest.mark.parametrize("key,seed,target,reach", [("S07", 1, "workbench", BULB_APPROACH), ("S09", 0, "ladder", LADDER_REACH)])
def test_stand_points_are_within_the_gate_and_clear_of_the_furniture(key, seed, target, reach):
    w = world(key, seed)
    rects = nav.footprints(w)
    aim = nav.target_point(w, nav.ERRANDS[key])
    points = nav.stand_points(w, nav.ERRANDS[key], rects)
    assert points
    for p in points:
        assert np.linalg.norm(p - aim) < reach - nav.GOAL_TOL
        assert rects[target].distance(p) >= nav.CLEARANCE[target] - 1e-9
    assert nav.best_route(w, nav.ERRANDS[key]) is not None


@pytest.mark.parametrize("yaw", np.linspace(0.0, np.pi, 13))
def test_the_ladder_has_a_stand_point_beside_each_long_side_at_any_yaw(yaw):
    """Only the middle 0.3 m of a long side lies within the gate's reach of the ladder's origin; the
    candidates are fanned from the ladder's own axes, so every yaw has one there on each side."""
    half = (0.304, 0.4895)
    world = {"poses": {"ladder": np.array([0.0, 0.0, 0.0, np.cos(yaw / 2), 0.0, 0.0, np.sin(yaw / 2)])},
             "footprints": {"ladder": (0.0, 0.0, *half, float(yaw))}}
    points = nav.stand_points(world, nav.ERRANDS["S09"], nav.footprints(world))
    assert len(points) == 2
    for p in points:
        assert np.linalg.norm(p) < LADDER_REACH - nav.GOAL_TOL
        assert nav.footprints(world)["ladder"].distance(p) >= nav.CLEARANCE["ladder"] - 1e-9


def run_expert(key: str, seed: int, steps: int):
    """The expert on one seed under `balanced`, to its outcome or `steps` control steps."""
    ep = SUITE.make_episode(BY_KEY[key], seed, SUITE.make_controller("balanced"), "fast")
    ep.reset()
    expert = Expert()

    def act(requests: int) -> np.ndarray:
        return expert({"privileged": ep.privileged(), "history": {"reset": requests == 0}, "state": {}})

    *_, result = play(ep, SUITE.action_contract("balanced"), act, steps)
    return result


def _settle_rows(leg_angle) -> tuple[int, np.ndarray]:
    """Rows `settle` stands for when a leg joint reads `leg_angle(row)`, and the command it leaves."""
    from types import SimpleNamespace

    joints = np.zeros(len(JOINT_NAMES))
    ctx = SimpleNamespace(cmd=np.full(43, 0.3), obs=SimpleNamespace(world={"joints": joints}))
    rows = 0
    for _ in nav.settle(ctx):
        rows += 1
        joints[nav.LEG_INDEX[3]] = leg_angle(rows)
    return rows, ctx.cmd


# The observation changes every CHUNK rows; a stepping knee moves 0.05 rad per row.
@pytest.mark.parametrize("leg_angle, rows", [
    (lambda r: 0.0, 150),  # still from the start: the 3 s minimum
    (lambda r: 0.05 * (min(r, 200) // CHUNK * CHUNK), 225),  # stepping 4 s: 0.5 s after the last step
    (lambda r: 0.05 * (r // CHUNK * CHUNK), 400),  # never still: the 8 s bound
])
def test_after_a_turn_in_place_the_expert_stands_until_the_legs_stop(leg_angle, rows):
    n, cmd = _settle_rows(leg_angle)
    assert n == rows
    assert not cmd[32:36].any()  # no velocity, no heading flag: the robot steps to a stop


def test_a_leg_says_whether_it_stepped():
    """Within STOP_AHEAD of its end a leg takes no step and says so (the plan then walks on to the
    next corner rather than plan the same leg again, without a step between, for ever)."""
    from types import SimpleNamespace

    ctx = SimpleNamespace(cmd=np.zeros(43), obs=SimpleNamespace(base=np.array([0.0, 0.0, 0.7, 0.0])))
    level = nav.leg(ctx, np.array([0.03, 0.0]), 0.07)
    with pytest.raises(StopIteration) as stop:
        next(level)
    assert stop.value.value is False and not ctx.cmd[32:36].any()
    ahead = nav.leg(ctx, np.array([1.0, 0.0]), 0.07)
    next(ahead)
    assert ctx.cmd[32] == 0.07 and ctx.cmd[34] == nav.ENGAGE


@pytest.mark.slow
def test_the_expert_walks_to_the_fresh_bulb():
    """S07 seed 3 (2.1 m, straight): near (0.63 m) and facing (0.5 rad) the bulb, standing, in 60 s."""
    result = run_expert("S07", 3, 3000)
    assert result.outcome == "success" and result.success
    assert result.metrics["pelvis_z"] > 0.6


def test_a_carrying_errand_commands_the_grip_the_start_set():
    """S05 starts with the old bulb in the right fingers: the expert's rows keep the arm and thumb
    targets of that grip and the fingers' targets beyond the glass, where the measured fingers
    stopped; the start presses more than the band (24 N at seed 0's reset, before the glass
    settles), so the first row eases the index and middle fingers one step."""
    ep = SUITE.make_episode(BY_KEY["S05"], 0, SUITE.make_controller("balanced"), "fast")
    ep.reset()
    world = ep.privileged()
    assert world["grip_force"]["old_bulb"] > nav.GRIP_FORCE[1]
    rows = Expert()({"privileged": world, "history": {"reset": True}, "state": {}})
    measured = world["joints"]
    for name, v in GRIP_POSE.items():
        assert rows[0][JOINT_SLOTS.index(name)] == v
    pressing = {n: v for n, v in GRIP_FINGERS.items() if abs(measured[JOINT_NAMES.index(n)] - v) > 0.05}
    assert pressing.keys() & nav.EASED and pressing.keys() - nav.EASED  # fingers and thumb press
    for name, v in pressing.items():
        now = measured[JOINT_NAMES.index(name)]
        eased = nav.SQUEEZE_RATE if name in nav.EASED else 1.0
        assert (rows[0][JOINT_SLOTS.index(name)] - now) / (v - now) == pytest.approx(eased)


def test_the_grip_eases_while_the_glass_feels_more_than_the_band_and_firms_up_below_it():
    """Each new observation outside GRIP_FORCE scales the squeeze (the index and middle fingers'
    targets beyond where they stand) by SQUEEZE_RATE, down above the band and back up to the start's
    grip below it; the arm and thumb keep the start's targets and the walk's rows pass through."""
    from types import SimpleNamespace

    joints = np.zeros(len(JOINT_NAMES))
    ctx = SimpleNamespace(cmd=np.zeros(43), obs=None)
    forces = [30.0] * 5 + [10.0] * 3 + [2.0] * 20
    finger = JOINT_SLOTS.index("right_hand_index_1_joint")
    target = GRIP_FINGERS["right_hand_index_1_joint"]

    def walk(poses):
        for f in forces:
            ctx.obs = SimpleNamespace(world={"joints": joints, "grip_force": {"old_bulb": f}, "poses": poses})
            for _ in range(CHUNK):  # a new observation every CHUNK rows, as the follower feeds them
                ctx.cmd[32] = f
                yield

    squeezes = []
    upright = {"old_bulb": np.array([0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0])}  # held cap up, as a ceiling socket's grip holds it
    for k, _ in enumerate(nav.holding(ctx, "old_bulb", walk(upright))):
        assert ctx.cmd[32] == forces[k // CHUNK]
        squeezes.append(ctx.cmd[finger] / target)  # the measured finger stands at 0
        for name, v in (GRIP_POSE | GRIP_FINGERS).items():
            if name not in nav.EASED:
                assert ctx.cmd[JOINT_SLOTS.index(name)] == v
    per_obs = squeezes[::CHUNK]
    np.testing.assert_allclose(per_obs[:5], nav.SQUEEZE_RATE ** np.arange(1, 6))
    assert per_obs[5] == per_obs[6] == per_obs[7] == per_obs[4]  # inside the band: held
    assert per_obs[8] > per_obs[7] and per_obs[-1] == 1.0  # below it: firmed up, to the start's grip and no further
    assert all(s == per_obs[i // CHUNK] for i, s in enumerate(squeezes))  # set once per observation

    # Held cap forward (a wall socket's grip), the index finger opens over INDEX_OPEN_S from the
    # first observation on, while the middle finger keeps the squeeze and the thumb its target.
    ctx.cmd[:] = 0.0
    level = {"old_bulb": np.array([0.0, 0.0, 1.0, np.cos(np.pi / 4), 0.0, np.sin(np.pi / 4), 0.0])}  # axis along x
    middle = JOINT_SLOTS.index("right_hand_middle_1_joint")
    index, middle_rows = [], []
    for k, _ in enumerate(nav.holding(ctx, "old_bulb", walk(level))):
        index.append(ctx.cmd[finger] / target)
        middle_rows.append(ctx.cmd[middle] / GRIP_FINGERS["right_hand_middle_1_joint"])
    per_obs = index[::CHUNK]
    opening = round(nav.INDEX_OPEN_S / nav.CHUNK_S)
    np.testing.assert_allclose(per_obs[:opening], 1.0 - np.arange(1, opening + 1) / opening)
    assert per_obs[-1] == 0.0  # straight, and kept so
    np.testing.assert_allclose(middle_rows[::CHUNK], squeezes[::CHUNK])


def test_the_expert_carries_the_old_bulb_to_the_crate():
    """S05 seed 0 (0.7 m, straight): near (0.5 m from its footprint) and facing the crate, the old
    bulb still held in the fingers, within 30 s."""
    result = run_expert("S05", 0, 1500)
    assert result.outcome == "success" and result.success
    assert result.metrics["gate_old_bulb_held"] and result.metrics["pelvis_z"] > 0.6
