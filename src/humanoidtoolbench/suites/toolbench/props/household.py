"""Irrelevant household objects: distractors a policy should leave alone.

Each kind is drawn at full size from MuJoCo primitives and revolved meshes in
its characteristic shape and colours, so it reads at the head camera's range
(0.6-0.9 m). Round things rest on a flattened base or on feet instead of
rolling. Footprints stay within 0.10 x 0.14 m and heights within 0.20 m.
A variant picks a colour from the kind's list and shrinks it by up to 8 %.
In a dressed look the body (the shapes in the variant's colour) is drawn as
the kind's surface of `BODY_SURFACE`: fruit peel, glazed ceramic, printed
board, paper.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from . import palette as P
from .base import ALONG_Y, OBJECT_CONTACT, Prop, Shape, assemble, axis_angle, segment
from .meshes import ellipsoid, lathe, prism, signed_volume, torus

UPRIGHT_RING = axis_angle((1, 0, 0), np.pi / 2)  # a torus standing in the x-z plane (mug handles)


def solid(type: str, size=(), pos=(0.0, 0.0, 0.0), rgba=P.GREY, **kw) -> Shape:
    """A collision geom whose mass share is its volume (uniform density)."""
    shape = Shape(type, tuple(size), tuple(pos), rgba=rgba, contact=OBJECT_CONTACT, **kw)
    return replace(shape, share=_volume(shape)) if "share" not in kw else shape


def deco(type: str, size=(), pos=(0.0, 0.0, 0.0), rgba=P.GREY, **kw) -> Shape:
    """A visual-only geom."""
    return Shape(type, tuple(size), tuple(pos), rgba=rgba, **kw)


def turned(profile, rgba, z: float = 0.0, **kw) -> Shape:
    """A solid revolved from an (r, z) profile, standing on the origin, lifted by z."""
    return solid("mesh", (), (0.0, 0.0, z), rgba, mesh=lathe(profile), **kw)


def foot(rx: float, ry: float | None = None, rgba=P.GREY) -> Shape:
    """A thin box inside a round object's flat base, standing 0.5 mm proud of it so that it
    alone meets the bench: box-on-box contacts hold four corners still, while a mesh or
    cylinder base gets as few as two contacts and rocks or jitters."""
    return solid("box", (0.7 * rx, 0.7 * (ry or rx), 0.001), (0, 0, 0.0005), rgba)


def _volume(shape: Shape) -> float:
    s = shape.size
    if shape.type == "mesh":
        return signed_volume(shape.mesh)
    if shape.type == "box":
        return 8 * s[0] * s[1] * s[2]
    if shape.type == "sphere":
        return 4 / 3 * np.pi * s[0] ** 3
    if shape.type == "ellipsoid":
        return 4 / 3 * np.pi * s[0] * s[1] * s[2]
    if shape.type == "cylinder":
        return np.pi * s[0] ** 2 * 2 * s[1]
    return np.pi * s[0] ** 2 * (2 * s[1] + 4 / 3 * s[0])  # capsule


def scaled(shape: Shape, k: float) -> Shape:
    mesh = None if shape.mesh is None else (shape.mesh[0] * k, shape.mesh[1])
    return replace(shape, size=tuple(v * k for v in shape.size), pos=tuple(v * k for v in shape.pos), mesh=mesh)


# --- fruit ---------------------------------------------------------------------------------------
def _apple(c, rng):
    profile = [(0.014, 0), (0.027, 0.005), (0.035, 0.016), (0.038, 0.032), (0.036, 0.05), (0.029, 0.063), (0.016, 0.069),
               (0.006, 0.066), (0, 0.062)]
    return [foot(0.014, rgba=c), turned(profile, c, finish="glossy"),
            segment((0, 0, 0.06), (0.003, 0, 0.079), 0.0018, rgba=P.BROWN),
            deco("ellipsoid", (0.011, 0.005, 0.0012), (0.01, 0, 0.074), P.GREEN, quat=axis_angle((0, 1, 0), -0.4))]


def _orange(c, rng):
    return [foot(0.017, rgba=c), solid("mesh", (), (0, 0, 0.032), c, mesh=ellipsoid((0.038, 0.038, 0.036), flat=0.004)),
            deco("sphere", (0.004,), (0, 0, 0.067), P.DARK_GREEN)]


def _tomato(c, rng):
    leaves = [deco("box", (0.009, 0.002, 0.0008), (0.007 * np.cos(a), 0.007 * np.sin(a), 0.0485), P.DARK_GREEN,
                   quat=axis_angle((0, 0, 1), a)) for a in np.linspace(0, 2 * np.pi, 5, endpoint=False)]
    return [foot(0.015, rgba=c),
            solid("mesh", (), (0, 0, 0.023), c, mesh=ellipsoid((0.034, 0.034, 0.026), flat=0.003), finish="glossy"),
            segment((0, 0, 0.047), (0, 0, 0.054), 0.0015, rgba=P.DARK_GREEN), *leaves]


def _lemon(c, rng):
    return [foot(0.012, 0.018, rgba=c), solid("mesh", (), (0, 0, 0.023), c, mesh=ellipsoid((0.026, 0.040, 0.026), flat=0.003)),
            *(deco("sphere", (0.006,), (0, y, 0.023), c) for y in (-0.037, 0.037))]


def _pear(c, rng):
    profile = [(0.016, 0), (0.03, 0.008), (0.036, 0.025), (0.033, 0.042), (0.022, 0.058), (0.016, 0.072), (0.013, 0.085),
               (0.007, 0.092), (0, 0.093)]
    return [foot(0.016, rgba=c), turned(profile, c), segment((0, 0, 0.09), (0.004, 0, 0.105), 0.0018, rgba=P.BROWN)]


def _banana(c, rng):
    """Curved: four capsules along an arc in the bench plane, so it cannot roll."""
    r, bend = 0.017, 0.085
    angles = np.linspace(-0.6, 0.6, 5)
    pts = [(bend * (1 - np.cos(a)), bend * np.sin(a), r) for a in angles]
    body = [segment(a, b, r, rgba=c, contact=OBJECT_CONTACT, share=1.0) for a, b in zip(pts, pts[1:])]
    ends = [deco("sphere", (0.005,), p, P.BROWN) for p in (pts[0], pts[-1])]
    stem = segment(pts[-1], (pts[-1][0] + 0.004, pts[-1][1] + 0.012, r + 0.004), 0.005, rgba=P.DARK_GREEN)
    return body + ends + [stem]


# --- tableware -----------------------------------------------------------------------------------
def _mug(c, rng):
    r, h = 0.036, 0.095
    return [foot(r, rgba=c), solid("cylinder", (r, h / 2), (0, 0, h / 2), c, finish="glossy"),
            deco("cylinder", (r - 0.004, 0.0006), (0, 0, h), P.BROWN),
            deco("mesh", (), (r, 0, 0.05), c, quat=UPRIGHT_RING, mesh=torus(0.017, 0.005), finish="glossy"),
            solid("box", (0.003, 0.005, 0.018), (r + 0.019, 0, 0.05), c)]


def _bowl(c, rng):
    profile = [(0.022, 0), (0.034, 0.006), (0.044, 0.018), (0.049, 0.034), (0.05, 0.045), (0.046, 0.045), (0.045, 0.034),
               (0.04, 0.02), (0.03, 0.01), (0, 0.007)]
    return [foot(0.022, rgba=c), turned(profile, c, finish="glossy")]


def _plate(c, rng):
    profile = [(0.035, 0), (0.036, 0.004), (0.042, 0.006), (0.05, 0.016), (0.047, 0.016), (0.04, 0.009), (0.034, 0.007),
               (0, 0.007)]
    return [foot(0.035, rgba=P.WHITE), turned(profile, P.WHITE, finish="glossy", surface="ceramic"),
            deco("mesh", (), (0, 0, 0.0155), c, mesh=torus(0.0485, 0.0012))]


def _teacup(c, rng):
    saucer = [(0.03, 0), (0.045, 0.006), (0.05, 0.011), (0.047, 0.011), (0.03, 0.006), (0, 0.006)]
    cup = [(0.02, 0), (0.026, 0.006), (0.033, 0.024), (0.037, 0.044), (0.034, 0.044), (0.031, 0.026), (0.024, 0.009), (0, 0.006)]
    return [foot(0.03, rgba=c), turned(saucer, c, finish="glossy"), turned(cup, c, z=0.006, finish="glossy"),
            deco("cylinder", (0.031, 0.0006), (0, 0, 0.044), P.BROWN),
            deco("mesh", (), (0.036, 0, 0.032), c, quat=UPRIGHT_RING, mesh=torus(0.009, 0.003)),
            solid("box", (0.002, 0.003, 0.009), (0.046, 0, 0.032), c)]


def _spoon(c, rng):
    """Lying flat; the bowl's dome stands 0.5 mm clear on a box under it (a dome alone chatters)."""
    return [solid("ellipsoid", (0.019, 0.027, 0.006), (0, -0.04, 0.0065), c, finish="metal"),
            solid("box", (0.01, 0.015, 0.001), (0, -0.04, 0.001), c, finish="metal"),
            solid("box", (0.006, 0.042, 0.002), (0, 0.025, 0.002), c, finish="metal"),
            solid("box", (0.009, 0.012, 0.002), (0, 0.055, 0.002), c, finish="metal")]


