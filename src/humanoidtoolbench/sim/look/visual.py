"""Visual-only geometry: geoms and meshes that are drawn and take no part in the physics.

A visual geom has contype = conaffinity = 0 (no contacts), zero mass and
density (it adds nothing to its body's mass or inertia) and sits in
`VISUAL_GROUP`, which the cameras draw. Attached to a collision body it
moves with it, so a suite dresses a body without touching its physics.
Meshes come as a `trimesh.Trimesh` or as (vertices, faces) arrays, with
texture coordinates where the Trimesh carries them.
"""

from __future__ import annotations

from typing import Sequence

import mujoco
import numpy as np
import trimesh

VISUAL_GROUP = 2  # drawn by the cameras (sim.render.DRAWN_GROUPS), no contacts
GEOM_TYPES = {"plane": mujoco.mjtGeom.mjGEOM_PLANE, "sphere": mujoco.mjtGeom.mjGEOM_SPHERE,
              "capsule": mujoco.mjtGeom.mjGEOM_CAPSULE, "ellipsoid": mujoco.mjtGeom.mjGEOM_ELLIPSOID,
              "cylinder": mujoco.mjtGeom.mjGEOM_CYLINDER, "box": mujoco.mjtGeom.mjGEOM_BOX,
              "mesh": mujoco.mjtGeom.mjGEOM_MESH}
Mesh = trimesh.Trimesh | tuple[np.ndarray, np.ndarray]


def make_visual(geom: mujoco.MjsGeom) -> mujoco.MjsGeom:
    """Turn a geom visual-only: no contacts, no mass, drawn."""
    geom.contype = 0
    geom.conaffinity = 0
    geom.mass = 0.0
    geom.density = 0.0
    geom.group = VISUAL_GROUP
    return geom


def is_visual(model: mujoco.MjModel, geom: int) -> bool:
    """Whether a compiled geom is visual-only: no contacts, drawn in the visual group (its mass is
    checked on the bodies, which hold it)."""
    return (model.geom_contype[geom] == 0 and model.geom_conaffinity[geom] == 0
            and model.geom_group[geom] == VISUAL_GROUP)


def add_geom(body: mujoco.MjsBody, type: str, size: Sequence[float], *, material: str = "", rgba=None,
             pos=(0.0, 0.0, 0.0), quat=(1.0, 0.0, 0.0, 0.0), name: str = "", **kw) -> mujoco.MjsGeom:
    """A visual-only primitive on `body` (size as MuJoCo reads it for the type)."""
    args = dict(type=GEOM_TYPES[type], size=[*size, *[0.0] * (3 - len(size))], pos=list(pos), quat=list(quat), **kw)
    if name:
        args["name"] = name
    if material:
        args["material"] = material
    if rgba is not None:
        args["rgba"] = list(rgba)
    return make_visual(body.add_geom(**args))


def add_mesh(spec: mujoco.MjSpec, body: mujoco.MjsBody, name: str, mesh: Mesh, *, material: str = "", rgba=None,
             pos=(0.0, 0.0, 0.0), quat=(1.0, 0.0, 0.0, 0.0)) -> mujoco.MjsGeom:
    """A visual-only mesh on `body`, added to the spec's assets as `name` (a Trimesh's UV coordinates,
    if it has them, become the mesh's texture coordinates)."""
    verts, faces, uv = mesh_arrays(mesh)
    asset = spec.add_mesh(name=name, uservert=verts.ravel().tolist(), userface=faces.ravel().tolist())
    if uv is not None:
        asset.usertexcoord = uv.ravel().tolist()
    # A thin or open mesh (a painted ring, a crack) has no volume to compute a solid's inertia from.
    asset.inertia = mujoco.mjtMeshInertia.mjMESH_INERTIA_SHELL
    return add_geom(body, "mesh", (), material=material, rgba=rgba, pos=pos, quat=quat, meshname=name, name=name)


def mesh_arrays(mesh: Mesh) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(vertices, faces, uv or None) of a Trimesh or of (vertices, faces) arrays."""
    if isinstance(mesh, trimesh.Trimesh):
        uv = getattr(mesh.visual, "uv", None)
        return np.asarray(mesh.vertices, float), np.asarray(mesh.faces, int), None if uv is None else np.asarray(uv, float)
    verts, faces = mesh
    return np.asarray(verts, float), np.asarray(faces, int), None
