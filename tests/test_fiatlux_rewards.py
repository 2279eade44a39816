"""Fiatlux rewards: each term at its thresholds and weights, the climb's record and contact terms, and the
per-term sums of real episodes against the logged return."""

from __future__ import annotations

import math

import numpy as np
import pytest

from humanoidtoolbench.control.contracts.joint_position import JOINT_NAMES
from humanoidtoolbench.suites.fiatlux.contract import Q0_VECTOR
from humanoidtoolbench.suites.base import FELL
from humanoidtoolbench.suites.fiatlux import gates, rewards
from humanoidtoolbench.suites.fiatlux.rewards import (
    CLIMB_TERMS, DT, TASK_TERMS, WEIGHTS, Bonus, ClimbReward, Clearance, Motion, Progress, Record, TaskReward,
)
from humanoidtoolbench.suites.fiatlux.subtasks import CLIMB, CRUSHED, DROPPED, TIPPED
from test_fiatlux import bulb, snap

W = {k: w.value for k, w in WEIGHTS.items()}
ANKLE_RANGE = np.array([[-0.87267, 0.5236], [-0.2618, 0.2618]] * 2)


def still(**over) -> Motion:
    """A robot at q0, not moving, repeating its action."""
    base = dict(com_vel_xy=np.zeros(2), ang_vel=np.zeros(3), action=np.zeros(43), last_action=np.zeros(43),
                joint_pos=Q0_VECTOR.copy(), hip_knee_acc=np.zeros(8))
    return Motion(**{**base, **over})


# -- the pieces ------------------------------------------------------------------------------------


def test_progress_pays_on_approach_costs_on_retreat_and_nothing_while_holding():
    p = Progress(2.0)
    assert p.step(1.5) == pytest.approx(0.25)  # a quarter of the start distance closed
    assert p.step(1.5) == 0.0  # holding
    assert p.step(1.8) == pytest.approx(-0.15)  # retreating gives it back
    assert p.step(0.0) == pytest.approx(0.9) and p.phi == 1.0  # arrival: the potential is 1
    assert p.step(-0.5) == 0.0  # saturated


def test_progress_start_distance_is_floored_at_1_mm_and_retreat_below_the_start_pays_nothing_more():
    p = Progress(0.0)  # a target reached at the start: its potential is already 1, moving off costs
    assert p.d0 == 1e-3 and p.phi == 1.0 and p.step(0.0005) == pytest.approx(-0.5)
    q = Progress(1.0)
    assert q.step(1.5) == 0.0  # clamped at 0 below the start


def test_removal_pays_by_clearance_against_10_cm():
    c = Clearance(0.002)  # seated: the plug 2 mm from the seat
    assert c.phi == pytest.approx(0.02)
    assert c.step(0.05) == pytest.approx(0.48)
    assert c.step(0.25) == pytest.approx(0.5) and c.phi == 1.0  # saturates at 0.10 m
    assert c.step(0.12) == 0.0 and c.step(0.05) == pytest.approx(-0.5)  # pushing it back costs


def test_a_bonus_pays_once_and_never_for_what_held_at_the_reset():
    b = Bonus(holds_at_reset=False)
    assert [b.step(h) for h in (False, True, True, False, True)] == [0.0, 1.0, 0.0, 0.0, 0.0]
    assert Bonus(holds_at_reset=True).step(True) == 0.0


def test_the_record_pays_each_new_centimetre_once_and_never_for_climbing_again():
    r = Record(0.787)  # the record starts in centimetre 78
    assert r.step(0.789) == 0.0  # still centimetre 78
    assert r.step(0.8005) == pytest.approx(0.02)  # centimetres 79 and 80
    assert r.step(0.70) == 0.0  # going down
    assert r.step(0.8099) == 0.0  # climbing back to where it has been
    assert r.step(0.8101) == pytest.approx(0.01)  # centimetre 81, new
    gains = [r.step(z) for z in np.linspace(0.8, 1.97, 400)]
    assert sum(gains) == pytest.approx(1.97 - 0.81, abs=1e-9)  # each centimetre paid once


def test_limb_contact_counts_a_limb_above_1_newton():
    rungs = np.zeros((4, 3))
    rungs[0] = [0, 0, 1.0]  # exactly F_min: not in contact
    rungs[2] = [0.6, 0.0, 0.81]  # |F| = 1.0078 N
    assert rewards.contact_fraction(rungs) == 0.25
    rungs[3] = [0, -2.0, 0]
    assert rewards.contact_fraction(rungs.reshape(-1)) == 0.5


def test_the_bounds_of_iii_e_add_up_to_55():
    progress = sum(W[f"progress_{g}"] for g in rewards.GOALS) * DT
    bonuses = sum(W[k] for k in rewards.BONUSES) * DT
    assert (progress, bonuses) == (pytest.approx(30.0), pytest.approx(25.0))
    assert [W[f"progress_{g}"] * DT for g in rewards.GOALS] == pytest.approx([5, 10, 5, 10])
    assert [W[k] * DT for k in rewards.BONUSES] == pytest.approx([2, 5, 3, 5, 10])
    assert all(w.source for w in WEIGHTS.values())


