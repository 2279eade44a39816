"""Fiatlux under `--controller balanced`: the whole-body controller on the Fiatlux robot (research servos)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from humanoidtoolbench.control.balanced import BalancedController
from humanoidtoolbench.control.joint_position import JOINT_NAMES
from humanoidtoolbench.suites import toolbench
from humanoidtoolbench.suites.fiatlux import SUITE
from humanoidtoolbench.suites.fiatlux.robot import gains_table
from humanoidtoolbench.suites.fiatlux.subtasks import BY_KEY


def test_balanced_runs_on_the_fiatlux_robot_and_speaks_decoupled_v1():
    cls = SUITE.controller_class("balanced")
    assert cls.variant == "free" and issubclass(cls, BalancedController)
    assert SUITE.contract_for("balanced") == "decoupled_v1" and SUITE.contract_for("servo") == "joint_position_v1"
    # The tool-use suite keeps the stiff variant and the unchanged controller.
    assert toolbench.SUITE.controller_class("balanced") is BalancedController
    assert BalancedController.variant == "balanced"


def episode(controller: str, seed: int = 0):
    ep = SUITE.make_episode(BY_KEY["S07"], seed, SUITE.make_controller(controller), "fast")
    ep.reset()
    return ep


def test_the_servos_stay_at_the_research_gains():
    ep = episode("balanced")
    m, c = ep.model, ep.controller
    acts = [m.actuator(n.removesuffix("_joint")).id for n in JOINT_NAMES]
    np.testing.assert_allclose(m.actuator_gainprm[acts, 0], gains_table()[:, 0])
    assert m.actuator_gainprm[m.actuator("left_ankle_pitch").id, 0] == 40.0
    np.testing.assert_allclose(c._leg_kp, gains_table()[:12, 0])  # what the torque-to-target conversion divides by


def test_a_zero_velocity_command_stands_where_holding_q0_falls():
    """10 s standing still on the research servos under balanced; the servo controller holding the
    same start pose falls within a few seconds (the controller balances, the servos are not stiffer)."""
    ep = episode("balanced")
    c, d = ep.controller, ep.data
    upper = d.ctrl[c._slot_act].copy()
    start = c.base_pose(d)
    row = np.concatenate([upper, [0.74, 0.0, 0.0, 0.0, 0.0]])
    for _ in range(500):
        assert ep.step(row).outcome is None
    end = c.base_pose(d)
    assert math.hypot(end.x - start.x, end.y - start.y) < 0.03
    assert end.z > 0.7 and end.tilt < 0.1
    assert ep.observer.last_action.shape == (len(JOINT_NAMES),)  # the servo targets, as action units

    held = episode("servo")
    outcomes = [held.step(np.zeros(len(JOINT_NAMES))).outcome for _ in range(250)]
    assert "fell" in outcomes


def test_a_joint_position_row_is_refused_under_balanced():
    from humanoidtoolbench.control.contract import ActionError

    ep = episode("balanced")
    with pytest.raises(ActionError):
        ep.step(np.zeros(len(JOINT_NAMES)))


def _command(ep, nav, seconds: float) -> bool:
    """Hold the start pose's upper body and send `nav(t)` (slots 32-35) for `seconds`; True if it stayed up."""
    c, d = ep.controller, ep.data
    upper = d.ctrl[c._slot_act].copy()
    for k in range(int(round(seconds * 50))):
        ep.step(np.concatenate([upper, [0.74, *nav(k / 50)]]))
        if c.fallen(d):
            return False
    return True


def test_walking_on_the_soft_servos_covers_about_the_commanded_distance_and_stands_after():
    """vx 0.1 m/s for 6 s, holding the start heading, then the zero command 2 s: no fall, the base
    moves 0.6 m less the start-up and stop steps, mostly forwards, and ends upright."""
    ep = episode("balanced")
    c, d = ep.controller, ep.data
    p0 = c.base_pose(d)
    feet = [ep.model.body(f"{s}_ankle_roll_link").id for s in ("left", "right")]
    start = d.xpos[feet, :2].copy()
    assert _command(ep, lambda t: (0.1, 0.0, 0.5, p0.yaw) if t < 6 else (0.0, 0.0, 0.0, 0.0), 8.0)
    p = c.base_pose(d)
    moved = np.array([p.x - p0.x, p.y - p0.y])
    forward = moved @ [math.cos(p0.yaw), math.sin(p0.yaw)]
    sideways = moved @ [-math.sin(p0.yaw), math.cos(p0.yaw)]
    assert 0.4 < forward < 0.75 and abs(sideways) < 0.2
    assert np.linalg.norm(d.xpos[feet, :2] - start, axis=1).min() > 0.3  # both feet stepped
    assert p.z > 0.7 and p.tilt < 0.15 and abs(math.remainder(p.yaw - p0.yaw, 2 * math.pi)) < 0.15


@pytest.mark.slow
def test_a_quarter_turn_on_the_soft_servos_reaches_the_heading_and_stands():
    """A heading command of +pi/2 for 14 s (yaw steps of at most 0.2 rad), then the zero command:
    no fall, the heading within 0.15 rad, the base near where it turned."""
    ep = episode("balanced")
    c, d = ep.controller, ep.data
    p0 = c.base_pose(d)
    target = p0.yaw + math.pi / 2
    assert _command(ep, lambda t: (0.0, 0.0, 0.5, target) if t < 14 else (0.0, 0.0, 0.0, 0.0), 16.0)
    p = c.base_pose(d)
    assert abs(math.remainder(p.yaw - target, 2 * math.pi)) < 0.15
    assert math.hypot(p.x - p0.x, p.y - p0.y) < 0.25 and p.z > 0.7 and p.tilt < 0.15  # 0.16 m measured
