"""Fiatlux offline half: the weights table, the bag format and the scorer, on hand-made bags."""

from __future__ import annotations

import math
from pathlib import Path

import h5py
import numpy as np
import pytest

from humanoidtoolbench.suites.fiatlux.bag import BagError, BagWriter, bag_path, column_dtype, read_bag
from humanoidtoolbench.suites.fiatlux.weights import BY_TASK_ID, FACTORS, SUBTASKS, TOTAL_WEIGHT

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
