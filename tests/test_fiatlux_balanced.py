"""Fiatlux under `--controller balanced`: the whole-body controller on the Fiatlux robot (research servos)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from humanoidtoolbench.control.balanced.balanced import IDLE, BalancedController
from humanoidtoolbench.control.balanced.footsteps import SIDES
from humanoidtoolbench.control.contracts.decoupled_v1 import decode
from humanoidtoolbench.control.contracts.joint_position import JOINT_NAMES
from humanoidtoolbench.suites import toolbench
from humanoidtoolbench.suites.fiatlux import SUITE
from humanoidtoolbench.suites.fiatlux.robot import gains_table
from humanoidtoolbench.suites.fiatlux.subtasks import BY_KEY


def test_balanced_runs_on_the_fiatlux_robot_and_speaks_decoupled_v1():
    cls = SUITE.controller_class("balanced")
    assert cls.variant == "free" and issubclass(cls, BalancedController)
    assert SUITE.contract_for("balanced") == "decoupled_v1" and SUITE.contract_for("servo") == "joint_position_v1"
    # The tool-use suite keeps the stiff variant and the unchanged controller.
    assert toolbench.SUITE.controller_class("balanced") is BalancedController
    assert BalancedController.variant == "balanced"


def episode(controller: str, seed: int = 0, subtask: str = "S07"):
    ep = SUITE.make_episode(BY_KEY[subtask], seed, SUITE.make_controller(controller), "fast")
    ep.reset()
    return ep


def test_the_servos_stay_at_the_research_gains():
    ep = episode("balanced")
    m, c = ep.model, ep.controller
    acts = [m.actuator(n.removesuffix("_joint")).id for n in JOINT_NAMES]
    np.testing.assert_allclose(m.actuator_gainprm[acts, 0], gains_table()[:, 0])
    assert m.actuator_gainprm[m.actuator("left_ankle_pitch").id, 0] == 40.0
    np.testing.assert_allclose(c._leg_kp, gains_table()[:12, 0])  # what the torque-to-target conversion divides by


def test_a_zero_velocity_command_stands_where_holding_q0_falls():
    """10 s standing still on the research servos under balanced; the servo controller holding the
    same start pose falls within a few seconds (the controller balances, the servos are not stiffer)."""
    ep = episode("balanced")
    c, d = ep.controller, ep.data
    upper = d.ctrl[c._slot_act].copy()
    start = c.base_pose(d)
    row = np.concatenate([upper, [0.74, 0.0, 0.0, 0.0, 0.0]])
    for _ in range(500):
        assert ep.step(row).outcome is None
    end = c.base_pose(d)
    assert math.hypot(end.x - start.x, end.y - start.y) < 0.03
    assert end.z > 0.7 and end.tilt < 0.1
    assert ep.observer.last_action.shape == (len(JOINT_NAMES),)  # the servo targets, as action units

    held = episode("servo")
    outcomes = [held.step(np.zeros(len(JOINT_NAMES))).outcome for _ in range(250)]
    assert "fell" in outcomes


def test_the_hip_pitch_servos_are_damped_more_at_the_physics_rate():
    """Before each physics step the leg targets move against the measured joint velocity, 6 N m s/rad
    on the hip pitch joints and none elsewhere; the stiff tool-use controller has no such hook."""
    ep = episode("balanced")
    c, d = ep.controller, ep.data
    ep.step(np.concatenate([d.ctrl[c._slot_act], [0.74, 0.0, 0.0, 0.0, 0.0]]))
    assert c.physics_step_hook and not BalancedController().physics_step_hook
    d.qvel[c._leg_dof] = 0.0
    d.qvel[c._leg_dof[[0, 6]]] = (1.0, -0.5)  # left and right hip pitch, rad/s
    c.before_physics_step(d)
    expected = np.zeros(12)
    expected[[0, 6]] = (-6.0 / 150.0, 3.0 / 150.0)
    np.testing.assert_allclose(d.ctrl[c._leg_act] - c._leg_ctrl, expected)


def _foot_poses(c, d) -> dict:
    """Each foot's measured planar pose (x, y, yaw)."""
    out = {}
    for side, body in c._foot_body.items():
        r = d.xmat[body]
        out[side] = np.array([*d.xpos[body, :2], math.atan2(r[3], r[0])])
    return out


