"""The balanced controller stands, walks and falls on the free-floating robot."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from humanoidtoolbench.cli import eval as eval_cli
from humanoidtoolbench.control import CONTROLLERS
from humanoidtoolbench.control.balanced.balanced import BalancedController
from humanoidtoolbench.control.balanced.footsteps import Schedule, Timing
from humanoidtoolbench.control.base import BasePose
from humanoidtoolbench.control.contracts import decoupled_v1 as contract
from humanoidtoolbench.control.contracts.decoupled_v1 import JOINT_SLOTS
from humanoidtoolbench.record.records import BenchmarkResult, EpisodeSummary, read
from humanoidtoolbench.robot.joints import BY_NAME
from humanoidtoolbench.sim.scene import Room, add_robot, new_spec
from humanoidtoolbench.sim.simulation import Simulation, home_upper_pose, robot_in_room
from humanoidtoolbench.suites.base import FELL
from humanoidtoolbench.suites.fiatlux.balance import FiatluxBalancedController
from humanoidtoolbench.suites.toolbench.episode import TaskEpisode

from conftest import state_of

HZ = 50
FEET = ("left_ankle_roll_link", "right_ankle_roll_link")


def row(height=contract.DEFAULT_BASE_HEIGHT, vx=0.0, vy=0.0, flag=0.0, yaw=0.0, upper=None) -> np.ndarray:
    return np.concatenate([home_upper_pose() if upper is None else upper, [height, vx, vy, flag, yaw]])


def simulate(seconds: float, action=None, each=None):
    """A balanced robot in the empty room under a constant command; `each(sim, k)` after every step."""
    sim = robot_in_room(BalancedController())
    cmd = contract.decode(row() if action is None else action)
    for k in range(int(round(seconds * HZ))):
        sim.step(cmd)
        if each is not None:
            each(sim, k)
        assert not sim.fallen(), f"fell at step {k}"
    return sim


def foot_slip(seconds: float) -> float:
    """The largest horizontal distance either foot moves from where it stood."""
    state = {}

    def track(sim, k):
        ids = [sim.model.body(f).id for f in FEET]
        xy = sim.data.xpos[ids, :2].copy()
        state.setdefault("start", xy)
        state["slip"] = max(state.get("slip", 0.0), float(np.linalg.norm(xy - state["start"], axis=1).max()))

    simulate(seconds, each=track)
    return state["slip"]


def test_balanced_is_a_named_controller_on_its_own_robot_variant():
    assert "balanced" in CONTROLLERS and BalancedController.variant == "balanced"


def test_a_zero_velocity_command_keeps_the_feet_in_place():
    assert foot_slip(5.0) < 0.01


@pytest.mark.slow
def test_a_zero_velocity_command_keeps_the_feet_in_place_for_20_s():
    assert foot_slip(20.0) < 0.01


def test_walking_alternates_the_feet_and_the_base_follows_the_command():
    touching = {f: [] for f in FEET}

    def contacts(sim, k):
        m, d = sim.model, sim.data
        on = {m.geom_bodyid[d.contact[i].geom1] for i in range(d.ncon)} | {m.geom_bodyid[d.contact[i].geom2] for i in range(d.ncon)}
        for f in FEET:
            touching[f].append(m.body(f).id in on)

    start = robot_in_room(BalancedController()).base_pose()
    sim = simulate(3.0, row(vx=0.3), contacts)
    moved = sim.base_pose().x - start.x
    assert 0.75 <= moved <= 1.05, moved  # 0.9 m +- 0.15 for 3 s at 0.3 m/s
    for f in FEET:
        lifts = np.flatnonzero(np.diff(np.array(touching[f], int)) == -1)
        assert len(lifts) >= 2, f  # each foot left the floor at least twice
    left_up = ~np.array(touching[FEET[0]])
    right_up = ~np.array(touching[FEET[1]])
    assert not (left_up & right_up).any()  # never both in the air


def test_walking_backwards_covers_the_commanded_distance():
    start = robot_in_room(BalancedController()).base_pose()
    sim = simulate(3.0, row(vx=-0.3))
    moved = start.x - sim.base_pose().x
    assert 0.75 <= moved <= 1.05, moved  # 0.9 m +- 0.15 for 3 s at -0.3 m/s


def test_only_the_stiff_robot_leads_its_swinging_leg():
    """The swing lead is the stiff variant's; the Fiatlux soft-servo robot keeps none (its walking is tuned without it)."""
    assert BalancedController().tuning.swing_lead > 0.0
    assert FiatluxBalancedController().tuning.swing_lead == 0.0


def test_a_heading_command_turns_the_robot_and_holds_it():
    sim = simulate(4.0, row(flag=0.5, yaw=math.pi / 2))
    assert abs(math.remainder(sim.base_pose().yaw - math.pi / 2, 2 * math.pi)) < 0.05


def test_the_height_command_lowers_the_pelvis():
    sim = simulate(1.5, row(height=0.64))
    assert sim.base_pose().z == pytest.approx(0.64, abs=0.01)


