"""Procedural apartments for the find-navigate-sit suite: rooms, walls with doorways, furniture and clutter.

An apartment is data (frozen dataclasses) that the scene builder turns into
MuJoCo bodies. Index i always gives the same apartment: every draw comes from
one generator seeded by a SHA-256 of "findsit/apartment/<i>", never the global
RNG. The steps, each redrawn from the same generator when its rules fail:

1. Plan: an outer rectangle split recursively (the largest room across its
   longer side) into 3-6 rectangular rooms; room kinds go by area, so every
   apartment has a living room, a bedroom and a bathroom.
2. Doorways on the walls between rooms, along a random spanning tree of the
   rooms that share a wall (plus a few extra), so every room can be reached.
3. Static furniture per room kind (ROOM_KINDS), drawn from SPECS and
   rejection-sampled: inside the room, off the doorways' swing zones, apart
   from the other pieces and out of the floor each keeps free in front of it
   (where one sits down, or stands to watch TV). A furnishing is kept only if
   the navigation grid reaches every doorway and most of every room, and every
   target is seen from a reachable cell.
4. Movable clutter (free bodies): boxes, stools and baskets on floors, small
   items on tables, counters, desks and nightstands. It never blocks the grid.

Frame: MuJoCo's, z up, metres; the floor is z = 0 and the outer walls' centre
lines are x = 0, x = size[0], y = 0, y = size[1]. A box's yaw turns its body
frame about +z. For furniture the body +x axis is its front (the side one
sits down from, the side a screen faces): half_extents[0] is half its depth
front to back, half_extents[1] half its width.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from collections import Counter
from dataclasses import dataclass

import numpy as np

from ...planning.navgrid import NavGrid, Rect, view_points

TARGET_CATEGORIES = ("bed", "chair", "couch", "potted_plant", "toilet", "tv")

WALL_THICKNESS = 0.1
WALL_HEIGHT = 2.5
DOOR_HEIGHT = 2.1  # a lintel fills the wall above
DOOR_WIDTH = (0.9, 1.1)  # m, drawn per doorway
DOOR_JAMB = 0.3  # m of wall kept between a doorway and the end of its wall (a corner or a T)
PLAN_STEP = 0.05  # outer size, splits and doorways snap to the grid resolution, so walls fall on cell edges
ROOM_COUNT = (3, 6)
ROOM_AREA = (12.0, 20.0)  # m² per room, drawn once per apartment
ASPECT = (1.0, 1.6)  # of the outer rectangle
MIN_ROOM_SIDE = 2.6  # m between wall centre lines: a bed and its approach fit across the narrowest room
SPLIT_AT = (0.35, 0.65)  # where a room is split, as a fraction of its longer side
EXTRA_DOOR = 0.3  # chance of a doorway between rooms already joined another way
WALL_GAP = 0.02  # m between a wall face and furniture standing against it
FURNITURE_GAP = 0.05  # m between two static pieces, or two clutter items
MIN_ROOM_FREE = 0.2  # fraction of each room's floor the robot must reach
TV_ON_STAND = 0.6  # else wall-mounted
TV_WALL_BOTTOM = 1.0  # m, underside of a wall-mounted TV
TV_STAND_OVERHANG = 0.2  # m, how much wider than its TV a stand is
TOP_ITEMS_MAX = 2  # small items per table, counter, desk or nightstand
PLAN_TRIES, FURNISH_TRIES, PLACE_TRIES = 50, 30, 60


@dataclass(frozen=True)
class Spec:
    """One kind of furniture or clutter as a table row.

    size: depth (front to back), width, height in m; `jitter` scales depth and
    width by U(1 - jitter, 1 + jitter) (heights stay, so seat heights hold).
    placement: "wall" (back to a wall, facing into the room), "corner", "free"
    (anywhere, any yaw), "centre" (mid-room, axis-aligned), "tv" (on a stand or
    on the wall), "floor" (movable clutter), "top" (a small item on a support).
    clearance: depth of the free floor kept in front. backrest: depth of the
    part at the back that rises above the seat to the full height (a couch's
    back, a toilet's tank). support: small items may stand on its top.
    """

    size: tuple[float, float, float]
    placement: str
    clearance: float = 0.0
    seat_height: float | None = None
    backrest: float = 0.0
    mass: float | None = None  # kg, movable kinds only
    support: bool = False
    jitter: float = 0.1


SPECS: dict[str, Spec] = {
    # the six targets
    "bed": Spec((2.0, 1.6, 0.5), "wall", clearance=0.6, seat_height=0.5),
    "couch": Spec((0.9, 2.0, 0.8), "wall", clearance=0.7, seat_height=0.45, backrest=0.2),
    "toilet": Spec((0.7, 0.4, 0.75), "wall", clearance=0.6, seat_height=0.42, backrest=0.2, jitter=0.05),
    "chair": Spec((0.5, 0.5, 0.9), "free", clearance=0.5, seat_height=0.46, backrest=0.06, jitter=0.05),
    "tv": Spec((0.1, 1.2, 0.7), "tv", clearance=1.0),
    "potted_plant": Spec((0.4, 0.4, 0.9), "corner"),
    # other static furniture
    "tv_stand": Spec((0.4, 1.4, 0.5), "wall", clearance=1.0, jitter=0.0),  # width follows its TV
    "coffee_table": Spec((0.5, 1.0, 0.45), "centre", support=True),
    "dining_table": Spec((0.9, 1.4, 0.75), "centre", support=True),
    "counter": Spec((0.6, 2.0, 0.9), "wall", clearance=0.8, support=True),
    "desk": Spec((0.6, 1.2, 0.75), "wall", clearance=0.7, support=True),
    "nightstand": Spec((0.4, 0.45, 0.55), "wall", support=True),
    "wardrobe": Spec((0.6, 1.2, 2.0), "wall", clearance=0.7),
    "bookshelf": Spec((0.35, 1.0, 1.8), "wall", clearance=0.6),
    "sink": Spec((0.5, 0.6, 0.85), "wall", clearance=0.6),
    "bathtub": Spec((0.75, 1.7, 0.55), "wall", clearance=0.5, jitter=0.05),
    # movable clutter on floors
    "box": Spec((0.4, 0.5, 0.35), "floor", mass=2.0, jitter=0.25),
    "stool": Spec((0.35, 0.35, 0.45), "floor", seat_height=0.45, mass=3.0),
    "basket": Spec((0.3, 0.4, 0.3), "floor", mass=1.0),
    # movable small items on supports
    "book": Spec((0.24, 0.17, 0.04), "top", mass=0.5),
    "cup": Spec((0.1, 0.1, 0.11), "top", mass=0.25),
    "bottle": Spec((0.1, 0.1, 0.28), "top", mass=0.6),
    "bowl": Spec((0.18, 0.18, 0.08), "top", mass=0.3),
    "shoebox": Spec((0.33, 0.2, 0.12), "top", mass=0.5),
}
FLOOR_CLUTTER = tuple(k for k, s in SPECS.items() if s.placement == "floor")
TOP_ITEMS = tuple(k for k, s in SPECS.items() if s.placement == "top")


@dataclass(frozen=True)
class RoomKind:
    """What a room holds: every `required` piece (else the room is refurnished), each optional one with its chance."""

    required: tuple[str, ...]
    optional: tuple[tuple[str, float], ...]
    floor_clutter: int  # at most this many boxes, stools or baskets


ROOM_KINDS: dict[str, RoomKind] = {
    "living_room": RoomKind(
        ("couch", "tv", "chair", "potted_plant"),
        (("coffee_table", 0.7), ("chair", 0.5), ("potted_plant", 0.4), ("bookshelf", 0.4)),
        3,
    ),
    "bedroom": RoomKind(
        ("bed",), (("wardrobe", 0.7), ("nightstand", 0.7), ("chair", 0.4), ("potted_plant", 0.3), ("tv", 0.2)), 2
    ),
    "bathroom": RoomKind(("toilet",), (("sink", 0.8), ("bathtub", 0.6), ("potted_plant", 0.2)), 1),
    "kitchen": RoomKind(
        ("counter", "chair"), (("dining_table", 0.8), ("chair", 0.6), ("chair", 0.4), ("potted_plant", 0.3)), 2
    ),
    "study": RoomKind(("desk", "chair"), (("bookshelf", 0.6), ("potted_plant", 0.5)), 2),
}
# Kinds by decreasing area: the largest room is the living room, the smallest the
# bathroom, the others take these in order. With the living room's couch, TV,
# chair and plant, every apartment holds all six target categories.
MIDDLE_ROOMS = ("bedroom", "kitchen", "bedroom", "study")
WALL_YAWS = (0.0, math.pi, math.pi / 2, -math.pi / 2)  # facing away from the x0, x1, y0, y1 wall


class ApartmentError(RuntimeError):
    """No apartment could be drawn for an index within the retry limits."""


@dataclass(frozen=True)
class Room:
    index: int
    kind: str
    bounds: tuple[float, float, float, float]  # x0, y0, x1, y1 on the walls' centre lines

    @property
    def interior(self) -> tuple[float, float, float, float]:
        """The floor between the wall faces."""
        x0, y0, x1, y1 = self.bounds
        h = WALL_THICKNESS / 2
        return (x0 + h, y0 + h, x1 - h, y1 - h)


@dataclass(frozen=True)
class Doorway:
    rooms: tuple[int, int]
    centre: tuple[float, float]  # on the wall's centre line, at floor level
    width: float
    axis: int  # the axis one walks along through it: 0 in a wall x = const, 1 in a wall y = const

    def swing_zones(self) -> tuple[Rect, Rect]:
        """The floor a door leaf would sweep on either side, kept clear of furniture and clutter."""
        offset = WALL_THICKNESS / 2 + self.width / 2
        half = self.width / 2
        x, y = self.centre
        if self.axis == 0:
            return Rect(x - offset, y, half, half), Rect(x + offset, y, half, half)
        return Rect(x, y - offset, half, half), Rect(x, y + offset, half, half)


@dataclass(frozen=True)
class Wall:
    """An axis-aligned wall box: a solid stretch of wall, or the lintel above a doorway."""

    centre: tuple[float, float, float]
    half_extents: tuple[float, float, float]

    @property
    def yaw(self) -> float:
        return 0.0


@dataclass(frozen=True)
class Furniture:
    """A box: static furniture (fixed to the world) or movable clutter (a free body of `mass` kg).

    `support` names the piece it stands on (clutter on a table, a TV on its
    stand); None for the floor or a wall mount. For seats, `seat_height` is the
    seat surface above the floor and `backrest` the depth of the taller part at
    the back (body -x side).
    """

    name: str
    category: str
    room: int
    centre: tuple[float, float, float]
    half_extents: tuple[float, float, float]
    yaw: float
    movable: bool
    seat_height: float | None = None
    backrest: float = 0.0
    mass: float | None = None
    support: str | None = None

    @property
    def target(self) -> bool:
        return not self.movable and self.category in TARGET_CATEGORIES

    def aabb(self) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
        """The world axis-aligned bounding box (lower, upper corner), as the navigation metric measures it."""
        c = Rect.of(self).corners()
        z0, z1 = self.centre[2] - self.half_extents[2], self.centre[2] + self.half_extents[2]
        return (float(c[:, 0].min()), float(c[:, 1].min()), z0), (float(c[:, 0].max()), float(c[:, 1].max()), z1)


@dataclass(frozen=True)
class Apartment:
    index: int
    size: tuple[float, float]  # outer rectangle, x and y, on the outer walls' centre lines
    rooms: tuple[Room, ...]  # by decreasing area; room 0 is the living room
    doorways: tuple[Doorway, ...]
    walls: tuple[Wall, ...]
    furniture: tuple[Furniture, ...]  # static pieces first, then clutter

    @property
    def scene_id(self) -> str:
        return f"apt_{self.index:03d}"

    def targets(self, category: str) -> tuple[Furniture, ...]:
        return tuple(f for f in self.furniture if f.target and f.category == category)

    def room_at(self, xy) -> Room | None:
        for room in self.rooms:
            x0, y0, x1, y1 = room.bounds
            if x0 <= xy[0] <= x1 and y0 <= xy[1] <= y1:
                return room
        return None

    def digest(self) -> str:
        """SHA-256 of the apartment's canonical JSON: a split records it, so a changed generator is caught."""
        text = json.dumps(dataclasses.asdict(self), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


def generator(key: str) -> np.random.Generator:
    """A generator of its own for every key ("apartment/3", "split/apt_003", ...)."""
    digest = hashlib.sha256(f"findsit/{key}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def build_apartment(index: int) -> Apartment:
    rng = generator(f"apartment/{index}")
    for _ in range(PLAN_TRIES):
        plan = _plan(rng)
        if plan is None:
            continue
        size, rooms, doorways, walls = plan
        for _ in range(FURNISH_TRIES):
            static = _furnish(rng, rooms, doorways)
            if static is None:
                continue
            apartment = Apartment(index, size, rooms, doorways, walls, static)
            if _walkable(apartment):
                return dataclasses.replace(apartment, furniture=static + _clutter(rng, apartment))
    raise ApartmentError(f"apartment {index}: no furnished plan within {PLAN_TRIES} plans")


def _snap(v: float) -> float:
    return round(round(v / PLAN_STEP) * PLAN_STEP, 2)


@dataclass(frozen=True)
class _Line:
    """A wall's centre line: x = at (axis 0) or y = at (axis 1), from lo to hi along the other axis."""

    axis: int
    at: float
    lo: float
    hi: float
    outer: bool


def _plan(rng: np.random.Generator):
    n = int(rng.integers(ROOM_COUNT[0], ROOM_COUNT[1] + 1))
    area = n * rng.uniform(*ROOM_AREA)
    long_side = math.sqrt(area * rng.uniform(*ASPECT))
    w, d = _snap(long_side), _snap(area / long_side)
    if rng.random() < 0.5:
        w, d = d, w
    rects = [(0.0, 0.0, w, d)]
    lines = [_Line(1, 0.0, 0.0, w, True), _Line(1, d, 0.0, w, True)]
    lines += [_Line(0, 0.0, 0.0, d, True), _Line(0, w, 0.0, d, True)]
    while len(rects) < n:
        splittable = [r for r in rects if max(r[2] - r[0], r[3] - r[1]) >= 2 * MIN_ROOM_SIDE]
        if not splittable:
            return None
        r = max(splittable, key=lambda r: (r[2] - r[0]) * (r[3] - r[1]))
        x0, y0, x1, y1 = r
        axis = 0 if x1 - x0 >= y1 - y0 else 1  # the new wall is a line x = at across a wide room
        lo, hi = (x0, x1) if axis == 0 else (y0, y1)
        at = min(max(_snap(lo + rng.uniform(*SPLIT_AT) * (hi - lo)), lo + MIN_ROOM_SIDE), hi - MIN_ROOM_SIDE)
        rects.remove(r)
        if axis == 0:
            rects += [(x0, y0, at, y1), (at, y0, x1, y1)]
            lines.append(_Line(0, at, y0, y1, False))
        else:
            rects += [(x0, y0, x1, at), (x0, at, x1, y1)]
            lines.append(_Line(1, at, x0, x1, False))
    rects.sort(key=lambda r: -(r[2] - r[0]) * (r[3] - r[1]))
    kinds = ("living_room", *MIDDLE_ROOMS[: n - 2], "bathroom")
    rooms = tuple(Room(i, k, tuple(float(v) for v in r)) for i, (k, r) in enumerate(zip(kinds, rects)))
    doorways = _doorways(rng, rooms, lines)
    if doorways is None:
        return None
    return (w, d), rooms, doorways, _walls(lines, doorways)


def _shared(a: Room, b: Room, line: _Line) -> tuple[float, float] | None:
    """The stretch of `line` that separates rooms a (below or left of it) and b, if any."""
    k = line.axis
    if not (math.isclose(a.bounds[k + 2], line.at) and math.isclose(b.bounds[k], line.at)):
        return None
    j = 1 - k
    lo = max(a.bounds[j], b.bounds[j], line.lo)
    hi = min(a.bounds[j + 2], b.bounds[j + 2], line.hi)
    return (lo, hi) if hi > lo else None


def _doorways(rng: np.random.Generator, rooms: tuple[Room, ...], lines: list[_Line]):
    candidates = []
    for line in lines:
        if line.outer:
            continue
        for a in rooms:
            for b in rooms:
                shared = _shared(a, b, line)
                if shared and shared[1] - shared[0] >= DOOR_WIDTH[1] + 2 * DOOR_JAMB:
                    candidates.append((a.index, b.index, line, shared))
    parent = list(range(len(rooms)))

    def root(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    doorways = []
    for i in rng.permutation(len(candidates)):
        a, b, line, (lo, hi) = candidates[int(i)]
        joins = root(a) != root(b)
        if not joins and rng.random() >= EXTRA_DOOR:
            continue
        parent[root(a)] = root(b)
        width = _snap(rng.uniform(*DOOR_WIDTH))
        along = _snap(rng.uniform(lo + DOOR_JAMB + width / 2, hi - DOOR_JAMB - width / 2))
        along = min(max(along, lo + DOOR_JAMB + width / 2), hi - DOOR_JAMB - width / 2)
        centre = (line.at, along) if line.axis == 0 else (along, line.at)
        doorways.append(Doorway((min(a, b), max(a, b)), centre, width, line.axis))
    if len({root(i) for i in range(len(rooms))}) > 1:
        return None
    return tuple(doorways)


def _walls(lines: list[_Line], doorways: tuple[Doorway, ...]) -> tuple[Wall, ...]:
    """Wall boxes along every line, cut at its doorways, with a lintel over each; boxes abut, never overlap."""
    t = WALL_THICKNESS / 2
    walls = []

    def box(line: _Line, s0: float, s1: float, z0: float, z1: float) -> Wall:
        along, half = (s0 + s1) / 2, (s1 - s0) / 2
        centre = (line.at, along) if line.axis == 0 else (along, line.at)
        halves = (t, half) if line.axis == 0 else (half, t)
        return Wall((*centre, (z0 + z1) / 2), (*halves, (z1 - z0) / 2))

    for line in lines:
        # The outer walls along x run corner to corner; every other wall stops at the faces it meets.
        start, end = (line.lo - t, line.hi + t) if line.outer and line.axis == 1 else (line.lo + t, line.hi - t)
        on_line = [
            (d.centre[1 - line.axis], d.width)
            for d in doorways
            if d.axis == line.axis and math.isclose(d.centre[line.axis], line.at)
        ]
        gaps = sorted((c - w / 2, c + w / 2) for c, w in on_line if line.lo < c < line.hi)
        for g0, g1 in gaps:
            walls.append(box(line, start, g0, 0.0, WALL_HEIGHT))
            walls.append(box(line, g0, g1, DOOR_HEIGHT, WALL_HEIGHT))
            start = g1
        walls.append(box(line, start, end, 0.0, WALL_HEIGHT))
    return tuple(walls)


@dataclass
class _Layout:
    """Footprints already placed while furnishing, with the floor each keeps free in front."""

    zones: list[Rect]
    pieces: list[tuple[Rect, Rect | None]] = dataclasses.field(default_factory=list)
    names: Counter = dataclasses.field(default_factory=Counter)

    def fits(self, rect: Rect, clear: Rect | None, interior) -> bool:
        if not rect.inside(interior) or (clear is not None and not clear.inside(interior)):
            return False
        if any(rect.overlaps(z) for z in self.zones):
            return False
        for other, other_clear in self.pieces:
            if rect.overlaps(other, FURNITURE_GAP) or (other_clear is not None and rect.overlaps(other_clear)):
                return False
            if clear is not None and clear.overlaps(other):
                return False
        return True

    def name(self, category: str) -> str:
        self.names[category] += 1
        return f"{category}_{self.names[category] - 1}"


def _footprint(spec: Spec, rng: np.random.Generator) -> tuple[float, float]:
    j = spec.jitter
    return round(spec.size[0] * rng.uniform(1 - j, 1 + j), 2), round(spec.size[1] * rng.uniform(1 - j, 1 + j), 2)


def _pose(rng: np.random.Generator, placement: str, depth: float, width: float, interior):
    """A centre (x, y) and yaw for a footprint of this depth and width, or None if the room is too small."""
    x0, y0, x1, y1 = interior
    g = WALL_GAP
    if placement == "wall":
        side = int(rng.integers(4))
        a0, a1 = (y0, y1) if side < 2 else (x0, x1)
        if a1 - a0 < width + 2 * g:
            return None
        along = rng.uniform(a0 + width / 2 + g, a1 - width / 2 - g)
        off = g + depth / 2
        x, y = ((x0 + off, along), (x1 - off, along), (along, y0 + off), (along, y1 - off))[side]
        return round(x, 3), round(y, 3), WALL_YAWS[side]
    if placement == "centre":
        x = (x0 + x1) / 2 + rng.uniform(-0.2, 0.2) * (x1 - x0)
        y = (y0 + y1) / 2 + rng.uniform(-0.2, 0.2) * (y1 - y0)
        return round(x, 3), round(y, 3), (0.0, math.pi / 2)[int(rng.integers(2))]
    r = math.hypot(depth, width) / 2 + g  # any yaw fits within this radius
    if x1 - x0 < 2 * r or y1 - y0 < 2 * r:
        return None
    yaw = rng.uniform(-math.pi, math.pi)
    if placement == "corner":
        x = x0 + r if rng.random() < 0.5 else x1 - r
        y = y0 + r if rng.random() < 0.5 else y1 - r
    else:  # "free" or "floor"
        x, y = rng.uniform(x0 + r, x1 - r), rng.uniform(y0 + r, y1 - r)
    return round(x, 3), round(y, 3), yaw


def _clearance(rect: Rect, depth: float) -> Rect | None:
    if depth <= 0:
        return None
    c, s = math.cos(rect.yaw), math.sin(rect.yaw)
    off = rect.hx + depth / 2
    return Rect(rect.cx + c * off, rect.cy + s * off, depth / 2, rect.hy, rect.yaw)


def _place(rng: np.random.Generator, category: str, room: Room, layout: _Layout) -> list[Furniture] | None:
    """Up to PLACE_TRIES draws of one static piece (a TV may bring its stand); what fits joins the layout."""
    spec = SPECS[category]
    for _ in range(PLACE_TRIES):
        depth, width = _footprint(spec, rng)
        placement, z0, stand = spec.placement, 0.0, None
        if category == "tv":
            placement = "wall"
            if rng.random() < TV_ON_STAND:
                stand = SPECS["tv_stand"]
                z0 = stand.size[2]
            else:
                z0 = TV_WALL_BOTTOM
        body = (stand.size[0], width + TV_STAND_OVERHANG) if stand else (depth, width)
        pose = _pose(rng, placement, *body, room.interior)
        if pose is None:
            continue
        x, y, yaw = pose
        rect = Rect(x, y, body[0] / 2, body[1] / 2, yaw)
        clear = _clearance(rect, spec.clearance)
        if not layout.fits(rect, clear, room.interior):
            continue
        layout.pieces.append((rect, clear))
        if stand is None:
            return [_piece(layout.name(category), category, room.index, rect, z0, spec)]
        base = _piece(layout.name("tv_stand"), "tv_stand", room.index, rect, 0.0, stand)
        tv = Rect(x, y, depth / 2, width / 2, yaw)  # centred on the stand's top
        return [base, _piece(layout.name(category), category, room.index, tv, z0, spec, support=base.name)]
    return None


def _piece(name: str, category: str, room: int, rect: Rect, z0: float, spec: Spec, support: str | None = None):
    """A box standing at height z0 (0 for the floor) with the spec's height; movable when the spec has a mass."""
    height = spec.size[2]
    return Furniture(
        name=name,
        category=category,
        room=room,
        centre=(rect.cx, rect.cy, round(z0 + height / 2, 3)),
        half_extents=(rect.hx, rect.hy, height / 2),
        yaw=rect.yaw,
        movable=spec.mass is not None,
        seat_height=spec.seat_height,
        backrest=spec.backrest,
        mass=spec.mass,
        support=support,
    )


def _furnish(rng: np.random.Generator, rooms: tuple[Room, ...], doorways: tuple[Doorway, ...]):
    layout = _Layout([z for d in doorways for z in d.swing_zones()])
    furniture: list[Furniture] = []
    for room in rooms:
        kind = ROOM_KINDS[room.kind]
        optional = [c for c, p in kind.optional if rng.random() < p]
        for category in kind.required:
            placed = _place(rng, category, room, layout)
            if placed is None:
                return None
            furniture += placed
        for category in optional:
            furniture += _place(rng, category, room, layout) or []
    return tuple(furniture)


def _walkable(apartment: Apartment) -> bool:
    """Every doorway in one free region that covers MIN_ROOM_FREE of each room and sees every target."""
    grid = NavGrid.build(apartment)
    labels = grid.components()
    regions = {labels[grid.cell(d.centre)] for d in apartment.doorways}
    if len(regions) != 1 or 0 in regions:
        return False
    reach = labels == regions.pop()
    if any(reach[grid.window(room.interior)].mean() < MIN_ROOM_FREE for room in apartment.rooms):
        return False
    return all(reach[tuple(view_points(apartment, f, grid).T)].any() for f in apartment.furniture if f.target)


def _clutter(rng: np.random.Generator, apartment: Apartment) -> tuple[Furniture, ...]:
    """Movable boxes, stools and baskets on the free floor, then small items on the supports' tops."""
    layout = _Layout([z for d in apartment.doorways for z in d.swing_zones()])
    for f in apartment.furniture:
        rect = Rect.of(f)
        layout.pieces.append((rect, _clearance(rect, SPECS[f.category].clearance)))
    clutter = []
    for room in apartment.rooms:
        for _ in range(int(rng.integers(ROOM_KINDS[room.kind].floor_clutter + 1))):
            category = FLOOR_CLUTTER[int(rng.integers(len(FLOOR_CLUTTER)))]
            for _ in range(PLACE_TRIES):
                depth, width = _footprint(SPECS[category], rng)
                pose = _pose(rng, "floor", depth, width, room.interior)
                if pose is None:
                    continue
                rect = Rect(pose[0], pose[1], depth / 2, width / 2, pose[2])
                if layout.fits(rect, None, room.interior):
                    layout.pieces.append((rect, None))
                    clutter.append(_piece(layout.name(category), category, room.index, rect, 0.0, SPECS[category]))
                    break
    for support in (f for f in apartment.furniture if SPECS[f.category].support):
        clutter += _on_top(rng, support, layout)
    return tuple(clutter)


def _on_top(rng: np.random.Generator, support: Furniture, layout: _Layout) -> list[Furniture]:
    """Up to TOP_ITEMS_MAX small items standing on the support, WALL_GAP inside its edges and apart."""
    top = Rect.of(support)
    z0 = support.centre[2] + support.half_extents[2]
    items: list[Furniture] = []
    for _ in range(int(rng.integers(TOP_ITEMS_MAX + 1))):
        category = TOP_ITEMS[int(rng.integers(len(TOP_ITEMS)))]
        for _ in range(PLACE_TRIES):
            depth, width = _footprint(SPECS[category], rng)
            x, y = top.local_to_world((rng.uniform(-top.hx, top.hx), rng.uniform(-top.hy, top.hy)))
            rect = Rect(round(x, 3), round(y, 3), depth / 2, width / 2, rng.uniform(-math.pi, math.pi))
            inside = (np.abs(top.local(rect.corners())) <= [top.hx - WALL_GAP, top.hy - WALL_GAP]).all()
            if inside and not any(rect.overlaps(Rect.of(o), FURNITURE_GAP) for o in items):
                name = layout.name(category)
                items.append(_piece(name, category, support.room, rect, z0, SPECS[category], support.name))
                break
    return items