def test_stepping_from_standing_plans_from_the_measured_feet():
    """Where the feet stand is read when a walk starts: feet slipped 5 cm and turned 0.1 rad from
    the plan become the planned footholds, the body frame between them; standing does not re-plan,
    and the stiff tool-use controller never does."""
    import mujoco

    ep = episode("balanced")
    c, d, m = ep.controller, ep.data, ep.model
    upper = d.ctrl[c._slot_act].copy()
    stand = np.concatenate([upper, [0.74, 0.0, 0.0, 0.0, 0.0]])
    ep.step(stand)
    planned = {s: f.copy() for s, f in c.schedule.feet.items()}
    root = c._root_qpos
    d.qpos[root : root + 2] += (0.05, 0.0)  # the whole robot slid, and turned about its pelvis
    yaw = c.base_pose(d).yaw + 0.1
    d.qpos[root + 3 : root + 7] = (math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2))
    mujoco.mj_forward(m, d)
    ep.step(stand)
    for side, foot in c.schedule.feet.items():
        np.testing.assert_array_equal(foot, planned[side])
    measured = _foot_poses(c, d)
    com = d.subtree_com[c._pelvis, :2].copy()
    posture = c.ik.posture.target_q.copy()
    ep.step(np.concatenate([upper, [0.74, 0.07, 0.0, 0.5, yaw]]))
    assert c.schedule.phase == "double"
    for side, foot in c.schedule.feet.items():
        np.testing.assert_allclose(foot, measured[side], atol=1e-12)
        assert np.linalg.norm(foot[:2] - planned[side][:2]) > 0.04
        assert abs(math.remainder(foot[2] - planned[side][2] - 0.1, 2 * math.pi)) < 0.01  # turned with the robot
    np.testing.assert_allclose(c.schedule.body[:2], (measured["left"][:2] + measured["right"][:2]) / 2, atol=1e-12)
    assert np.linalg.norm(c.com.position - com) < 0.005  # the plan's CoM restarted at the measured one (one 20 ms step on)
    np.testing.assert_array_equal(c.ik.posture.target_q, posture)  # the legs' posture target is kept
    assert not BalancedController().tuning.anchor


def _to_the_reland(ep, row: np.ndarray) -> None:
    """Send `row` until the next command is the one that crosses `reland` of a double support
    after a step (the controller's own test, before that 20 ms command)."""
    c = ep.controller
    sch, moment = c.schedule, c.tuning.reland
    for _ in range(500):
        if sch.phase == "double" and not sch.from_stand and sch.t <= moment * sch.duration < sch.t + 0.02:
            return
        ep.step(row)
    raise AssertionError("no double support after a step")


def _keeps_its_plan(ep, lead: np.ndarray, row: np.ndarray) -> None:
    """Send `lead` to the moment of the next double support after a step, then `row` across it:
    the planned feet stay as they were."""
    sch = ep.controller.schedule
    _to_the_reland(ep, lead)
    planned = {s: f.copy() for s, f in sch.feet.items()}
    ep.step(row)
    assert sch.phase == "double"
    for side in SIDES:
        np.testing.assert_array_equal(sch.feet[side], planned[side])


