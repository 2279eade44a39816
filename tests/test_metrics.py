"""Per-step metrics in scripted scenes.

Objects are teleported by writing their free-joint qpos; `observe` then runs
`mj_forward` and the episode's metric update, as `TaskEpisode.step` does after
physics. A touch puts one collision geom of the object at the centre of a
palm geom (the hand bodies are `*_wrist_yaw_link` and `*_hand_*`, which hang
beside the bench, clear of everything else); `restore` puts it back.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from humanoidtoolbench.control.contracts import decoupled_v1 as contract
from humanoidtoolbench.suites.toolbench import bench, fracture, layout
from humanoidtoolbench.suites.toolbench.contacts import subtree_bodies
from humanoidtoolbench.suites.toolbench.episode import TaskEpisode
from humanoidtoolbench.suites.toolbench.metrics import FIRST_MOVE_DISTANCE, REACHED_RADIUS
from humanoidtoolbench.suites.toolbench.registry import CONDITIONS, HOLD_STEPS, parse

SEED = 10000


def new_episode(name: str, seed: int = SEED) -> TaskEpisode:
    episode = TaskEpisode(parse(name), seed)
    episode.reset()
    return episode


def observe(episode: TaskEpisode) -> dict:
    mujoco.mj_forward(episode.model, episode.data)
    return episode.metrics.update(episode.data, episode.sim.base_pose())


def hold(episode: TaskEpisode) -> np.ndarray:
    return contract.hold_action(episode.state())


def qpos_adr(episode: TaskEpisode, name: str) -> int:
    return int(episode.model.jnt_qposadr[episode.model.joint(f"{name}_joint").id])


def place(episode: TaskEpisode, name: str, pos) -> None:
    """Put a free body's origin at `pos`, keeping its orientation, at rest."""
    m, d = episode.model, episode.data
    joint = m.joint(f"{name}_joint")
    d.qpos[joint.qposadr[0] : joint.qposadr[0] + 3] = pos
    d.qvel[joint.dofadr[0] : joint.dofadr[0] + 6] = 0.0


def solid_geom(episode: TaskEpisode, name: str) -> int:
    m = episode.model
    body = m.body(name).id
    return next(g for g in range(m.ngeom) if m.geom_bodyid[g] == body and m.geom_contype[g])


def palm(episode: TaskEpisode, side: str = "left") -> np.ndarray:
    return episode.data.geom_xpos[solid_geom(episode, f"{side}_wrist_yaw_link")].copy()


def put_geom_at(episode: TaskEpisode, name: str, target) -> None:
    """Move body `name` so that its first collision geom is centred on `target`."""
    d = episode.data
    body = episode.model.body(name).id
    offset = d.geom_xpos[solid_geom(episode, name)] - d.xpos[body]
    place(episode, name, np.asarray(target) - offset)


def touch(episode: TaskEpisode, name: str, side: str = "left") -> dict:
    saved = episode.data.qpos.copy()
    put_geom_at(episode, name, palm(episode, side))
    values = observe(episode)
    assert hand_contact(episode, name, side), name  # the premise: a real contact
    episode.data.qpos[:] = saved
    mujoco.mj_forward(episode.model, episode.data)
    return values


def hand_contact(episode: TaskEpisode, name: str, side: str) -> bool:
    c = episode.contacts
    return bool(len(c.touching(c.pairs(episode.data), name, f"hand_{side}")))


def restore(episode: TaskEpisode, qpos: np.ndarray) -> None:
    episode.data.qpos[:] = qpos
    episode.data.qvel[:] = 0.0
    mujoco.mj_forward(episode.model, episode.data)


# -- first touch -----------------------------------------------------------------------------------


def test_nothing_touched_at_the_start():
    episode = new_episode("G1BallMove-L0-R")
    values = episode.step(hold(episode)).metrics
    assert values["first_touch_role"] == -1 and not values["first_touch_correct"] and values["wrong_touch_count"] == 0


