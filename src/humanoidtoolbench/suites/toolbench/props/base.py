"""What every procedural prop provides: a builder for its body and the facts tasks need.

A prop is built into an empty body that the scene gives a free joint. Its
frame is its resting frame on a flat surface: z = 0 is the lowest point of
its collision geometry, and for tools the long axis is +y with the handle end
at +y (towards the robot when the prop's yaw is 0 and the robot faces -y).

Built with a wardrobe (a dressed look, `sim.look`), every shape takes a
textured material of the library instead of its flat colour: its `surface`
(and `look_rgba`), or one read from its colour and finish (`surface_of`).
Geoms, masses and contacts are the same in every look.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

import mujoco
import numpy as np

from ....robot import collision
from ....sim.look import Wardrobe
from .meshes import Mesh
from .palette import FINISHES, GREY, RGBA, WOODS

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]

VISUAL_GROUP = 2  # rendered, no contacts
# Contact parameters (friction: sliding, torsional, rolling).
TOOL_CONTACT = dict(friction=(1.5, 0.1, 0.02), condim=6, priority=11, solref=(0.01, 1.0))
HARD_TOOL_CONTACT = dict(TOOL_CONTACT, solref=(0.004, 1.0))  # clipped to 2 x timestep by MuJoCo
# Compliant decoy heads. solimp near 1 leaves the slow impact response of solref alone (the
# peak force of a drop barely changes) but stops static loads sinking in: with MuJoCo's default
# solimp a resting head sank 2-11 mm into the bench.
# Its priority is above the ice's, so a decoy's soft contact holds against ice too.
SOFT_TOOL_CONTACT = dict(TOOL_CONTACT, solref=(0.10, 1.5), solimp=(0.99, 0.999, 0.001, 0.5, 2), priority=13)
OBJECT_CONTACT = dict(friction=(1.0, 0.02, 0.005), condim=4, priority=0)


@dataclass(frozen=True)
class Prop:
    """A buildable object variant and the facts about it that tasks and experts use."""

    kind: str  # e.g. "long_stick", "hook", "hammer", "fly_swatter", "apple"
    family: str  # stick | hook | straight_stick | hammer | decoy | household
    variant: int
    mass: float  # kg, total
    half_extent: tuple[float, float]  # footprint half-sizes along x and y in the resting frame
    height: float  # resting height (top of the prop above z = 0)
    # build(spec, body, prefix, wardrobe=None): add the prop to an empty body of `spec`, dressed
    # when a wardrobe is given; every named element it creates (geoms, meshes, materials, child
    # bodies, joints) starts with prefix.
    build: Callable[..., None] = field(repr=False, compare=False)
    grasp: Vec3 = (0.0, 0.0, 0.0)  # where a hand should close on the handle (tools)
    tip: Vec3 = (0.0, 0.0, 0.0)  # the working end: stick tip, inside of the hook, hammer face, decoy head centre
    description: str = ""


def add_geom(body: mujoco.MjsBody, contact: dict | None, **kwargs) -> mujoco.MjsGeom:
    """Add a geom; `contact` None makes it visual only (no contacts, no mass)."""
    geom = body.add_geom(**kwargs)
    if contact is None:
        geom.contype = 0
        geom.conaffinity = 0
        geom.group = VISUAL_GROUP
        geom.mass = 0.0
        geom.density = 0.0
        return geom
    collision.assign(geom, collision.OBJECT)
    collision.set_contact(geom, contact)
    return geom


def axis_angle(axis: Vec3, angle: float) -> Quat:
    """Quaternion (w, x, y, z) of a rotation by `angle` about the unit `axis`."""
    half = angle / 2
    return (float(np.cos(half)), *(float(np.sin(half) * a) for a in axis))


ALONG_X = axis_angle((0, 1, 0), np.pi / 2)  # turns a capsule/cylinder's z axis onto x
ALONG_Y = axis_angle((1, 0, 0), -np.pi / 2)  # ... onto y
YAW_90 = axis_angle((0, 0, 1), np.pi / 2)  # turns a prism along y onto x


@dataclass(frozen=True, eq=False)
class Shape:
    """One geom of a prop in a convenient design frame; `assemble` moves it to the resting frame."""

    type: str  # box | capsule | cylinder | sphere | ellipsoid | mesh
    size: tuple[float, ...] = (0.0, 0.0, 0.0)  # as MuJoCo reads it (unused for meshes)
    pos: Vec3 = (0.0, 0.0, 0.0)
    quat: Quat = (1.0, 0.0, 0.0, 0.0)
    rgba: RGBA = GREY
    finish: str = "satin"  # a palette.FINISHES key
    contact: dict | None = None  # a contact preset; None makes it visual only
    share: float = 1.0  # relative share of the prop's mass (collision shapes only)
    mesh: Mesh | None = None  # (vertices, faces) in the geom frame, for type "mesh"
    name: str = ""  # geom name after the prefix; empty leaves the geom unnamed
    surface: str = ""  # the material library's surface in a dressed look; empty: `surface_of` picks one
    look_rgba: RGBA | None = None  # its colour in a dressed look (None: rgba), e.g. a hook's steel end


def segment(a, b, radius: float, **kwargs) -> Shape:
    """A capsule from point a to point b (wires, stems, banana sections)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    quat = np.zeros(4)
    mujoco.mju_quatZ2Vec(quat, b - a)
    return Shape("capsule", (radius, float(np.linalg.norm(b - a) / 2)), tuple((a + b) / 2), tuple(quat), **kwargs)