def test_turning_in_place_the_plan_moves_onto_the_planted_feet():
    """Part-way through a double support of a turn in place the planted feet are read again: feet
    slid 4 cm (the whole robot moved) become the planned footholds, and the body frame and the CoM
    plan move with their mean; so they are in the turn's last, nearly idle steps. The steps to a
    stop (the zero command) and a walk's double supports keep their plan."""
    import mujoco

    ep = episode("balanced")
    c, d, m = ep.controller, ep.data, ep.model
    sch, upper = c.schedule, d.ctrl[c._slot_act].copy()
    turn = np.concatenate([upper, [0.74, 0.0, 0.0, 0.5, c.base_pose(d).yaw + 1.0]])
    _to_the_reland(ep, turn)
    planned = {s: f.copy() for s, f in sch.feet.items()}
    body, com, com_vel = sch.body.copy(), c.com.position, c.com.velocity
    d.qpos[c._root_qpos : c._root_qpos + 2] += (0.0, 0.04)
    mujoco.mj_forward(m, d)
    measured = _foot_poses(c, d)
    ep.step(turn)
    shift = np.mean([measured[s][:2] - planned[s][:2] for s in SIDES], axis=0)
    assert shift[1] > 0.035  # the slide, and whatever the turn had slipped
    for side in SIDES:
        np.testing.assert_allclose(sch.feet[side], measured[side], atol=1e-12)
    np.testing.assert_allclose(sch.body[:2], body[:2] + shift, atol=1e-12)
    assert np.linalg.norm(c.com.position - (com + shift + 0.02 * com_vel)) < 0.002  # moved with the feet, one 20 ms step on
    relanded = {s: f.copy() for s, f in sch.feet.items()}
    d.qpos[c._root_qpos : c._root_qpos + 2] += (0.0, 0.02)  # once per double support: a later slide is not read
    mujoco.mj_forward(m, d)
    ep.step(turn)
    assert sch.phase == "double"
    for side in SIDES:
        np.testing.assert_array_equal(sch.feet[side], relanded[side])

    _keeps_its_plan(ep, turn, np.concatenate([upper, [0.74, 0.0, 0.0, 0.0, 0.0]]))  # a stop

    # The turn's last steps, the heading within a few hundredths: too little yaw to count as
    # stepping, and still read again while the heading stays engaged.
    for _ in range(12):
        _to_the_reland(ep, turn)
        if max(abs(v) for v in c._body_velocity(d, decode(turn))) <= IDLE:
            break
        ep.step(turn)
    else:
        raise AssertionError("the turn never came to its last steps")
    measured = _foot_poses(c, d)
    ep.step(turn)
    for side in SIDES:
        np.testing.assert_allclose(sch.feet[side], measured[side], atol=1e-12)

    walk = np.concatenate([upper, [0.74, 0.07, 0.0, 0.5, c.base_pose(d).yaw]])
    _keeps_its_plan(ep, walk, walk)
    assert BalancedController().tuning.reland is None
    with pytest.raises(ValueError, match="reland"):
        dataclasses.replace(c.tuning, reland=0.0)  # at the landing, the foot still bounces


def test_a_joint_position_row_is_refused_under_balanced():
    from humanoidtoolbench.control.contracts.base import ActionError

    ep = episode("balanced")
    with pytest.raises(ActionError):
        ep.step(np.zeros(len(JOINT_NAMES)))


def test_an_episode_refuses_the_stiff_balanced_robot_and_a_foreign_controller():
    with pytest.raises(ValueError, match="FiatluxBalancedController"):
        SUITE.make_episode(BY_KEY["S07"], 0, BalancedController(), "fast")
    with pytest.raises(ValueError, match="servo, balanced"):
        SUITE.make_controller("assisted")


def test_the_builtin_baselines_follow_the_contract_of_the_controller():
    assert SUITE.builtin_policies_for()["zero"].endswith(":zero_joint_position")
    assert SUITE.builtin_policies_for("servo")["zero"].endswith(":zero_joint_position")
    assert SUITE.builtin_policies_for("balanced")["zero"].endswith(":zero")
    assert SUITE.builtin_policies_for("balanced")["random"].endswith(":random_policy")
    assert SUITE.builtin_policies_for("balanced")["expert"].endswith("fiatlux.expert:predict")


