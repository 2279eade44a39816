"""Tool families: sticks, hooks, straight sticks, hammers and compliant decoys.

Every tool lies flat in its resting frame with the handle end at +y and the
working end at -y. Handles and rods are prisms of a regular polygon lying on a
flat face (a round rod would roll), 30-36 mm across the flats and at most 40 mm
across the corners, so a Dex3 hand can close on them. Visual variants come from
parameter tables; `variant` wraps around them. In a dressed look, shafts and
handles are wood (stained or painted in their colour), grips rubber, hook ends
and hammer heads metal, a roller foam.
"""

from __future__ import annotations

import numpy as np

from . import palette as P
from .base import ALONG_X, HARD_TOOL_CONTACT, SOFT_TOOL_CONTACT, TOOL_CONTACT, YAW_90, Flex, Prop, Shape, assemble, segment
from .meshes import flatten, lathe, lying, prism, regular_polygon

TOOL_MASS = 0.15  # kg: sticks, hooks, straight sticks and hammers all weigh the same
DECOY_MASS = 0.04  # kg: light enough that hitting ice with one does nothing
LONG_STICK, SHORT_STICK = 0.50, 0.30  # m
HOOK_LENGTH = 0.50
HAMMER_LENGTH = DECOY_LENGTH = 0.42
GRIP_LENGTH = 0.12  # coloured grip segment at the handle end
GRASP_INSET = 0.07  # grasp point, from the handle end
SKID = 0.0005  # m: hooks and decoys ride on hidden boxes this far proud of their bars' faces (see skid)
DECOY_KINDS = ("fly_swatter", "paint_roller", "plunger")
SECTION_NAMES = {4: "square", 6: "hexagonal", 8: "octagonal"}


def bar(sides: int, width: float, start: float, end: float, *, rgba, contact, finish: str = "satin", name: str = "",
        offset: float = 0.0, along_x: bool = False, share: float | None = None, lift: float = 0.0, surface: str = "",
        look_rgba=None) -> Shape:
    """A straight bar lying on a flat face (bottom at z = lift) from `start` to `end` along y (or x),
    `offset` off that axis; its mass share defaults to its length (uniform density)."""
    half, length = width / 2, abs(end - start)
    mid = (start + end) / 2
    pos = (mid, offset, half + lift) if along_x else (offset, mid, half + lift)
    common = dict(pos=pos, rgba=rgba, contact=contact, finish=finish, name=name, share=length if share is None else share,
                  surface=surface, look_rgba=look_rgba)
    if sides == 4:
        return Shape("box", (length / 2, half, half) if along_x else (half, length / 2, half), **common)
    mesh = prism(regular_polygon(sides, half), length)
    return Shape("mesh", mesh=mesh, quat=YAW_90 if along_x else (1.0, 0.0, 0.0, 0.0), **common)


def skid(sides: int, width: float, start: float, end: float, *, rgba, name: str = "skid", offset: float = 0.0,
         along_x: bool = False, share: float = 0.0) -> Shape:
    """A thin box hidden in the face of a bar lifted by SKID, standing proud of it.

    A prism lying on its face gets four mesh contacts from the surface, but now and then only
    two, and a light or L-shaped tool then jolts; a box on a box keeps its four corners."""
    length = abs(end - start) / 2 - 0.005
    across = 0.8 * width / 2 * np.tan(np.pi / sides)  # within the face the bar lies on
    mid = (start + end) / 2
    size, pos = ((length, across, SKID), (mid, offset, SKID)) if along_x else ((across, length, SKID), (offset, mid, SKID))
    return Shape("box", size, pos, rgba=rgba, contact=TOOL_CONTACT, share=share, name=name)


def half_across(sides: int, width: float) -> float:
    """Half-width along x of a bar lying on a flat face (a hexagon stands on corners at its sides)."""
    return width / 2 if sides == 4 else float(np.abs(regular_polygon(sides, width / 2)[:, 0]).max())