def test_decoy_first_then_tool():
    episode = new_episode("G1IceBreak-L0-R")
    assert observe(episode)["first_touch_role"] == -1
    values = touch(episode, "decoy")
    assert values["first_touch_role"] == 1 and not values["first_touch_correct"] and values["wrong_touch_count"] == 1
    values = touch(episode, "decoy")  # the same object again counts once
    assert values["wrong_touch_count"] == 1
    values = touch(episode, "tool")
    assert values["first_touch_role"] == 1 and not values["first_touch_correct"] and values["wrong_touch_count"] == 1
    values = touch(episode, "irrelevant_0")  # after the correct tool, wrong touches no longer count
    assert values["first_touch_role"] == 1 and values["wrong_touch_count"] == 1


def test_irrelevant_first():
    episode = new_episode("G1BallRetrieve-L1-S")
    values = touch(episode, "irrelevant_1")
    assert values["first_touch_role"] == 2 and values["wrong_touch_count"] == 1
    values = touch(episode, "irrelevant_0", side="right")
    assert values["first_touch_role"] == 2 and values["wrong_touch_count"] == 2


def test_tool_first():
    episode = new_episode("G1BallMove-L1-R")
    values = touch(episode, "tool", side="right")
    assert values["first_touch_role"] == 0 and values["first_touch_correct"] and values["wrong_touch_count"] == 0
    values = touch(episode, "decoy")
    assert values["first_touch_role"] == 0 and values["first_touch_correct"] and values["wrong_touch_count"] == 0


def test_tool_and_decoy_touched_in_the_same_step_count_the_decoy_first():
    episode = new_episode("G1BallRetrieve-L0-R")
    put_geom_at(episode, "tool", palm(episode, "left"))
    put_geom_at(episode, "decoy", palm(episode, "right"))
    values = observe(episode)
    assert hand_contact(episode, "tool", "left") and hand_contact(episode, "decoy", "right")
    assert values["first_touch_role"] == 1 and values["wrong_touch_count"] == 1


def test_objects_touching_each_other_are_not_hand_touches():
    episode = new_episode("G1BallMove-L0-R")
    d = episode.data
    tool = d.geom_xpos[solid_geom(episode, "tool")]
    put_geom_at(episode, "decoy", tool)
    values = observe(episode)
    c = episode.contacts
    assert len(c.touching(c.pairs(d), "tool", "decoy"))
    assert values["first_touch_role"] == -1 and values["wrong_touch_count"] == 0


# -- lifting the tool ------------------------------------------------------------------------------


@pytest.mark.parametrize("rise, picked", [(0.0, False), (0.079, False), (0.081, True), (0.3, True)])
def test_tool_lift(rise, picked):
    episode = new_episode("G1BallRetrieve-L0-S")
    adr = qpos_adr(episode, "tool")
    z0 = episode.data.qpos[adr + 2]
    episode.data.qpos[adr + 2] = z0 + rise
    values = observe(episode)
    assert values["tool_lift"] == pytest.approx(rise, abs=1e-9)
    assert values["picked_correct_tool"] is picked
    assert episode.metrics.success(values) is picked  # the L0 predicate


def test_lifting_the_decoy_is_not_picking_the_tool():
    episode = new_episode("G1BallMove-L0-R")
    episode.data.qpos[qpos_adr(episode, "decoy") + 2] += 0.2
    values = observe(episode)
    assert values["tool_lift"] == pytest.approx(0.0, abs=1e-9) and not values["picked_correct_tool"]


# -- BallMove --------------------------------------------------------------------------------------


def ball_at(episode: TaskEpisode, xy) -> None:
    place(episode, "ball", [xy[0], xy[1], bench.TOP + layout.BALL_RADIUS])


