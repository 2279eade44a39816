"""The Fiatlux props, generated in code: step ladder, light fixture, A19 bulbs, crate and workbench.

Dimensions and masses are the original's (see `docs/DEVIATIONS.md` for the
shapes: the ladder is built from boxes, the bulb is revolved from a drawn
outline). Every prop is built in its own local frame; `scene.py` places it.
"""

from __future__ import annotations

import math

import mujoco

from ...angles import yaw_quat
from ...robot import collision

# -- ladder: one rigid body, frame at the middle of its footprint on the floor; steps on local -y --
LADDER_SIZE = (0.608, 0.979, 1.861)  # width (x), depth (y), height (z), m
LADDER_MASS = 10.9  # kg
LADDER_FRICTION = (1.5, 0.02, 0.002)  # static grip 1.5 (dynamic 1.2 in the original; MuJoCo has one)
STEP_HEIGHTS = (0.47, 0.71, 0.94)  # tops of the three steps, m
STEP_Y = (-0.33, -0.22, -0.11)  # their centres along the depth
TREAD_CENTRE = (0.0, 0.10)  # top tread, local xy
TREAD_TOP = 1.18  # m
TREAD_SIZE = (0.48, 0.40)  # m
PLANK = 0.03  # thickness of steps and tread, m

# -- bulb: A19, frame 0.036 m below the cap along its axis (the original's root lies outside it) --
BULBS = ("old_bulb", "fresh_bulb")  # the spent bulb in the socket, the fresh one to put in
BULB_MASS = 0.035  # kg
PLUG_OFFSET = 0.036259  # m along the axis: where the cap meets the socket's seat
# (z, r) outline of the revolved glass and cap, m; widest 0.0396 (79 mm bulb)
BULB_MERIDIAN = (
    (0.036, 0.0125), (0.060, 0.0130), (0.070, 0.0140), (0.085, 0.0180), (0.100, 0.0260), (0.115, 0.0340),
    (0.130, 0.0385), (0.145, 0.0396), (0.160, 0.0380), (0.175, 0.0320), (0.187, 0.0200), (0.193, 0.0040),
)
BULB_SEGMENTS = 16
BULB_CENTRE = 0.115  # m along the axis from the frame: the middle of the glass
# A convex mesh meets a box at one contact point, so a seated bulb pressed on the back plate by the
# magnet rocks on that point and the rocking grows. Massless spheres flush with the cap's flat end
# touch only the back plate and give it a ring of support points, as a real cap's rim does.
CAP_CONTACTS = 4
CAP_CONTACT_RADIUS = 0.002  # m
CAP_CONTACT_RING = 0.0105  # m from the axis, inside the cap's 0.0125 m end

# -- fixture: a socket with a guide sleeve; frame on the seat axis, +z pointing out of the socket --
SLEEVE_RADIUS = 0.026  # m: the staves' inner faces leave the cap 9 mm of clearance
SLEEVE_SPAN = (0.030, 0.055)  # m along the axis: the staves guide the cap, short of the widening glass
BACK_PLATE = 0.029  # m, the cap's top (at the plug) stops 7 mm short of it
PENDANT_RADIUS = 0.012  # m

# -- crate: hollow, frame at the middle of its footprint on the floor --
CRATE_SIZE = (0.60, 0.40, 0.17)
CRATE_INNER_HALF = (0.2873, 0.1876)  # interior half-extents, m
CRATE_FLOOR = 0.055  # inner floor height, m

# -- workbench --
BENCH_HALF = (1.24, 0.38)  # m
BENCH_TOP = 0.9941  # m
FRESH_BULB_ON_BENCH = (-0.10, 0.28)  # bulb position on the bench, bench frame

LADDER_RGBA = (0.75, 0.77, 0.80, 1.0)
BULB_RGBA = {"old_bulb": (0.55, 0.50, 0.42, 0.9), "fresh_bulb": (0.97, 0.95, 0.80, 0.9)}


def _box(body, name: str, half, pos, rgba, category=collision.WORLD, **kw):
    geom = body.add_geom(name=name, type=mujoco.mjtGeom.mjGEOM_BOX, size=list(half), pos=list(pos), rgba=list(rgba), **kw)
    collision.assign(geom, category)
    return geom