def standing_sim(tool: bool) -> Simulation:
    """The balanced robot at the origin, optionally holding a 0.15 kg tool 0.25 m past its right wrist."""
    controller = BalancedController()
    spec = new_spec()
    add_robot(spec, controller)
    if tool:
        body = spec.body("right_wrist_yaw_link").add_body(name="tool", pos=[0.25, 0, 0])
        body.add_geom(type=mujoco.mjtGeom.mjGEOM_CAPSULE, size=[0.015, 0.12, 0], mass=0.15, contype=0, conaffinity=0)
    sim = Simulation(spec, controller)
    sim.reset(BasePose(0.0, 0.0, contract.DEFAULT_BASE_HEIGHT, 0.0), home_upper_pose())
    return sim


@pytest.mark.parametrize("tool", [False, True])
def test_arm_and_waist_motion_within_the_action_table_never_topples_it(tool):
    """A new random pose of the waist and both arms (anywhere in their ranges) every second, reached in half a second."""
    sim = standing_sim(tool)
    home = home_upper_pose()
    rng = np.random.default_rng(0)
    moving = [i for i, n in enumerate(JOINT_SLOTS) if "waist" in n or "shoulder" in n or "elbow" in n]
    for _ in range(6):
        goal = home.copy()
        for i in moving:
            goal[i] = rng.uniform(BY_NAME[JOINT_SLOTS[i]].lo, BY_NAME[JOINT_SLOTS[i]].hi)
        start = np.asarray(state_of(sim)[:31], float)
        for k in range(HZ):
            sim.step(contract.decode(row(upper=start + (goal - start) * min(k / (HZ / 2), 1.0))))
            assert not sim.fallen()


WORK_POSE = {"waist_pitch_joint": 0.2, "left_shoulder_pitch_joint": -0.9, "left_elbow_joint": 0.1}


def work_posture() -> np.ndarray:
    """The expert's posture at the bench: waist pitched, left arm reaching forward."""
    upper = home_upper_pose()
    for name, value in WORK_POSE.items():
        upper[JOINT_SLOTS.index(name)] = value
    return upper


def test_the_upper_body_holds_its_targets_against_gravity():
    sim = simulate(2.0, row(height=0.66, upper=work_posture()))
    measured = sim.data.qpos[sim.controller._scene_qpos[sim.controller.ik.slot_qpos]]
    for name, value in WORK_POSE.items():
        assert measured[JOINT_SLOTS.index(name)] == pytest.approx(value, abs=0.015), name


def test_a_robot_holding_its_heading_stops_stepping_and_stands_still_in_the_work_posture():
    """A short walk with the heading engaged, then the same heading and no velocity, low with the
    waist pitched and an arm out: within 4 s the footsteps stop, and then the pelvis holds still."""
    sim = robot_in_room(BalancedController())
    for k in range(50):
        sim.step(contract.decode(row(vx=0.2, flag=1.0)))
    still = contract.decode(row(height=0.66, flag=1.0, upper=work_posture()))
    for k in range(200):
        sim.step(still)
    assert sim.controller.schedule.phase == "stand"
    start = sim.base_pose()
    for k in range(150):
        sim.step(still)
        assert sim.controller.schedule.phase == "stand"
    end = sim.base_pose()
    assert math.hypot(end.x - start.x, end.y - start.y) < 0.01


def test_same_commands_give_bit_identical_trajectories():
    def trajectory():
        sim = robot_in_room(BalancedController())
        out = []
        for k in range(150):
            sim.step(contract.decode(row(vx=0.3 if k < 100 else 0.0, vy=0.1, flag=0.5, yaw=0.4)))
            out.append(sim.data.qpos.copy())
        return np.array(out)

    assert np.array_equal(trajectory(), trajectory())


def test_the_footstep_schedule_returns_to_standing_after_the_command_stops():
    sch = Schedule.standing(Timing(), np.zeros(3))
    for _ in range(100):
        sch.advance(0.02, (0.3, 0.0, 0.0), True)
    assert sch.phase != "stand" and sch.body[0] > 0.4
    for _ in range(200):
        sch.advance(0.02, (0.0, 0.0, 0.0), False)
    assert sch.phase == "stand"
    left, right = sch.feet["left"], sch.feet["right"]
    assert abs(left[0] - right[0]) < 1e-9 and left[1] - right[1] == pytest.approx(2 * 0.1185)


def test_a_long_walk_stops_and_stands():
    """10 s forward at 0.3 m/s (3 m: past the default room's front wall, so in a larger room), then
    6 s of a zero command: the robot stays up and its footsteps come back to standing."""
    controller = BalancedController()
    spec = new_spec(room=Room(size=(12.0, 12.0, 3.0), centre=(0.0, 0.0)))
    add_robot(spec, controller)
    sim = Simulation(spec, controller)
    sim.reset(BasePose(0.0, 0.0, contract.DEFAULT_BASE_HEIGHT, 0.0), home_upper_pose())
    for action, seconds in ((row(vx=0.3), 10.0), (row(), 6.0)):
        cmd = contract.decode(action)
        for k in range(int(round(seconds * HZ))):
            sim.step(cmd)
            assert not sim.fallen(), f"fell {k / HZ:.2f} s into {action[-4]:+.1f} m/s"
        if action[-4] > 0:
            assert sim.base_pose().x > 2.5
    assert controller.schedule.phase == "stand"


