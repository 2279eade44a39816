"""Success predicates at their thresholds, and the 50-step hold."""

from __future__ import annotations

import pytest

from humanoidtoolbench.suites.toolbench import fracture
from humanoidtoolbench.suites.base import HoldCounter
from humanoidtoolbench.suites.toolbench.metrics import inside_ring, lifted

pytestmark = pytest.mark.no_robot  # builds no simulation: runs offline, with no robot asset


@pytest.mark.parametrize("lift, ok", [(0.079, False), (0.080, True), (0.081, True), (-0.2, False)])
def test_l0_lift_threshold(lift, ok):
    assert lifted(lift) is ok


@pytest.mark.parametrize("offset, ok", [(0.119, True), (0.121, False)])
def test_ring_radius(offset, ok):
    assert inside_ring((0.3 + offset, -0.1), (0.3, -0.1)) is ok


@pytest.mark.parametrize(
    "impulse, speed, ok",
    [(0.0419, 0.51, False), (0.0421, 0.51, True), (0.049, 0.49, False), (0.10, 0.50, True)],
)
def test_ice_impact_rule(impulse, speed, ok):
    assert fracture.breaks(impulse, speed) is ok


def test_hold_resets_when_predicate_breaks_at_step_49():
    hold = HoldCounter(50)
    assert not any(hold.update(True) for _ in range(49))
    assert not hold.update(False)
    assert not any(hold.update(True) for _ in range(49))
    assert hold.update(True)  # exactly the 50th consecutive step
