"""Drawing tools for dressing a find-navigate-sit scene: visual-only boxes, cylinders and meshes placed by
their extents, colour palettes, and the look's own random stream.

Everything drawn here is visual-only (`sim.look.visual`): it adds no contact and no mass, so the
apartment's physics is the same in every look. The look's choices (variants, colours, doors) come from
`look_generator`, a generator of its own per episode, never from the apartment's or the split's.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np
import trimesh

from ...sim.look import Wardrobe, visual
from .apartments import generator

RGB = tuple[float, float, float]

# Palettes a variant's colours are drawn from.
WOODS: tuple[RGB, ...] = ((0.66, 0.49, 0.30), (0.80, 0.66, 0.48), (0.40, 0.26, 0.16), (0.55, 0.33, 0.20))
FABRICS: tuple[RGB, ...] = ((0.42, 0.50, 0.72), (0.62, 0.33, 0.28), (0.45, 0.55, 0.40), (0.34, 0.35, 0.39),
                            (0.80, 0.72, 0.56), (0.55, 0.30, 0.42), (0.72, 0.60, 0.25))
PAINTS: tuple[RGB, ...] = ((0.90, 0.89, 0.85), (0.85, 0.83, 0.76), (0.80, 0.84, 0.86), (0.86, 0.80, 0.74), (0.82, 0.85, 0.78))
WHITE: RGB = (0.95, 0.95, 0.94)


def look_generator(scene_id: str, episode_id: str) -> np.random.Generator:
    """The look's draws for one episode: a stream keyed apart from the apartment's and the split's."""
    return generator(f"look/{scene_id}/{episode_id}")


def pick(rng: np.random.Generator, options):
    return options[int(rng.integers(len(options)))]


def shade(rgb: RGB, factor: float) -> RGB:
    return tuple(min(1.0, c * factor) for c in rgb)


def rgba(rgb) -> tuple[float, float, float, float]:
    """An RGB colour made opaque (an RGBA one passes through)."""
    return tuple(rgb) if len(rgb) == 4 else (*rgb, 1.0)


class Kit:
    """Visual-only parts on one body, placed in its frame; materials from the wardrobe.

    `box(surface, colour, lo, hi)` spans the corners lo and hi, so parts are written as the
    extents they fill. Meshes get names under `prefix`, unique in the spec.
    """

    def __init__(self, spec: mujoco.MjSpec, body: mujoco.MjsBody, wardrobe: Wardrobe, prefix: str) -> None:
        self.spec, self.body, self.wardrobe, self.prefix = spec, body, wardrobe, prefix
        self.meshes = 0

    def mat(self, surface: str, colour=None, **kw) -> str:
        return self.wardrobe.material(surface, None if colour is None else rgba(colour), **kw)

    def box(self, surface: str, colour, lo, hi, quat=(1.0, 0.0, 0.0, 0.0)) -> mujoco.MjsGeom:
        lo, hi = np.asarray(lo, float), np.asarray(hi, float)
        return visual.add_geom(self.body, "box", tuple((hi - lo) / 2), pos=tuple((hi + lo) / 2), quat=quat,
                               material=self.mat(surface, colour))

    def cylinder(self, surface: str, colour, centre, radius: float, half: float, axis: str = "z") -> mujoco.MjsGeom:
        return visual.add_geom(self.body, "cylinder", (radius, half), pos=tuple(centre), quat=AXIS_QUATS[axis],
                               material=self.mat(surface, colour))

    def capsule(self, surface: str, colour, centre, radius: float, half: float, axis: str = "z") -> mujoco.MjsGeom:
        return visual.add_geom(self.body, "capsule", (radius, half), pos=tuple(centre), quat=AXIS_QUATS[axis],
                               material=self.mat(surface, colour))

    def ellipsoid(self, surface: str, colour, centre, radii) -> mujoco.MjsGeom:
        return visual.add_geom(self.body, "ellipsoid", tuple(radii), pos=tuple(centre), material=self.mat(surface, colour))

    def sphere(self, surface: str, colour, centre, radius: float) -> mujoco.MjsGeom:
        return visual.add_geom(self.body, "sphere", (radius,), pos=tuple(centre), material=self.mat(surface, colour))

    def mesh(self, surface: str, colour, mesh: trimesh.Trimesh, pos=(0.0, 0.0, 0.0), quat=(1.0, 0.0, 0.0, 0.0)):
        name = f"{self.prefix}/mesh{self.meshes}"
        self.meshes += 1
        return visual.add_mesh(self.spec, self.body, name, mesh, pos=pos, quat=quat, material=self.mat(surface, colour))