def test_ballmove_metrics():
    episode = new_episode("G1BallMove-L1-S")
    lay = episode.layout
    ring = np.asarray(lay.ring)
    adr = qpos_adr(episode, "ball")
    ball0 = episode.data.qpos[adr : adr + 2].copy()
    shortfall = layout.reach_shortfall(lay.item("ball").xy, (lay.spawn.x, lay.spawn.y))
    assert shortfall >= 0.02
    values = observe(episode)
    assert not values["on_spot"] and values["push_distance"] == pytest.approx(0.0, abs=1e-9)
    assert values["reach_shortfall"] == pytest.approx(shortfall)
    away = (ball0 - ring) / np.linalg.norm(ball0 - ring)  # from the ring centre towards the ball's start
    for offset, inside in ((0.0, True), (0.11, True), (0.13, False)):
        xy = ring + offset * away
        ball_at(episode, xy)
        values = observe(episode)
        assert values["on_spot"] is inside, offset
        assert values["push_distance"] == pytest.approx(np.linalg.norm(xy - ball0), abs=1e-9)
        assert values["reach_shortfall"] == pytest.approx(shortfall)  # a property of the layout
        assert episode.metrics.success(values) is inside


# -- BallRetrieve ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ("G1BallRetrieve-L1-S", "G1BallRetrieve-L2-R"))
def test_ballretrieve_metrics(name):
    episode = new_episode(name)
    lay = episode.layout
    spot, ring = np.asarray(lay.work_spot), np.asarray(lay.ring)
    adr = qpos_adr(episode, "ball")
    ball0 = episode.data.qpos[adr : adr + 2].copy()
    start = np.linalg.norm(ball0 - spot)
    values = observe(episode)
    assert values["retrieve_gain"] == pytest.approx(0.0, abs=1e-9) and not values["in_target_area"]
    ball_at(episode, ring)
    values = observe(episode)
    assert values["in_target_area"] and episode.metrics.success(values)
    assert values["retrieve_gain"] == pytest.approx(start - np.linalg.norm(ring - spot), abs=1e-9)
    assert values["retrieve_gain"] > 0.15  # the ring is 0.20 m nearer the robot's side
    farther = ball0 + (ball0 - spot) / start * 0.05
    ball_at(episode, farther)
    values = observe(episode)
    assert values["retrieve_gain"] == pytest.approx(-0.05, abs=1e-9) and not values["in_target_area"]
    ball_at(episode, ring + [0.13, 0.0])
    assert not observe(episode)["in_target_area"]


# -- IceBreak --------------------------------------------------------------------------------------


def aim_tool_at_block(episode: TaskEpisode, block: str, speed: float = 1.5) -> None:
    """Put the (gravity-compensated) correct tool 5 cm from the block's +y side, moving head-first at it
    (far enough that one command passes before contact: the rule needs an approach speed)."""
    m, d = episode.model, episode.data
    m.body_gravcomp[subtree_bodies(m, m.body("tool").id)] = 1.0
    adr = qpos_adr(episode, block)
    bx, by = d.qpos[adr : adr + 2]
    half = fracture.ICE_SIZE / 2
    y = by + half + 0.05 + episode.layout.item("tool").prop.half_extent[1]
    joint = m.joint("tool_joint")
    d.qpos[joint.qposadr[0] : joint.qposadr[0] + 7] = [bx, y, bench.TOP + half - 0.017, 1, 0, 0, 0]
    d.qvel[joint.dofadr[0] : joint.dofadr[0] + 6] = [0, -speed, 0, 0, 0, 0]
    mujoco.mj_forward(m, d)


def ice(values: dict) -> tuple:
    return values["ice_broken_count"], values["ice_broke_1"], values["ice_broke_2"], values["ice_broken"]


def test_icebreak_metrics():
    episode = new_episode("G1IceBreak-L1-S")
    action = hold(episode)
    values = episode.step(action).metrics
    assert ice(values) == (0, False, False, False)
    assert values["peak_impulse"] == 0.0 and not values["tool_touched_target"]
    # A real blow on ice_1: the tool arrives at 1.5 m/s and is pushed on with 20 N for 0.1 s.
    aim_tool_at_block(episode, "ice_1")
    tool = episode.model.body("tool").id
    for k in range(10):
        episode.data.xfrc_applied[tool, 1] = -20.0 if k < 5 else 0.0
        values = episode.step(action).metrics
    assert ice(values) == (1, True, False, False)
    assert values["peak_impulse"] == episode.fracture.peak_impulse > fracture.IMPULSE_THRESHOLD
    assert values["tool_touched_target"] and not values["wrong_tool_touched_target"]
    assert not episode.metrics.success(values)
    # ice_2 forced to fracture; it counts once its shards have spread.
    peak = values["peak_impulse"]
    episode.fracture._fracture(episode.data, episode.fracture.blocks[1])
    values = episode.step(action).metrics
    assert values["ice_broken_count"] == 1  # fractured, not yet spread
    for _ in range(10):
        values = episode.step(action).metrics
    assert ice(values) == (2, True, True, True)
    assert values["peak_impulse"] == peak
    assert episode.metrics.success(values)