def test_the_gymnasium_environment_takes_decoupled_commands_under_balanced():
    import gymnasium as gym

    import humanoidtoolbench  # noqa: F401  (registers the environments)

    env = gym.make(BY_KEY["S07"].env_id, controller="balanced")
    try:
        assert env.action_space.shape == (36,)
        env.reset(seed=0)
        c = env.unwrapped.episode.controller
        row = np.concatenate([env.unwrapped.episode.data.ctrl[c._slot_act], [0.74, 0.0, 0.0, 0.0, 0.0]])
        for _ in range(25):
            _, _, terminated, _, info = env.step(row)
            assert not terminated
        assert info["step"] == 25
        with pytest.raises(ValueError):
            env.step(np.zeros(len(JOINT_NAMES)))
    finally:
        env.close()
    with pytest.raises(ValueError, match="servo, balanced"):
        gym.make(BY_KEY["S07"].env_id, controller="assisted")


def test_htb_eval_runs_the_zero_baseline_under_balanced_and_records_its_contract(tmp_path):
    """The built-in `zero` speaks the contract of the chosen controller (decoupled_v1 here), and the
    validated run records that contract and the Fiatlux robot variant."""
    from humanoidtoolbench.cli import eval as eval_cli
    from humanoidtoolbench.record.records import BenchmarkResult, EvalConfig, read
    from humanoidtoolbench.eval.rundir import CONFIG

    out = tmp_path / "out"
    args = ["S07", "--policy", "zero", "--controller", "balanced", "--episodes", "1", "--max-steps", "20", "--no-video"]
    assert eval_cli.main([*args, "--output", str(out)]) == 0
    [result] = out.glob("FIATLUX-S07-*/run-*/benchmark_result.json")
    assert read(result, BenchmarkResult).controller == "balanced"
    config = read(result.parent / CONFIG, EvalConfig)
    assert config.action_schema == "decoupled_v1" and config.robot_variant == "free"


def _command(ep, nav, seconds: float) -> bool:
    """Hold the start pose's upper body and send `nav(t)` (slots 32-35) for `seconds`; True if it stayed up."""
    c, d = ep.controller, ep.data
    upper = d.ctrl[c._slot_act].copy()
    for k in range(int(round(seconds * 50))):
        ep.step(np.concatenate([upper, [0.74, *nav(k / 50)]]))
        if c.fallen(d):
            return False
    return True


def test_walking_on_the_soft_servos_covers_about_the_commanded_distance_and_stands_after():
    """vx 0.1 m/s for 6 s, holding the start heading, then the zero command 2 s: no fall, the base
    moves 0.6 m less the start-up and stop steps, mostly forwards, and ends upright."""
    ep = episode("balanced")
    c, d = ep.controller, ep.data
    p0 = c.base_pose(d)
    feet = [ep.model.body(f"{s}_ankle_roll_link").id for s in ("left", "right")]
    start = d.xpos[feet, :2].copy()
    assert _command(ep, lambda t: (0.1, 0.0, 0.5, p0.yaw) if t < 6 else (0.0, 0.0, 0.0, 0.0), 8.0)
    p = c.base_pose(d)
    moved = np.array([p.x - p0.x, p.y - p0.y])
    forward = moved @ [math.cos(p0.yaw), math.sin(p0.yaw)]
    sideways = moved @ [-math.sin(p0.yaw), math.cos(p0.yaw)]
    assert 0.4 < forward < 0.75 and abs(sideways) < 0.2
    assert np.linalg.norm(d.xpos[feet, :2] - start, axis=1).min() > 0.3  # both feet stepped
    assert p.z > 0.7 and p.tilt < 0.15 and abs(math.remainder(p.yaw - p0.yaw, 2 * math.pi)) < 0.15


def test_a_small_turn_while_walking_settles_instead_of_splaying_the_feet():
    """Walking off with a 0.11 rad right turn: within 6 s the planned feet point the same way again
    and the heading is reached (with a heading loop faster than a step, the feet stayed 0.2 rad
    apart, one turned each step, and the robot fell at 9 s)."""
    ep = episode("balanced")
    c, d = ep.controller, ep.data
    target = c.base_pose(d).yaw - 0.11
    assert _command(ep, lambda t: (0.07, 0.0, 0.5, target), 6.0)
    feet = c.schedule.feet
    assert abs(math.remainder(feet["left"][2] - feet["right"][2], 2 * math.pi)) < 0.05
    assert abs(math.remainder(c.schedule.heading() - target, 2 * math.pi)) < 0.05


