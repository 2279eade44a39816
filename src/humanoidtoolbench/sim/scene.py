"""Scene composition: physics options, the room, and the robot attached to it.

Tasks add their own bodies to the spec this module returns, then compile it
once per episode layout. The look (`sim.look`) changes only how the room is
drawn: a dressed look gives the same floor and wall geoms (same names, same
order, same contacts) the materials of the room style's surfaces (a textured
floor, painted walls), adds a visual-only ceiling where the room has none
and a soft headlight, and, with a shadow map, one shadow-casting lamp over
the room's focus; the fast look keeps the flat colours and no shadows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mujoco
import numpy as np

from ..control.base import Controller
from ..robot import assets, collision
from .look import FAST, Look, Wardrobe, visual

TIMESTEP = 0.005  # s
SUBSTEPS = 4  # physics steps per policy command
CONTROL_DT = TIMESTEP * SUBSTEPS  # 50 Hz



@dataclass(frozen=True)
class Room:
    """Floor and walls (and optionally a ceiling that collides) around the scene."""

    size: tuple[float, float, float] = (5.0, 5.0, 3.0)  # x, y, wall height (m)
    centre: tuple[float, float] = (0.4, 0.0)
    ceiling: bool = False
    # Where the shadow-casting lamp of a dressed look points, and the radius its cone covers there
    # (m); None: the middle of the floor.
    focus: tuple[float, float, float] | None = None
    focus_radius: float = 1.5


# Spacing of the grid a plane is drawn as. A finer grid only refines per-vertex specular
# light (under 0.5 grey levels on average) but costs a quarter of the software-rendering time.
PLANE_GRID = 1.0  # m


@dataclass(frozen=True)
class RoomStyle:
    """Lights and room colours. A directional key light and two fills; shadows stay
    off (they cost more render time than they show)."""

    key_dir: tuple[float, float, float] = (-0.3, 0.4, -1.0)
    key: float = 0.55
    fill: float = 0.6
    ambient: float = 0.34
    tint: tuple[float, float, float] = (1.0, 1.0, 1.0)
    floor_rgb: tuple[float, float, float] = (0.42, 0.40, 0.37)
    wall_rgb: tuple[float, float, float] = (0.80, 0.79, 0.75)
    # Surfaces of the material library a dressed look draws them with, tinted by the colours above.
    # Walls and ceiling are seen from metres away, where a texture shows little and costs much.
    floor: str = "floor_tiles"
    walls: str = "paint"
    ceiling: str = "paint"
    ceiling_rgb: tuple[float, float, float] = (0.92, 0.91, 0.88)


# The shadow-casting lamp of a dressed look: this far below the ceiling (m), offset from above the
# room's focus away from where a robot usually stands, so shadows fall behind what casts them.
LAMP_DROP = 0.25
LAMP_OFFSET = (0.3, -0.5)
LAMP_DIFFUSE = 0.45


def new_spec(style: RoomStyle = RoomStyle(), room: Room = Room(), look: Look = FAST) -> mujoco.MjSpec:
    spec = mujoco.MjSpec()
    spec.modelname = "humanoidtoolbench"
    spec.compiler.degree = False  # every angle in the scene is in radians
    opt = spec.option
    opt.timestep = TIMESTEP
    opt.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    opt.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
    opt.impratio = 10
    opt.noslip_iterations = 2
    vis = spec.visual
    vis.global_.offwidth = 640
    vis.global_.offheight = 360
    vis.quality.shadowsize = look.shadow_size
    vis.quality.offsamples = look.offsamples
    vis.headlight.active = int(look.headlight > 0)
    vis.headlight.ambient = [style.ambient * t for t in style.tint]
    vis.headlight.diffuse = [look.headlight * t for t in style.tint]
    vis.headlight.specular = [0, 0, 0]
    vis.map.znear = 0.01

    _add_room(spec, style, room)
    _add_lights(spec, style)
    if look.dressed:
        _dress_room(spec, style, room, Wardrobe(spec, look))
        if look.shadow_size:
            _add_lamp(spec, style, room)
    return spec


def _add_room(spec: mujoco.MjSpec, style: RoomStyle, room: Room) -> None:
    spec.add_texture(
        name="floor_tex",
        type=mujoco.mjtTexture.mjTEXTURE_2D,
        builtin=mujoco.mjtBuiltin.mjBUILTIN_CHECKER,
        rgb1=list(style.floor_rgb),
        rgb2=[0.86 * c for c in style.floor_rgb],
        width=256,
        height=256,
    )
    floor_mat = spec.add_material(name="floor_mat", texrepeat=[6, 6], reflectance=0.0)
    floor_mat.textures[mujoco.mjtTextureRole.mjTEXROLE_RGB] = "floor_tex"
    spec.add_material(name="wall_mat", rgba=[*style.wall_rgb, 1])
    sx, sy, sz = room.size
    cx, cy = room.centre
    floor = spec.worldbody.add_geom(
        name="floor", type=mujoco.mjtGeom.mjGEOM_PLANE, size=[sx / 2, sy / 2, PLANE_GRID], pos=[cx, cy, 0], material="floor_mat"
    )
    collision.assign(floor, collision.WORLD)
    walls = (
        ((cx + sx / 2, cy, sz / 2), (0, -1, 0, 0, 0, 1), sy),
        ((cx - sx / 2, cy, sz / 2), (0, 1, 0, 0, 0, 1), sy),
        ((cx, cy + sy / 2, sz / 2), (1, 0, 0, 0, 0, 1), sx),
        ((cx, cy - sy / 2, sz / 2), (-1, 0, 0, 0, 0, 1), sx),
    )
    for i, (pos, xyaxes, width) in enumerate(walls):
        wall = spec.worldbody.add_geom(
            name=f"wall_{i}", type=mujoco.mjtGeom.mjGEOM_PLANE, size=[width / 2, sz / 2, PLANE_GRID], pos=list(pos), material="wall_mat"
        )
        wall.alt.type = mujoco.mjtOrientation.mjORIENTATION_XYAXES
        wall.alt.xyaxes = list(xyaxes)
        collision.assign(wall, collision.WORLD)
    if room.ceiling:
        ceiling = spec.worldbody.add_geom(
            name="ceiling", type=mujoco.mjtGeom.mjGEOM_PLANE, size=[sx / 2, sy / 2, PLANE_GRID], pos=[cx, cy, sz],
            material="wall_mat",
        )
        ceiling.alt.type = mujoco.mjtOrientation.mjORIENTATION_XYAXES
        ceiling.alt.xyaxes = [1, 0, 0, 0, -1, 0]  # facing down into the room
        collision.assign(ceiling, collision.WORLD)


def _dress_room(spec: mujoco.MjSpec, style: RoomStyle, room: Room, wardrobe: Wardrobe) -> None:
    """Floor, walls and ceiling in the style's surfaces; a visual-only ceiling where the room has no solid one."""
    wardrobe.dress(spec.geom("floor"), style.floor, (*style.floor_rgb, 1.0))
    for i in range(4):
        wardrobe.dress(spec.geom(f"wall_{i}"), style.walls, (*style.wall_rgb, 1.0))
    ceiling = (*style.ceiling_rgb, 1.0)
    if room.ceiling:
        wardrobe.dress(spec.geom("ceiling"), style.ceiling, ceiling)
        return
    sx, sy, sz = room.size
    cx, cy = room.centre
    plane = visual.add_geom(spec.worldbody, "plane", (sx / 2, sy / 2, PLANE_GRID), pos=(cx, cy, sz), name="look/ceiling",
                            material=wardrobe.material(style.ceiling, ceiling))
    plane.alt.type = mujoco.mjtOrientation.mjORIENTATION_XYAXES
    plane.alt.xyaxes = [1, 0, 0, 0, -1, 0]


