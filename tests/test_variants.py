"""Robot variants side by side, and the fall rule every suite shares."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from humanoidtoolbench.control.base import FALL_HEIGHT, FALL_TILT, BasePose
from humanoidtoolbench.robot import assets, collision
from humanoidtoolbench.robot.variants import VARIANTS


def model(variant: str) -> mujoco.MjModel:
    return mujoco.MjModel.from_xml_path(str(assets.installed().model_path("fast", variant)))


def test_every_variant_is_installed_with_its_own_hash():
    robot = assets.installed()
    hashes = {(v, d): robot.manifest_sha256(d, v) for v in VARIANTS for d in ("fast", "full")}
    assert len(set(hashes.values())) == len(hashes)
    with pytest.raises(assets.AssetError, match="unknown robot variant"):
        robot.model_path("fast", "nope")


def test_the_free_variant_stands_on_its_feet_without_gravity_compensation():
    free, assisted = model("free"), model("assisted")
    assert free.jnt_type[0] == mujoco.mjtJoint.mjJNT_FREE
    assert not free.body_gravcomp.any() and assisted.body_gravcomp[1:].all()
    legs = free.geom_contype == collision.LEG
    assert legs.sum() >= 8 and not (assisted.geom_contype == collision.LEG).any()  # the foot spheres at least
    hands = free.geom_contype == collision.HAND
    assert (free.geom_conaffinity[hands] & collision.BODY).all()  # hands collide with the body
    assert not (assisted.geom_conaffinity[assisted.geom_contype == collision.HAND] & collision.BODY).any()


def test_the_free_robot_holding_its_pose_falls_and_the_rule_sees_it():
    """Servos alone cannot balance the free robot (the measured reason balance is a controller's job)."""
    spec = mujoco.MjSpec()
    spec.worldbody.add_geom(type=mujoco.mjtGeom.mjGEOM_PLANE, size=[5, 5, 1])
    robot = mujoco.MjSpec.from_file(str(assets.installed().model_path("fast", "free")))
    spec.worldbody.add_frame().attach_body(robot.body("pelvis"), "", "")
    m = spec.compile()
    d = mujoco.MjData(m)
    d.qpos[2] = 0.8
    mujoco.mj_forward(m, d)
    d.ctrl[:] = d.qpos[m.jnt_qposadr[m.actuator_trnid[:, 0]]]  # every servo holds its joint where it is
    fell_at = None
    for step in range(int(4.0 / m.opt.timestep)):
        mujoco.mj_step(m, d)
        if BasePose.from_quat(d.qpos[:3], d.qpos[3:7]).fallen():
            fell_at = step * m.opt.timestep
            break
    assert fell_at is not None and fell_at < 4.0
    assert not np.isnan(d.qpos).any()


@pytest.mark.parametrize(
    "pose, fallen",
    [
        (BasePose(0, 0, FALL_HEIGHT + 1e-6, 0), False),
        (BasePose(0, 0, FALL_HEIGHT - 1e-6, 0), True),
        (BasePose(0, 0, 0.7, 0, roll=FALL_TILT - 1e-6), False),
        (BasePose(0, 0, 0.7, 0, pitch=FALL_TILT + 1e-6), True),
    ],
)
def test_fall_rule_at_its_thresholds(pose, fallen):
    assert pose.fallen() is fallen


@pytest.mark.parametrize("height, tilt", [(FALL_HEIGHT, 0.0), (0.7, FALL_TILT), (FALL_HEIGHT - 1e-9, 0.0), (0.7, FALL_TILT + 1e-9)])
def test_fiatlux_standing_is_the_controllers_fall_rule_even_at_the_threshold(height, tilt):
    """Exactly at either threshold the robot stands, for the controller and for Fiatlux's gates alike."""
    from types import SimpleNamespace

    from humanoidtoolbench.control.base import fallen
    from humanoidtoolbench.suites.fiatlux.gates import CONJUNCTS

    snapshot = SimpleNamespace(pelvis=np.array([0.0, 0.0, height]), pelvis_tilt=tilt)
    assert CONJUNCTS["standing"](snapshot) is (not fallen(height, tilt))
    assert fallen(height, tilt) is (height < FALL_HEIGHT or tilt > FALL_TILT)


def test_base_pose_from_a_free_joint_quaternion():
    roll, pitch, yaw = 0.2, -0.3, 1.1
    q = np.zeros(4)
    mujoco.mju_euler2Quat(q, [roll, pitch, yaw], "XYZ")
    pose = BasePose.from_quat([1, 2, 3], q)
    assert pose.z == 3 and pose.tilt == pytest.approx(math.acos(math.cos(roll) * math.cos(pitch)))