def add_ladder(spec: mujoco.MjSpec, name: str, pos, yaw: float, scale=(1.0, 1.0, 1.0)) -> mujoco.MjsBody:
    """A free one-body platform ladder: three steps, the top tread, legs and a guard rail; `scale`
    stretches its width, depth and height (its mass stays 10.9 kg)."""
    body = spec.worldbody.add_body(name=name, pos=list(pos), quat=yaw_quat(yaw))
    body.add_freejoint(name=f"{name}_joint")
    w, d, h = LADDER_SIZE
    parts = []
    for k, (z, y) in enumerate(zip(STEP_HEIGHTS, STEP_Y)):
        parts.append((f"step{k}", (TREAD_SIZE[0] / 2, 0.06, PLANK / 2), (0, y, z - PLANK / 2)))
    tx, ty = TREAD_CENTRE
    parts.append(("tread", (TREAD_SIZE[0] / 2, TREAD_SIZE[1] / 2, PLANK / 2), (tx, ty, TREAD_TOP - PLANK / 2)))
    for side in (-1, 1):
        x = side * (w / 2 - 0.03)
        # Front legs run from the floor at the steps' edge up to the tread; back legs straight down.
        parts.append((f"front_leg{side}", (0.02, 0.02, TREAD_TOP / 2), (x, -d / 2 + 0.12, TREAD_TOP / 2)))
        parts.append((f"back_leg{side}", (0.02, 0.02, TREAD_TOP / 2), (x, d / 2 - 0.02, TREAD_TOP / 2)))
        parts.append((f"foot_front{side}", (0.03, 0.03, 0.01), (x, -d / 2 + 0.03, 0.01)))
        parts.append((f"foot_back{side}", (0.03, 0.03, 0.01), (x, d / 2 - 0.03, 0.01)))
        parts.append((f"guard_post{side}", (0.015, 0.015, (h - TREAD_TOP) / 2), (x, d / 2 - 0.02, (h + TREAD_TOP) / 2)))
    parts.append(("guard_bar", (w / 2 - 0.03, 0.015, 0.015), (0, d / 2 - 0.02, h - 0.015)))
    if tuple(scale) != (1.0, 1.0, 1.0):
        parts = [(p, [a * k for a, k in zip(half, scale)], [a * k for a, k in zip(at, scale)]) for p, half, at in parts]
    volume = sum(8 * a * b * c for _, (a, b, c), _ in parts)
    for part, half, at in parts:
        _box(body, f"{name}/{part}", half, at, LADDER_RGBA, collision.OBJECT,
             density=LADDER_MASS / volume, friction=list(LADDER_FRICTION), condim=4)
    return body


def bulb_vertices(scale: float = 1.0) -> list[float]:
    """Vertices of the revolved outline (its convex hull is the collision shape)."""
    verts = [(0.0, 0.0, BULB_MERIDIAN[0][0]), (0.0, 0.0, 0.193)]
    for z, r in BULB_MERIDIAN:
        for k in range(BULB_SEGMENTS):
            a = 2 * math.pi * k / BULB_SEGMENTS
            verts.append((r * math.cos(a), r * math.sin(a), z))
    return [c * scale for v in verts for c in v]


def add_bulb(spec: mujoco.MjSpec, name: str, pos, quat, scale: float = 1.0) -> mujoco.MjsBody:
    """An A19 bulb, `scale` times its size (its mass stays 0.035 kg)."""
    mesh = "bulb_mesh" if scale == 1.0 else f"{name}_mesh"
    if spec.mesh(mesh) is None:
        spec.add_mesh(name=mesh, uservert=bulb_vertices(scale))
    body = spec.worldbody.add_body(name=name, pos=list(pos), quat=list(quat))
    body.add_freejoint(name=f"{name}_joint")
    geom = body.add_geom(
        name=f"{name}/glass", type=mujoco.mjtGeom.mjGEOM_MESH, meshname=mesh, mass=BULB_MASS,
        rgba=list(BULB_RGBA[name]), friction=[1.0, 0.01, 0.001], condim=4,
    )
    collision.assign(geom, collision.OBJECT)
    r = CAP_CONTACT_RADIUS * scale
    for k in range(CAP_CONTACTS):
        a = 2 * math.pi * k / CAP_CONTACTS
        rim = body.add_geom(
            name=f"{name}/cap{k}", type=mujoco.mjtGeom.mjGEOM_SPHERE, size=[r, 0, 0], density=0.0, group=3,
            pos=[CAP_CONTACT_RING * scale * math.cos(a), CAP_CONTACT_RING * scale * math.sin(a), BULB_MERIDIAN[0][0] * scale + r],
        )
        collision.assign(rim, 0)  # only the explicit pairs of `add_seat_contacts`
    body.add_site(name=f"{name}/plug", pos=[0, 0, PLUG_OFFSET * scale], size=[0.004, 0.004, 0.004])
    return body


