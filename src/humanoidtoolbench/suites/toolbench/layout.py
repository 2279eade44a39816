"""Seeded episode layouts: where the robot stands and where every object lies.

Every draw comes from one generator derived from (condition, episode seed).
The scenario's row (`scenarios.py`) names its tools' and objects' draws
below. A draw that breaks a rule (an object off the bench, two footprints
overlapping, the scenario's own rule: a BallMove ball within reach of the
short stick) is rejected and drawn again from the same generator; after
`MAX_ATTEMPTS` the layout fails with an error naming the last broken rule.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

import numpy as np

from ...control.base import BasePose
from ...control.contracts.decoupled_v1 import DEFAULT_BASE_HEIGHT
from ...sim.scene import RoomStyle
from . import bench
from .fracture import ICE_SIZE
from .props import household, tools
from .props.base import Prop
from .registry import Condition

MAX_ATTEMPTS = 200
BALL_RADIUS = 0.03
RING_RADIUS = 0.12
ARM_REACH = 0.62  # pelvis to a hand stretched over the bench, metres
SHORT_STICK = 0.30
MIN_SHORTFALL = 0.02
OVERLAP_MARGIN = 0.01

# Roles, as the metrics name them.
TOOL, DECOY, IRRELEVANT, BALL, ICE = "tool", "decoy", "irrelevant", "ball", "ice"
ROLE_CODES = {TOOL: 0, DECOY: 1, IRRELEVANT: 2}


class LayoutError(RuntimeError):
    """No valid layout could be drawn."""


@dataclass(frozen=True)
class Placement:
    name: str  # body name in the scene
    role: str
    xy: tuple[float, float]
    yaw: float
    half: tuple[float, float]  # footprint half-sizes in the object's own frame
    prop: Prop | None = None  # None for primitives (ball, ice)


@dataclass(frozen=True)
class Layout:
    condition: Condition
    seed: int
    spawn: BasePose
    items: tuple[Placement, ...]
    ring: tuple[float, float] | None  # ring centre (the ball scenarios)
    work_spot: tuple[float, float]  # where the robot should stand to work
    style: RoomStyle
    bench_rgba: tuple[float, float, float, float]

    def item(self, name: str) -> Placement:
        return next(p for p in self.items if p.name == name)

    def by_role(self, role: str) -> tuple[Placement, ...]:
        return tuple(p for p in self.items if p.role == role)


def episode_rng(condition: Condition, seed: int) -> np.random.Generator:
    """The episode's generator: a pure function of (environment, seed)."""
    digest = int.from_bytes(hashlib.sha256(condition.name.encode()).digest()[:8], "little")
    return np.random.default_rng([int(seed), digest])


# -- each scenario's draws (named by its row of `scenarios.py`) ----------------


def ball_move_tools(condition: Condition, rng: np.random.Generator) -> tuple[Prop, Prop | None]:
    v = int(rng.integers(tools.VARIANTS_PER_FAMILY))
    # Same rod, same cross-section and mass: only the length tells them apart.
    return tools.long_stick(v), tools.short_stick(v) if condition.decoy else None


def ball_retrieve_tools(condition: Condition, rng: np.random.Generator) -> tuple[Prop, Prop | None]:
    hook = tools.hook(int(rng.integers(tools.VARIANTS_PER_FAMILY)))
    straight = tools.straight_stick(int(rng.integers(tools.VARIANTS_PER_FAMILY)))
    return hook, straight if condition.decoy else None


def ice_break_tools(condition: Condition, rng: np.random.Generator) -> tuple[Prop, Prop | None]:
    hammer = tools.hammer(int(rng.integers(tools.VARIANTS_PER_FAMILY)))
    decoy = tools.decoy(int(rng.integers(tools.VARIANTS_PER_FAMILY)))
    return hammer, decoy if condition.decoy else None


def _draw_household(rng: np.random.Generator) -> list[Prop]:
    kinds = rng.choice(len(household.HOUSEHOLD_KINDS), size=2, replace=False)
    return [household.household(household.HOUSEHOLD_KINDS[k], int(rng.integers(1 << 16))) for k in kinds]


# -- geometry helpers --------------------------------------------------------


def aabb_half(half: tuple[float, float], yaw: float) -> tuple[float, float]:
    c, s = abs(math.cos(yaw)), abs(math.sin(yaw))
    return half[0] * c + half[1] * s, half[0] * s + half[1] * c