def _glass(c, rng):
    profile = [(0.028, 0), (0.03, 0.003), (0.034, 0.1), (0.031, 0.1), (0.027, 0.008), (0, 0.008)]
    return [foot(0.028, rgba=P.GLASS), turned(profile, P.GLASS, finish="glossy"),
            deco("cylinder", (0.029, 0.03), (0, 0, 0.039), c)]


# --- containers ----------------------------------------------------------------------------------
def _bottle(c, rng):
    profile = [(0.032, 0), (0.033, 0.004), (0.033, 0.11), (0.028, 0.13), (0.015, 0.15), (0.012, 0.165), (0.012, 0.175)]
    return [foot(0.032, rgba=c), turned(profile, c, finish="glossy"), solid("cylinder", (0.013, 0.009), (0, 0, 0.184), P.WHITE),
            deco("cylinder", (0.0335, 0.03), (0, 0, 0.06), P.CREAM, finish="matte")]


def _soda_can(c, rng):
    return [foot(0.033, rgba=c), solid("cylinder", (0.033, 0.061), (0, 0, 0.061), c, finish="metal"),
            deco("cylinder", (0.028, 0.0006), (0, 0, 0.122), P.STEEL, finish="metal"),
            deco("cylinder", (0.0333, 0.015), (0, 0, 0.07), P.WHITE)]


