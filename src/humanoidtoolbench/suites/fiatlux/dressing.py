"""The Fiatlux props in a dressed look: visual-only detail over the collision geometry of `props.py`.

The physics keeps its boxes and hulls; a dressed look gives them materials
and adds what makes each read as what it is: the ladder's slanted front
stiles, platform channels, spreaders and rubber feet; a bulb's glass
envelope (revolved from the collision outline), screw cap, insulator, stem
and filament; the socket's shell, shade and ceiling rose or wall plate; the
crate's slats and corner posts; the bench's apron, stretchers and shelf;
and the room's concrete floor and painted walls. Colours come from the
episode's `Appearance` (`randomisation.py`, drawn per reset).

Every added geom is visual (`sim.look.visual`): no contact, no mass, added
after a body's own geoms. Three kinds of collision geom are hidden (alpha
0) and drawn by a visual copy instead: each bulb's convex hull (the envelope is
its revolved outline), the socket's square back plate (a disc inside the
shell) and the ladder's vertical front legs (the slanted stiles stand
where the steps' ends are; `docs/DEVIATIONS.md`).
"""

from __future__ import annotations

import dataclasses

import mujoco
import numpy as np
import trimesh

from ...sim import scene
from ...sim.look import Look, Wardrobe, visual
from . import props
from .props import BULBS
from .randomisation import Appearance, PropScale

# The spent bulb's glass is smoked grey, the fresh one's clear: a policy can tell them apart.
GLASS_RGBA = {"old_bulb": (0.40, 0.38, 0.35, 0.62), "fresh_bulb": (0.95, 0.96, 0.94, 0.30)}
BRASS = (0.80, 0.66, 0.38, 1.0)
TUNGSTEN = (0.20, 0.18, 0.16, 1.0)
STEM = (0.88, 0.89, 0.88, 1.0)
INSULATOR = (0.06, 0.06, 0.07, 1.0)
GLASS_START = 0.060  # m along the bulb's axis: where the cap ends and the envelope begins
REVOLVE_SECTIONS = 24

# -- the ladder, in its unscaled frame (`props.add_ladder`): x across, steps on -y, z up --
RAIL_X = 0.2525  # stile centre: its inner face flush with the steps' ends (0.24 m)
RAIL_HALF = (0.0125, 0.035)  # across, along the ladder's depth (m)
STILE = ((-0.4595, 0.0), (-0.085, 1.15))  # (y, z) foot and top of a front stile: through every step's end
CHANNEL = (-0.10, 0.4695, 0.03)  # platform side channel: from the tread's front to the back leg, half height
SPREADER_Z = 0.60
BRACE_Z = (0.35, 0.85)  # cross braces between the back legs


def room_style(style: scene.RoomStyle, appearance: Appearance) -> scene.RoomStyle:
    """The room style with the dressed finishes: a concrete floor, painted walls and ceiling."""
    return dataclasses.replace(style, floor="concrete", walls="paint", ceiling="paint", floor_rgb=appearance["floor"][:3],
                               wall_rgb=appearance["walls"][:3], ceiling_rgb=appearance["ceiling"][:3])


def dress(spec: mujoco.MjSpec, look: Look, appearance: Appearance = Appearance(), scale: PropScale = PropScale()) -> None:
    """Dress whichever Fiatlux props the spec holds (after they are all built)."""
    wardrobe = Wardrobe(spec, look)
    if spec.body("workbench") is not None:
        dress_workbench(spec, wardrobe, appearance)
    if spec.body("crate") is not None:
        dress_crate(spec, wardrobe, appearance)
    if spec.body("fixture") is not None:
        dress_fixture(spec, wardrobe, appearance, scale.socket)
    if spec.body("ladder") is not None:
        dress_ladder(spec, wardrobe, appearance, scale.ladder)
    for bulb in BULBS:
        if spec.body(bulb) is not None:
            dress_bulb(spec, bulb, wardrobe, scale.bulb(bulb))


