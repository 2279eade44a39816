"""The Fiatlux scene of one episode: where the props stand, and the room compiled with them and the robot.

The layout (`layout.py`) draws the zones per seed; this places the props in
them for a subtask's start (the ladder in its zone, or with its tread under
the fixture) and builds the spec: the room in its lights and tint, the
workbench, crate, fixture, ladder and both bulbs, the robot with its head
sensors, and the hand friction of the layout.
"""

from __future__ import annotations

import colorsys
import math
from dataclasses import dataclass

import mujoco
import numpy as np

from ...control.balanced.footsteps import rot
from ...control.base import Controller
from ...sim import scene
from ...sim.look import Look
from . import dressing, props
from .layout import ROOM_CENTRE, ROOM_SIZE, Layout
from .observation import HAND_LINKS, add_sensors
from .props import BULBS
from .randomisation import Appearance, Lighting, PropScale


@dataclass(frozen=True)
class Placement:
    """Where the props stand for the episode (world frame; positions on the floor are xy)."""

    ladder_pos: np.ndarray
    ladder_yaw: float
    bench_pos: np.ndarray
    bench_yaw: float
    crate_pos: np.ndarray
    crate_yaw: float
    fixture_quat: np.ndarray  # the socket's +z points out of the opening
    bench_bulb: np.ndarray  # the fresh bulb's spot on the bench top, xyz


def place_props(lay: Layout, ladder: str, tread_centre: tuple[float, float]) -> Placement:
    """The props of `lay` for a start whose ladder stands in its `zone` or with its tread at the fixture's anchor."""
    fx = lay.fixture
    if ladder == "zone":
        ladder_yaw = lay.ladder_yaw
        ladder_pos = np.array(lay.zones["ladder"])
    else:  # the tread centre on the anchor, the ladder's +y (the climber's facing) towards the fixture
        ladder_yaw = fx.facing + math.pi / 2
        ladder_pos = np.asarray(fx.anchor) - rot(ladder_yaw, tread_centre)
    bench_pos, bench_yaw = np.array(lay.zones["workbench"]), lay.bench_yaw
    # The socket's +z points out of the opening: down from a ceiling, into the room from a wall.
    q = np.zeros(4)
    if fx.mount == "ceiling":
        mujoco.mju_euler2Quat(q, [0.0, math.pi, 0.0], "XYZ")
    else:
        mujoco.mju_euler2Quat(q, [0.0, math.pi / 2, fx.facing], "XYZ")
    bench_bulb = bench_pos + rot(bench_yaw, props.FRESH_BULB_ON_BENCH)
    return Placement(ladder_pos, ladder_yaw, bench_pos, bench_yaw, np.array(lay.zones["crate"]), lay.crate_yaw, q,
                     np.array([*bench_bulb, props.BENCH_TOP]))


def tint(rng: np.random.Generator) -> np.ndarray:
    """A room tint per episode: hue anywhere, saturation up to 0.15, value 0.7-1.2."""
    h, s, v = rng.uniform(0, 1), rng.uniform(0, 0.15), rng.uniform(0.7, 1.2)
    return np.clip(np.array(colorsys.hsv_to_rgb(h, s, 1.0)) * v, 0.0, 1.5)


def build(lay: Layout, at: Placement, scale: PropScale, lighting: Lighting, look: Look, appearance: Appearance,
          controller: Controller, detail: str, rng: np.random.Generator | None, hand_friction: float | None) -> mujoco.MjSpec:
    """The episode's spec. `rng` draws the room's tint (None: the plain room, randomisation off);
    `hand_friction` is the hand geoms' sliding friction (None: the robot's own)."""
    style = lighting.style(tuple(tint(rng))) if rng is not None else scene.RoomStyle()
    if look.dressed:
        style = dressing.room_style(style, appearance)
    spec = scene.new_spec(style, scene.Room(ROOM_SIZE, ROOM_CENTRE, ceiling=True), look)
    props.add_workbench(spec, [*at.bench_pos, 0.0], at.bench_yaw)
    props.add_crate(spec, [*at.crate_pos, 0.0], at.crate_yaw)
    fx = lay.fixture
    props.add_fixture(spec, fx.pos, at.fixture_quat, fx.mount, ROOM_SIZE[2], scale.socket)
    props.add_ladder(spec, "ladder", [*at.ladder_pos, 0.0], at.ladder_yaw, scale.ladder)
    for bulb in BULBS:
        props.add_bulb(spec, bulb, [0.0, 0.0, 3.0 + BULBS.index(bulb)], [1, 0, 0, 0], scale.bulb(bulb))
    props.add_seat_contacts(spec, BULBS)
    if look.dressed:
        dressing.dress(spec, look, appearance, scale)
    scene.add_robot(spec, controller, detail)
    add_sensors(spec.body("torso_link"))
    if hand_friction is not None:
        for geom in spec.geoms:
            if geom.parent.name in {b for links in HAND_LINKS.values() for b in links} and geom.contype:
                geom.friction = [hand_friction, *list(geom.friction)[1:]]
    return spec