@dataclass(frozen=True, eq=False)
class Flex:
    """A compliant part (decoy heads): its shapes ride a child body on a spring hinge at `pos`,
    so an impact deflects the part instead of passing force through a rigid tool."""

    name: str
    shapes: tuple[Shape, ...]
    pos: Vec3  # hinge position in the design frame
    axis: Vec3 = (1.0, 0.0, 0.0)
    stiffness: float = 0.03  # N m/rad
    damping: float = 0.002  # N m s/rad
    range: tuple[float, float] = (-1.4, 1.4)  # rad


def extent(shape: Shape) -> tuple[np.ndarray, np.ndarray]:
    """Axis-aligned bounds (lo, hi) of a shape in its frame."""
    rot = np.zeros(9)
    mujoco.mju_quat2Mat(rot, np.asarray(shape.quat, float))
    rot = rot.reshape(3, 3)
    pos = np.asarray(shape.pos, float)
    if shape.type == "mesh":
        pts = shape.mesh[0] @ rot.T + pos
        return pts.min(0), pts.max(0)
    size = np.asarray(shape.size, float)
    if shape.type == "sphere":
        half = np.full(3, size[0])
    elif shape.type == "box":
        half = np.abs(rot) @ size[:3]
    elif shape.type == "ellipsoid":
        half = np.sqrt(((rot * size[:3]) ** 2).sum(1))
    else:  # capsule or cylinder along the geom's z
        axis = np.abs(rot[:, 2])
        radial = 1.0 if shape.type == "capsule" else np.sqrt(np.clip(1 - axis**2, 0, 1))
        half = axis * size[1] + size[0] * radial
    return pos - half, pos + half


def bounds(shapes) -> tuple[np.ndarray, np.ndarray]:
    los, his = zip(*(extent(s) for s in shapes))
    return np.min(los, 0), np.max(his, 0)


