"""The scripted expert solves the conditions through the public action; baselines are reproducible."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from humanoidtoolbench.cli import eval as eval_cli
from humanoidtoolbench.control.balanced.balanced import BalancedController
from humanoidtoolbench.control.contracts import decoupled_v1 as contract
from humanoidtoolbench.policies.baselines import CHUNK, RandomPolicy, zero
from humanoidtoolbench.policies.reply import EPISODE_SEED_KEY
from humanoidtoolbench.robot.joints import BY_NAME
from humanoidtoolbench.suites.toolbench.episode import TaskEpisode
from humanoidtoolbench.suites.toolbench.expert.policy import Expert
from humanoidtoolbench.planning.kinematics import Kinematics
from humanoidtoolbench.planning.skills import Context, Observation
from humanoidtoolbench.suites.toolbench.expert.skills import bench_context
from humanoidtoolbench.suites.toolbench.registry import parse
from humanoidtoolbench.suites.toolbench.suite import request

from rollouts import play

BLANK = np.zeros((360, 640, 3), np.uint8)


def build_request(state, reset: bool, condition=parse("G1BallMove-L1-S")) -> dict:
    return request(condition, BLANK, state, reset)


def run_expert(name: str, seed: int, max_steps: int = 3000, controller=None):
    """One episode driven exactly as the evaluator drives an in-process privileged policy."""
    episode = TaskEpisode(parse(name), seed, controller=controller)
    episode.reset()
    expert = Expert()

    def act(requests: int) -> np.ndarray:
        request = build_request(episode.state(), requests == 0, episode.condition)
        request["privileged"] = episode.privileged()
        chunk = expert(request)
        for row in chunk:  # every target inside the action table's ranges
            for i, joint in enumerate(contract.JOINT_SLOTS):
                assert BY_NAME[joint].lo - 1e-9 <= row[i] <= BY_NAME[joint].hi + 1e-9, joint
        return chunk

    for step, result in enumerate(play(episode, contract.DECOUPLED_V1, act, max_steps), 1):
        if result.success:
            return result, step
    return result, step


# The expert's files on seeds 10000-10002 of each scenario at L1 (S), recorded by the evaluator on
# `assisted`: the SHA-256 of every metrics file and video, and the outcome and step.
REFERENCE = json.loads((Path(__file__).parent / "data" / "toolbench_l1_reference.json").read_text())
REFERENCE_LOOK = "fast"  # the look the reference videos were drawn in


@pytest.mark.slow
@pytest.mark.parametrize("look", [None, REFERENCE_LOOK])
@pytest.mark.parametrize("condition", sorted(REFERENCE["conditions"]))
def test_expert_solves_level_1_with_the_reference_files(condition, look, tmp_path):
    """Through `htb-eval`, the expert solves each seed with the tool (worked the target with it, still
    holding it off the bench) at the reference's step, and records the same bytes.

    Outcomes, steps and final metrics are checked everywhere, in both looks (a look changes no
    physics). Metrics bytes are compared where the run's own `execution_environment` names the
    platform the reference was made on (the machine and the SIMD extensions numpy dispatches to):
    another CPU, with the same pinned packages, gave the same outcomes and steps but other bytes
    (numpy and BLAS pick their kernels by CPU). Video bytes depend on the renderer and encoder
    build as well, so they are compared only on the Mesa llvmpipe the reference was made on, and
    only in the look the reference was drawn in (`fast`, flat colours)."""
    expected = REFERENCE["conditions"][condition]
    out = tmp_path / "out"
    args = [condition, "--policy", "expert", "--episodes", "3", "--controller", "assisted", "--output", str(out), "--workers", "2"]
    assert eval_cli.main(args + (["--look", look] if look else [])) == 0
    [result_path] = out.glob(f"{condition}/run-*/benchmark_result.json")
    run = result_path.parent
    result = json.loads(result_path.read_text())
    assert result["look"] == (look or "standard")
    outcomes = {str(o["seed"]): o for o in result["outcomes"]}
    env = result["execution_environment"]  # the run says where it ran
    same_platform = {k: env[k] for k in REFERENCE["platform"]} == REFERENCE["platform"]
    same_renderer = same_platform and "llvmpipe" in (env["render"].get("renderer") or "") and result["look"] == REFERENCE_LOOK
    for seed, ref in expected.items():
        assert outcomes[seed]["outcome"] == ref["outcome"] == "success" and outcomes[seed]["step"] == ref["step"]
        final = json.loads((run / "summaries" / f"episode_{seed}.json").read_text())["final_metrics"]
        assert final["tool_touched_target"]  # the ball or the ice was worked with the tool
        assert final["tool_lift"] > 0.05  # and the tool is still in hand, off the bench
        for rel, digest in ref["sha256"].items():
            if not (same_renderer if rel.startswith("videos/") else same_platform):
                continue
            assert hashlib.sha256((run / rel).read_bytes()).hexdigest() == digest, rel


@pytest.mark.slow
@pytest.mark.parametrize("scenario", ["BallMove", "BallRetrieve", "IceBreak"])
def test_expert_solves_level_2(scenario):
    result, step = run_expert(f"G1{scenario}-L2-R", 10000)
    assert result.success, f"no success in {step} steps: {result.metrics}"
    assert result.metrics["reached_target_bench"]
    assert result.metrics["tool_touched_target"]


# Per scenario and level, standard seeds the expert solves on `balanced` within the test's step cap
# (docs/PERFORMANCE.md). Episodes on the free robot are chaotic: another CPU's last-bit rounding can
# tip a seed past the cap, so the test asks one of them to be solved.
BALANCED_SOLVED = {
    "BallMove-L1": [("G1BallMove-L1-S", 10001), ("G1BallMove-L1-R", 10000)],
    "BallRetrieve-L1": [("G1BallRetrieve-L1-R", 10000), ("G1BallRetrieve-L1-S", 10000)],
    "IceBreak-L1": [("G1IceBreak-L1-R", 10001), ("G1IceBreak-L1-R", 10002)],  # 10000 breaks one sheet in 3000 steps
    "BallRetrieve-L2": [("G1BallRetrieve-L2-R", 10000), ("G1BallRetrieve-L2-S", 10001)],  # clear of the bench leg
    "IceBreak-L2": [("G1IceBreak-L2-S", 10001), ("G1IceBreak-L2-R", 10000)],
    "BallMove-L2": [("G1BallMove-L2-S", 10001), ("G1BallMove-L2-R", 10001)],  # struck, then struck again
}


@pytest.mark.slow
@pytest.mark.parametrize("scenario", sorted(BALANCED_SOLVED))
def test_expert_solves_each_scenario_at_levels_1_and_2_under_balanced(scenario):
    failures = []
    for name, seed in BALANCED_SOLVED[scenario]:
        result, step = run_expert(name, seed, controller=BalancedController())
        if result.success:
            assert result.metrics["tool_touched_target"]
            return
        failures.append(f"{name} {seed}: no success in {step} steps: {result.metrics}")
    pytest.fail("; ".join(failures))


def test_expert_needs_privileged_state():
    request = build_request(np.zeros(32, np.float32), reset=True)
    with pytest.raises(RuntimeError, match="privileged"):
        Expert()(request)


def test_random_baseline_is_reproducible_for_a_seed():
    def actions(seed):
        policy = RandomPolicy()
        state = np.zeros((1, 32), np.float32)
        first = policy({"state": {"states": state}, "history": {"reset": True}, EPISODE_SEED_KEY: seed})
        second = policy({"state": {"states": state}, "history": {"reset": False}, EPISODE_SEED_KEY: seed})
        return np.concatenate([first, second])

    a, b, c = actions(10000), actions(10000), actions(10001)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    lo = np.array([BY_NAME[n].lo for n in contract.JOINT_SLOTS])
    hi = np.array([BY_NAME[n].hi for n in contract.JOINT_SLOTS])
    assert ((a[:, :31] >= lo) & (a[:, :31] <= hi)).all()
    assert not a[:, 32:].any() and np.allclose(a[:, 31], contract.DEFAULT_BASE_HEIGHT)


def test_zero_baseline_answers_a_chunk_of_zero_actions():
    request = build_request(np.zeros(32, np.float32), reset=True)
    chunk = zero(request)
    assert chunk.shape == (CHUNK, contract.ACTION_DIM) and not chunk.any()


def test_the_privileged_state_names_the_controller_and_the_expert_plans_for_it():
    from humanoidtoolbench.planning.skills import walk_speed
    from humanoidtoolbench.suites.toolbench.expert.caution import CAUTIONS
    from humanoidtoolbench.suites.toolbench.expert.geometry import ARM_FLOOR

    episode = TaskEpisode(parse("G1BallMove-L0-S"), 10000)
    episode.reset()
    world = episode.privileged()
    assert world["controller"] == "assisted"
    state = episode.state()
    ctx = bench_context(Expert().kin, Observation(state, world))
    # the assisted plans are the published ones: full speed, no back-away, elbow just above the bench
    assert ctx.caution is CAUTIONS["assisted"] and walk_speed(ctx) == 0.25 and ctx.caution.arm_floor == ARM_FLOOR
    assert ctx.caution.clear_bench == 0.0 and ctx.caution.stand_back == 0.0
    balanced = bench_context(Expert().kin, Observation(state, dict(world, controller="balanced")))
    assert balanced.caution is CAUTIONS["balanced"]
    assert walk_speed(balanced) < 0.25 and balanced.caution.arm_floor > ARM_FLOOR
    balanced.carrying = True  # slower still with the tool in hand
    assert walk_speed(balanced) < balanced.caution.walk_speed


def test_under_balanced_the_expert_backs_away_from_the_bench_before_moving_along_it():
    from humanoidtoolbench.suites.toolbench.expert.skills import go_to_bench

    episode = TaskEpisode(parse("G1BallMove-L0-S"), 10000)
    episode.reset()
    world = dict(episode.privileged(), controller="balanced")
    world["base"] = np.array([0.3, 0.5, 0.74, -np.pi / 2])
    ctx = bench_context(Expert().kin, Observation(episode.state(), world))
    steps = go_to_bench(ctx, (-0.3, 0.5))
    next(steps)
    vx, vy = ctx.cmd[32:34]
    # facing -y: backing away from the bench (+y in the world) is walking backwards, with no sideways step
    assert vx < -0.05 and abs(vy) < 1e-9


def test_under_balanced_a_robot_already_clear_of_the_bench_walks_along_it_without_backing_further():
    """A walk starting further back than the back-away (from the start, or after backing away while
    a struck ball rolled) goes along the bench at once: backing off again only cost time."""
    from humanoidtoolbench.suites.toolbench.expert.skills import go_to_bench

    episode = TaskEpisode(parse("G1BallMove-L0-S"), 10000)
    episode.reset()
    world = dict(episode.privileged(), controller="balanced")
    world["base"] = np.array([0.3, 0.65, 0.74, -np.pi / 2])  # 0.15 m behind the goal, beyond the 0.1 m back-away
    ctx = bench_context(Expert().kin, Observation(episode.state(), world))
    steps = go_to_bench(ctx, (-0.3, 0.5))
    next(steps)
    vx, vy = ctx.cmd[32:34]
    # facing -y, moving to -x in the world is stepping to the robot's right, with no step backwards
    assert vy < -0.05 and abs(vx) < 1e-9


@pytest.mark.parametrize("controller, flag_while_standing", [("assisted", 1.0), ("balanced", 0.0)])
def test_the_heading_flag_drops_while_standing_only_where_the_caution_asks(controller, flag_while_standing):
    """On balanced an engaged heading makes the robot step to hold it; the expert engages it only to walk."""
    world = {"controller": controller, "base": np.zeros(4)}
    ctx = bench_context(Kinematics(), Observation(np.zeros(32), world))
    assert ctx.row()[34] == flag_while_standing
    ctx.cmd[32] = 0.1
    assert ctx.row()[34] == 1.0


def test_the_caution_table_has_a_row_for_each_controller_of_the_suite_and_refuses_any_other():
    """The suite checks the table when it is made; a controller without a row is an error naming it and the
    rows there are, never the assisted plans."""
    from humanoidtoolbench.suites.per_controller import MissingRow
    from humanoidtoolbench.suites.toolbench.expert.caution import CAUTIONS
    from humanoidtoolbench.suites.toolbench.suite import SUITE, ToolBench

    assert CAUTIONS in SUITE.controller_tables and set(CAUTIONS.rows) == set(SUITE.controllers)
    for controller in ("servo", None):
        with pytest.raises(MissingRow, match=rf"^tool-use expert CAUTIONS has no row for controller {controller!r} \(rows: assisted, balanced\)$"):
            bare_context(controller)

    class WithAThird(ToolBench):
        controllers = ("assisted", "balanced", "third")

    with pytest.raises(MissingRow, match="tool-use expert CAUTIONS has no row for controller 'third'"):
        WithAThird()


def bare_context(controller: str) -> Context:
    """A planning context for `controller` with the robot at the origin and every joint at zero."""
    return bench_context(Kinematics(), Observation(np.zeros(32), {"controller": controller, "base": np.zeros(4)}))


def test_a_strike_after_the_first_is_swung_faster_for_the_same_roll():
    """Later strikes, at a ball on the bench's far strip, rolled 16-40 % less than first ones at
    the same speed; each table must rise in both columns for its inverse to mean anything."""
    from humanoidtoolbench.suites.toolbench.expert.ball_move import FIRST_STRIKE_ROLL, LATER_STRIKE_ROLL, strike_speed

    for table in (FIRST_STRIKE_ROLL, LATER_STRIKE_ROLL):
        speeds, rolls = np.array(table).T
        assert (np.diff(speeds) > 0).all() and (np.diff(rolls) > 0).all()
        assert strike_speed(5.0, table) == speeds[-1]  # never faster than the fastest measured
    for roll in (0.25, 0.3, 0.5, 0.8):
        assert strike_speed(roll, LATER_STRIKE_ROLL) > strike_speed(roll, FIRST_STRIKE_ROLL)


@pytest.mark.parametrize("advance, stalled_after", [(0.005, 0), (0.0, 4)])
def test_a_held_back_stroke_stalls_only_when_its_tool_stops_advancing(advance, stalled_after):
    """On balanced a stroke's command waits for the measured tool; a tool end that drags along
    slower than the command is slow, and only one that stops advancing ends the stroke."""
    from humanoidtoolbench.suites.toolbench.expert.ball_move import held_back

    ctx = bare_context("balanced")
    u = np.array([1.0, 0.0, 0.0])
    before, now = np.zeros(3), advance * u
    command = now + (ctx.caution.work_lead + 0.01) * u  # leads the measured tool by more than allowed
    tip, stalled = held_back(ctx, command, now, before, u, 3)
    assert (tip - now) @ u == pytest.approx(ctx.caution.work_lead)
    assert stalled == stalled_after
    assisted = bare_context("assisted")
    tip, stalled = held_back(assisted, command, now, before, u, 3)
    assert np.array_equal(tip, command) and stalled == 3  # open loop there


@pytest.mark.parametrize("controller", ["assisted", "balanced"])
def test_a_pull_stand_keeps_the_knees_off_both_bench_legs_only_on_balanced(controller):
    """Near the bench's ends a knee met a leg (x +-0.84) and the robot fell walking in; on
    balanced the pelvis stays 0.25 m in from both. At the +x end the left arm then reaches out
    sideways, and that stand keeps its own distance from the bench (the torso met its edge)."""
    from humanoidtoolbench.suites.toolbench.expert.ball_retrieve import pull_stand
    from humanoidtoolbench.suites.toolbench.expert.geometry import BENCH_LEG_X, CLOSEST_STAND, stand_for

    ctx = bare_context(controller)
    cn = ctx.caution
    closest = CLOSEST_STAND + cn.stand_back
    middle = np.array([0.0, 0.30, 0.9])
    assert np.allclose(pull_stand(ctx, middle), np.add(stand_for(middle, closest), (0.0, cn.pull_stand_back)))
    for end in (-1.0, 1.0):
        hand = np.array([0.80 * end, 0.30, 0.9])
        x, y = stand_for(hand, closest)
        assert abs(x) > BENCH_LEG_X - 0.25
        if controller == "assisted":
            assert np.allclose(pull_stand(ctx, hand), (x, y + cn.pull_stand_back))
            continue
        back = cn.side_reach_back if end > 0 else cn.pull_stand_back
        assert np.allclose(pull_stand(ctx, hand), (end * (BENCH_LEG_X - 0.25), y + back))


@pytest.mark.parametrize("controller", ["assisted", "balanced"])
def test_a_stroke_stand_keeps_the_pelvis_in_from_both_bench_legs_only_on_balanced(controller):
    from humanoidtoolbench.suites.toolbench.expert.ball_move import stroke_stand
    from humanoidtoolbench.suites.toolbench.expert.geometry import BENCH_LEG_X, NEAREST_STAND, stand_for

    ctx = bare_context(controller)
    cn = ctx.caution
    along = np.array([1.0, 0.0, 0.0])
    for hand_x in (-0.75, 0.0, 0.80):
        hand = np.array([hand_x, 0.3, 0.9])
        x, y = stroke_stand(ctx, hand, along)
        usual = stand_for(hand)[0] + cn.push_stand_ahead
        assert y == NEAREST_STAND + cn.stand_back
        if controller == "balanced" and abs(usual) > BENCH_LEG_X - 0.25:
            assert x == pytest.approx(np.sign(usual) * (BENCH_LEG_X - 0.25))
        else:
            assert x == pytest.approx(usual)