# --- sticks and straight sticks ------------------------------------------------------------------
# (sides, width m, rod colour, grip colour, end-cap colour, finish)
STICK_STYLES = (
    (8, 0.032, P.BIRCH, P.BLACK, P.RED, "satin"),
    (6, 0.034, P.OAK, P.RED, P.BLACK, "satin"),
    (8, 0.036, P.BLUE, P.CHARCOAL, P.YELLOW, "glossy"),
    (4, 0.030, P.WALNUT, P.ORANGE, P.WHITE, "satin"),
    (6, 0.030, P.YELLOW, P.BLACK, P.BLACK, "glossy"),
    (8, 0.030, P.GREEN, P.GREY, P.WHITE, "satin"),
    (6, 0.032, P.BAMBOO, P.BLUE, P.BLUE, "matte"),
    (4, 0.034, P.RED, P.BLACK, P.GREY, "glossy"),
    (8, 0.034, P.TEAL, P.ORANGE, P.BLACK, "glossy"),
)
STRAIGHT_STYLES = (
    (6, 0.032, P.TEAL, P.BLACK, P.BLACK, "satin"),
    (8, 0.034, P.BIRCH, P.GREEN, P.GREEN, "satin"),
    (4, 0.032, P.ORANGE, P.CHARCOAL, P.CHARCOAL, "glossy"),
    (8, 0.036, P.WALNUT, P.BLACK, P.BRASS, "satin"),
    (6, 0.030, P.PURPLE, P.GREY, P.WHITE, "glossy"),
    (4, 0.036, P.OAK, P.RED, P.RED, "matte"),
    (8, 0.032, P.WHITE, P.BLUE, P.BLUE, "glossy"),
    (6, 0.034, P.BLACK, P.YELLOW, P.YELLOW, "satin"),
    (4, 0.030, P.GREEN, P.BLACK, P.WHITE, "satin"),
)


def _rod(kind: str, family: str, variant: int, styles, length: float) -> Prop:
    """Grip segment, rod and end cap: three collinear bars of one section."""
    sides, width, body, grip, cap, finish = styles[variant % len(styles)]
    end, grip_start, cap_end = length / 2, length / 2 - GRIP_LENGTH, -length / 2 + 0.02
    shapes = [
        bar(sides, width, grip_start, end, rgba=grip, contact=TOOL_CONTACT, finish="matte", name="grip", surface="rubber"),
        bar(sides, width, cap_end, grip_start, rgba=body, contact=TOOL_CONTACT, finish=finish, name="shaft", surface="wood"),
        bar(sides, width, -end, cap_end, rgba=cap, contact=TOOL_CONTACT, finish=finish, name="tip"),
    ]
    grasp, tip = (0.0, end - GRASP_INSET, width / 2), (0.0, -end, width / 2)
    desc = f"{length:.2f} m {kind.replace('_', ' ')} of {SECTION_NAMES[sides]} section, {width * 1000:.0f} mm across"
    return assemble(kind, family, variant, TOOL_MASS, shapes, grasp=grasp, tip=tip, description=desc)


def stick(variant: int, length: float, kind: str = "stick") -> Prop:
    """A stick of the shared pool: the same variant has the same section and mass at every length."""
    return _rod(kind, "stick", variant, STICK_STYLES, length)


def long_stick(variant: int) -> Prop:
    return stick(variant, LONG_STICK, "long_stick")


def short_stick(variant: int) -> Prop:
    return stick(variant, SHORT_STICK, "short_stick")


def straight_stick(variant: int) -> Prop:
    """The hook's decoy: same length and mass, no hook."""
    return _rod("straight_stick", "straight_stick", variant, STRAIGHT_STYLES, HOOK_LENGTH)


# --- hooks ---------------------------------------------------------------------------------------
# (sides, width m, arm length m, arm side +1/-1, return length m, rod colour, grip colour)
HOOK_STYLES = (
    (8, 0.032, 0.080, 1, 0.000, P.STEEL, P.BLACK),
    (6, 0.034, 0.070, -1, 0.030, P.OAK, P.RED),
    (8, 0.030, 0.090, -1, 0.000, P.BLUE, P.CHARCOAL),
    (4, 0.032, 0.065, 1, 0.035, P.ORANGE, P.BLACK),
    (6, 0.030, 0.085, 1, 0.025, P.BIRCH, P.GREEN),
    (8, 0.034, 0.060, -1, 0.030, P.RED, P.GREY),
    (4, 0.030, 0.075, -1, 0.000, P.WALNUT, P.YELLOW),
    (6, 0.032, 0.090, 1, 0.040, P.DARK_STEEL, P.ORANGE),
    (8, 0.036, 0.075, 1, 0.030, P.PURPLE, P.BLACK),
)