def _hide(geom: mujoco.MjsGeom) -> None:
    geom.rgba = [*list(geom.rgba)[:3], 0.0]


def _shade(rgba, k: float) -> tuple[float, float, float, float]:
    return (*(k * c for c in rgba[:3]), rgba[3])


def _revolved(profile, scale: float, sections: int = REVOLVE_SECTIONS) -> trimesh.Trimesh:
    """A closed solid of revolution about z from a (radius, z) outline running from the axis back to
    it, its faces turned outwards."""
    mesh = trimesh.creation.revolve(np.asarray(profile, float) * scale, sections=sections)
    if mesh.volume < 0:
        mesh.invert()
    return mesh


# -- ladder ----------------------------------------------------------------------------------------
def dress_ladder(spec: mujoco.MjSpec, wardrobe: Wardrobe, appearance: Appearance, scale=(1.0, 1.0, 1.0)) -> None:
    body = spec.body("ladder")
    k = np.asarray(scale, float)
    rails = wardrobe.material("aluminium", appearance["ladder_rails"])
    caps = wardrobe.material("enamel", appearance["ladder_caps"])
    feet = wardrobe.material("rubber", _shade(appearance["ladder_caps"], 0.4))
    for geom in list(body.geoms):
        part = geom.name.split("/", 1)[1]
        if part.startswith("front_leg"):
            _hide(geom)
        elif part.startswith(("step", "tread")):
            wardrobe.dress(geom, "aluminium", appearance["ladder_treads"])
        elif part.startswith("foot"):
            wardrobe.dress(geom, "rubber", _shade(appearance["ladder_caps"], 0.4))
        elif part == "guard_bar":
            wardrobe.dress(geom, "enamel", appearance["ladder_caps"])
        else:  # back legs and guard posts
            wardrobe.dress(geom, "aluminium", appearance["ladder_rails"])

    def box(material, half, pos):
        visual.add_geom(body, "box", tuple(np.asarray(half) * k), pos=tuple(np.asarray(pos) * k), material=material)

    def bar(material, half, p0, p1):
        ends = np.concatenate([np.asarray(p0) * k, np.asarray(p1) * k])
        visual.add_geom(body, "box", (half[0] * k[0], half[1] * k[1]), fromto=ends.tolist(), material=material)

    (y0, z0), (y1, z1) = STILE
    spreader_front = y0 + (y1 - y0) * (SPREADER_Z - z0) / (z1 - z0)  # where the spreader meets the stile
    spreader_back = props.LADDER_SIZE[1] / 2 - 0.04  # the back leg's front face
    front, back, half_h = CHANNEL
    for side in (-1, 1):
        x = side * RAIL_X
        bar(rails, RAIL_HALF, (x, y0, z0), (x, y1, z1))
        box(feet, (0.016, 0.04, 0.012), (x, y0 + 0.012, 0.012))  # the stile's rubber shoe
        box(rails, (RAIL_HALF[0], (back - front) / 2, half_h), (x, (front + back) / 2, props.TREAD_TOP - half_h))
        box(caps, (0.004, (spreader_back - spreader_front) / 2, 0.012),
            (side * (RAIL_X + 0.0165), (spreader_front + spreader_back) / 2, SPREADER_Z))
    back_y, inner = props.LADDER_SIZE[1] / 2 - 0.02, props.LADDER_SIZE[0] / 2 - 0.05
    for z in BRACE_Z:
        box(rails, (inner, 0.008, 0.015), (0.0, back_y, z))


# -- bulbs -----------------------------------------------------------------------------------------
def envelope(scale: float = 1.0) -> trimesh.Trimesh:
    """The glass, revolved from the collision outline above the cap in the hull's own sections, so
    that it lies inside the hull the physics uses."""
    outline = [(r, z) for z, r in props.BULB_MERIDIAN if z >= GLASS_START]
    top = props.bulb_vertices()[5]  # z of the hull's top on the axis
    return _revolved([(0.0, GLASS_START), *outline, (0.0, top)], scale, sections=props.BULB_SEGMENTS)