_H = math.sqrt(0.5)
AXIS_QUATS = {"z": (1.0, 0.0, 0.0, 0.0), "x": (_H, 0.0, _H, 0.0), "y": (_H, -_H, 0.0, 0.0)}


# -- meshes ----------------------------------------------------------------------------------------
def frustum(r_bottom: float, r_top: float, height: float, scale_x: float = 1.0, sections: int = 24) -> trimesh.Trimesh:
    """A closed truncated cone about z, from z = 0 to `height` (a pot, a lamp shade, a toilet's pedestal);
    `scale_x` stretches it into an oval."""
    mesh = trimesh.creation.cylinder(radius=1.0, height=height, sections=sections)
    v = mesh.vertices.copy()
    top = v[:, 2] > 0
    v[:, :2] *= np.where(top, r_top, r_bottom)[:, None]
    v[:, 0] *= scale_x
    v[:, 2] += height / 2
    return trimesh.Trimesh(v, mesh.faces, process=False)


def oval_ring(rx: float, ry: float, tube: float) -> trimesh.Trimesh:
    """A torus stretched to an oval of half axes rx, ry (a toilet seat)."""
    r = (rx + ry) / 2
    mesh = trimesh.creation.torus(major_radius=r, minor_radius=tube, major_sections=32, minor_sections=10)
    v = mesh.vertices.copy()
    v[:, 0] *= rx / r
    v[:, 1] *= ry / r
    return trimesh.Trimesh(v, mesh.faces, process=False)


def leaves(blades) -> trimesh.Trimesh:
    """Leaves as one mesh: each blade (base xyz, yaw, pitch up from horizontal, length, width, droop) a
    pointed oval with thickness, bent down along its length by `droop` (m at the tip)."""
    verts, faces = [], []
    n = 7  # stations along a blade
    for base, yaw, pitch, length, width, droop in blades:
        t = np.linspace(0.0, 1.0, n)
        half = width / 2 * np.sin(np.pi * np.clip(t, 0.02, 1.0)) ** 0.8
        along = np.stack([t * length, np.zeros(n), -droop * t**2], axis=1)
        rot = _rotation(yaw, pitch)
        ring = []
        for side in (1.0, -1.0):
            ring.append(along + np.stack([np.zeros(n), side * half, np.zeros(n)], axis=1))
        mid_top = along + [0.0, 0.0, 0.004]
        mid_bottom = along - [0.0, 0.0, 0.004]
        k = len(verts) and sum(len(v) for v in verts)
        block = np.concatenate([ring[0], ring[1], mid_top, mid_bottom]) @ rot.T + np.asarray(base)
        verts.append(block)
        left, right, top, bottom = (np.arange(n) + k + j * n for j in range(4))
        for i in range(n - 1):
            for a, b in ((left, top), (top, right), (right, bottom), (bottom, left)):
                faces.append((a[i], b[i], b[i + 1]))
                faces.append((a[i], b[i + 1], a[i + 1]))
    return trimesh.Trimesh(np.concatenate(verts), np.asarray(faces), process=False)


def _rotation(yaw: float, pitch: float) -> np.ndarray:
    cy, sy, cp, sp = math.cos(yaw), math.sin(yaw), math.cos(pitch), math.sin(pitch)
    ry = np.array([[cp, 0.0, -sp], [0.0, 1.0, 0.0], [sp, 0.0, cp]])  # tilts +x up by pitch
    rz = np.array([[cy, -sy, 0.0], [sy, cy, 0.0], [0.0, 0.0, 1.0]])
    return rz @ ry
