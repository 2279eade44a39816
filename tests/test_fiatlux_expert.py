"""The Fiatlux scripted expert under `--controller balanced`: it picks the fresh bulb up (S08), drops
the old one into the crate (S06), takes the old one out of the fixture from the ladder's top tread
(S03), puts the fresh one in (S11) and refuses what it cannot run, in one line."""

from __future__ import annotations

import numpy as np
import pytest

from humanoidtoolbench.planning.caution import NoCaution
from humanoidtoolbench.planning.kinematics import Kinematics
from humanoidtoolbench.suites.fiatlux import SUITE
from humanoidtoolbench.suites.fiatlux.expert import Expert
from humanoidtoolbench.suites.fiatlux.expert.caution import CAUTIONS
from humanoidtoolbench.suites.fiatlux.expert.common import context
from humanoidtoolbench.suites.fiatlux.gates import GLASS_LIMIT
from humanoidtoolbench.suites.fiatlux.subtasks import BY_KEY

from rollouts import play


def run(key: str, seed: int, steps: int):
    ep = SUITE.make_episode(BY_KEY[key], seed, SUITE.make_controller("balanced"), "fast")
    ep.reset()
    expert, peak = Expert(), 0.0

    def act(requests: int) -> np.ndarray:
        return expert({"privileged": ep.privileged(), "history": {"reset": requests == 0}, "state": {}})

    for result in play(ep, SUITE.action_contract("balanced"), act, steps):
        peak = max(peak, result.metrics["grip_force"])
    return result, peak


def test_the_expert_grabs_the_fresh_bulb_gently():
    """Seed 0 of S08: the gate (lifted 3 cm, two hand bodies over 1 N, at most 50 N, standing) holds
    0.5 s within 12 s of the start, and the fingers never press near the glass limit."""
    result, peak = run("S08", 0, 600)
    assert result.outcome == "success" and result.success
    assert 1.0 < peak < GLASS_LIMIT / 2


def test_the_expert_drops_the_old_bulb_into_the_crate():
    """Seed 1 of S06: the bulb lands inside the crate, lies still and is released for 1 s, with
    the robot standing, within 12 s of the start."""
    result, _ = run("S06", 1, 600)
    assert result.outcome == "success" and result.success
    assert result.metrics["gate_old_bulb_in_crate"] and result.metrics["gate_old_bulb_released"]


@pytest.mark.slow
def test_the_expert_takes_the_old_bulb_out_of_the_fixture_on_the_tread():
    """Seed 0 of S03 (ceiling socket): standing on the top tread, the hand draws the bulb out past
    0.10 m from the seat and holds it 0.5 s, the ladder upright, within 12 s of the start."""
    result, peak = run("S03", 0, 600)
    assert result.outcome == "success" and result.success
    assert result.metrics["gate_old_bulb_unseated"] and result.metrics["gate_standing"]
    assert 1.0 < peak < GLASS_LIMIT


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 4])  # a ceiling socket, a wall one
def test_the_expert_seats_the_fresh_bulb_and_lets_go(seed):
    """S11 from the top tread: the cap goes in along the socket's axis, the seat captures it, the
    fingers let go (under 1 N) and the bulb rests seated for 1 s, the robot standing, within 16 s."""
    result, peak = run("S11", seed, 800)
    assert result.outcome == "success" and result.success
    assert result.metrics["gate_fresh_bulb_seated"] and result.metrics["gate_fresh_bulb_released"]
    assert peak < GLASS_LIMIT


def test_the_balanced_controller_stands_on_the_tread_it_starts_on():
    """An on-tread start: the controller takes the tread as its ground, so the feet are planned
    on it (not 1.18 m lower, on the floor) and the robot keeps standing there."""
    ep = SUITE.make_episode(BY_KEY["S03"], 0, SUITE.make_controller("balanced"), "fast")
    ep.reset()
    tread = ep.tread_top
    assert ep.controller.ground == pytest.approx(tread, abs=1e-3)
    hold = context(Kinematics(), ep.privileged()).cmd  # stand as started
    for _ in range(100):
        result = ep.step(hold)
    assert result.outcome is None and result.metrics["gate_standing"]
    assert ep.privileged()["base"][2] - tread > 0.7


def privileged(controller: str = "balanced", subtask: str = "S08") -> dict:
    ep = SUITE.make_episode(BY_KEY[subtask], 0, SUITE.make_controller(controller), "fast")
    ep.reset()
    return ep.privileged()


def test_privileged_state_carries_what_the_expert_reads():
    world = privileged()
    assert world["subtask"] == "S08" and world["controller"] == "balanced"
    assert world["joints"].shape == (43,) and world["base"].shape == (4,)
    np.testing.assert_allclose(world["base"][:3], world["poses"]["pelvis"][:3])
    assert world["grip_force"] == {"old_bulb": 0.0, "fresh_bulb": 0.0}  # S08 starts with the hands free
    held = privileged(subtask="S05")["grip_force"]
    assert held["old_bulb"] > 1.0 and held["fresh_bulb"] == 0.0


@pytest.mark.parametrize(
    "request_, message",
    [
        ({"history": {"reset": True}}, "needs privileged simulator state"),
        ({"privileged": {"controller": "servo", "subtask": "S08"}, "history": {"reset": True}}, "--controller balanced only"),
        ({"privileged": {"controller": "balanced", "subtask": "S12"}, "history": {"reset": True}}, "not S12"),
    ],
)
def test_the_expert_refuses_what_it_cannot_run_in_one_line(request_, message):
    with pytest.raises(RuntimeError, match=message) as err:
        Expert()(request_)
    assert "\n" not in str(err.value)


def test_the_caution_table_names_controllers_of_the_suite_and_refuses_any_other():
    """The expert's checks and its context read one table: a controller without a row is an error."""
    assert set(CAUTIONS) == {"balanced"} <= set(SUITE.controllers)
    world = {"controller": "servo", "joints": np.zeros(43), "base": np.zeros(4)}
    with pytest.raises(NoCaution, match=r"^no caution for controller 'servo'; the expert declares balanced$"):
        context(Kinematics(), world)