def _jar(c, rng):
    return [foot(0.035, rgba=c), solid("cylinder", (0.035, 0.045), (0, 0, 0.045), P.GLASS, finish="glossy"),
            deco("cylinder", (0.033, 0.035), (0, 0, 0.037), c),
            solid("cylinder", (0.036, 0.009), (0, 0, 0.099), P.BRASS, finish="metal")]


def _tea_box(c, rng):
    return [solid("box", (0.035, 0.06, 0.04), (0, 0, 0.04), c),
            deco("box", (0.025, 0.0004, 0.02), (0, 0.0602, 0.045), P.CREAM),
            deco("box", (0.025, 0.04, 0.0004), (0, 0, 0.0802), P.CREAM)]


def _milk_carton(c, rng):
    gable = prism(np.array([[-0.035, 0.0], [0.035, 0.0], [0.0, 0.03]]), 0.07)
    return [solid("box", (0.035, 0.035, 0.06), (0, 0, 0.06), P.WHITE),
            solid("mesh", (), (0, 0, 0.12), P.WHITE, mesh=gable),
            solid("box", (0.003, 0.035, 0.008), (0, 0, 0.155), P.WHITE),
            deco("box", (0.0355, 0.0355, 0.025), (0, 0, 0.07), c)]


def _pill_bottle(c, rng):
    return [foot(0.02, rgba=P.AMBER_GLASS), solid("cylinder", (0.02, 0.032), (0, 0, 0.032), P.AMBER_GLASS, finish="glossy"),
            solid("cylinder", (0.021, 0.008), (0, 0, 0.071), c),
            deco("cylinder", (0.0203, 0.014), (0, 0, 0.03), P.WHITE, finish="matte")]


# --- other things --------------------------------------------------------------------------------
def _book(c, rng):
    pages = dict(rgba=P.CREAM, finish="matte")
    return [solid("box", (0.048, 0.068, 0.014), (0, 0, 0.014), c),
            deco("box", (0.0005, 0.066, 0.011), (0.0482, 0, 0.014), **pages),
            *(deco("box", (0.046, 0.0005, 0.011), (0.001, y, 0.014), **pages) for y in (-0.0682, 0.0682)),
            deco("box", (0.025, 0.02, 0.0004), (0.005, 0.02, 0.0282), P.CREAM)]


