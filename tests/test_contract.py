"""The 32-value state and 36-value action follow the public slot tables."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import make_sim, state_of
from humanoidtoolbench.control.contracts import decoupled_v1 as contract

# Spot checks straight from the public action table.
SPEC_SLOTS = {
    0: "left_hand_thumb_0_joint",
    3: "left_hand_middle_0_joint",
    5: "left_hand_index_0_joint",
    8: "right_hand_thumb_1_joint",
    10: "right_hand_index_0_joint",
    12: "right_hand_middle_0_joint",
    14: "left_shoulder_pitch_joint",
    20: "left_wrist_yaw_joint",
    21: "right_shoulder_pitch_joint",
    27: "right_wrist_yaw_joint",
    28: "waist_roll_joint",
    29: "waist_pitch_joint",
    30: "waist_yaw_joint",
}


@pytest.mark.parametrize("slot, joint", sorted(SPEC_SLOTS.items()))
def test_slot_table_matches_public_contract(slot, joint):
    assert contract.ACTION_SLOTS[slot] == joint
    assert contract.STATE_SLOTS[slot] == joint


def test_navigation_slots():
    assert contract.ACTION_SLOTS[31:] == ("base_height", "nav_vx", "nav_vy", "nav_turn_flag", "nav_target_yaw")
    assert contract.STATE_SLOTS[31] == "previous_base_height"


def test_each_joint_is_read_into_its_own_slot():
    sim = make_sim()
    model, data = sim.model, sim.data
    for slot, name in enumerate(contract.JOINT_SLOTS):
        data.qpos[model.joint(name).qposadr[0]] = 0.01 * (slot + 1)
    state = state_of(sim, previous_base_height=0.66)
    assert state.dtype == np.float32 and state.shape == (32,)
    np.testing.assert_allclose(state[:31], 0.01 * np.arange(1, 32), rtol=1e-6)
    assert state[31] == pytest.approx(0.66)


def test_state_starts_with_default_base_height():
    sim = make_sim()
    assert contract.DECOUPLED_V1.state_reader(sim.model).read(sim.data)[31] == pytest.approx(contract.DEFAULT_BASE_HEIGHT)


def test_hold_action_round_trips_state():
    state = np.arange(32, dtype=np.float32) / 100
    action = contract.hold_action(state)
    assert action.shape == (36,)
    np.testing.assert_allclose(action[:32], state, rtol=1e-6)
    assert not action[32:].any()


def test_decode_walking_and_turning_thresholds():
    a = np.zeros(36)
    a[32] = 0.099
    assert not contract.decode(a).walking
    a[33] = 0.02  # norm > 0.1
    assert contract.decode(a).walking
    a[34] = 0.099
    assert not contract.decode(a).turning
    a[34] = -0.1
    assert contract.decode(a).turning
