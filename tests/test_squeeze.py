"""A tool squeezed against the bench by a finger stays put: the contact model does not squirt.

The scene holds the real bench, one real prop of each tool family and a
Dex3-sized fingertip (the robot's hand contact parameters, hand collision
category) on two slide joints. The fingertip presses down on the handle with
the force the random baseline was seen to reach (about 140 N: an arm servo
pushing the hand, far above a Dex3 finger's own effort), then sweeps across
the handle while still pressing, which is when a penetrating contact would let
its stored energy go and shoot the tool out like a pinched seed. A sound
contact drags the tool along at about the fingertip's speed.
"""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from humanoidtoolbench.robot import collision
from humanoidtoolbench.robot.edit import HAND_CONTACT
from humanoidtoolbench.sim.scene import new_spec
from humanoidtoolbench.suites.toolbench.bench import TOP, add_bench
from humanoidtoolbench.suites.toolbench.props.tools import FAMILIES

pytestmark = pytest.mark.no_robot  # builds no simulation: runs offline, with no robot asset

PRESS_FORCE = 150.0  # N
ARM_MASS = 1.5  # kg: the effective mass of a G1 forearm and hand behind the fingertip
APPROACH_SPEED = 0.1  # m/s down onto the handle
FINGER_RADIUS = 0.009  # m, a Dex3 fingertip
SWEEP_SPEED = 0.2  # m/s across the handle
# m/s: the fastest a pressed tool may move. A squirt throws it at metres per second; a sound contact
# drags it along at about the sweep's speed (0.2-0.7 m/s measured here, the hook and hammer rocking).
STILL = 1.0


def family_prop(family: str):
    builder = FAMILIES[family]
    return builder(0, 0.6) if family == "stick" else builder(0)


def squeeze_scene(family: str):
    prop = family_prop(family)
    spec = new_spec()
    add_bench(spec, (0.5, 0.4, 0.3, 1))
    body = spec.worldbody.add_body(name="tool", pos=[0, 0, TOP])
    body.add_freejoint(name="tool_joint")
    prop.build(spec, body, "tool_")
    grasp = np.asarray(prop.grasp)
    finger = spec.worldbody.add_body(name="finger", pos=[grasp[0], grasp[1], TOP + prop.height + 0.03])
    for axis, name in (((1, 0, 0), "x"), ((0, 0, 1), "z")):
        finger.add_joint(name=f"finger_{name}", type=mujoco.mjtJoint.mjJNT_SLIDE, axis=list(axis), damping=5.0)
    tip = finger.add_geom(type=mujoco.mjtGeom.mjGEOM_SPHERE, size=[FINGER_RADIUS, 0, 0], mass=ARM_MASS)
    collision.assign(tip, collision.HAND)
    collision.set_contact(tip, HAND_CONTACT)
    for name, kp, limit in (("x", 2000.0, 200.0), ("z", 5000.0, PRESS_FORCE)):
        act = spec.add_actuator(name=f"finger_{name}", target=f"finger_{name}")
        act.trntype = mujoco.mjtTrn.mjTRN_JOINT
        act.set_to_position(kp=kp, kv=0.0)
        act.forcerange = [-limit, limit]
        act.forcelimited = mujoco.mjtLimited.mjLIMITED_TRUE
    model = spec.compile()
    return model, mujoco.MjData(model)


@pytest.mark.parametrize("family", ["stick", "hook", "hammer", "decoy"])
def test_a_squeezed_tool_is_not_thrown(family):
    model, data = squeeze_scene(family)
    tool_dofs = slice(model.jnt_dofadr[model.joint("tool_joint").id], model.jnt_dofadr[model.joint("tool_joint").id] + 3)
    z_adr = model.jnt_qposadr[model.joint("tool_joint").id] + 2
    finger_geom = model.body("finger").geomadr[0]
    tool_body = model.body("tool").id
    mujoco.mj_forward(model, data)
    for _ in range(100):  # the tool settles on the bench
        mujoco.mj_step(model, data)
    rest_z = float(data.qpos[z_adr])
    fastest, pressing = 0.0, 0
    dt = model.opt.timestep
    for k in range(1800):  # down onto the handle and into it (the target ends 17 cm below the bench,
        # so the servo pushes at its force limit), then a 0.3 m sweep across the handle, still pressing
        data.ctrl[1] = max(-0.2, -APPROACH_SPEED * k * dt)
        if k >= 500:
            data.ctrl[0] = min(0.3, SWEEP_SPEED * (k - 500) * dt)
        mujoco.mj_step(model, data)
        fastest = max(fastest, float(np.linalg.norm(data.qvel[tool_dofs])))
        for i in range(data.ncon):
            c = data.contact[i]
            if finger_geom in (c.geom1, c.geom2) and tool_body in (model.geom_bodyid[c.geom1], model.geom_bodyid[c.geom2]):
                pressing += 1
                break
    assert pressing > 50, f"the fingertip pressed the {family} on only {pressing} steps"
    assert fastest < STILL, f"the squeezed {family} reached {fastest:.2f} m/s"
    assert abs(float(data.qpos[z_adr]) - rest_z) < 0.05, f"the {family} left the bench"