@pytest.mark.slow
def test_a_quarter_turn_on_the_soft_servos_reaches_the_heading_and_stands():
    """A heading command of +pi/2 for 14 s (yaw steps of at most 0.2 rad), then the zero command:
    no fall, the heading within 0.15 rad, the base near where it turned."""
    ep = episode("balanced")
    c, d = ep.controller, ep.data
    p0 = c.base_pose(d)
    target = p0.yaw + math.pi / 2
    assert _command(ep, lambda t: (0.0, 0.0, 0.5, target) if t < 14 else (0.0, 0.0, 0.0, 0.0), 16.0)
    p = c.base_pose(d)
    assert abs(math.remainder(p.yaw - target, 2 * math.pi)) < 0.15
    assert math.hypot(p.x - p0.x, p.y - p0.y) < 0.25 and p.z > 0.7 and p.tilt < 0.15  # 0.08 m measured


@pytest.mark.slow
def test_carrying_the_bulb_a_large_turn_in_place_stands():
    """S09's start, the fresh bulb in the right fingers: a heading 1.4 rad to the left held 14 s,
    then the zero command 4 s. It stands, turned. With the hips damped at the research table's
    2 N m s/rad alone this turn fell at 7.5 s, the swinging leg ringing about its path."""
    ep = episode("balanced", seed=0, subtask="S09")
    c, d = ep.controller, ep.data
    p0 = c.base_pose(d)
    target = math.remainder(p0.yaw + 1.4, 2 * math.pi)
    assert _command(ep, lambda t: (0.0, 0.0, 0.5, target) if t < 14 else (0.0, 0.0, 0.0, 0.0), 18.0)
    p = c.base_pose(d)
    assert abs(math.remainder(p.yaw - target, 2 * math.pi)) < 0.1 and p.tilt < 0.15


@pytest.mark.slow
def test_after_a_large_turn_in_place_the_walk_off_stands():
    """S07's start: a heading 1.4 rad to the right held 14 s, standing 3 s, then vx 0.07 m/s on the
    new heading for 6 s and standing 2 s. The turn leaves the feet 9 cm off their plan and 2.8 cm
    closer; planned on the old footholds, the walk fell in its second step (at 19.3 s)."""
    ep = episode("balanced", seed=0, subtask="S07")
    c, d = ep.controller, ep.data
    p0 = c.base_pose(d)
    target = math.remainder(p0.yaw - 1.4, 2 * math.pi)

    def nav(t: float):
        if 14 <= t < 17 or t >= 23:
            return (0.0, 0.0, 0.0, 0.0)
        return (0.07 if t >= 17 else 0.0, 0.0, 0.5, target)

    assert _command(ep, nav, 25.0)
    p = c.base_pose(d)
    assert abs(math.remainder(p.yaw - target, 2 * math.pi)) < 0.15 and p.tilt < 0.15


def test_on_the_research_servos_the_robot_leans_into_a_pull_at_its_wrists():
    """At S01's layout the standing robot fell at 27 N pulled forwards at both wrists before it
    leaned into a load on its arms (`benchmarks/diagnostics/fiatlux_balance.py --ladder`: now 94 N); 60 N, ramped in
    over 6 s and held for 2 s, is about what tipping the ladder from its steps takes there."""
    ep = episode("balanced", subtask="S01")
    c, d, m = ep.controller, ep.data, ep.model
    row = np.concatenate([d.ctrl[c._slot_act], [0.74, 0.0, 0.0, 0.0, 0.0]])
    yaw = c.base_pose(d).yaw
    wrists = [m.body(f"{side}_wrist_yaw_link").id for side in SIDES]
    for k in range(400):
        d.xfrc_applied[wrists, :2] = min(k / 300, 1.0) * 30.0 * np.array([math.cos(yaw), math.sin(yaw)])
        assert ep.step(row).outcome is None, f"fell at {k}"
    assert ep.step(row).outcome is None