def footprints_overlap(a: Placement, b: Placement, margin: float = OVERLAP_MARGIN) -> bool:
    """Separating-axis test of two yawed rectangles grown by `margin`."""
    axes = []
    for p in (a, b):
        c, s = math.cos(p.yaw), math.sin(p.yaw)
        axes += [np.array([c, s]), np.array([-s, c])]
    d = np.subtract(b.xy, a.xy)
    for axis in axes:
        extent = 0.0
        for p in (a, b):
            c, s = math.cos(p.yaw), math.sin(p.yaw)
            ex, ey = np.array([c, s]) * p.half[0], np.array([-s, c]) * p.half[1]
            extent += abs(ex @ axis) + abs(ey @ axis) + margin
        if abs(d @ axis) > extent:
            return False
    return True


def reach_shortfall(ball_xy, spawn_xy) -> float:
    """How far the ball starts beyond arm reach plus the short stick (BallMove diagnostic)."""
    return float(np.hypot(*np.subtract(ball_xy, spawn_xy)) - (ARM_REACH + SHORT_STICK))


# -- the draw ----------------------------------------------------------------


def _row(props: list[tuple[str, str, Prop]], rng: np.random.Generator, row_y: float) -> list[Placement] | None:
    """Shuffle the tool-half objects into one row along x, spreading the free space randomly."""
    order = rng.permutation(len(props))
    placed = []
    for i in order:
        name, role, prop = props[i]
        yaw = float(rng.uniform(-bench.ROW_YAW_JITTER, bench.ROW_YAW_JITTER))
        if role == IRRELEVANT:
            yaw = float(rng.uniform(-math.pi, math.pi))
        placed.append((name, role, prop, yaw, aabb_half(prop.half_extent, yaw)[0]))
    lo, hi = bench.TOOL_ROW_X
    needed = sum(2 * w for *_, w in placed) + bench.ROW_GAP * (len(placed) - 1)
    free = (hi - lo) - needed
    if free < 0:
        return None
    shares = rng.dirichlet(np.ones(len(placed) + 1)) * free
    out, x = [], lo
    for (name, role, prop, yaw, w), extra in zip(placed, shares):
        x += extra + w
        out.append(Placement(name, role, (x, row_y), yaw, prop.half_extent, prop))
        x += w + bench.ROW_GAP
    return out


def _far_strip(rng: np.random.Generator, y_range: tuple[float, float]) -> tuple[float, float]:
    return float(rng.uniform(*bench.FAR_STRIP_X)), float(rng.uniform(*y_range))


def ball_move_objects(condition: Condition, rng: np.random.Generator, spawn_xy: np.ndarray):
    """The ball, the ring beside it (L2: on the far strip) and the working spot."""
    sy = bench.SPAWN_XY[1]
    ball = (float(rng.uniform(-0.60, -0.34)), float(rng.uniform(sy - 0.93, sy - 0.84)))
    if condition.level == 2:
        ring = _far_strip(rng, (-0.26, -0.20))
    else:
        d = float(rng.uniform(0.22, 0.32))
        side = 1.0 if rng.random() < 0.5 else -1.0
        if not -0.78 <= ball[0] + side * d <= -0.16:
            side = -side
        dy = float(rng.uniform(-0.03, 0.03))
        # The ring centre lies d from the ball, mostly along the bench (x).
        ring = (ball[0] + side * math.sqrt(d * d - dy * dy), ball[1] + dy)
    items = [Placement(BALL, BALL, ball, 0.0, (BALL_RADIUS, BALL_RADIUS))]
    spot = (ring[0], sy) if condition.level == 2 else tuple(spawn_xy)
    return items, ring, spot


def ball_retrieve_objects(condition: Condition, rng: np.random.Generator, spawn_xy: np.ndarray):
    """The ball out of reach (L2: on the far strip), the ring 0.20 m nearer the robot, the working spot."""
    sy = bench.SPAWN_XY[1]
    if condition.level == 2:
        ball = _far_strip(rng, (-0.22, -0.10))
    else:
        ball = (float(rng.uniform(-0.60, -0.30)), float(rng.uniform(sy - 0.87, sy - 0.67)))
    ring = (ball[0], ball[1] + 0.20)  # 0.20 m nearer the robot
    items = [Placement(BALL, BALL, ball, 0.0, (BALL_RADIUS, BALL_RADIUS))]
    spot = (ball[0], sy) if condition.level == 2 else tuple(spawn_xy)
    return items, ring, spot


def ice_break_objects(condition: Condition, rng: np.random.Generator, spawn_xy: np.ndarray):
    """Two ice blocks (L2: the second on the far strip), no ring, the working spot."""
    sy = bench.SPAWN_XY[1]
    depth = lambda: float(rng.uniform(sy - 0.70, sy - 0.63))  # noqa: E731
    first = (float(rng.uniform(-0.34, -0.22)), depth())
    second = (float(rng.uniform(-0.66, -0.50)), depth())
    if condition.level == 2:
        second = _far_strip(rng, (sy - 0.70, sy - 0.63))
    half = (ICE_SIZE / 2, ICE_SIZE / 2)
    items = [Placement("ice_1", ICE, first, 0.0, half), Placement("ice_2", ICE, second, 0.0, half)]
    spot = (second[0], sy) if condition.level == 2 else tuple(spawn_xy)
    return items, None, spot