def assemble(kind: str, family: str, variant: int, mass: float, shapes, *, flex: tuple[Flex, ...] = (),
             grasp: Vec3 | None = None, tip: Vec3 | None = None, description: str = "") -> Prop:
    """A Prop from shapes (and grasp/tip points) drawn in any design frame: moves them to the
    resting frame (collision footprint centred on the origin, lowest collision point at z = 0)
    and splits `mass` over the collision shapes by share, so conventions and totals hold by
    construction. The height is the top of every shape, decoration included."""
    every = list(shapes) + [s for f in flex for s in f.shapes]
    solids = [s for s in every if s.contact is not None]
    lo, hi = bounds(solids)
    offset = np.array([-(lo[0] + hi[0]) / 2, -(lo[1] + hi[1]) / 2, -lo[2]])

    def moved(shape: Shape, origin=np.zeros(3)) -> Shape:
        return replace(shape, pos=tuple(np.asarray(shape.pos) + offset - origin))

    body_shapes = [moved(s) for s in shapes]
    children = [(f, np.asarray(f.pos) + offset) for f in flex]
    child_shapes = [[moved(s, origin) for s in f.shapes] for f, origin in children]
    per_share = mass / sum(s.share for s in solids)

    def build(spec: mujoco.MjSpec, body: mujoco.MjsBody, prefix: str, wardrobe: Wardrobe | None = None) -> None:
        count = _add_shapes(spec, body, prefix, body_shapes, per_share, 0, wardrobe)
        for (f, origin), local in zip(children, child_shapes):
            child = body.add_body(name=prefix + f.name, pos=list(origin))
            # The range is read in the spec's angle unit: degrees unless compiler.degree is off.
            limits = np.degrees(f.range) if spec.compiler.degree else np.asarray(f.range)
            child.add_joint(name=f"{prefix}{f.name}_joint", type=mujoco.mjtJoint.mjJNT_HINGE, axis=list(f.axis),
                            stiffness=[f.stiffness, 0, 0], damping=[f.damping, 0, 0], range=limits.tolist(),
                            limited=mujoco.mjtLimited.mjLIMITED_TRUE, springref=0)
            count = _add_shapes(spec, child, prefix, local, per_share, count, wardrobe)

    top = bounds(every)[1][2] + offset[2]
    half = (hi - lo) / 2

    def point(p) -> Vec3:
        return (0.0, 0.0, 0.0) if p is None else tuple(round(float(v), 6) for v in np.asarray(p) + offset)

    return Prop(kind, family, variant, mass, (round(float(half[0]), 6), round(float(half[1]), 6)), round(float(top), 6),
                build, point(grasp), point(tip), description)


def surface_of(shape: Shape) -> str | None:
    """The library surface a dressed look draws a shape with: its own, else glass for anything see-through,
    brushed metal for a metal finish, wood for a wood colour, plastic otherwise; None keeps the flat
    colour (a glowing flame)."""
    if shape.surface:
        return shape.surface
    if shape.finish == "glow":
        return None
    if shape.rgba[3] < 0.9:
        return "glass"
    return "brushed_metal" if shape.finish == "metal" else "wood" if shape.rgba in WOODS else "plastic"


def _add_shapes(spec, body, prefix, shapes, per_share, count, wardrobe: Wardrobe | None) -> int:
    for shape in shapes:
        surface = None if wardrobe is None else surface_of(shape)
        if surface is None:
            mat = spec.add_material(name=f"{prefix}mat{count}", rgba=list(shape.rgba), reflectance=0, **FINISHES[shape.finish])
            material, rgba = mat.name, list(shape.rgba)
        else:  # the geom keeps MuJoCo's default rgba, so the material's colour and texture show
            shine = {} if shape.surface else FINISHES[shape.finish]  # a surface named outright shines as itself
            material, rgba = wardrobe.material(surface, shape.look_rgba or shape.rgba, **shine), [0.5, 0.5, 0.5, 1.0]
        kw = dict(type=getattr(mujoco.mjtGeom, "mjGEOM_" + shape.type.upper()), pos=list(shape.pos), quat=list(shape.quat),
                  rgba=rgba, material=material)
        if shape.name:
            kw["name"] = prefix + shape.name
        if shape.type == "mesh":
            kw["meshname"] = spec.add_mesh(name=f"{prefix}mesh{count}", uservert=shape.mesh[0].ravel().tolist(),
                                           userface=shape.mesh[1].ravel().tolist()).name
        else:
            kw["size"] = list(shape.size) + [0.0] * (3 - len(shape.size))
        geom = add_geom(body, shape.contact, **kw)
        if shape.contact is not None:
            geom.mass = per_share * shape.share
        count += 1
    return count