def test_the_plan_is_the_same_wherever_the_robot_stands():
    """Walking and turning 9 m from the world's origin follows the trajectory it follows at the origin
    (physics and plan are translation-invariant; a truncated preview once made the far robot fall)."""
    tracks = []
    for x, y in ((0.0, 0.0), (5.3, -7.1)):
        controller = BalancedController()
        spec = new_spec(room=Room(size=(6.0, 6.0, 3.0), centre=(x, y)))
        add_robot(spec, controller)
        sim = Simulation(spec, controller)
        sim.reset(BasePose(x, y, contract.DEFAULT_BASE_HEIGHT, 0.0), home_upper_pose())
        track = []
        for action in (row(vx=0.3), row(flag=1.0, yaw=-1.5)):
            cmd = contract.decode(action)
            for _ in range(75):
                sim.step(cmd)
                p = sim.base_pose()
                track.append((p.x - x, p.y - y, p.z, p.yaw))
        assert not sim.fallen()
        tracks.append(np.array(track))
    assert tracks[0][-1, 0] > 0.3  # it did walk
    np.testing.assert_allclose(tracks[1], tracks[0], atol=1e-6)


def push_episode(monkeypatch, force, at_step: int, seconds: float = 0.1):
    """TaskEpisode.step with a horizontal force on the pelvis for `seconds` from `at_step`, recording
    the first step at which the pelvis met the fall rule."""
    original = TaskEpisode.step
    seen = {}

    def step(self, row_):
        pelvis = self.model.body("pelvis").id
        pushing = at_step <= self.steps < at_step + int(round(seconds * HZ))
        self.data.xfrc_applied[pelvis, :3] = force if pushing else 0.0
        result = original(self, row_)
        if "fall" not in seen and self.sim.base_pose().fallen():
            seen["fall"] = self.steps
        return result

    monkeypatch.setattr(TaskEpisode, "step", step)
    return seen


def test_a_push_beyond_the_limit_ends_the_episode_as_a_fall_at_the_right_step(monkeypatch, tmp_path):
    """60 N s sideways (the measured limit standing is about 20 N s): the run's files say it fell, when."""
    seen = push_episode(monkeypatch, np.array([0.0, 600.0, 0.0]), at_step=20)
    out = tmp_path / "out"
    args = ["G1BallMove-L0-S", "--policy", "pose-hold", "--checkpoint", "hold", "--episodes", "1", "--max-steps", "300"]
    assert eval_cli.main([*args, "--controller", "balanced", "--no-video", "--output", str(out)]) == 0
    [result] = out.glob("G1BallMove-L0-S/run-*/benchmark_result.json")
    [summary_file] = (result.parent / "summaries").glob("episode_*.json")
    summary = read(summary_file, EpisodeSummary)
    assert summary.outcome == FELL and summary.fell and summary.fall_step == seen["fall"] == summary.step
    assert 20 < summary.fall_step < 150
    assert read(result, BenchmarkResult).controller == "balanced"


def test_the_gymnasium_environment_runs_balanced_and_terminates_on_a_fall(monkeypatch):
    import gymnasium

    seen = push_episode(monkeypatch, np.array([0.0, 600.0, 0.0]), at_step=5)
    env = gymnasium.make("humanoidtoolbench/G1BallMove-L0-S", controller="balanced")
    obs, _ = env.reset(seed=1)
    action = contract.hold_action(obs["state"])
    for _ in range(200):
        _, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    assert terminated and info["fell"] and not info["success"] and info["step"] == seen["fall"]
    env.close()
    with pytest.raises(ValueError, match="unknown controller"):
        gymnasium.make("humanoidtoolbench/G1BallMove-L0-S", controller="nope")
    with pytest.raises(ValueError, match="cannot execute toolbench commands"):
        gymnasium.make("humanoidtoolbench/G1BallMove-L0-S", controller="servo")  # joint targets, not decoupled_v1


@pytest.mark.slow
def test_two_workers_give_the_same_balanced_trajectories_as_one(tmp_path):
    """Random commands (they walk, turn, squat and swing the arms) under balanced: every episode's recorded
    states and actions are the same bytes with one worker and with two."""
    import hashlib

    args = ["G1BallMove-L0-S", "--policy", "random", "--checkpoint", "r", "--episodes", "2", "--max-steps", "150"]
    args += ["--controller", "balanced", "--no-video"]
    digests = []
    for workers in ("1", "2"):
        out = tmp_path / workers
        assert eval_cli.main([*args, "--workers", workers, "--output", str(out)]) == 0
        [run] = out.glob("G1BallMove-L0-S/run-*")
        files = sorted([*run.glob("steps/*/*.npy"), *run.glob("metrics/*.jsonl")])
        assert len(files) == 2 * 3
        digests.append({f.relative_to(run).as_posix(): hashlib.sha256(f.read_bytes()).hexdigest() for f in files})
    assert digests[0] == digests[1]
