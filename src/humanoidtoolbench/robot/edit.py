"""Edits that turn the upstream G1 + Dex3 MJCF into one of the benchmark's robot variants.

Applied once, at install time, to write the derived model files:
- joint ranges from the public action table, PD position servos with the
  controller gains clipped at the effort limits, and (assisted variant)
  gravity compensation routed through the actuators (so it is clipped too);
- collision geometry pruned to what the variant needs (see `collision.py`
  and `variants.py`), visual geometry moved to its own group and optionally
  swapped for decimated meshes;
- the four robot cameras.
"""

from __future__ import annotations

from typing import Callable

import mujoco

from . import collision
from .cameras import CAMERAS
from .joints import JOINTS
from .variants import VARIANTS, Variant

VISUAL_GROUP = 1  # rendered
COLLISION_GROUP = 3  # not rendered by default

# Contact parameters of robot geoms that touch objects: stiff and nearly
# hard, with torsional friction so a grasped rod does not spin in the hand.
HAND_CONTACT = dict(friction=(1.5, 0.1, 0.02), condim=6, solref=(0.01, 1.0), solimp=(0.9, 0.99, 0.001, 0.5, 2.0))

_HAND_LINKS = ("_elbow_link", "_wrist_roll_link", "_wrist_pitch_link", "_wrist_yaw_link")
_BODY_LINKS = ("pelvis", "torso_link", "_shoulder_pitch_link", "_shoulder_roll_link", "_shoulder_yaw_link")
# Torso-mounted meshes that duplicate the torso's own collision hull.
_DROP_MESHES = {"logo_link", "head_link", "waist_support_link"}


_LEG_LINKS = ("_hip_pitch_link", "_hip_roll_link", "_hip_yaw_link", "_knee_link", "_ankle_pitch_link", "_ankle_roll_link")


def collision_category(body_name: str, variant: Variant = VARIANTS["assisted"]) -> int:
    """Which category a collision geom on this body belongs to in a variant (0: none)."""
    if "_hand_" in body_name or body_name.endswith(_HAND_LINKS):
        return collision.HAND
    if body_name in _BODY_LINKS or body_name.endswith(_BODY_LINKS):
        return collision.BODY
    if variant.leg_contacts and body_name.endswith(_LEG_LINKS):
        return collision.LEG
    return 0


def _is_visual(geom) -> bool:
    return geom.contype == 0 and geom.conaffinity == 0


def edit_robot(
    spec: mujoco.MjSpec,
    visual_mesh_file: Callable[[str], str] | None = None,
    variant: Variant = VARIANTS["assisted"],
) -> mujoco.MjSpec:
    """Apply the benchmark edits of `variant` in place.

    `visual_mesh_file(mesh_name)` returns the file to render a mesh with
    (a decimated copy); None keeps the original meshes for rendering.
    """
    spec.modelname = "g1_htb"
    for s in list(spec.sensors):
        spec.delete(s)
    for a in list(spec.actuators):
        spec.delete(a)

    for row in JOINTS:
        j = spec.joint(row.name)
        j.range = [row.lo, row.hi]
        j.limited = mujoco.mjtLimited.mjLIMITED_TRUE
        j.actfrcrange = [-row.effort, row.effort]
        j.actfrclimited = mujoco.mjtLimited.mjLIMITED_TRUE
        j.actgravcomp = int(variant.gravity_compensation)
        act = spec.add_actuator(name=row.name.removesuffix("_joint"), target=row.name)
        act.trntype = mujoco.mjtTrn.mjTRN_JOINT
        kp, kd = variant.leg_servo if variant.leg_servo and row.group == "leg" else (row.kp, row.kd)
        act.set_to_position(kp=kp, kv=kd)
        act.ctrlrange = [row.lo, row.hi]
        act.ctrllimited = mujoco.mjtLimited.mjLIMITED_TRUE
        act.forcerange = [-row.effort, row.effort]
        act.forcelimited = mujoco.mjtLimited.mjLIMITED_TRUE

    if variant.gravity_compensation:
        for body in spec.bodies:
            if body.name != "world":
                body.gravcomp = 1.0

    used_meshes: set[str] = set()
    visual_copies: dict[str, str] = {}
    for geom in list(spec.geoms):
        body_name = geom.parent.name
        if _is_visual(geom):
            geom.group = VISUAL_GROUP
            if visual_mesh_file is not None and geom.meshname:
                if geom.meshname not in visual_copies:
                    vis = spec.add_mesh(name=f"vis_{geom.meshname}", file=visual_mesh_file(geom.meshname))
                    visual_copies[geom.meshname] = vis.name
                geom.meshname = visual_copies[geom.meshname]
            elif geom.meshname:
                used_meshes.add(geom.meshname)
            continue
        category = collision_category(body_name, variant)
        if category == 0 or geom.meshname in _DROP_MESHES:
            spec.delete(geom)
            continue
        geom.group = COLLISION_GROUP
        geom.rgba = [0.5, 0.5, 0.5, 0.0]
        collision.assign(geom, category, variant.partners)
        if category == collision.HAND:
            collision.set_contact(geom, HAND_CONTACT)
        if variant.sole_corners and body_name.endswith("_ankle_roll_link") and geom.type == mujoco.mjtGeom.mjGEOM_SPHERE:
            heel, toe, half = variant.sole_corners
            x, y, z = geom.pos
            geom.pos = [heel if x < 0 else toe, half if y > 0 else -half, z]
        if geom.meshname:
            used_meshes.add(geom.meshname)

    for mesh in list(spec.meshes):
        if mesh.name not in used_meshes and not mesh.name.startswith("vis_"):
            spec.delete(mesh)

    for cam in CAMERAS:
        body = spec.body(cam.body)
        c = body.add_camera(name=cam.name, pos=list(cam.pos))
        c.alt.type = mujoco.mjtOrientation.mjORIENTATION_XYAXES
        c.alt.xyaxes = cam.xyaxes()
        c.fovy = cam.fovy_deg
    return spec