# -- the task reward on snapshots -----------------------------------------------------------------


def task_reward(start) -> TaskReward:
    r = TaskReward(ANKLE_RANGE)
    r.reset(start)
    return r


def test_task_progress_pays_its_bound_on_arrival_and_each_bonus_once():
    # The ladder's top 2 m from the seat at the start; the old bulb seated; the fresh bulb 3 m away.
    seat = np.array([3.0, 0.6, 2.236])
    old_seated = bulb(plug_to_seat=0.001, seated=True, centre=np.array([3.0, 0.6, 2.1]))
    away = dict(tread_stance=seat - [2.0, 0, 0.3])  # the ladder not in place: its tread 2 m from under the seat
    start = snap(ladder_top=seat - [2.0, 0, 0], old=old_seated, fresh=bulb(plug_to_seat=3.0), **away)
    r = task_reward(start)
    half = snap(ladder_top=seat - [1.0, 0, 0], old=old_seated, fresh=bulb(plug_to_seat=1.5), **away)
    terms = r.step(half, still(), None, False)
    assert terms["progress_ladder"] == pytest.approx(0.5 * W["progress_ladder"] * DT)  # 2.5 of its 5
    assert terms["progress_fresh"] == pytest.approx(0.5 * W["progress_fresh"] * DT)  # 5 of its 10
    assert terms["progress_old"] == 0.0 and terms["bonus_ladder"] == 0.0
    # The ladder placed (tread stance within 0.67 m of the seat), the fresh bulb seated, the old one out by 12 cm.
    done = snap(ladder_top=seat, tread_stance=seat + [0.3, 0, -0.3], old=bulb(plug_to_seat=0.12, centre=np.array([3.0, 0.6, 2.0])),
                fresh=bulb(plug_to_seat=0.0, seated=True))
    terms = r.step(done, still(), None, False)
    assert terms["progress_ladder"] == pytest.approx(2.5) and terms["progress_fresh"] == pytest.approx(5.0)
    assert terms["progress_old"] == pytest.approx((1.0 - 0.01) * 5.0)  # from 1 mm clearance to saturated
    assert (terms["bonus_ladder"], terms["bonus_fresh"], terms["bonus_old"]) == (pytest.approx(2.0), pytest.approx(5.0), pytest.approx(3.0))
    again = r.step(done, still(), None, True)
    assert again["bonus_ladder"] == again["bonus_fresh"] == again["bonus_old"] == 0.0  # paid once
    assert again["bonus_success"] == pytest.approx(10.0) and again["progress_ladder"] == 0.0  # holding pays nothing


def test_disposal_pays_as_the_old_bulb_nears_the_crate_and_its_bonus_when_inside():
    crate = np.array([-2.0, 0.0, 0.0])
    r = task_reward(snap(old=bulb(centre=crate + [2.0, 0, 0])))
    terms = r.step(snap(old=bulb(centre=crate + [1.0, 0, 0])), still(), None, False)
    assert terms["progress_disposal"] == pytest.approx(0.5 * 10.0) and terms["bonus_disposal"] == 0.0
    terms = r.step(snap(old=bulb(centre=crate + [1.5, 0, 0])), still(), None, False)
    assert terms["progress_disposal"] == pytest.approx(-0.25 * 10.0)  # carried away again
    terms = r.step(snap(old=bulb(centre=crate + [0, 0, 0.1], in_crate=True)), still(), None, False)
    assert terms["bonus_disposal"] == pytest.approx(5.0)


def test_a_bonus_whose_predicate_holds_at_the_reset_never_pays():
    seated = bulb(plug_to_seat=0.0, seated=True)
    r = task_reward(snap(fresh=seated))  # S12 starts with the fresh bulb seated
    assert r.step(snap(fresh=seated), still(), None, False)["bonus_fresh"] == 0.0


@pytest.mark.parametrize("term, outcome", [("fall", FELL), ("ladder_tipped", TIPPED), ("bulb_dropped", DROPPED),
                                           ("bulb_crushed", CRUSHED)])
def test_each_ending_is_charged_200_times_dt_on_its_step_only(term, outcome):
    r = task_reward(snap())
    terms = r.step(snap(), still(), outcome, False)
    assert terms[term] == pytest.approx(-4.0)
    assert sum(terms[t] for t in rewards.ENDINGS if t != term) == 0.0


def test_shaping_terms_at_their_weights():
    r = task_reward(snap())
    q = Q0_VECTOR.copy()
    q[JOINT_NAMES.index("left_ankle_pitch_joint")] = 0.5236 + 0.1  # 0.1 rad past the upper limit
    q[JOINT_NAMES.index("waist_yaw_joint")] = -0.2
    q[JOINT_NAMES.index("right_hand_index_0_joint")] = 0.5
    action, last = np.zeros(43), np.zeros(43)
    action[3] = 0.5
    acc = np.zeros(8)
    acc[0] = 100.0
    m = still(com_vel_xy=np.array([0.3, 0.4]), ang_vel=np.array([1.0, 2.0, 5.0]), action=action, last_action=last,
              joint_pos=q, hip_knee_acc=acc)
    terms = r.step(snap(), m, None, False)
    expected = {"com_sway": -0.5 * 0.25, "ang_vel_xy": -0.05 * 5.0, "action_rate": -0.005 * 0.25,
                "joint_acc": -1.25e-7 * 1e4, "ankle_limits": -1.0 * 0.1, "waist_deviation": -0.1 * 0.2,
                "finger_deviation": -0.05 * 0.5}
    for k, v in expected.items():
        assert terms[k] == pytest.approx(v * DT), k
    assert set(terms) == set(TASK_TERMS)


