"""The painted target ring and the ball: task primitives generated in code.

In a dressed look the ring is painted red between two white edge lines, so
it stands out on any wood, and the ball is glossy with a white stripe round
its equator, so its rolling shows.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np
import trimesh

from ...robot import collision
from ...sim.look import Wardrobe, visual
from .layout import BALL_RADIUS, RING_RADIUS

BALL_MASS = 0.05
# Rolls freely (low rolling friction) but does not skate.
BALL_CONTACT = dict(friction=(1.0, 0.005, 0.0005), condim=6, priority=11, solref=(0.02, 1.0))
RING_WIDTH = 0.015
RING_RGBA = (0.85, 0.12, 0.10, 1.0)
BALL_RGBA = (0.95, 0.55, 0.05, 1.0)
EDGE_WIDTH = 0.004  # m, the white lines either side of a dressed ring
EDGE_RGBA = (0.95, 0.95, 0.92, 1.0)
STRIPE_RGBA = (0.97, 0.97, 0.95, 1.0)
STRIPE_WIDTH = 0.0025  # m, half-thickness of the ball's stripe


def annulus(r_in: float, r_out: float, thickness: float, segments: int = 48) -> tuple[np.ndarray, np.ndarray]:
    """A closed flat ring (vertices, triangles), outward-facing."""
    a = np.linspace(0, 2 * math.pi, segments, endpoint=False)
    rings = [(r, z) for z in (0.0, thickness) for r in (r_in, r_out)]
    verts = np.array([[r * math.cos(t), r * math.sin(t), z] for r, z in rings for t in a])
    ib, ob, it, ot = (k * segments for k in range(4))
    faces = []
    for i in range(segments):
        j = (i + 1) % segments
        faces += [[it + i, ot + i, ot + j], [it + i, ot + j, it + j]]  # top
        faces += [[ib + i, ob + j, ob + i], [ib + i, ib + j, ob + j]]  # bottom
        faces += [[ob + i, ob + j, ot + j], [ob + i, ot + j, ot + i]]  # outer wall
        faces += [[ib + i, it + j, ib + j], [ib + i, it + i, it + j]]  # inner wall
    return verts, np.array(faces)


def add_ring(spec: mujoco.MjSpec, xy, surface_z: float, wardrobe: Wardrobe | None = None) -> None:
    """A visual-only ring of radius RING_RADIUS painted on the surface."""
    verts, faces = annulus(RING_RADIUS - RING_WIDTH / 2, RING_RADIUS + RING_WIDTH / 2, 0.001)
    spec.add_mesh(name="ring_mesh", uservert=verts.ravel().tolist(), userface=faces.ravel().tolist())
    geom = spec.worldbody.add_geom(
        name="ring",
        type=mujoco.mjtGeom.mjGEOM_MESH,
        meshname="ring_mesh",
        pos=[xy[0], xy[1], surface_z],
        rgba=list(RING_RGBA),
        group=2,
    )
    geom.contype = geom.conaffinity = 0
    geom.density = 0.0
    if wardrobe is None:
        return
    paint = dict(specular=0.1, shininess=0.2)
    wardrobe.dress(geom, "plastic", RING_RGBA, **paint)
    white = wardrobe.material("plastic", EDGE_RGBA, **paint)
    for k, r in enumerate((RING_RADIUS - RING_WIDTH / 2 - EDGE_WIDTH / 2, RING_RADIUS + RING_WIDTH / 2 + EDGE_WIDTH / 2)):
        edge = annulus(r - EDGE_WIDTH / 2, r + EDGE_WIDTH / 2, 0.001)
        visual.add_mesh(spec, spec.worldbody, f"ring_edge_{k}", edge, material=white, pos=(xy[0], xy[1], surface_z))


def add_ball(spec: mujoco.MjSpec, xy, surface_z: float, wardrobe: Wardrobe | None = None) -> None:
    body = spec.worldbody.add_body(name="ball", pos=[xy[0], xy[1], surface_z + BALL_RADIUS])
    body.add_freejoint(name="ball_joint")
    geom = body.add_geom(
        name="ball", type=mujoco.mjtGeom.mjGEOM_SPHERE, size=[BALL_RADIUS, 0, 0], mass=BALL_MASS, rgba=list(BALL_RGBA)
    )
    collision.assign(geom, collision.OBJECT)
    collision.set_contact(geom, BALL_CONTACT)
    if wardrobe is not None:
        wardrobe.dress(geom, "plastic", BALL_RGBA, specular=0.6, shininess=0.8)
        stripe = trimesh.creation.annulus(BALL_RADIUS * 0.9, BALL_RADIUS * 1.004, 2 * STRIPE_WIDTH, sections=32)
        visual.add_mesh(spec, body, "ball_stripe", stripe, material=wardrobe.material("plastic", STRIPE_RGBA))
