"""The assisted controller executes decoupled_v1 commands as the contract says."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from conftest import HOME, SPAWN, hold, make_sim, run, state_of
from humanoidtoolbench.angles import wrap
from humanoidtoolbench.control.contracts import decoupled_v1 as contract
from humanoidtoolbench.robot import collision
from humanoidtoolbench.robot.joints import BY_NAME

STEPS_PER_S = 50


@pytest.fixture
def sim():
    return make_sim()


def heading_axes(yaw: float) -> tuple[np.ndarray, np.ndarray]:
    return np.array([math.cos(yaw), math.sin(yaw)]), np.array([-math.sin(yaw), math.cos(yaw)])


@pytest.mark.parametrize("slot, axis", [("nav_vx", 0), ("nav_vy", 1)])
def test_velocity_command_moves_base_along_its_frame(sim, slot, axis):
    start = sim.base_pose()
    run(sim, hold(**{slot: 0.3}), 3 * STEPS_PER_S)
    moved = sim.base_pose().xy - start.xy
    along = heading_axes(start.yaw)[axis]
    across = heading_axes(start.yaw)[1 - axis]
    assert moved @ along == pytest.approx(0.9, abs=0.15)
    assert abs(moved @ across) < 0.05


def test_command_below_walk_threshold_does_not_move_base(sim):
    start = sim.base_pose()
    run(sim, hold(nav_vx=0.06, nav_vy=0.05), 3 * STEPS_PER_S)  # norm 0.078 < 0.1
    assert np.linalg.norm(sim.base_pose().xy - start.xy) < 0.005
    assert abs(wrap(sim.base_pose().yaw - start.yaw)) < 0.005


def test_turn_flag_reaches_and_holds_absolute_heading(sim):
    target = math.pi / 2
    cmd = hold(nav_turn_flag=1.0, nav_target_yaw=target)
    run(sim, cmd, int(2.5 * STEPS_PER_S))
    assert abs(wrap(sim.base_pose().yaw - target)) < 0.05
    for _ in range(2 * STEPS_PER_S):
        run(sim, cmd, 1)
        assert abs(wrap(sim.base_pose().yaw - target)) < 0.05


def test_turn_rate_is_capped_at_one_radian_per_second(sim):
    start = sim.base_pose().yaw
    run(sim, hold(nav_turn_flag=1.0, nav_target_yaw=start + 3.0), STEPS_PER_S // 2)
    assert abs(wrap(sim.base_pose().yaw - start)) == pytest.approx(0.5, abs=0.06)


def test_small_turn_flag_leaves_heading_unchanged(sim):
    start = sim.base_pose()
    run(sim, hold(nav_turn_flag=0.05, nav_target_yaw=start.yaw + 1.5), 3 * STEPS_PER_S)
    assert abs(wrap(sim.base_pose().yaw - start.yaw)) < 0.005


def test_base_height_command_lowers_pelvis(sim):
    run(sim, hold(), STEPS_PER_S)
    before = sim.base_pose().z
    run(sim, hold(base_height=0.64), 2 * STEPS_PER_S)
    assert before - sim.base_pose().z == pytest.approx(0.10, abs=0.02)


def test_arm_and_hand_targets_are_tracked(sim):
    rng = np.random.default_rng(0)
    target = HOME.copy()
    for i, name in enumerate(contract.JOINT_SLOTS[:28]):
        j = BY_NAME[name]
        target[i] = rng.uniform(j.lo + 0.2 * (j.hi - j.lo), j.hi - 0.2 * (j.hi - j.lo))
    action = hold()
    action[:28] = target[:28]
    run(sim, action, STEPS_PER_S)
    state = state_of(sim)
    error = np.abs(state[:28] - target[:28])
    worst = int(np.argmax(error))
    assert error.max() < 0.05, f"{contract.JOINT_SLOTS[worst]} off by {error[worst]:.3f} rad"


def test_waist_slots_drive_waist_joints(sim):
    action = hold()
    action[28:31] = (0.1, 0.3, -0.4)
    run(sim, action, STEPS_PER_S)
    state = state_of(sim)
    np.testing.assert_allclose(state[28:31], (0.1, 0.3, -0.4), atol=0.03)


def test_standing_still_for_a_minute_stays_put(sim):
    start = sim.base_pose()
    run(sim, hold(), 60 * STEPS_PER_S)
    end = sim.base_pose()
    assert np.linalg.norm(end.xy - start.xy) < 0.05
    assert end.z == pytest.approx(contract.DEFAULT_BASE_HEIGHT, abs=0.01)
    assert abs(wrap(end.yaw - start.yaw)) < 0.01
    torso = sim.data.body("torso_link").xmat.reshape(3, 3)
    assert torso[2, 2] > 0.99  # upright


def test_same_commands_give_bit_identical_trajectories():
    def rollout():
        sim = make_sim()
        rng = np.random.default_rng(123)
        for _ in range(500):
            action = hold(nav_vx=0.2, nav_turn_flag=1.0, nav_target_yaw=1.0)
            action[:28] += rng.normal(0, 0.05, 28)
            run(sim, action, 1)
        return sim.data.qpos.copy()

    assert rollout().tobytes() == rollout().tobytes()


def test_stance_feet_stay_on_the_floor_while_walking(sim):
    soles = []
    for _ in range(3 * STEPS_PER_S):
        run(sim, hold(nav_vx=0.3), 1)
        z = [sim.data.body(f"{s}_ankle_roll_link").xpos[2] - 0.035 for s in ("left", "right")]
        soles.append(min(z))
    assert np.abs(soles).max() < 0.02


def test_static_obstacle_stops_the_base():
    """A bench-height slab 0.30 m ahead stops the walking robot: the base wrench is bounded."""
    forward, _ = heading_axes(SPAWN.yaw)
    edge = SPAWN.xy + forward * 0.30

    def add_slab(spec):
        centre = edge + forward * 0.4
        slab = spec.worldbody.add_geom(
            type=mujoco.mjtGeom.mjGEOM_BOX, size=[0.4, 0.4, 0.02], pos=[*centre, 0.68], euler=[0, 0, SPAWN.yaw]
        )
        collision.assign(slab, collision.WORLD)

    sim = make_sim(add_slab)
    run(sim, hold(nav_vx=0.3), 4 * STEPS_PER_S)
    travelled = (sim.base_pose().xy - SPAWN.xy) @ forward
    assert 0.05 < travelled < 0.30


@pytest.mark.parametrize(
    "bad, fragment",
    [
        (np.zeros(36), "got shape (36,)"),
        (np.zeros((2, 36, 1)), "got shape (2, 36, 1)"),
        (np.full((3, 36), np.nan), "NaN or infinite values in 3 of 3 rows"),
        ("left", "got str"),
    ],
)
def test_bad_chunks_are_rejected_with_a_description(bad, fragment):
    with pytest.raises(contract.ActionError) as err:
        contract.DECOUPLED_V1.validate(bad)
    assert fragment in str(err.value)


def test_a_bad_row_names_where_its_non_finite_values_are():
    row = np.zeros(36)
    row[33] = np.inf
    with pytest.raises(contract.ActionError) as err:
        contract.decode(row)
    assert "at slots [33]" in str(err.value)
    assert contract.DECOUPLED_V1.validate(np.zeros((4, 36))).dtype == np.float64
