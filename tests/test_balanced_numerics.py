"""The balanced controller's fast paths give the numbers of the plain computations they replace, bit for bit."""

from __future__ import annotations

import copy

import mink
import mujoco
import numpy as np
import qpsolvers

from humanoidtoolbench.control.balanced.armload import Load
from humanoidtoolbench.control.balanced.balanced import BalancedController
from humanoidtoolbench.control.balanced.footsteps import Schedule, Timing
from humanoidtoolbench.control.balanced.wholebody import cross, heading
from humanoidtoolbench.control.contracts import decoupled_v1 as contract
from humanoidtoolbench.sim.simulation import home_upper_pose, robot_in_room

DT, STEPS = 0.02, 80


def reference_preview(sch: Schedule, velocity, walking: bool):
    """What `preview` stands for: a copy advanced period by period, read by the plain methods."""
    ghost = copy.deepcopy(sch)
    zmp, centre, feet = [], [], []
    for i in range(STEPS + 1):
        if i:
            ghost.advance(DT, velocity, walking)
        zmp.append(ghost.zmp())
        centre.append(ghost.centre())
        feet.append(ghost.feet_positions())
    return np.array(zmp), np.array(centre), np.array(feet)


def test_the_preview_is_a_copy_of_the_schedule_advanced_period_by_period():
    """Standing, walking (landings moved mid-swing), turning at a changing rate and stopping:
    every period's preview, whether computed afresh or shifted from the last one, is the
    reference's to the bit."""
    sch = Schedule.standing(Timing(), np.array([1.3, -0.4, 0.7]))
    rng = np.random.default_rng(3)
    shifted = 0
    for k in range(500):
        walking = 20 <= k < 330
        rate = 0.3 * np.sin(k / 15) if 200 <= k < 330 else 0.0
        velocity = (0.2 if k < 200 else 0.0, -0.05 if 120 <= k < 160 else 0.0, rate)
        if walking and k % 7 == 0:  # capture-point stepping moves the landing point now and then
            sch.adjust_landing(rng.uniform(-0.05, 0.05, 2), 0.6, 0.08)
        memo = sch._ahead
        got = sch.preview(DT, STEPS, velocity, walking)
        shifted += memo is not None and sch._ahead[2] is memo[2]
        for a, b in zip(got, reference_preview(sch, velocity, walking)):
            assert a.shape == b.shape and a.tobytes() == b.tobytes(), k
        sch.advance(DT, velocity, walking)
    assert sch.phase == "stand"
    assert 100 < shifted < 450  # both ways were taken


def test_the_whole_body_qp_is_the_one_mink_and_qpsolvers_solve():
    """Standing, walking, then turning while lowering the pelvis: the QP assembled in place
    (residual rows, constant posture and limit rows) is the one mink builds, to the bit."""
    sim = robot_in_room(BalancedController())
    ik = sim.controller.ik
    for k in range(90):
        walk = (0.2, 0.05, 0.0, 0.0) if 10 <= k < 50 else (0.0, 0.0, 0.5, 0.6) if k >= 50 else (0.0,) * 4
        height = contract.DEFAULT_BASE_HEIGHT - (0.04 if k >= 50 else 0.0)
        sim.step(contract.decode(np.concatenate([home_upper_pose(), [height, *walk]])))
        if k % 6 == 5:
            problem = mink.build_ik(ik.cfg, ik.tasks, DT, ik.damping, ik.limits, [ik.freeze])
            expected = qpsolvers.solve_problem(problem, solver="daqp").x
            assert ik._qp().tobytes() == expected.tobytes()


def test_the_cross_product_and_heading_are_numpys_and_minks():
    rng = np.random.default_rng(0)
    for _ in range(1000):
        a, b = rng.normal(size=3) * 10.0 ** rng.uniform(-4, 4), rng.normal(size=3)
        assert cross(a, b).tobytes() == np.cross(a, b).tobytes()
    for yaw in (0.0, -0.0, 0.3, -2.9, np.float64(1.1)):
        assert heading(yaw).wxyz.tobytes() == mink.SO3.from_rpy_radians(0.0, 0.0, yaw).wxyz.tobytes()


def reference_torques(ff, q, share, cop, com_acc, ground, loads):
    """The feedforward on a data of its own, its kinematics computed afresh at q and at rest."""
    data = mujoco.MjData(ff.model)
    data.qpos[:] = q
    mujoco.mj_kinematics(ff.model, data)
    mujoco.mj_comPos(ff.model, data)
    return ff.torques(data, share, cop, com_acc, ground, loads)


def test_the_feedforward_on_the_control_robots_data_is_the_one_computed_afresh():
    sim = robot_in_room(BalancedController())
    c = sim.controller
    rng = np.random.default_rng(1)
    loads = (Load(side="left", force=np.array([3.0, -1.0, -20.0]), torque=np.array([0.1, 0.2, -0.3])),)
    for k in range(40):
        row = np.concatenate([home_upper_pose(), [contract.DEFAULT_BASE_HEIGHT, 0.2 if k >= 10 else 0.0, 0.0, 0.0, 0.0]])
        sim.step(contract.decode(row))
        share = {"left": float(rng.uniform()), "right": 0.0 if k % 3 == 0 else 0.4}
        cop = {s: rng.normal(size=2) * 0.1 for s in ("left", "right")}
        args = (share, cop, (0.3, -0.2), 0.01, loads if k % 2 else ())
        got = c.ff.torques(c.ik.cfg.data, *args)
        assert got.tobytes() == reference_torques(c.ff, c.ik.q, *args).tobytes()