def screw_cap(scale: float = 1.0, threads: int = 4) -> trimesh.Trimesh:
    """The threaded shell from above the insulator to the glass: ridges and grooves around the axis."""
    z0, z1, r = 0.0405, GLASS_START + 0.001, props.BULB_MERIDIAN[0][1]
    pitch = (z1 - 0.002 - z0) / threads
    outline = [(0.0, z0), (r - 0.0015, z0)]
    for i in range(threads):
        outline += [(r + 0.0006, z0 + (i + 0.5) * pitch), (r - 0.0006, z0 + (i + 1) * pitch)]
    outline += [(r + 0.0008, z1), (0.0, z1)]
    return _revolved(outline, scale)


def dress_bulb(spec: mujoco.MjSpec, name: str, wardrobe: Wardrobe, scale: float = 1.0) -> None:
    body = spec.body(name)
    _hide(spec.geom(f"{name}/glass"))
    s = scale
    visual.add_mesh(spec, body, f"look/{name}/envelope", envelope(s), material=wardrobe.material("glass", GLASS_RGBA[name]))
    metal = wardrobe.material("aluminium", (0.78, 0.78, 0.76, 1.0))
    visual.add_mesh(spec, body, f"look/{name}/cap", screw_cap(s), material=metal)
    visual.add_geom(body, "cylinder", (0.009 * s, 0.002 * s), pos=(0.0, 0.0, 0.0385 * s),
                    material=wardrobe.material("enamel", INSULATOR))
    visual.add_geom(body, "cylinder", (0.0035 * s, 0.0008 * s), pos=(0.0, 0.0, 0.0368 * s),
                    material=wardrobe.material("aluminium", BRASS))
    # Inside the glass: the stem and a filament across its top, opaque boxes (a translucent or round
    # part seen through the glass cost the head camera 9 % more time in a close-up).
    visual.add_geom(body, "box", (0.002 * s, 0.002 * s, 0.028 * s), pos=(0.0, 0.0, 0.089 * s),
                    material=wardrobe.material("enamel", STEM))
    visual.add_geom(body, "box", (0.008 * s, 0.0008 * s, 0.0008 * s), pos=(0.0, 0.0, 0.1175 * s),
                    material=wardrobe.material("aluminium", TUNGSTEN))


# -- fixture ---------------------------------------------------------------------------------------
SHELL_RADII = (0.0305, 0.038)  # the socket's shell around the staves, m (scaled with the socket)
SHELL_SPAN = (0.010, 0.058)  # along the axis, m
SHADE = ((0.038, 0.0), (0.100, 0.050), (0.097, 0.052), (0.035, 0.003))  # (r, z) section of the shade, m
ROSE = (0.065, 0.012)  # radius and half thickness of the ceiling rose or wall plate, m


def dress_fixture(spec: mujoco.MjSpec, wardrobe: Wardrobe, appearance: Appearance, scale: float = 1.0) -> None:
    body = spec.body("fixture")
    s = scale
    socket = wardrobe.material("enamel", appearance["socket"])
    for geom in list(body.geoms):
        if "/stave" in geom.name:
            wardrobe.dress(geom, "aluminium", BRASS)
    _hide(spec.geom("fixture/back"))
    back = props.BACK_PLATE * s
    visual.add_geom(body, "cylinder", (SHELL_RADII[0] * s, 0.003 * s), pos=(0.0, 0.0, back - 0.003 * s),
                    material=wardrobe.material("aluminium", BRASS))
    r0, r1 = (r * s for r in SHELL_RADII)
    z0, z1 = (z * s for z in SHELL_SPAN)
    visual.add_mesh(spec, body, "look/fixture/shell", trimesh.creation.annulus(r0, r1, z1 - z0, sections=REVOLVE_SECTIONS),
                    pos=(0.0, 0.0, (z0 + z1) / 2), material=socket)
    visual.add_geom(body, "cylinder", (r1, z0 / 2 + 0.001 * s), pos=(0.0, 0.0, z0 / 2 + 0.001 * s), material=socket)  # its closed end
    section = np.asarray(SHADE)
    visual.add_mesh(spec, body, "look/fixture/shade", _revolved(np.vstack([section, section[:1]]), s),
                    material=wardrobe.material("enamel", appearance["shade"]))
    rod = spec.geom("fixture/pendant") or spec.geom("fixture/arm")
    wardrobe.dress(rod, "enamel", appearance["cord"])
    if rod.name.endswith("pendant"):  # a rose on the ceiling, where the rod ends
        far = rod.pos[2] - rod.size[1]
        visual.add_geom(body, "cylinder", ROSE, pos=(0.0, 0.0, far + ROSE[1]), material=wardrobe.material("paint", appearance["ceiling"]))
    else:  # a plate on the wall the socket stands out of
        visual.add_geom(body, "cylinder", ROSE, pos=(0.0, 0.0, ROSE[1] - 0.006), material=socket)


