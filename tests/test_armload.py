"""The balanced robot leans into a load on its arms, and light loads change nothing."""

from __future__ import annotations

import dataclasses
import math

import mujoco
import numpy as np
import pytest

from humanoidtoolbench.control.balanced.armload import Lean
from humanoidtoolbench.control.balanced.balanced import STIFF, BalancedController, Tuning
from humanoidtoolbench.control.balanced.preview import G
from humanoidtoolbench.control.contracts import decoupled_v1 as contract
from humanoidtoolbench.control.contracts.decoupled_v1 import JOINT_SLOTS
from humanoidtoolbench.sim.simulation import BasePose, Simulation, home_upper_pose, robot_in_room

from conftest import state_of

HZ = 50
NO_LEAN = dataclasses.replace(STIFF, lean=Lean(deadband=math.inf))
ARM = [i for i, n in enumerate(JOINT_SLOTS) if "shoulder" in n or "elbow" in n]


def pulled(force, seconds: float, tuning=STIFF, ramp: float = 2.0):
    """The standing robot pulled horizontally at both wrists, the force (N, world axes, split
    between them) ramped in over `ramp` seconds and then held; returns the sim and the step it
    fell at (None if it stood)."""
    sim = robot_in_room(BalancedController(tuning))
    wrists = [sim.model.body(f"{s}_wrist_yaw_link").id for s in ("left", "right")]
    cmd = contract.decode(np.concatenate([home_upper_pose(), [contract.DEFAULT_BASE_HEIGHT, 0.0, 0.0, 0.0, 0.0]]))
    for k in range(int(round(seconds * HZ))):
        sim.data.xfrc_applied[wrists, :3] = min(k / (ramp * HZ), 1.0) * np.asarray(force, float) / 2
        sim.step(cmd)
        if sim.fallen():
            return sim, k
    return sim, None


def test_the_arms_load_is_read_at_the_wrists_and_the_lean_balances_its_moment():
    sim, fell = pulled([40.0, 0.0, 0.0], 3.0)
    assert fell is None
    c, d = sim.controller, sim.data
    for side in ("left", "right"):  # the filter has settled on what is applied
        assert c.arm_loads.wrench[side][:3] == pytest.approx([20.0, 0.0, 0.0], abs=0.2)
    cop = np.array([*c.schedule.centre(), 0.0])
    lean, loads = c.arm_loads.lean_into(d, cop, c.ff.mass)
    height = np.mean([d.xipos[b, 2] for b in c.arm_loads.wrist.values()])  # an applied force acts at the CoM
    wanted = height * 40.0 / (c.ff.mass * G) - c.tuning.lean.deadband
    assert lean[0] == pytest.approx(-wanted, abs=0.003)  # pulled forwards, it leans back
    assert abs(lean[1]) < 0.003
    com = d.subtree_com[sim.model.body("pelvis").id, :2] - c.schedule.centre()
    assert com[0] < -0.7 * wanted  # and the robot has leaned back that far
    assert sum(load.force[0] for load in loads) == pytest.approx(40.0 * (1 - c.tuning.lean.deadband / (wanted + c.tuning.lean.deadband)), abs=0.5)


@pytest.mark.parametrize("force", [[80.0, 0.0, 0.0], [-80.0, 0.0, 0.0], [0.0, 110.0, 0.0]], ids=["forward", "backward", "lateral"])
def test_leaning_holds_a_steady_pull_that_fells_the_robot_without_it(force):
    """Without the lean the standing robot falls at about 50 N pulled forwards or backwards and 67 N
    sideways (`benchmarks/diagnostics/balance.py`); leaning into the pull it stands, arms on their targets."""
    sim, fell = pulled(force, 4.0)
    assert fell is None
    measured = state_of(sim)[:31]
    assert np.abs(measured[ARM] - home_upper_pose()[ARM]).max() < 0.05
    assert pulled(force, 4.0, NO_LEAN)[1] is not None


def test_a_load_inside_the_deadband_changes_nothing():
    """A 5 N pull asks for less than a centimetre of lean: the trajectory is the one without the lean."""
    sim, _ = pulled([5.0, 0.0, 0.0], 2.0, ramp=0.5)
    c = sim.controller
    assert c.arm_loads.lean_into(sim.data, np.array([*c.schedule.centre(), 0.0]), c.ff.mass) is None
    assert np.array_equal(sim.data.qpos, pulled([5.0, 0.0, 0.0], 2.0, NO_LEAN, ramp=0.5)[0].data.qpos)