def add_fixture(spec: mujoco.MjSpec, pos, quat, mount: str, ceiling: float, scale: float = 1.0) -> mujoco.MjsBody:
    """The kinematic socket, `scale` times its size: a sleeve of eight staves around the seat axis,
    hung from the ceiling on a pendant rod or held off the wall by a short arm."""
    body = spec.worldbody.add_body(name="fixture", pos=list(pos), quat=list(quat))
    rgba = (0.35, 0.35, 0.38, 1.0)
    radius, back = SLEEVE_RADIUS * scale, BACK_PLATE * scale
    for k in range(8):
        a = 2 * math.pi * k / 8
        z0, z1 = (z * scale for z in SLEEVE_SPAN)
        stave = _box(body, f"fixture/stave{k}", (0.004 * scale, 0.009 * scale, (z1 - z0) / 2),
                     (radius * math.cos(a), radius * math.sin(a), (z0 + z1) / 2), rgba)
        stave.quat = yaw_quat(a)
    _box(body, "fixture/back", (radius + 0.004 * scale, radius + 0.004 * scale, 0.003 * scale),
         (0, 0, back - 0.003 * scale), rgba)
    body.add_site(name="fixture/seat", pos=[0, 0, PLUG_OFFSET * scale], size=[0.004, 0.004, 0.004])
    # The rod runs from the back plate away from the opening: up to the ceiling, or into the wall.
    length = ceiling - pos[2] + back if mount == "ceiling" else 0.12
    rod = body.add_geom(name=f"fixture/{'pendant' if mount == 'ceiling' else 'arm'}", type=mujoco.mjtGeom.mjGEOM_CYLINDER,
                        size=[PENDANT_RADIUS, length / 2, 0], pos=[0, 0, back - 0.006 * scale - length / 2], rgba=list(rgba))
    collision.assign(rod, collision.WORLD)
    return body


def add_seat_contacts(spec: mujoco.MjSpec, bulbs) -> None:
    """Pair each bulb's cap spheres with the fixture's back plate (after both are in the spec)."""
    for bulb in bulbs:
        for k in range(CAP_CONTACTS):
            spec.add_pair(geomname1=f"{bulb}/cap{k}", geomname2="fixture/back", condim=3)


def add_crate(spec: mujoco.MjSpec, pos, yaw: float) -> mujoco.MjsBody:
    """A hollow crate, kinematic as in the original: floor slab and four walls."""
    body = spec.worldbody.add_body(name="crate", pos=list(pos), quat=yaw_quat(yaw))
    sx, sy, sz = (s / 2 for s in CRATE_SIZE)
    ix, iy = CRATE_INNER_HALF
    rgba = (0.95, 0.75, 0.10, 1.0)
    _box(body, "crate/floor", (sx, sy, CRATE_FLOOR / 2), (0, 0, CRATE_FLOOR / 2), rgba)
    wx, wy = (sx - ix) / 2, (sy - iy) / 2
    for side in (-1, 1):
        _box(body, f"crate/wall_x{side}", (wx, sy, sz), (side * (ix + wx), 0, sz), rgba)
        _box(body, f"crate/wall_y{side}", (ix, wy, sz), (0, side * (iy + wy), sz), rgba)
    return body


def add_workbench(spec: mujoco.MjSpec, pos, yaw: float) -> mujoco.MjsBody:
    body = spec.worldbody.add_body(name="workbench", pos=list(pos), quat=yaw_quat(yaw))
    hx, hy = BENCH_HALF
    _box(body, "workbench/top", (hx, hy, 0.02), (0, 0, BENCH_TOP - 0.02), (0.55, 0.42, 0.30, 1.0))
    for sx in (-1, 1):
        for sy in (-1, 1):
            _box(body, f"workbench/leg{sx}{sy}", (0.03, 0.03, (BENCH_TOP - 0.04) / 2),
                 (sx * (hx - 0.05), sy * (hy - 0.05), (BENCH_TOP - 0.04) / 2), (0.3, 0.3, 0.3, 1.0))
    return body