# -- crate and workbench ---------------------------------------------------------------------------
SLATS = (0.03, 0.085, 0.14)  # centre heights of the crate's boards, m
SLAT_HALF = 0.024  # half height: 7 mm gaps between boards


def dress_crate(spec: mujoco.MjSpec, wardrobe: Wardrobe, appearance: Appearance) -> None:
    body = spec.body("crate")
    colour = appearance["crate"]
    for geom in list(body.geoms):
        wardrobe.dress(geom, "wood", _shade(colour, 0.55))  # what shows between the boards and inside
    boards = wardrobe.material("wood", colour, repeat=6.0)
    sx, sy, sz = (c / 2 for c in props.CRATE_SIZE)
    for z in SLATS:
        for side in (-1, 1):
            visual.add_geom(body, "box", (0.003, sy - 0.014, SLAT_HALF), pos=(side * (sx + 0.003), 0.0, z), material=boards)
            visual.add_geom(body, "box", (sx - 0.014, 0.003, SLAT_HALF), pos=(0.0, side * (sy + 0.003), z), material=boards)
    posts = wardrobe.material("wood", _shade(colour, 0.8), repeat=6.0)
    for x in (-1, 1):
        for y in (-1, 1):
            visual.add_geom(body, "box", (0.014, 0.014, sz), pos=(x * sx, y * sy, sz), material=posts)


APRON = (0.047, 0.012)  # half height and half thickness of the rails under the top, m
STRETCHER_Z = 0.16  # m: the lower rails, with a shelf board on them


def dress_workbench(spec: mujoco.MjSpec, wardrobe: Wardrobe, appearance: Appearance) -> None:
    body = spec.body("workbench")
    wardrobe.dress(spec.geom("workbench/top"), "varnished_wood", appearance["bench_top"])
    frame = wardrobe.material("aluminium", appearance["bench_frame"])
    for geom in list(body.geoms):
        if "/leg" in geom.name:
            wardrobe.dress(geom, "aluminium", appearance["bench_frame"])
    hx, hy = props.BENCH_HALF
    lx, ly = hx - 0.05, hy - 0.05  # leg centres
    under = props.BENCH_TOP - 0.04  # the top's underside
    for z, half_h in ((under - APRON[0], APRON[0]), (STRETCHER_Z, 0.02)):
        for side in (-1, 1):
            visual.add_geom(body, "box", (lx - 0.03, APRON[1], half_h), pos=(0.0, side * ly, z), material=frame)
            visual.add_geom(body, "box", (APRON[1], ly - 0.03, half_h), pos=(side * lx, 0.0, z), material=frame)
    visual.add_geom(body, "box", (lx - 0.03, ly - 0.03 + APRON[1], 0.012), pos=(0.0, 0.0, STRETCHER_Z + 0.032),
                    material=wardrobe.material("wood", _shade(appearance["bench_top"], 0.85)))