# -- tools touching targets ------------------------------------------------------------------------


def tip_at(episode: TaskEpisode, name: str, target) -> None:
    """Put the prop's working end (its `tip` point) at `target`."""
    d = episode.data
    body = episode.model.body(name).id
    tip = d.xmat[body].reshape(3, 3) @ np.asarray(episode.layout.item(name).prop.tip)
    place(episode, name, np.asarray(target) - tip)


@pytest.mark.parametrize("name, target", [("G1BallMove-L1-R", "ball"), ("G1IceBreak-L0-R", "ice_1")])
def test_tools_touching_the_target_latch(name, target):
    episode = new_episode(name)
    start = episode.data.qpos.copy()
    centre = episode.data.xpos[episode.model.body(target).id].copy()
    depth = layout.BALL_RADIUS / 2 if target == "ball" else fracture.ICE_SIZE / 2 - 0.01  # tip this far inside
    if target == "ball":  # a hand on the target is not a tool on it
        put_geom_at(episode, "ball", palm(episode))
        values = observe(episode)
        assert hand_contact(episode, "ball", "left")
        assert not values["tool_touched_target"] and not values["wrong_tool_touched_target"]
        restore(episode, start)
    # The correct tool's working end on the target: latched once seen.
    tip_at(episode, "tool", centre + [0, depth, 0])
    values = observe(episode)
    c = episode.contacts
    assert len(c.touching(c.pairs(episode.data), "tool", "ball" if target == "ball" else "ice"))
    assert values["tool_touched_target"] and not values["wrong_tool_touched_target"]
    restore(episode, start)
    values = episode.metrics.update(episode.data, episode.sim.base_pose())
    assert values["tool_touched_target"] and not values["wrong_tool_touched_target"]
    # The decoy's.
    tip_at(episode, "decoy", centre + [0, depth, 0])
    values = observe(episode)
    assert values["wrong_tool_touched_target"]
    restore(episode, start)
    values = episode.metrics.update(episode.data, episode.sim.base_pose())
    assert values["tool_touched_target"] and values["wrong_tool_touched_target"]


# -- L2 locomotion ---------------------------------------------------------------------------------


def walk(episode: TaskEpisode, towards: bool, steps: int, speed: float = 0.3) -> list[dict]:
    """Sidestep along the bench (world x) towards or away from the working spot."""
    base = episode.sim.base_pose()
    direction = np.sign(episode.layout.work_spot[0] - base.x) * (1 if towards else -1)
    world = np.array([direction * speed, 0.0])
    c, s = math.cos(base.yaw), math.sin(base.yaw)
    action = hold(episode)
    action[32:36] = (c * world[0] + s * world[1], -s * world[0] + c * world[1], 0.0, 0.0)  # world -> base frame
    return [episode.step(action).metrics for _ in range(steps)]