def _candle(c, rng):
    return [foot(0.03, rgba=c), solid("cylinder", (0.03, 0.045), (0, 0, 0.045), c, finish="matte"),
            segment((0, 0, 0.088), (0, 0, 0.097), 0.001, rgba=P.BLACK),
            deco("ellipsoid", (0.004, 0.004, 0.009), (0, 0, 0.104), P.FLAME, finish="glow")]


def _alarm_clock(c, rng):
    """A round clock facing +y (the robot), standing on two feet; bells on top."""
    r, z = 0.042, 0.048
    hands = [deco("box", (0.0015, 0.0006, length / 2), (np.sin(a) * length / 2, 0.0215, z + np.cos(a) * length / 2), P.BLACK,
                  quat=axis_angle((0, 1, 0), a)) for a, length in ((0.5, 0.026), (2.3, 0.018))]
    return [solid("cylinder", (r, 0.02), (0, 0, z), c, quat=ALONG_Y, finish="glossy"),
            *(solid("box", (0.008, 0.012, 0.008), (x, 0, 0.008), P.CHARCOAL) for x in (-0.026, 0.026)),
            *(deco("sphere", (0.015,), (x, 0, z + 0.037), P.STEEL, finish="metal") for x in (-0.024, 0.024)),
            deco("cylinder", (0.036, 0.0006), (0, 0.0202, z), P.WHITE, quat=ALONG_Y), *hands]


def _rubber_duck(c, rng):
    return [foot(0.021, 0.027, rgba=c),
            solid("mesh", (), (0, 0, 0.022), c, mesh=ellipsoid((0.035, 0.045, 0.028), flat=0.006), finish="glossy"),
            solid("sphere", (0.02,), (0, 0.026, 0.058), c, finish="glossy"),
            deco("ellipsoid", (0.009, 0.011, 0.004), (0, 0.047, 0.054), P.ORANGE),
            *(deco("sphere", (0.003,), (x, 0.041, 0.066), P.BLACK) for x in (-0.009, 0.009)),
            deco("ellipsoid", (0.012, 0.01, 0.008), (0, -0.042, 0.04), c)]


def _potted_plant(c, rng):
    pot = [(0.03, 0), (0.04, 0.07), (0.043, 0.07), (0.043, 0.08)]
    leaves = [deco("ellipsoid", (0.018, 0.03, 0.012), (0.02 * np.cos(a), 0.02 * np.sin(a), 0.115), c,
                   quat=axis_angle((np.sin(a), -np.cos(a), 0), 0.5)) for a in rng.uniform(0, 2 * np.pi, 5)]
    return [foot(0.03, rgba=P.TERRACOTTA), turned(pot, P.TERRACOTTA, finish="matte"),
            deco("cylinder", (0.039, 0.001), (0, 0, 0.078), P.BROWN, finish="matte"),
            solid("sphere", (0.03,), (0, 0, 0.11), c, finish="matte"), *leaves]


def _toilet_roll(c, rng):
    return [foot(0.048, rgba=c), solid("cylinder", (0.048, 0.05), (0, 0, 0.05), c, finish="matte"),
            deco("cylinder", (0.021, 0.0006), (0, 0, 0.1), P.OAK, finish="matte"),
            deco("cylinder", (0.019, 0.0008), (0, 0, 0.1), P.BROWN, finish="matte")]


def _rubiks_cube(c, rng):
    """A scrambled cube: random sticker colours on the five visible faces."""
    h, cell = 0.0285, 0.019
    colours = (P.WHITE, P.YELLOW, P.RED, P.ORANGE, P.BLUE, P.GREEN)
    stickers = []
    for axis, sign in ((2, 1), (0, 1), (0, -1), (1, 1), (1, -1)):
        for i in range(3):
            for j in range(3):
                pos, size = np.zeros(3), np.full(3, 0.0082)
                u, v = [k for k in range(3) if k != axis]
                pos[axis], pos[u], pos[v] = sign * (h + 0.0003), (i - 1) * cell, (j - 1) * cell
                size[axis] = 0.0004
                pos[2] += h
                stickers.append(deco("box", size, pos, colours[rng.integers(6)], finish="glossy"))
    return [solid("box", (h, h, h), (0, 0, h), P.BLACK), *stickers]


