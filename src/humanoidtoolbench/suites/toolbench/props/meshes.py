"""Small procedural meshes as (vertices (n, 3), faces (m, 3)) arrays, faces wound outwards.

MuJoCo collides with a mesh's convex hull but renders the mesh itself, so a
non-convex profile (a bowl's inside, an apple's dimple) only changes the look.
"""

from __future__ import annotations

import numpy as np

Mesh = tuple[np.ndarray, np.ndarray]


def regular_polygon(n: int, apothem: float) -> np.ndarray:
    """An n-gon in the (x, z) plane centred on the origin with one flat side at the bottom,
    so a prism of this section lies on a flat face."""
    angles = -np.pi / 2 + np.pi / n + 2 * np.pi * np.arange(n) / n
    radius = apothem / np.cos(np.pi / n)
    return radius * np.stack([np.cos(angles), np.sin(angles)], axis=1)


def prism(section: np.ndarray, length: float) -> Mesh:
    """Extrude a convex, counter-clockwise (x, z) section along y, centred on the origin."""
    n = len(section)
    x, z = section[:, 0], section[:, 1]
    verts = np.concatenate([np.stack([x, np.full(n, y), z], axis=1) for y in (-length / 2, length / 2)])
    i = np.arange(n)
    j = (i + 1) % n
    sides = np.concatenate([np.stack([i, n + j, j], 1), np.stack([i, n + i, n + j], 1)])
    fan = np.arange(1, n - 1)
    caps = np.concatenate([np.stack([np.zeros_like(fan), fan, fan + 1], 1),
                           np.stack([np.full_like(fan, n), n + fan + 1, n + fan], 1)])
    return verts, np.concatenate([sides, caps])


def lathe(profile, segments: int = 24) -> Mesh:
    """Revolve an (r, z) profile, listed from bottom to top, about the z axis.

    Ends with r > 0 are closed with a flat cap; r = 0 ends become a pole.
    """
    profile = [tuple(p) for p in profile]
    if profile[0][0] > 1e-9:
        profile.insert(0, (0.0, profile[0][1]))
    if profile[-1][0] > 1e-9:
        profile.append((0.0, profile[-1][1]))
    r, z = np.array(profile, dtype=float).T
    inner = np.arange(1, len(r) - 1)  # rings; the two ends are poles
    angles = 2 * np.pi * np.arange(segments) / segments
    ring = np.stack([np.outer(r[inner], np.cos(angles)), np.outer(r[inner], np.sin(angles)),
                     np.repeat(z[inner, None], segments, 1)], -1)
    verts = np.concatenate([[[0, 0, z[0]]], ring.reshape(-1, 3), [[0, 0, z[-1]]]])
    top = len(verts) - 1
    s = np.arange(segments)
    t = (s + 1) % segments
    faces = [np.stack([np.zeros(segments, int), 1 + t, 1 + s], 1)]
    for k in range(len(inner) - 1):
        a, b = 1 + k * segments, 1 + (k + 1) * segments
        faces += [np.stack([a + s, a + t, b + t], 1), np.stack([a + s, b + t, b + s], 1)]
    last = 1 + (len(inner) - 1) * segments
    faces.append(np.stack([last + s, last + t, np.full(segments, top)], 1))
    return verts, np.concatenate(faces)


def ellipsoid(radii, flat: float = 0.0, segments: int = 20, rings: int = 10) -> Mesh:
    """An ellipsoid centred on the origin whose bottom is cut flat `flat` above its lowest
    point: round fruit that does not roll."""
    phi = np.linspace(-np.pi / 2, np.pi / 2, rings + 1)
    verts, faces = lathe(np.stack([np.cos(phi), np.sin(phi)], 1), segments)
    return flatten((verts * np.asarray(radii, dtype=float), faces), flat - radii[2])


def flatten(mesh: Mesh, z: float) -> Mesh:
    """Cut the mesh flat at height z: everything below is pressed onto that plane."""
    verts = mesh[0].copy()
    verts[:, 2] = np.maximum(verts[:, 2], z)
    return verts, mesh[1]


def lying(mesh: Mesh) -> Mesh:
    """Turn a mesh built along z (a lathe) to lie along +y, keeping its faces' winding."""
    verts = mesh[0][:, [0, 2, 1]] * np.array([1.0, 1.0, -1.0])
    return verts, mesh[1]


def torus(major: float, minor: float, segments: int = 24, sides: int = 10) -> Mesh:
    """A ring around the z axis (mug handles, tape rolls)."""
    u = 2 * np.pi * np.arange(segments) / segments
    v = 2 * np.pi * np.arange(sides) / sides
    rad = major + minor * np.cos(v)
    verts = np.stack([np.outer(np.cos(u), rad), np.outer(np.sin(u), rad), np.tile(minor * np.sin(v), (segments, 1))], -1)
    verts = verts.reshape(-1, 3)
    i, j = np.meshgrid(np.arange(segments), np.arange(sides), indexing="ij")
    a = i * sides + j
    b = ((i + 1) % segments) * sides + j
    c = ((i + 1) % segments) * sides + (j + 1) % sides
    d = i * sides + (j + 1) % sides
    return verts, np.concatenate([np.stack([a, b, c], -1).reshape(-1, 3), np.stack([a, c, d], -1).reshape(-1, 3)])


def signed_volume(mesh: Mesh) -> float:
    """The enclosed volume; positive when the faces are wound outwards."""
    v, f = mesh
    return float(np.einsum("ij,ij->i", v[f[:, 0]], np.cross(v[f[:, 1]], v[f[:, 2]])).sum() / 6)