def hook(variant: int) -> Prop:
    """A rod with an arm across its -y end (and maybe a short return towards +y); a ball caught
    between the arm and the rod comes along when the hook is pulled."""
    sides, width, arm, side, back, body, grip = HOOK_STYLES[variant % len(HOOK_STYLES)]
    end = HOOK_LENGTH / 2
    half = half_across(sides, width)  # the rod's half-width; turned across, the arm's half-depth along y
    solid = dict(contact=TOOL_CONTACT, lift=SKID)
    metal = dict(surface="brushed_metal", look_rgba=P.STEEL)  # in a dressed look the hook's end is steel
    shapes = [
        bar(sides, width, end - GRIP_LENGTH, end, rgba=grip, finish="matte", name="grip", surface="rubber", **solid),
        bar(sides, width, -end, end - GRIP_LENGTH, rgba=body, name="shaft", surface="wood", **solid),
        bar(sides, width, 0.0, side * arm, rgba=body, name="arm", offset=-end + half, along_x=True, **metal, **solid),
        skid(sides, width, -end, end, rgba=body),
        skid(sides, width, 0.0, side * arm, rgba=body, name="arm_skid", offset=-end + half, along_x=True),
    ]
    inner = arm
    if back:
        shapes.append(bar(sides, width, -end, -end + 2 * half + back, rgba=body, name="return", offset=side * (arm - half),
                          **metal, **solid))
        inner = arm - 2 * half
    axis_z = width / 2 + SKID
    grasp = (0.0, end - GRASP_INSET, axis_z)
    tip = (side * (half + inner) / 2, -end + 2 * half, axis_z)  # inside the hook, on the arm's face
    shape = "U" if back else "L"
    desc = f"{HOOK_LENGTH:.2f} m hook, {SECTION_NAMES[sides]} rod with a {arm * 1000:.0f} mm {shape}-shaped end"
    return assemble("hook", "hook", variant, TOOL_MASS, shapes, grasp=grasp, tip=tip, description=desc)


# --- hammers -------------------------------------------------------------------------------------
HAMMER_HEAD_MASS = 0.10  # kg: most of the mass sits in the head, as in a metal hammer
FACE_LENGTH, CLAW_LENGTH, HAMMER_GRIP = 0.022, 0.03, 0.11
# (head length m, head section m, back: claw|peen|face, face side +1/-1, handle sides, handle width m,
#  handle colour, grip colour, head colour)
HAMMER_STYLES = (
    (0.110, 0.030, "claw", 1, 8, 0.032, P.OAK, P.BLACK, P.STEEL),
    (0.100, 0.028, "peen", -1, 6, 0.032, P.BIRCH, P.RED, P.DARK_STEEL),
    (0.090, 0.032, "face", 1, 8, 0.034, P.YELLOW, P.BLACK, P.BLUE_STEEL),
    (0.120, 0.030, "claw", -1, 4, 0.030, P.WALNUT, P.BLUE, P.STEEL),
    (0.105, 0.034, "peen", 1, 8, 0.036, P.BLACK, P.ORANGE, P.STEEL),
    (0.095, 0.030, "face", -1, 6, 0.034, P.RED, P.BLACK, P.DARK_STEEL),
    (0.115, 0.032, "claw", 1, 6, 0.032, P.BLUE, P.YELLOW, P.BLUE_STEEL),
    (0.100, 0.028, "peen", -1, 4, 0.032, P.BAMBOO, P.GREEN, P.STEEL),
    (0.110, 0.032, "face", -1, 8, 0.032, P.ORANGE, P.BLACK, P.DARK_STEEL),
)


def hammer(variant: int) -> Prop:
    """A metal hammer lying on its side: a square-section head across the -y end with a round
    striking face at one end and a claw, a ball peen or a second face at the other."""
    length, s, back, side, sides, width, handle_rgba, grip_rgba, head_rgba = HAMMER_STYLES[variant % len(HAMMER_STYLES)]
    end = HAMMER_LENGTH / 2
    y = -end + s / 2  # head centre line
    metal = dict(rgba=head_rgba, contact=HARD_TOOL_CONTACT, finish="metal")

    def face(x: float, name: str) -> Shape:
        return Shape("cylinder", (s / 2, FACE_LENGTH / 2), (x, y, s / 2), ALONG_X, share=0.02, name=name, **metal)

    back_len = CLAW_LENGTH if back == "claw" else FACE_LENGTH
    block = length - FACE_LENGTH - back_len
    x_back = -side * (length / 2 - back_len / 2)
    head = [
        face(side * (length - FACE_LENGTH) / 2, "face"),
        Shape("box", (block / 2, s / 2, s / 2), (side * (length / 2 - FACE_LENGTH - block / 2), y, s / 2), share=0.05,
              name="head", **metal),
    ]
    if back == "claw":  # two tines stacked in z (the hammer lies on its side) with a slot between them
        head += [Shape("box", (back_len / 2, s * 0.4, s * 0.16), (x_back, y, z), share=0.015, name=f"claw{i}", **metal)
                 for i, z in enumerate((s * 0.16, s * 0.84))]
    elif back == "peen":
        head.append(Shape("sphere", (s * 0.4,), (x_back + side * 0.002, y, s / 2), share=0.03, name="peen", **metal))
    else:
        head.append(face(x_back, "face2"))
    # The handle runs into the head; its share makes the head exactly HAMMER_HEAD_MASS.
    handle_share = sum(h.share for h in head) * (TOOL_MASS - HAMMER_HEAD_MASS) / HAMMER_HEAD_MASS / (end - y)
    handle = [
        bar(sides, width, end - HAMMER_GRIP, end, rgba=grip_rgba, contact=TOOL_CONTACT, finish="matte", name="grip",
            share=handle_share * HAMMER_GRIP, surface="rubber"),
        bar(sides, width, y, end - HAMMER_GRIP, rgba=handle_rgba, contact=TOOL_CONTACT, name="handle",
            share=handle_share * (end - HAMMER_GRIP - y), surface="wood"),
    ]
    desc = f"{HAMMER_LENGTH:.2f} m metal hammer, {length * 1000:.0f} mm head with a {back} back"
    return assemble("hammer", "hammer", variant, TOOL_MASS, head + handle, grasp=(0.0, end - GRASP_INSET, width / 2),
                    tip=(side * length / 2, y, s / 2), description=desc)