def _sponge(c, rng):
    return [solid("box", (0.035, 0.05, 0.011), (0, 0, 0.011), c, finish="matte"),
            solid("box", (0.035, 0.05, 0.003), (0, 0, 0.025), P.DARK_GREEN, finish="matte")]


def _remote(c, rng):
    buttons = [deco("cylinder", (0.0035, 0.0008), (x, y, 0.018), P.GREY)
               for x in (-0.01, 0, 0.01) for y in (-0.045, -0.03, -0.015, 0)]
    return [solid("box", (0.022, 0.065, 0.009), (0, 0, 0.009), c),
            deco("cylinder", (0.004, 0.0008), (0.01, 0.052, 0.018), P.RED),
            deco("cylinder", (0.011, 0.0008), (0, 0.025, 0.018), P.STEEL), *buttons]


def _pepper_mill(c, rng):
    profile = [(0.025, 0), (0.026, 0.01), (0.021, 0.05), (0.024, 0.09), (0.026, 0.11), (0.02, 0.135), (0.012, 0.14)]
    return [foot(0.025, rgba=c), turned(profile, c, finish="glossy"),
            solid("sphere", (0.009,), (0, 0, 0.145), P.STEEL, finish="metal"),
            deco("cylinder", (0.0225, 0.003), (0, 0, 0.07), P.STEEL, finish="metal")]


def _vase(c, rng):
    profile = [(0.03, 0), (0.042, 0.04), (0.045, 0.08), (0.035, 0.12), (0.018, 0.15), (0.02, 0.17), (0.022, 0.175),
               (0.016, 0.175), (0.013, 0.15), (0, 0.14)]  # out over the shoulder to the lip, then down the neck
    return [foot(0.03, rgba=c), turned(profile, c, finish="glossy")]


def _pencil_cup(c, rng):
    pencils = []
    for k, colour in enumerate((P.YELLOW, P.RED, P.BLUE, P.GREEN, P.YELLOW)):
        a = 2 * np.pi * k / 5 + rng.uniform(0, 0.5)
        base = (0.015 * np.cos(a), 0.015 * np.sin(a), 0.02)
        top = (0.03 * np.cos(a), 0.03 * np.sin(a), 0.15 + rng.uniform(-0.02, 0.01))
        pencils.append(segment(base, top, 0.0035, rgba=colour))
    return [foot(0.035, rgba=c), solid("cylinder", (0.035, 0.05), (0, 0, 0.05), c),
            deco("cylinder", (0.032, 0.0006), (0, 0, 0.1), P.BLACK), *pencils]