def test_walking_towards_the_working_spot():
    episode = new_episode("G1BallMove-L2-S")
    spot = np.asarray(episode.layout.work_spot)
    start = episode.sim.base_pose().xy
    assert np.linalg.norm(start - spot) > REACHED_RADIUS + 0.2
    history = walk(episode, towards=True, steps=100)  # ~0.6 m, short of the spot
    dist = np.array([v["dist_to_target_bench"] for v in history])
    assert np.linalg.norm(episode.sim.base_pose().xy - start) > 0.5
    assert np.all(np.diff(dist[5:]) < 0)  # once moving, always nearer
    moves = [v["first_move_toward_target"] for v in history]
    assert moves[0] == 0 and moves[-1] == 1 and set(moves) == {0, 1}
    first = moves.index(1)
    assert dist[0] - dist[first] == pytest.approx(FIRST_MOVE_DISTANCE, abs=0.02)  # judged after 0.15 m of travel
    reached = [v["reached_target_bench"] for v in history]
    k = reached.index(True)
    assert not any(reached[:k]) and all(reached[k:])
    assert dist[k] <= REACHED_RADIUS < dist[k - 1]
    # Latched: walking back out of the radius keeps it, and the first move stays "towards".
    history = walk(episode, towards=False, steps=100)
    assert history[-1]["dist_to_target_bench"] > REACHED_RADIUS
    assert all(v["reached_target_bench"] for v in history) and all(v["first_move_toward_target"] == 1 for v in history)


def test_walking_away_first():
    episode = new_episode("G1IceBreak-L2-R")
    history = walk(episode, towards=False, steps=40)
    assert history[-1]["first_move_toward_target"] == -1
    assert history[-1]["dist_to_target_bench"] > history[0]["dist_to_target_bench"] + FIRST_MOVE_DISTANCE
    history = walk(episode, towards=True, steps=40)
    assert history[-1]["first_move_toward_target"] == -1 and not history[-1]["reached_target_bench"]


def test_small_shuffles_do_not_count_as_a_first_move():
    episode = new_episode("G1BallRetrieve-L2-S")
    history = walk(episode, towards=False, steps=15, speed=0.2)  # ~0.06 m
    moved = history[-1]["dist_to_target_bench"] - history[0]["dist_to_target_bench"]
    assert 0.03 < moved < FIRST_MOVE_DISTANCE  # the robot did move, just not far enough to count
    assert history[-1]["first_move_toward_target"] == 0


# -- per condition ---------------------------------------------------------------------------------


@pytest.mark.parametrize("cond", CONDITIONS, ids=lambda c: c.name)
def test_level_mode_and_metric_keys(cond):
    episode = TaskEpisode(cond, SEED)
    episode.reset()
    values = episode.step(hold(episode)).metrics
    assert values["level"] == cond.level and values["reasoning_mode"] == {"S": 0, "R": 1}[cond.mode]
    common = {"tool_lift", "picked_correct_tool", "first_touch_role", "first_touch_correct", "wrong_touch_count",
              "tool_touched_target", "wrong_tool_touched_target", "level", "reasoning_mode"}
    scenario = {"BallMove": {"on_spot", "push_distance", "reach_shortfall"},
                "BallRetrieve": {"in_target_area", "retrieve_gain"},
                "IceBreak": {"ice_broken", "ice_broken_count", "ice_broke_1", "ice_broke_2", "peak_impulse"}}[cond.scenario]
    walking = {"dist_to_target_bench", "reached_target_bench", "first_move_toward_target"} if cond.level == 2 else set()
    assert set(values) == common | scenario | walking
    assert not episode.metrics.success(values)  # nothing done yet


# -- the success hold ------------------------------------------------------------------------------


def test_success_after_fifty_consecutive_steps():
    episode = new_episode("G1BallMove-L1-S")
    ball_at(episode, episode.layout.ring)
    mujoco.mj_forward(episode.model, episode.data)
    action = hold(episode)
    results = [episode.step(action) for _ in range(HOLD_STEPS + 5)]
    assert all(r.success_now for r in results)
    assert [r.success for r in results].index(True) == HOLD_STEPS - 1
    assert all(r.success for r in results[HOLD_STEPS - 1 :])
    # Leaving the ring resets the count.
    ball_at(episode, np.asarray(episode.layout.ring) + [0.2, 0.0])
    mujoco.mj_forward(episode.model, episode.data)
    r = episode.step(action)
    assert not r.success_now and not r.success
    ball_at(episode, episode.layout.ring)
    mujoco.mj_forward(episode.model, episode.data)
    results = [episode.step(action) for _ in range(HOLD_STEPS)]
    assert [r.success for r in results].index(True) == HOLD_STEPS - 1
