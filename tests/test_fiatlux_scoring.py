"""Fiatlux offline half: the weights table, the bag format and the scorer, on hand-made bags."""

from __future__ import annotations

import math

import pytest

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