# kind -> (mass kg, colours a variant picks from, builder(colour, rng) -> shapes in metres, description)
HOUSEHOLD = {
    "apple": (0.18, (P.RED, (0.55, 0.75, 0.2, 1), (0.85, 0.3, 0.15, 1)), _apple, "apple"),
    "orange": (0.18, (P.ORANGE, (0.98, 0.6, 0.12, 1), (0.9, 0.42, 0.05, 1)), _orange, "orange"),
    "tomato": (0.12, (P.RED, (0.88, 0.2, 0.1, 1), (0.95, 0.35, 0.1, 1)), _tomato, "tomato"),
    "lemon": (0.10, (P.YELLOW, (0.95, 0.88, 0.3, 1), (0.5, 0.75, 0.2, 1)), _lemon, "lemon"),
    "pear": (0.17, ((0.7, 0.75, 0.25, 1), (0.85, 0.7, 0.2, 1), (0.6, 0.32, 0.15, 1)), _pear, "pear"),
    "banana": (0.12, (P.YELLOW, (0.9, 0.85, 0.25, 1), (0.75, 0.8, 0.25, 1)), _banana, "banana"),
    "mug": (0.30, (P.WHITE, P.RED, P.BLUE, P.GREEN, P.YELLOW), _mug, "coffee mug"),
    "bowl": (0.25, (P.CREAM, P.BLUE, P.GREEN, P.TERRACOTTA), _bowl, "small ceramic bowl"),
    "plate": (0.15, (P.BLUE, P.RED, P.BRASS, P.GREEN), _plate, "side plate with a coloured rim"),
    "teacup": (0.25, (P.WHITE, P.PINK, P.TEAL, P.CREAM), _teacup, "teacup on a saucer"),
    "spoon": (0.04, (P.STEEL, P.BRASS, P.RED, P.BLUE), _spoon, "spoon"),
    "glass": (0.20, ((0.55, 0.75, 0.95, 0.4), (0.95, 0.6, 0.1, 0.7), (0.6, 0.1, 0.2, 0.7)), _glass,
              "glass of water, juice or wine"),
    "bottle": (0.35, ((0.2, 0.5, 0.25, 0.75), (0.45, 0.25, 0.1, 0.8), (0.6, 0.8, 0.95, 0.5)), _bottle, "bottle standing upright"),
    "soda_can": (0.35, (P.RED, P.BLUE, P.GREEN, P.ORANGE, P.STEEL), _soda_can, "soda can"),
    "jar": (0.35, (P.DARK_RED, (0.85, 0.55, 0.1, 1), P.GREEN), _jar, "jar of jam, honey or pickles"),
    "tea_box": (0.10, (P.GREEN, P.RED, P.BLUE, P.PURPLE), _tea_box, "box of tea"),
    "milk_carton": (0.30, (P.BLUE, P.RED, P.GREEN, P.ORANGE), _milk_carton, "milk carton"),
    "pill_bottle": (0.05, (P.WHITE, P.RED, P.BLUE), _pill_bottle, "pill bottle"),
    "book": (0.30, (P.NAVY, P.DARK_RED, P.DARK_GREEN, P.BROWN, P.TEAL), _book, "book lying flat"),
    "candle": (0.23, (P.CREAM, P.RED, P.WHITE, P.PURPLE), _candle, "lit pillar candle"),
    "alarm_clock": (0.25, (P.RED, P.BLUE, P.BLACK, P.GREEN, P.STEEL), _alarm_clock, "alarm clock"),
    "rubber_duck": (0.05, (P.YELLOW, P.PINK, P.BLUE), _rubber_duck, "rubber duck"),
    "potted_plant": (0.35, (P.GREEN, P.DARK_GREEN, P.LIME), _potted_plant, "potted plant"),
    "toilet_roll": (0.12, (P.WHITE, P.CREAM, (0.95, 0.85, 0.88, 1)), _toilet_roll, "toilet roll"),
    "rubiks_cube": (0.09, (P.BLACK,), _rubiks_cube, "scrambled Rubik's cube"),
    "sponge": (0.03, (P.YELLOW, P.PINK, P.ORANGE, P.BLUE), _sponge, "kitchen sponge"),
    "remote": (0.12, (P.BLACK, P.CHARCOAL, P.GREY), _remote, "TV remote"),
    "pepper_mill": (0.20, (P.WALNUT, P.OAK, P.BLACK, P.WHITE), _pepper_mill, "pepper mill"),
    "vase": (0.35, (P.BLUE, P.TERRACOTTA, P.TEAL, P.WHITE), _vase, "vase"),
    "pencil_cup": (0.15, (P.BLACK, P.RED, P.BLUE, P.STEEL), _pencil_cup, "cup of pencils"),
}
HOUSEHOLD_KINDS: tuple[str, ...] = tuple(HOUSEHOLD)
# A dressed look's surface for the shapes of a kind drawn in the variant's colour (the others keep
# the surface their colour and finish give, `props.base.surface_of`).
BODY_SURFACE = {
    **dict.fromkeys(("apple", "orange", "tomato", "lemon", "pear", "banana"), "peel"),
    **dict.fromkeys(("mug", "bowl", "teacup", "vase", "candle"), "ceramic"),
    **dict.fromkeys(("tea_box", "milk_carton"), "cardboard"),
    "book": "fabric",
    "toilet_roll": "plaster",
    "sponge": "peel",
    "potted_plant": "fabric",
}


def household(kind: str, variant: int) -> Prop:
    """One of HOUSEHOLD_KINDS; the mass stays the kind's whatever the variant's size."""
    mass, colours, build, description = HOUSEHOLD[kind]
    shrink = 1 - 0.08 * ((variant * 0.6180339887) % 1)  # deterministic, spread over [0.92, 1]
    colour, surface = colours[variant % len(colours)], BODY_SURFACE.get(kind, "")
    shapes = [scaled(replace(s, surface=surface) if surface and s.rgba == colour and not s.surface else s, shrink)
              for s in build(colour, np.random.default_rng(variant))]
    return assemble(kind, "household", variant, mass, shapes, description=description)
