"""A find-navigate-sit apartment as a MuJoCo scene: walls, static furniture, movable clutter, the robot.

Walls and static furniture are fixed boxes (a seat with a backrest is split
into its seat block and its taller back); clutter are free bodies the robot
can push. Each piece is one body named after its `Furniture.name`, so the
metrics find targets, fixed geometry and dynamic objects by body. The ego
camera (448 x 448) rides on the torso, pitched down.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np

from ...angles import yaw_quat
from ...robot import collision
from ...sim import scene
from ...sim.look import FAST, Look, Wardrobe
from . import furnishings, interior
from .apartments import Apartment, Furniture
from .kit import Kit, look_generator

EGO_CAMERA = "ego"
EGO_SIZE = 448
EGO_FOV = 90.0  # degrees, square image
EGO_MOUNT = ((0.08, 0.0, 0.45), math.radians(20.0))  # torso frame, downward pitch
WALL_RGBA = (0.85, 0.84, 0.80, 1.0)
RGBA = {
    "bed": (0.55, 0.60, 0.80, 1), "couch": (0.60, 0.35, 0.30, 1), "toilet": (0.95, 0.95, 0.95, 1),
    "chair": (0.55, 0.40, 0.25, 1), "tv": (0.08, 0.08, 0.10, 1), "potted_plant": (0.20, 0.55, 0.25, 1),
}
OTHER_RGBA = (0.62, 0.55, 0.45, 1)
CLUTTER = collision.OBJECT
# Clutter also touches the robot's body, so a body that walks into a box pushes it.
CLUTTER_PARTNERS = collision.WORLD | collision.OBJECT | collision.HAND | collision.BODY


def _boxes(piece: Furniture) -> list[tuple[tuple, tuple]]:
    """(half extents, local centre) of the piece's boxes: a seat block and its back, or one box."""
    hx, hy, hz = piece.half_extents
    if not piece.backrest or piece.seat_height is None:
        return [((hx, hy, hz), (0.0, 0.0, 0.0))]
    bottom = -hz
    seat_h = piece.seat_height / 2
    back = piece.backrest / 2
    return [
        ((hx - back, hy, seat_h), (back, 0.0, bottom + seat_h)),  # the seat, in front (+x is the front)
        ((back, hy, hz), (-hx + back, 0.0, 0.0)),  # the back, full height
    ]


def add_piece(spec: mujoco.MjSpec, piece: Furniture) -> mujoco.MjsBody:
    body = spec.worldbody.add_body(name=piece.name, pos=list(piece.centre), quat=yaw_quat(piece.yaw))
    if piece.movable:
        body.add_freejoint(name=f"{piece.name}_joint")
    rgba = RGBA.get(piece.category, OTHER_RGBA)
    for k, (half, at) in enumerate(_boxes(piece)):
        geom = body.add_geom(name=f"{piece.name}/{k}", type=mujoco.mjtGeom.mjGEOM_BOX, size=list(half), pos=list(at),
                             rgba=list(rgba))
        if piece.movable:
            geom.mass = (piece.mass or 1.0) / len(_boxes(piece))
            geom.contype, geom.conaffinity = CLUTTER, CLUTTER_PARTNERS
        else:
            collision.assign(geom, collision.WORLD)
    return body


# A dressed apartment draws several hundred small parts: rounds with fewer facets and box faces as one
# quad each (the lights are directional, so a flat face is lit evenly) halve its software-rendering
# time (docs/PERFORMANCE.md). Vertex work only: no pixel of a flat face changes but its specular sheen.
PRIMITIVE_SLICES, PRIMITIVE_STACKS, BOX_QUADS = 16, 8, 1


def _draw_coarser(spec: mujoco.MjSpec) -> None:
    """Fewer vertices per drawn primitive, and the ground plane hidden: every room has a floor of its own."""
    quality = spec.visual.quality
    quality.numslices, quality.numstacks, quality.numquads = PRIMITIVE_SLICES, PRIMITIVE_STACKS, BOX_QUADS
    floor = spec.geom("floor")
    floor.rgba = [*floor.rgba[:3], 0.0]


def build_scene(apartment: Apartment, controller, detail: str = "fast", look: Look = FAST,
                look_key: tuple[str, str] = ("", "")) -> mujoco.MjSpec:
    """The apartment with the robot; a dressed look draws it furnished (`interior`, `furnishings`), its
    variants and colours drawn from the look's stream for `look_key` (scene id, episode id)."""
    sx, sy = apartment.size
    spec = scene.new_spec(scene.RoomStyle(floor="floorboards"), scene.Room((sx + 2.0, sy + 2.0, 2.5), (sx / 2, sy / 2)), look)
    for k, wall in enumerate(apartment.walls):
        geom = spec.worldbody.add_geom(name=f"wall/{k}", type=mujoco.mjtGeom.mjGEOM_BOX, size=list(wall.half_extents),
                                       pos=list(wall.centre), rgba=list(WALL_RGBA))
        collision.assign(geom, collision.WORLD)
    bodies = [add_piece(spec, piece) for piece in apartment.furniture]
    if look.dressed:
        _draw_coarser(spec)
        wardrobe = Wardrobe(spec, look)
        rng = look_generator(*look_key)
        interior.dress_rooms(spec, apartment, Kit(spec, spec.worldbody, wardrobe, "look/rooms"), rng)
        for piece, body in zip(apartment.furniture, bodies):
            kit = Kit(spec, body, wardrobe, f"look/{piece.name}")
            furnishings.dress_piece(spec, body, piece, kit, furnishings.Choice.draw(rng, piece.category))
    scene.add_robot(spec, controller, detail)
    (x, y, z), pitch = EGO_MOUNT
    cam = spec.body("torso_link").add_camera(name=EGO_CAMERA, pos=[x, y, z], fovy=EGO_FOV)
    fwd, up = (math.cos(pitch), 0.0, -math.sin(pitch)), (math.sin(pitch), 0.0, math.cos(pitch))
    cam.alt.type = mujoco.mjtOrientation.mjORIENTATION_XYAXES
    cam.alt.xyaxes = [*np.cross(fwd, up), *up]
    spec.visual.global_.offwidth = max(spec.visual.global_.offwidth, EGO_SIZE)
    spec.visual.global_.offheight = max(spec.visual.global_.offheight, EGO_SIZE)
    return spec