def raise_arms_into(sim: Simulation) -> None:
    """Both arms raised forwards over a second and held for two, straight at the elbow."""
    raised, home = home_upper_pose(), home_upper_pose()
    for side in ("left", "right"):
        raised[JOINT_SLOTS.index(f"{side}_shoulder_pitch_joint")] = -1.5
        raised[JOINT_SLOTS.index(f"{side}_elbow_joint")] = 0.0
    for k in range(150):
        upper = home + (raised - home) * min(k / 50, 1.0)
        sim.step(contract.decode(np.concatenate([upper, [contract.DEFAULT_BASE_HEIGHT, 0.0, 0.0, 0.0, 0.0]])))
        assert not sim.fallen()


FACE = 0.47  # m: the near face of what the raised hands press on


def crate(spec) -> None:
    """A 100 kg crate standing free on the floor: it neither slides nor tips under the hands."""
    body = spec.worldbody.add_body(name="crate", pos=[FACE + 0.2, 0.0, 0.7])
    body.add_freejoint()
    body.add_geom(type=mujoco.mjtGeom.mjGEOM_BOX, size=[0.2, 0.5, 0.7], mass=100.0)


def wall(spec) -> None:
    spec.worldbody.add_geom(type=mujoco.mjtGeom.mjGEOM_BOX, size=[0.05, 0.5, 0.5], pos=[FACE + 0.05, 0.0, 0.9])


def pushed_back(sim: Simulation, side: str) -> float:
    """The force along x the world's contacts put on one arm, as MuJoCo sums it per body."""
    mujoco.mj_rnePostConstraint(sim.model, sim.data)
    return sim.data.cfrc_ext[sim.controller.arm_loads.bodies[side], 3:].sum(axis=0)


def test_the_hands_pressing_on_a_heavy_crate_read_its_push_and_lean_into_it():
    sim = robot_in_room(BalancedController(), add_to_scene=crate)
    raise_arms_into(sim)
    loads, c = sim.controller.arm_loads, sim.controller
    for side in ("left", "right"):
        summed = pushed_back(sim, side)
        assert summed[0] < -20.0  # the crate pushes the hand back
        assert loads.wrench[side][:3] == pytest.approx(summed, abs=1.5)
    lean, _ = loads.lean_into(sim.data, np.array([*c.schedule.centre(), 0.0]), c.ff.mass)
    assert lean[0] > 0.02  # pushed back, it leans forwards


def test_fixed_furniture_is_not_a_load():
    """The same push from a wall fixed in the room: the hands are held up, not loaded."""
    sim = robot_in_room(BalancedController(), add_to_scene=wall)
    raise_arms_into(sim)
    for side in ("left", "right"):
        assert pushed_back(sim, side)[0] < -20.0
        assert not sim.controller.arm_loads.wrench[side].any()


TREAD = 0.05  # m: the top of a free platform the robot stands on


def platform(spec) -> None:
    """A 300 kg platform standing free on the floor, a post rising from it where the hands press."""
    body = spec.worldbody.add_body(name="platform", pos=[0.1, 0.0, TREAD / 2])
    body.add_freejoint()
    body.add_geom(type=mujoco.mjtGeom.mjGEOM_BOX, size=[0.6, 0.5, TREAD / 2], mass=300.0)
    body.add_geom(type=mujoco.mjtGeom.mjGEOM_BOX, size=[0.05, 0.5, 0.5], pos=[FACE - 0.05, 0.0, 0.9 - TREAD / 2], mass=20.0)


def test_what_the_feet_stand_on_is_not_a_load():
    """A hand braced on the ladder the robot stands on pushes the two apart, not the pair over:
    the post of the platform under its feet pushes the hands back, and nothing is leaned into."""
    spawn = BasePose(0.0, 0.0, contract.DEFAULT_BASE_HEIGHT + TREAD, 0.0)
    sim = robot_in_room(BalancedController(Tuning(ground_from_spawn=True)), spawn, add_to_scene=platform)
    raise_arms_into(sim)
    for side in ("left", "right"):
        assert pushed_back(sim, side)[0] < -20.0
        assert not sim.controller.arm_loads.wrench[side].any()