def ball_beyond_short_stick(layout: Layout) -> str:
    """BallMove's own rule: the short stick must not reach the ball from where the robot starts."""
    if reach_shortfall(layout.item(BALL).xy, (layout.spawn.x, layout.spawn.y)) < MIN_SHORTFALL:
        return "the ball is within reach of the short stick"
    return ""


def _style(rng: np.random.Generator) -> tuple[RoomStyle, tuple[float, float, float, float]]:
    kelvin = float(rng.uniform(3200, 7600))
    key_dir = (float(rng.uniform(-0.35, 0.35)), float(rng.uniform(-0.35, 0.35) + 0.3), -1.0)
    style = RoomStyle(
        key_dir=key_dir,
        key=float(rng.uniform(0.42, 0.62)),
        fill=float(rng.uniform(0.50, 0.75)),
        tint=kelvin_to_rgb(kelvin),
        floor_rgb=tuple(float(v) for v in rng.uniform(0.30, 0.50) * np.array([1.0, 0.96, 0.9]) * rng.uniform(0.9, 1.1, 3)),
        wall_rgb=tuple(float(v) for v in rng.uniform(0.70, 0.90, 3)),
    )
    wood = np.array([0.55, 0.40, 0.26]) * rng.uniform(0.75, 1.25) * rng.uniform(0.93, 1.07, 3)
    return style, (*np.clip(wood, 0, 1).tolist(), 1.0)


def kelvin_to_rgb(kelvin: float) -> tuple[float, float, float]:
    """Approximate white-balance tint of a light at the given colour temperature, normalised to max 1."""
    t = kelvin / 100.0
    r = 255.0 if t <= 66 else 329.7 * (t - 60) ** -0.1332
    g = 99.47 * math.log(t) - 161.12 if t <= 66 else 288.12 * (t - 60) ** -0.0755
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.52 * math.log(t - 10) - 305.04)
    rgb = np.clip([r, g, b], 0, 255)
    return tuple(float(v) for v in rgb / rgb.max())


def _draw(condition: Condition, seed: int, rng: np.random.Generator) -> tuple[Layout | None, str]:
    spawn_xy = np.array(bench.SPAWN_XY) + rng.uniform(-bench.SPAWN_JITTER, bench.SPAWN_JITTER, 2)
    spawn = BasePose(
        float(spawn_xy[0]),
        float(spawn_xy[1]),
        DEFAULT_BASE_HEIGHT,
        bench.SPAWN_YAW + float(rng.uniform(-bench.SPAWN_YAW_JITTER, bench.SPAWN_YAW_JITTER)),
    )
    task = condition.task
    correct, decoy = task.load("tools")(condition, rng)
    row_props = [("tool", TOOL, correct)]
    if decoy is not None:
        row_props.append(("decoy", DECOY, decoy))
    row_props += [(f"irrelevant_{i}", IRRELEVANT, p) for i, p in enumerate(_draw_household(rng))]
    row = _row(row_props, rng, bench.SPAWN_XY[1] - bench.TOOL_ROW_DEPTH)
    task_items, ring, spot = task.load("objects")(condition, rng, spawn_xy)
    style, bench_rgba = _style(rng)
    if row is None:
        return None, "the tool-half objects do not fit in the row"
    layout = Layout(condition, seed, spawn, tuple(row + task_items), ring, spot, style, bench_rgba)
    return layout, _broken_rule(layout)


def _broken_rule(layout: Layout) -> str:
    items = layout.items
    for p in items:
        if not bench.on_bench(p.xy, aabb_half(p.half, p.yaw)):
            return f"{p.name} is off the bench"
    for i, a in enumerate(items):
        for b in items[i + 1 :]:
            if footprints_overlap(a, b):
                return f"{a.name} overlaps {b.name}"
    if layout.ring is not None and not bench.on_bench(layout.ring, (RING_RADIUS, RING_RADIUS), margin=0.0):
        return "the ring is off the bench"
    rule = layout.condition.task.rule
    return layout.condition.task.load("rule")(layout) if rule else ""


def sample_layout(condition: Condition, seed: int) -> Layout:
    rng = episode_rng(condition, seed)
    problem = ""
    for _ in range(MAX_ATTEMPTS):
        layout, problem = _draw(condition, seed, rng)
        if layout is not None and not problem:
            return layout
    raise LayoutError(f"no valid layout for {condition.name} seed {seed} after {MAX_ATTEMPTS} draws: {problem}")
