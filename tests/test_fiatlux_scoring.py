"""Fiatlux offline half: the weights table, the bag format and the scorer, on hand-made bags."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import h5py
import numpy as np
import pytest

import humanoidtoolbench
from humanoidtoolbench.suites.fiatlux.bag import BagError, BagWriter, bag_path, column_dtype, read_bag
from humanoidtoolbench.suites.fiatlux.scoring import (
    EpisodeScore,
    ScoreError,
    SubtaskScore,
    markdown,
    rollup,
    score_episode,
    score_run,
    score_subtask,
)
from humanoidtoolbench.suites.fiatlux.weights import BY_TASK_ID, FACTORS, SUBTASKS, TOTAL_WEIGHT

pytestmark = pytest.mark.no_robot  # builds no simulation: runs offline, with no robot asset

# Table III of the paper, as published.
TABLE_III = {
    "S01": 2.25, "S02": 3.00, "S03": 4.20, "S04": 4.50, "S05": 1.50, "S06": 1.80,
    "S07": 1.00, "S08": 1.40, "S09": 1.50, "S10": 4.50, "S11": 5.40, "S12": 3.00,
}  # fmt: skip


def test_weights_match_table_iii_and_sum_to_34_05():
    assert [s.key for s in SUBTASKS] == list(TABLE_III)
    for s in SUBTASKS:
        assert s.weight == pytest.approx(TABLE_III[s.key], abs=1e-12)
    assert TOTAL_WEIGHT == pytest.approx(34.05, abs=1e-12)


def test_each_weight_is_the_product_of_its_named_factors():
    assert dict(FACTORS) == {
        "carry": 1.5, "grasp": 1.4, "release": 1.8, "balance": 2.0, "traverse": 1.5, "mate": 1.5, "span": 1.5,
    }  # fmt: skip
    factors = {s.key: s.factors for s in SUBTASKS}
    assert factors == {
        "S01": ("carry", "span"),
        "S02": ("balance", "traverse"),
        "S03": ("grasp", "balance", "mate"),
        "S04": ("carry", "balance", "traverse"),
        "S05": ("carry",),
        "S06": ("release",),
        "S07": (),
        "S08": ("grasp",),
        "S09": ("carry",),
        "S10": ("carry", "balance", "traverse"),
        "S11": ("release", "balance", "mate"),
        "S12": ("balance", "traverse"),
    }
    for s in SUBTASKS:
        assert s.weight == math.prod([FACTORS[f] for f in s.factors], start=1.0)
    assert BY_TASK_ID["FIATLUX-S07-ApproachNewBulb-v0"].weight == 1.0


def test_task_ids():
    assert list(BY_TASK_ID) == [
        "FIATLUX-S01-MoveLadder-v0",
        "FIATLUX-S02-ClimbLadder-v0",
        "FIATLUX-S03-RemoveOldBulb-v0",
        "FIATLUX-S04-DescendWithBulb-v0",
        "FIATLUX-S05-CarryBulbToDisposal-v0",
        "FIATLUX-S06-DisposeBulb-v0",
        "FIATLUX-S07-ApproachNewBulb-v0",
        "FIATLUX-S08-GrabNewBulb-v0",
        "FIATLUX-S09-CarryBulbToLadder-v0",
        "FIATLUX-S10-ClimbWithBulb-v0",
        "FIATLUX-S11-ScrewInBulb-v0",
        "FIATLUX-S12-ClimbDown-v0",
    ]


# --- bags ------------------------------------------------------------------------------------------

FLOORS = {"old_bulb": 0.15, "fresh_bulb": 0.4}
CONJUNCTS = ("near", "facing", "slow", "held")


def make_meta(task_id="FIATLUX-S05-CarryBulbToDisposal-v0", seed=0, conjuncts=CONJUNCTS) -> dict:
    return {
        "task_id": task_id,
        "gate_conjuncts": list(conjuncts),
        "seed": seed,
        "code": {"source_sha256": "0" * 64, "suite": "fiatlux"},
        "joint_names": ["j0", "j1", "j2"],
        "drop_min_height_by_bulb": dict(FLOORS),
        "glass_contact_limit_n": 50,
        "action_dim": 2,
    }


def gates(*rows: str, conjuncts=CONJUNCTS) -> dict[str, np.ndarray]:
    """Gate columns from rows such as "1010" (one character per conjunct, in order)."""
    table = np.array([[c == "1" for c in row] for row in rows], dtype=bool)
    return {f"gate_{name}": table[:, i] for i, name in enumerate(conjuncts)}


def make_columns(steps: int, conjuncts=CONJUNCTS, **given) -> dict[str, np.ndarray]:
    """A whole episode at rest, bulbs held high, nothing true; `given` replaces columns."""
    cols = {
        "actions": np.zeros((steps, 2)),
        "joint_pos": np.zeros((steps, 3)),
        "joint_vel": np.zeros((steps, 3)),
        "robot_root_pos": np.tile([0.0, 0.0, 0.79], (steps, 1)),
        "robot_root_quat": np.tile([1.0, 0.0, 0.0, 0.0], (steps, 1)),
        "robot_root_lin_vel": np.zeros((steps, 3)),
        "robot_root_ang_vel": np.zeros((steps, 3)),
        "contact_force": np.zeros((steps, 2, 3)),
        "contact_force_left": np.zeros((steps, 2, 3)),
        "grip_force": np.zeros(steps),
        "step_in_episode": np.arange(steps),
        **{name: np.zeros(steps, dtype=bool) for name in ("success_term", "dropped_term", "timeout_term", "terminated", "truncated")},
        **{f"gate_{c}": np.zeros(steps, dtype=bool) for c in conjuncts},
    }  # fmt: skip
    for bulb in FLOORS:
        cols |= {
            f"{bulb}_pos": np.tile([0.3, 0.0, 1.0], (steps, 1)),
            f"{bulb}_quat": np.tile([1.0, 0.0, 0.0, 0.0], (steps, 1)),
            f"{bulb}_lin_vel": np.zeros((steps, 3)),
            f"{bulb}_ang_vel": np.zeros((steps, 3)),
        }
    cols |= {name: np.asarray(value) for name, value in given.items()}
    return cols


def write_bag(path, meta: dict, cols: dict) -> Path:
    steps = len(cols["actions"])
    with BagWriter(path, meta) as writer:
        for t in range(steps):
            writer.append({name: column[t] for name, column in cols.items()})
    return Path(path)


def one_line_bag_error(call, *args) -> str:
    with pytest.raises(BagError) as err:
        call(*args)
    assert "\n" not in str(err.value)
    return str(err.value)


def test_round_trip_writer_to_reader(tmp_path):
    meta = make_meta(seed=7)
    cols = make_columns(3, actions=[[0.5, -1.0], [0.25, 0.0], [1.0, 1.0]], **gates("0000", "1100", "1111"))
    path = write_bag(bag_path(tmp_path / "run", 7), meta, cols)

    assert path == tmp_path / "run" / "bags" / "episode_7.h5"
    assert sorted(p.name for p in path.parent.iterdir()) == ["episode_7.h5"]  # no temporary left behind
    with h5py.File(path, "r") as f:
        assert list(f) == ["episode_7"]
        assert f["episode_7/actions"].compression == "gzip"
    got_meta, got = read_bag(path)
    assert got_meta == meta
    assert set(got) == set(cols)
    for name, column in cols.items():
        assert got[name].dtype == column_dtype(name)
        np.testing.assert_array_equal(got[name], column.astype(column_dtype(name)))
    assert got["actions"].dtype == np.float32 and got["gate_held"].dtype == np.bool_
    assert got["step_in_episode"].dtype == np.int32 and got["contact_force"].shape == (3, 2, 3)
    # The same episode gives the same bytes.
    again = write_bag(tmp_path / "again" / "bags" / "episode_7.h5", meta, cols)
    assert again.read_bytes() == path.read_bytes()


def test_truncated_or_corrupt_bag_is_one_line_bag_error(tmp_path):
    good = write_bag(tmp_path / "good.h5", make_meta(), make_columns(50))
    data = good.read_bytes()
    truncated = tmp_path / "truncated.h5"
    truncated.write_bytes(data[: len(data) // 2])
    garbage = tmp_path / "garbage.h5"
    garbage.write_bytes(b"not a bag")
    assert "not a readable HDF5 bag" in one_line_bag_error(read_bag, truncated)
    assert "not a readable HDF5 bag" in one_line_bag_error(read_bag, garbage)
    assert "not a readable HDF5 bag" in one_line_bag_error(read_bag, tmp_path / "absent.h5")


def test_bag_missing_a_conjunct_column_is_one_line_bag_error(tmp_path):
    cols = make_columns(4)
    del cols["gate_slow"]
    writer = BagWriter(tmp_path / "bags" / "episode_0.h5", make_meta())
    for t in range(4):
        writer.append({name: column[t] for name, column in cols.items()})
    assert one_line_bag_error(writer.close).endswith("missing columns ['gate_slow']")
    assert not (tmp_path / "bags" / "episode_0.h5").exists()

    # A file that lost the column after it was written is refused the same way.
    path = write_bag(tmp_path / "other.h5", make_meta(), make_columns(4))
    with h5py.File(path, "r+") as f:
        del f["episode_0/gate_slow"]
    assert one_line_bag_error(read_bag, path) == f"{path}: missing columns ['gate_slow']"


def test_bag_checks_rows_shapes_dtypes_and_meta(tmp_path):
    path = write_bag(tmp_path / "a.h5", make_meta(), make_columns(4))
    with h5py.File(path, "r+") as f:
        del f["episode_0/grip_force"]
        f["episode_0"].create_dataset("grip_force", data=np.zeros(3, dtype=np.float32))
    assert "columns disagree on the number of steps" in one_line_bag_error(read_bag, path)

    bad_joints = make_columns(2, joint_pos=np.zeros((2, 4)))
    message = one_line_bag_error(write_bag, tmp_path / "b.h5", make_meta(), bad_joints)
    assert message.endswith("column joint_pos is float32 (2, 4), expected float32 (T, 3)")

    floats_as_gate = make_columns(2, gate_near=np.array([0.0, 1.0]))
    assert "column gate_near cannot be stored as bool" in one_line_bag_error(write_bag, tmp_path / "c.h5", make_meta(), floats_as_gate)

    no_seed = {k: v for k, v in make_meta().items() if k != "seed"}
    assert "bad meta" in one_line_bag_error(BagWriter, tmp_path / "d.h5", no_seed)
    assert "distinct identifiers" in one_line_bag_error(BagWriter, tmp_path / "d.h5", make_meta(conjuncts=("held", "held")))

    no_old_bulb = {k: v for k, v in make_columns(2).items() if not k.startswith("old_bulb")}
    message = one_line_bag_error(write_bag, tmp_path / "e.h5", make_meta(), no_old_bulb)
    assert message.endswith("missing columns ['old_bulb_ang_vel', 'old_bulb_lin_vel', 'old_bulb_pos', 'old_bulb_quat']")


def test_writer_abort_and_exception_leave_no_file(tmp_path):
    path = tmp_path / "bags" / "episode_0.h5"
    row = {name: column[0] for name, column in make_columns(1).items()}
    writer = BagWriter(path, make_meta())
    writer.append(row)
    writer.abort()
    assert "already closed or aborted" in one_line_bag_error(writer.append, row)
    with pytest.raises(RuntimeError), BagWriter(path, make_meta()) as writer:
        writer.append(row)
        raise RuntimeError("the episode failed")
    assert not path.exists()
    writer = BagWriter(path, make_meta())
    writer.append(row)
    assert "does not have step 0's columns (differ: ['grip_force'])" in one_line_bag_error(
        writer.append, {k: v for k, v in row.items() if k != "grip_force"}
    )
    assert "the episode has no steps" in one_line_bag_error(BagWriter(path, make_meta()).close)


# --- scoring ---------------------------------------------------------------------------------------


def episode(cols: dict, **meta_fields) -> EpisodeScore:
    return score_episode(make_meta(**meta_fields), cols)


@pytest.mark.parametrize(
    "rows, rho",
    [
        (("1111", "0000"), 1.0),  # the whole gate holds at reset: nothing left to earn
        (("1000", "1100", "1110"), 2 / 3),  # from 1 of 4 to 3 of 4
        (("0000", "1110", "0000", "0100"), 3 / 4),  # the best row counts although it falls back
        (("1100", "0011", "1010"), 0.0),  # as many true as at reset, never more
        (("0000", "1111"), 1.0),
    ],
)
def test_gate_progress(rows, rho):
    assert episode(make_columns(len(rows), **gates(*rows))).gate_progress == rho


def test_control_effort_is_the_mean_over_steps_of_the_sum_of_squared_actions():
    cols = make_columns(3, actions=[[1.0, 2.0], [0.0, 0.0], [3.0, 0.0]])
    assert episode(cols).control_effort == 14 / 3  # (5 + 0 + 9) / 3
    assert episode(cols).length == 3


def test_broken_only_above_the_glass_limit_on_either_hand(tmp_path):
    def recorded(**cols) -> EpisodeScore:  # through a bag: forces are stored as float32
        return score_episode(*read_bag(write_bag(tmp_path / "episode_0.h5", make_meta(), make_columns(2, **cols))))

    at_limit = np.zeros((2, 2, 3))
    at_limit[1, 0] = [30.0, 40.0, 0.0]  # |F| = 50 N exactly
    for hand in ("contact_force", "contact_force_left"):
        score = recorded(**{hand: at_limit})
        assert (score.broken, score.peak_contact_force) == (False, 50.0)

    above = np.zeros((2, 2, 3))
    above[0, 1] = [0.0, 0.0, 50.01]
    for hand in ("contact_force", "contact_force_left"):
        score = recorded(**{hand: above})
        assert (score.broken, score.peak_contact_force) == (True, float(np.float32(50.01)))


def test_dropped_by_the_term_or_by_a_bulb_below_its_floor():
    assert not episode(make_columns(2)).dropped
    assert episode(make_columns(2, dropped_term=[False, True])).dropped

    def bulb_at(z):
        return np.array([[0.3, 0.0, 1.0], [0.3, 0.0, z]])

    assert episode(make_columns(2, old_bulb_pos=bulb_at(0.14))).dropped  # old bulb floor 0.15 m
    assert not episode(make_columns(2, old_bulb_pos=bulb_at(0.16))).dropped
    assert episode(make_columns(2, fresh_bulb_pos=bulb_at(0.39))).dropped  # fresh bulb floor 0.4 m
    assert not episode(make_columns(2, fresh_bulb_pos=bulb_at(0.41))).dropped


def test_success_at_the_last_step_and_clean_success():
    succeeded = {"success_term": [False, True], **gates("0000", "1111")}
    score = episode(make_columns(2, **succeeded))
    assert (score.success, score.clean_success, score.gate_progress) == (True, True, 1.0)

    crushed = np.zeros((2, 2, 3))
    crushed[1, 0, 2] = 60.0
    score = episode(make_columns(2, contact_force=crushed, **succeeded))
    assert (score.success, score.broken, score.clean_success) == (True, True, False)
    score = episode(make_columns(2, dropped_term=[True, False], **succeeded))
    assert (score.success, score.dropped, score.clean_success) == (True, True, False)
    score = episode(make_columns(2, success_term=[True, False]))
    assert (score.success, score.clean_success) == (False, False)


def test_subtask_score_is_half_success_rate_plus_half_mean_gate_progress():
    task = "FIATLUX-S08-GrabNewBulb-v0"
    crushed = np.zeros((1, 2, 3))
    crushed[0, 0] = [0.0, 70.0, 0.0]
    episodes = [
        episode(make_columns(1, success_term=[True], **gates("1111")), task_id=task, seed=0),
        episode(make_columns(1, success_term=[True], contact_force=crushed, **gates("1111")), task_id=task, seed=1),
        episode(make_columns(3, actions=np.ones((3, 2)), **gates("0000", "1100", "1000")), task_id=task, seed=2),
        episode(make_columns(4, **gates("0000", "0000", "0000", "0000")), task_id=task, seed=3),
    ]
    s = score_subtask(episodes)
    assert (s.key, s.task_id, s.weight) == ("S08", task, 1.4)
    assert (s.success_rate, s.clean_success_rate, s.broken_rate, s.dropped_rate) == (0.5, 0.25, 0.25, 0.0)
    assert s.gate_progress == 0.625  # (1 + 1 + 0.5 + 0) / 4
    assert s.score == 0.5625  # 0.5 * 0.5 + 0.5 * 0.625
    assert (s.peak_contact_force, s.mean_control_effort, s.mean_episode_length) == (70.0, 0.5, 2.25)
    assert len(s.episodes) == 4
    with pytest.raises(ScoreError, match="one task"):
        score_subtask([episodes[0], episode(make_columns(1))])
    with pytest.raises(ScoreError, match="not a Fiatlux subtask"):
        score_subtask([episode(make_columns(1), task_id="FIATLUX-S13-Unknown-v0")])


def subtask_with_score(subtask, s: float) -> SubtaskScore:
    """A subtask of one episode whose score is `s` (gate progress 2s on a failed episode, s <= 0.5)."""
    progress = {0.0: "0000", 0.125: "1000", 0.25: "1100", 0.375: "1110", 0.5: "1111"}[s]
    return score_subtask([episode(make_columns(2, **gates("0000", progress)), task_id=subtask.task_id)])


def test_rollup_excludes_and_lists_missing_subtasks():
    present = [t for t in SUBTASKS if t.key not in ("S02", "S04")]
    scores = {"S01": 0.5, "S03": 0.25, "S05": 0.0, "S06": 0.125, "S07": 0.5,
              "S08": 0.375, "S09": 0.0, "S10": 0.25, "S11": 0.5, "S12": 0.125}  # fmt: skip
    result = rollup([subtask_with_score(t, scores[t.key]) for t in reversed(present)])
    assert [s.key for s in result.subtasks] == [t.key for t in present]  # table order
    assert result.missing == ("FIATLUX-S02-ClimbLadder-v0", "FIATLUX-S04-DescendWithBulb-v0")
    assert result.weight_scored == pytest.approx(26.55, abs=1e-12)  # 34.05 - 3.00 - 4.50
    assert result.weight_total == pytest.approx(34.05, abs=1e-12)
    # 2.25*.5 + 4.2*.25 + 1.8*.125 + 1*.5 + 1.4*.375 + 4.5*.25 + 5.4*.5 + 3*.125 = 7.625
    assert result.weighted_score == pytest.approx(7.625 / 26.55, abs=1e-12)
    with pytest.raises(ScoreError, match="once"):
        rollup([subtask_with_score(SUBTASKS[0], 0.5)] * 2)


def test_score_run_groups_bags_by_task_and_renders_markdown(tmp_path):
    s05, s06 = "FIATLUX-S05-CarryBulbToDisposal-v0", "FIATLUX-S06-DisposeBulb-v0"
    s06_conjuncts = ("inside", "at_rest", "released", "standing")
    win = {"success_term": [False, True], **gates("0000", "1111")}
    write_bag(tmp_path / "a" / "bags" / "episode_0.h5", make_meta(s05, 0), make_columns(2, **win))
    write_bag(tmp_path / "a" / "bags" / "episode_1.h5", make_meta(s05, 1), make_columns(4, **gates("0000", "0000", "1100", "0000")))
    write_bag(
        tmp_path / "b" / "bags" / "episode_0.h5",
        make_meta(s06, 0, s06_conjuncts),
        make_columns(3, s06_conjuncts, actions=np.ones((3, 2)), success_term=[False, False, True], **gates("0000", "1100", "1111", conjuncts=s06_conjuncts)),
    )  # fmt: skip

    result = score_run(tmp_path)
    s5, s6 = result.subtasks
    assert (s5.task_id, len(s5.episodes), s5.success_rate, s5.gate_progress, s5.score) == (s05, 2, 0.5, 0.75, 0.625)
    assert (s6.task_id, len(s6.episodes), s6.success_rate, s6.gate_progress, s6.score) == (s06, 1, 1.0, 1.0, 1.0)
    assert result.weighted_score == pytest.approx((1.5 * 0.625 + 1.8 * 1.0) / 3.3, abs=1e-12)
    assert len(result.missing) == 10
    assert result.to_json()["subtasks"][0]["episodes"][1] == {
        "task_id": s05, "seed": 1, "success": False, "broken": False, "dropped": False, "clean_success": False,
        "peak_contact_force": 0.0, "control_effort": 0.0, "length": 4, "gate_progress": 0.5,
        "episode_return": None, "reward_terms": {},  # this bag logs no reward
    }  # fmt: skip
    assert json.loads(json.dumps(result.to_json()))["missing"][0] == "FIATLUX-S01-MoveLadder-v0"

    assert markdown(result) == (
        "| Subtask | Weight | Episodes | Success | Clean success | Broken | Dropped | ρ | s | Effort | Mean length |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
        "| S05 CarryBulbToDisposal | 1.50 | 2 | 0.50 | 0.50 | 0.00 | 0.00 | 0.750 | 0.625 | 0.000 | 3.0 |\n"
        "| S06 DisposeBulb | 1.80 | 1 | 1.00 | 1.00 | 0.00 | 0.00 | 1.000 | 1.000 | 2.000 | 3.0 |\n"
        "\n"
        "Weighted S = 0.8295 over 2 of 12 subtasks (weight 3.30 of 34.05).\n"
        "Missing, so excluded rather than scored zero: S01 MoveLadder, S02 ClimbLadder, S03 RemoveOldBulb, "
        "S04 DescendWithBulb, S07 ApproachNewBulb, S08 GrabNewBulb, S09 CarryBulbToLadder, S10 ClimbWithBulb, "
        "S11 ScrewInBulb, S12 ClimbDown.\n"
    )


def test_the_reward_columns_sum_to_each_episodes_breakdown_and_their_means(tmp_path):
    terms = ("progress_disposal", "fall")
    meta = make_meta() | {"reward_terms": list(terms)}
    progress, fall = [0.1, 0.2, 0.3], [0.0, 0.0, -4.0]
    cols = make_columns(3, reward_progress_disposal=progress, reward_fall=fall, reward=np.add(progress, fall))
    write_bag(tmp_path / "bags" / "episode_0.h5", meta, cols)
    cols = make_columns(2, reward_progress_disposal=[1.0, 1.0], reward_fall=[0.0, 0.0], reward=[1.0, 1.0])
    write_bag(tmp_path / "bags" / "episode_1.h5", meta | {"seed": 1}, cols)
    (s05,) = score_run(tmp_path).subtasks
    first, second = s05.episodes
    assert first.reward_terms == pytest.approx({"progress_disposal": 0.6, "fall": -4.0}) and first.episode_return == pytest.approx(-3.4)
    assert s05.mean_return == pytest.approx((-3.4 + 2.0) / 2)
    assert s05.mean_reward_terms == pytest.approx({"progress_disposal": 1.3, "fall": -2.0})
    assert "| S05 CarryBulbToDisposal | -0.7 | progress_disposal +1.3; fall -2 |" in markdown(score_run(tmp_path))
    bad = make_columns(2, reward_fall=[0.0, 0.0], reward=[0.0, 0.0])  # a term the meta names has no column
    assert "missing columns ['reward_progress_disposal']" in one_line_bag_error(write_bag, tmp_path / "x.h5", meta, bad)


def test_score_run_refuses_an_empty_directory_and_two_runs_of_one_seed(tmp_path):
    with pytest.raises(ScoreError, match="no bags"):
        score_run(tmp_path)
    for run in ("zero", "random"):
        write_bag(tmp_path / run / "bags" / "episode_0.h5", make_meta(), make_columns(1))
    with pytest.raises(ScoreError, match="seed 0 is also in"):
        score_run(tmp_path)


def test_the_errand_is_scored_on_its_chain_of_gates_beside_s_not_in_it(tmp_path):
    """Two errand episodes: 3 of 12 gates passed (then a fall), and all 12 (success)."""
    errand = "FIATLUX-Replace-v0"
    chain = tuple(f"S{k:02d}_passed" for k in range(1, 13))
    partial = gates("0" * 12, "1" + "0" * 11, "111" + "0" * 9, "111" + "0" * 9, conjuncts=chain)
    whole = gates("0" * 12, "1" * 6 + "0" * 6, "1" * 12, conjuncts=chain)
    write_bag(tmp_path / "e" / "bags" / "episode_0.h5", make_meta(errand, 0, chain), make_columns(4, chain, **partial))
    write_bag(tmp_path / "e" / "bags" / "episode_1.h5", make_meta(errand, 1, chain),
              make_columns(3, chain, success_term=[False, False, True], **whole))
    s07 = "FIATLUX-S07-ApproachNewBulb-v0"
    write_bag(tmp_path / "s" / "bags" / "episode_0.h5", make_meta(s07, 0), make_columns(2, **gates("0000", "1100")))

    result = score_run(tmp_path)
    e = result.errand
    assert (e.key, e.weight, len(e.episodes), e.success_rate) == ("ERRAND", None, 2, 0.5)
    assert e.gate_progress == pytest.approx((3 / 12 + 1.0) / 2) and e.score == pytest.approx(0.25 + 0.5 * 0.625)
    assert [s.key for s in result.subtasks] == ["S07"] and result.weighted_score == pytest.approx(0.25)  # S07 alone
    assert markdown(result).splitlines()[3].startswith("| Errand (FIATLUX-Replace-v0: ρ = share of the 12 gates passed) | — | 2 |")
    with pytest.raises(ScoreError, match="beside the subtasks"):
        rollup([e])


def test_scorer_imports_without_mujoco_or_torch():
    src = Path(humanoidtoolbench.__file__).parents[1]
    code = (
        "import sys\n"
        "sys.modules['mujoco'] = None\n"  # any `import mujoco` now raises ImportError
        "import humanoidtoolbench.suites.fiatlux.scoring\n"
        "assert 'torch' not in sys.modules\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(src), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
