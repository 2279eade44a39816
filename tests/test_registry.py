"""The 18 condition IDs, their order, parsing and instructions."""

from __future__ import annotations

import gymnasium as gym
import pytest

import humanoidtoolbench  # noqa: F401  (registers the environments)
from humanoidtoolbench.suites.toolbench import registry
from humanoidtoolbench.suites.toolbench import scenarios

pytestmark = pytest.mark.no_robot  # builds no simulation: runs offline, with no robot asset


def test_eighteen_conditions_in_run_order():
    names = [c.name for c in registry.CONDITIONS]
    assert len(names) == len(set(names)) == 18
    assert names[:3] == ["G1BallMove-L0-S", "G1BallMove-L1-S", "G1BallMove-L2-S"]
    assert all(n.endswith("-S") for n in names[:9]) and all(n.endswith("-R") for n in names[9:])
    assert names[9] == "G1BallMove-L0-R" and names[-1] == "G1IceBreak-L2-R"
    assert registry.DEFAULT_ENV == "G1BallMove-L0-S"


@pytest.mark.parametrize("text", ["G1BallRetrieve-L1-R", "humanoidtoolbench/G1BallRetrieve-L1-R", " g1ballretrieve-l1-r "])
def test_ids_parse_with_or_without_prefix(text):
    cond = registry.parse(text)
    assert (cond.scenario, cond.level, cond.mode) == ("BallRetrieve", 1, "R")
    assert cond.env_id == "humanoidtoolbench/G1BallRetrieve-L1-R"


def test_unknown_id_names_the_closest():
    with pytest.raises(registry.UnknownEnvironment, match="did you mean G1IceBreak-L2-S"):
        registry.parse("G1IceBrake-L2-S")


def test_instructions_are_the_six_canonical_sentences():
    assert {text for row in scenarios.ROWS for text in (row.select, row.use)} == {
        "Pick the tool for moving the ball to the target.",
        "Pick the tool and move the ball to the target.",
        "Pick the tool for retrieving the ball to the target.",
        "Pick the tool and retrieve the ball to the target.",
        "Pick the tool for breaking the ice blocks.",
        "Pick the tool and break the ice blocks.",
    }
    for c in registry.CONDITIONS:
        twin = registry.parse(c.name[:-1] + ("R" if c.mode == "S" else "S"))
        assert c.instruction == twin.instruction
    assert registry.parse("G1IceBreak-L1-S").instruction != registry.parse("G1IceBreak-L0-S").instruction
    assert registry.parse("G1IceBreak-L1-S").instruction == registry.parse("G1IceBreak-L2-S").instruction


def test_gymnasium_registry_has_all_ids():
    for c in registry.CONDITIONS:
        assert c.env_id in gym.registry