# --- compliant decoys ----------------------------------------------------------------------------
DECOY_HEAD_SHARE = 0.4  # of the decoy's mass, in the compliant head
DECOY_HANDLE = {"fly_swatter": (8, 0.030), "paint_roller": (8, 0.034), "plunger": (12, 0.030)}  # sides, width m
HEAD_FLEX = dict(stiffness=0.03, damping=0.002, range=(-1.4, 1.4))  # N m/rad: a floppy head
# Per kind, styles cycle with variant // 3: (head colour, handle colour, head width m, head size m)
# where head size is the swatter's plate length, the roller's diameter or the plunger cup's depth.
# Widths stay within 0.12 m including the roller's wire frame.
DECOY_STYLES = {
    "fly_swatter": ((P.YELLOW, P.BLUE, 0.100, 0.110), (P.RED, P.WHITE, 0.110, 0.120), (P.LIME, P.PURPLE, 0.090, 0.100)),
    "paint_roller": ((P.WHITE, P.RED, 0.095, 0.052), (P.CREAM, P.BLACK, 0.105, 0.056), (P.GREY, P.YELLOW, 0.090, 0.050)),
    "plunger": ((P.DARK_RED, P.BIRCH, 0.100, 0.055), (P.BLACK, P.WHITE, 0.110, 0.060), (P.RED, P.WALNUT, 0.090, 0.050)),
}