def _add_lamp(spec: mujoco.MjSpec, style: RoomStyle, room: Room) -> None:
    """The one shadow-casting light: a spot over the room's focus whose cone just covers
    `room.focus_radius` around it, so the shadow map's pixels land where the cameras look."""
    focus = np.array(room.focus if room.focus is not None else (*room.centre, 0.0), float)
    pos = np.array([focus[0] + LAMP_OFFSET[0], focus[1] + LAMP_OFFSET[1], room.size[2] - LAMP_DROP])
    axis = focus - pos
    distance = float(np.linalg.norm(axis))
    lamp = spec.worldbody.add_light(name="look/lamp", pos=pos.tolist(), dir=(axis / distance).tolist(), castshadow=True)
    lamp.type = mujoco.mjtLightType.mjLIGHT_SPOT
    lamp.cutoff = math.degrees(math.atan2(room.focus_radius, distance))  # always degrees in MuJoCo
    lamp.exponent = 2.0
    lamp.diffuse = [LAMP_DIFFUSE * t for t in style.tint]
    lamp.specular = [0.15, 0.15, 0.15]


def _add_lights(spec: mujoco.MjSpec, style: RoomStyle) -> None:
    tint = list(style.tint)
    key = spec.worldbody.add_light(name="key", pos=[0, 0, 2.8], dir=list(style.key_dir), castshadow=False)
    key.type = mujoco.mjtLightType.mjLIGHT_DIRECTIONAL
    key.diffuse = [style.key * t for t in tint]
    key.specular = [0.1, 0.1, 0.1]
    for i, d in enumerate(((0.6, -0.5, -0.6), (-0.6, -0.3, -0.5))):
        fill = spec.worldbody.add_light(name=f"fill_{i}", pos=[0, 0, 2.5], dir=list(d), castshadow=False)
        fill.type = mujoco.mjtLightType.mjLIGHT_DIRECTIONAL
        fill.diffuse = [style.fill * 0.5 * t for t in tint]
        fill.specular = [0, 0, 0]


def add_robot(spec: mujoco.MjSpec, controller: Controller, detail: str = "fast") -> None:
    """Attach the installed robot variant the controller drives, edited by it, at the world origin."""
    robot = mujoco.MjSpec.from_file(str(assets.installed().model_path(detail, controller.variant)))
    controller.edit_robot_spec(robot)
    spec.worldbody.add_frame().attach_body(robot.body("pelvis"), "", "")