# -- the climb ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name, below, above", [
    ("climbed_high", snap(pelvis=np.array([3.0, 0.0, 1.82])), snap(pelvis=np.array([3.0, 0.0, 1.8201]))),
    ("over_ladder", snap(pelvis=np.array([3.6, 0.0, 1.9])), snap(pelvis=np.array([3.5999, 0.0, 1.9]))),
    ("settled", snap(pelvis_speed=1.5), snap(pelvis_speed=1.4999)),
])
def test_climb_success_conjuncts_at_their_thresholds(name, below, above):
    assert not gates.CONJUNCTS[name](below) and gates.CONJUNCTS[name](above)
    assert name in CLIMB.gate


def test_the_climbing_reward_pays_height_contact_success_and_the_fall():
    r = ClimbReward(ANKLE_RANGE)
    r.reset(snap(pelvis=np.array([0.0, 0.0, 0.787])))
    rungs = np.zeros((4, 3))
    rungs[[2, 3], 2] = 30.0  # both palms on the ladder
    terms = r.step(snap(pelvis=np.array([0.0, 0.0, 0.9])), still(), None, False, rungs)
    assert terms["height"] == pytest.approx(0.12 * 500 * DT)  # centimetres 79 to 90
    assert terms["rung_contact"] == pytest.approx(0.5 * 0.25 * DT)
    terms = r.step(snap(pelvis=np.array([0.0, 0.0, 0.85])), still(), FELL, False, np.zeros(12))
    assert terms["height"] == 0.0 and terms["rung_contact"] == 0.0 and terms["fall"] == pytest.approx(-4.0)
    assert r.step(snap(pelvis=np.array([0.0, 0.0, 1.9])), still(), None, True, np.zeros(12))["bonus_climbed"] == pytest.approx(10.0)
    assert set(terms) == set(CLIMB_TERMS)


# -- real episodes -------------------------------------------------------------------------------------


def run_env(env_id: str, seed: int, steps: int, rng=None, **kwargs):
    import gymnasium

    env = gymnasium.make(env_id, vision=False, **kwargs)
    env.reset(seed=seed)
    total, sums, info = 0.0, dict.fromkeys(env.unwrapped.reward_terms, 0.0), {}
    for _ in range(steps):
        action = np.zeros(43) if rng is None else rng.uniform(-1, 1, 43)
        _, reward, terminated, truncated, info = env.step(action.astype(np.float32))
        total += reward
        for k, v in info["reward_terms"].items():
            sums[k] += v
        if terminated or truncated:
            break
    episode = env.unwrapped.episode
    env.close()
    return total, sums, info, episode


def test_per_term_sums_equal_the_return_in_the_environment_and_the_metrics():
    total, sums, info, episode = run_env("FIATLUX-S08-GrabNewBulb-v0", 0, 200, np.random.default_rng(0))
    assert info["outcome"] == FELL  # random actions fall within a second or so
    assert sums["fall"] == pytest.approx(-4.0) and total == pytest.approx(math.fsum(sums.values()), abs=1e-9)
    assert episode.returns == pytest.approx(sums, abs=1e-12)
    # The metrics carry the running sums: on the last step, the episode's.
    episode.reset()
    rng, sums = np.random.default_rng(1), dict.fromkeys(episode.reward.terms, 0.0)
    for _ in range(200):
        result = episode.step(rng.uniform(-1, 1, 43))
        for k, v in episode.terms.items():
            sums[k] += v
        if result.outcome:
            break
    assert result.metrics["return"] == pytest.approx(math.fsum(sums.values()), abs=1e-9)
    assert {k: result.metrics[f"return/{k}"] for k in sums} == pytest.approx(sums, abs=1e-12)


def test_the_climb_starts_facing_the_ladder_at_its_documented_distance_and_logs_its_terms():
    import gymnasium

    env = gymnasium.make("FIATLUX-Climb-v0", vision=False, randomize=False)
    obs, _ = env.reset(seed=2)
    ep = env.unwrapped.episode
    base = ep.controller.base_pose(ep.data)
    to_ladder = ep.placement.ladder_pos - [base.x, base.y]
    assert np.linalg.norm(to_ladder) == pytest.approx(0.85, abs=0.002)  # no jitter without randomisation
    assert abs((math.atan2(to_ladder[1], to_ladder[0]) - base.yaw + math.pi) % (2 * math.pi) - math.pi) < 0.01
    assert obs["rung_forces"].shape == (12,) and not obs["rung_forces"].any()  # nothing touches the ladder yet
    assert set(env.unwrapped.reward_terms) == set(CLIMB_TERMS)
    env.close()