def decoy(variant: int) -> Prop:
    """A light household tool whose head rides a soft spring hinge; kind = DECOY_KINDS[variant % 3]."""
    kind = DECOY_KINDS[variant % 3]
    styles = DECOY_STYLES[kind]
    head_rgba, handle_rgba, width, size = styles[variant // 3 % len(styles)]
    return _DECOY_BUILDERS[kind](variant, head_rgba, handle_rgba, width, size)


def _axis_z(kind: str) -> float:
    """Height of a decoy handle's axis above the surface."""
    return DECOY_HANDLE[kind][1] / 2 + SKID


def _decoy(kind: str, variant: int, joint_y: float, handle_rgba, head: Flex, tip, description: str) -> Prop:
    """The handle from the head's joint to the +y end, on its skid, and the head."""
    sides, width = DECOY_HANDLE[kind]
    end, share = DECOY_LENGTH / 2, 1 - DECOY_HEAD_SHARE
    handle = [bar(sides, width, joint_y, end, rgba=handle_rgba, contact=TOOL_CONTACT, finish="glossy", name="handle",
                  share=0.9 * share, lift=SKID),
              skid(sides, width, joint_y, end, rgba=handle_rgba, share=0.1 * share)]
    return assemble(kind, "decoy", variant, DECOY_MASS, handle, flex=(head,), grasp=(0.0, end - GRASP_INSET, _axis_z(kind)),
                    tip=tip, description=description)


def _fly_swatter(variant, head_rgba, handle_rgba, width, length) -> Prop:
    end, neck, t = DECOY_LENGTH / 2, 0.05, 0.003
    joint_y = -end + length + neck
    plate_y = -end + length / 2
    soft = dict(contact=SOFT_TOOL_CONTACT, rgba=head_rgba)
    rim = [Shape("box", size, (x, y, t * 0.6), rgba=P.CHARCOAL) for size, x, y in (
        ((width / 2, 0.002, t * 0.6), 0, -end + 0.002),
        ((width / 2, 0.002, t * 0.6), 0, -end + length - 0.002),
        ((0.002, length / 2, t * 0.6), -width / 2 + 0.002, plate_y),
        ((0.002, length / 2, t * 0.6), width / 2 - 0.002, plate_y),
    )]
    head = Flex("head", (
        Shape("box", (0.006, neck / 2 + 0.004, t / 2), (0, joint_y - neck / 2, t / 2), share=0.15 * DECOY_HEAD_SHARE,
              name="neck", **soft),
        Shape("box", (width / 2, length / 2, t / 2), (0, plate_y, t / 2), share=0.85 * DECOY_HEAD_SHARE, name="plate", **soft),
        *rim,
    ), pos=(0, joint_y, t / 2), **HEAD_FLEX)
    return _decoy("fly_swatter", variant, joint_y, handle_rgba, head, (0, plate_y, t / 2),
                  "light plastic fly swatter with a floppy head")


def _paint_roller(variant, head_rgba, handle_rgba, width, diameter) -> Prop:
    end, r, axis_z = DECOY_LENGTH / 2, diameter / 2, _axis_z("paint_roller")
    roller_y = -end + r
    joint_y = roller_y + r + 0.05
    wire_x = -(width / 2 + 0.008)
    corner = (wire_x, joint_y - 0.025, r)
    wire = dict(rgba=P.STEEL, finish="metal")
    head = Flex("head", (
        Shape("cylinder", (r, width / 2), (0, roller_y, r), ALONG_X, rgba=head_rgba, finish="matte", contact=SOFT_TOOL_CONTACT,
              share=DECOY_HEAD_SHARE, name="roller", surface="fabric"),
        *(Shape("cylinder", (r * 0.6, 0.001), (x, roller_y, r), ALONG_X, rgba=P.CHARCOAL) for x in (-width / 2, width / 2)),
        segment((0, joint_y, axis_z), corner, 0.003, **wire),
        segment(corner, (wire_x, roller_y, r), 0.003, **wire),
        segment((wire_x, roller_y, r), (-width / 2, roller_y, r), 0.003, **wire),
    ), pos=(0, joint_y, axis_z), **HEAD_FLEX)
    return _decoy("paint_roller", variant, joint_y, handle_rgba, head, (0, roller_y, r),
                  "paint roller with a foam roller on a floppy wire frame")


def _plunger(variant, cup_rgba, handle_rgba, width, depth) -> Prop:
    """The cup is far wider than the handle is thick. A real plunger rests tilted on the rim
    and the handle's end, but on a floppy joint that pose needs the spring to hold the cup up and
    creeps flat over tens of seconds. So the cup is cut flat where it meets the surface instead
    (and rides on a skid, like the handle): handle and cup each lie flat, and the joint carries
    no load at rest."""
    end, radius, axis_z = DECOY_LENGTH / 2, width / 2, _axis_z("plunger")
    joint_y = -end + depth
    profile = [(radius, -depth), (radius * 0.97, -0.75 * depth), (radius * 0.85, -0.45 * depth), (radius * 0.55, -0.15 * depth),
               (radius * 0.25, 0.0), (0.012, 0.004)]  # rim at -depth, dome top at the joint
    soft = dict(rgba=cup_rgba, contact=SOFT_TOOL_CONTACT, share=DECOY_HEAD_SHARE / 2)
    cup = Shape("mesh", mesh=flatten(lying(lathe(profile, 20)), SKID - axis_z), pos=(0, joint_y, axis_z), finish="glossy",
                name="cup", **soft)
    cup_skid = Shape("box", (radius / 2, 0.35 * depth, SKID), (0, joint_y - 0.6 * depth, SKID), name="cup_skid", **soft)
    head = Flex("head", (cup, cup_skid), pos=(0, joint_y, axis_z), **HEAD_FLEX)
    return _decoy("plunger", variant, joint_y, handle_rgba, head, (0, joint_y - depth / 2, axis_z),
                  "sink plunger with a soft rubber cup on a floppy joint")


_DECOY_BUILDERS = {"fly_swatter": _fly_swatter, "paint_roller": _paint_roller, "plunger": _plunger}

# --- families ------------------------------------------------------------------------------------
# Distinct looks per family: each style table holds this many (decoys: 3 kinds x 3 styles);
# larger variants wrap around.
VARIANTS_PER_FAMILY = 9
# family -> builder; "stick" takes (variant, length), the others take (variant,).
FAMILIES = {"stick": stick, "hook": hook, "straight_stick": straight_stick, "hammer": hammer, "decoy": decoy}
