"""Where the robot can stand on a floor plan (an apartment): an occupancy grid, geodesic distances, paths and view points.

The floor is cut into 0.05 m cells. A cell is blocked when its centre lies
closer than the robot's radius (0.25 m) to the footprint of a wall or of a
static piece of furniture that starts below the robot's height (a lintel over a
doorway does not block; a wall-mounted TV does). Movable clutter does not block
the metrics' grid: the robot may push it; a robot that trips over it routes on
a grid where the clutter on the floor blocks too (`build(..., clutter=True)`).
Moves go to the 8 neighbours, a diagonal costing sqrt(2) cells and allowed only
when both cells beside it are free, so a path never cuts a blocked corner;
distances are exact shortest paths on that graph (scipy's Dijkstra).

Frame: MuJoCo's, z up, metres; cell (row, col) has its centre at
((col + 0.5) * RESOLUTION, (row + 0.5) * RESOLUTION), the grid covering the
apartment's outer rectangle from the origin.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol, Sequence

import numpy as np
from scipy import ndimage
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

RESOLUTION = 0.05  # m per cell
ROBOT_RADIUS = 0.25  # m, the G1 seen from above with its arms in
ROBOT_HEIGHT = 1.32  # m; anything whose underside is higher (a lintel) is walked under
VIEW_RADIUS = 1.0  # m from the object's footprint within which a cell may be a view point
# A path that keeps clear (`path(..., keep_clear=True)`) pays up to CLEAR_COST times a cell's length
# for cells closer than CLEARANCE_M to the margin, so it runs through the middle of doorways and
# aisles where it can: the robot's arms swing out past the radius that sets the margin.
CLEARANCE_M = 0.25
CLEAR_COST = 4.0


class Box(Protocol):
    """A wall or a piece of furniture as the grid sees it (find-navigate-sit's `Wall` and `Furniture`)."""

    centre: Sequence[float]  # x, y, z
    half_extents: Sequence[float]
    yaw: float


class Furniture(Box, Protocol):
    name: str
    movable: bool  # movable clutter: the robot may push it


class Apartment(Protocol):
    """A floor plan: its outer rectangle from the origin, its walls and its furniture."""

    size: Sequence[float]  # width (x), depth (y)
    walls: Sequence[Box]
    furniture: Sequence[Furniture]


@dataclass(frozen=True)
class Rect:
    """A box's footprint: centre, half extents along its own axes, and its yaw about +z."""

    cx: float
    cy: float
    hx: float
    hy: float
    yaw: float = 0.0

    @classmethod
    def of(cls, box) -> Rect:
        """The footprint of anything with `centre`, `half_extents` and `yaw` (a wall, a piece of furniture)."""
        return cls(box.centre[0], box.centre[1], box.half_extents[0], box.half_extents[1], box.yaw)

    def axes(self) -> np.ndarray:
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        return np.array([[c, s], [-s, c]])  # rows: the body x and y axes in world xy

    def corners(self) -> np.ndarray:
        ax = self.axes()
        signs = np.array([[1, 1], [-1, 1], [-1, -1], [1, -1]])
        return np.array([self.cx, self.cy]) + (signs * [self.hx, self.hy]) @ ax

    def local(self, points) -> np.ndarray:
        """World xy points (..., 2) in the box's own frame."""
        return (np.asarray(points, dtype=float) - [self.cx, self.cy]) @ self.axes().T

    def local_to_world(self, uv) -> tuple[float, float]:
        x, y = np.array([self.cx, self.cy]) + np.asarray(uv, dtype=float) @ self.axes()
        return float(x), float(y)

    def distance(self, points) -> np.ndarray:
        """Distance from each point (..., 2) to the footprint; 0 inside."""
        q = np.abs(self.local(points)) - [self.hx, self.hy]
        return np.linalg.norm(np.maximum(q, 0.0), axis=-1)

    def overlaps(self, other: Rect, margin: float = 0.0) -> bool:
        """Whether the two footprints come closer than `margin` (separating axis test, margin added on each axis)."""
        a, b = self.corners(), other.corners()
        for axis in (*self.axes(), *other.axes()):
            pa, pb = a @ axis, b @ axis
            if pa.max() + margin <= pb.min() or pb.max() + margin <= pa.min():
                return False
        return True

    def inside(self, bounds: tuple[float, float, float, float]) -> bool:
        x0, y0, x1, y1 = bounds
        c = self.corners()
        return bool((c[:, 0] >= x0).all() and (c[:, 0] <= x1).all() and (c[:, 1] >= y0).all() and (c[:, 1] <= y1).all())

    def bounds(self, pad: float = 0.0) -> tuple[float, float, float, float]:
        c = self.corners()
        return (c[:, 0].min() - pad, c[:, 1].min() - pad, c[:, 0].max() + pad, c[:, 1].max() + pad)


class NavGrid:
    """The free cells of one apartment's floor, and shortest paths between them."""

    def __init__(self, free: np.ndarray):
        self.free = free  # bool (rows, cols): True where the robot's centre may stand
        self.free.setflags(write=False)

    @classmethod
    def build(cls, apartment: Apartment, clutter: bool = False) -> NavGrid:
        """`clutter`: the movable clutter on the floor (boxes, stools, baskets, where the apartment
        puts them) blocks too, for a robot whose legs trip over what the module's rule lets it push."""
        w, d = apartment.size
        blocked = np.zeros((round(d / RESOLUTION), round(w / RESOLUTION)), dtype=bool)
        blocking = (f for f in apartment.furniture if not f.movable or (clutter and _on_floor(f)))
        for box in (*apartment.walls, *blocking):
            if box.centre[2] - box.half_extents[2] < ROBOT_HEIGHT:
                _mark(blocked, Rect.of(box), ROBOT_RADIUS)
        return cls(~blocked)

    @property
    def shape(self) -> tuple[int, int]:
        return self.free.shape

    def cell(self, xy) -> tuple[int, int]:
        """The (row, col) of the cell holding world point xy (clipped to the grid)."""
        rows, cols = self.shape
        col = min(max(int(math.floor(xy[0] / RESOLUTION)), 0), cols - 1)
        row = min(max(int(math.floor(xy[1] / RESOLUTION)), 0), rows - 1)
        return row, col

    def centres(self, cells) -> np.ndarray:
        """World xy of cell centres, for an array of (row, col) (..., 2)."""
        return _centres(cells)

    def navigable(self, xy) -> bool:
        x, y = xy
        rows, cols = self.shape
        inside = 0.0 <= x < cols * RESOLUTION and 0.0 <= y < rows * RESOLUTION
        return inside and bool(self.free[self.cell(xy)])

    def window(self, bounds) -> tuple[slice, slice]:
        """The rows and columns of the cells whose centres may lie within world bounds (x0, y0, x1, y1)."""
        return _window(self.shape, bounds)

    def components(self) -> np.ndarray:
        """Labels of the connected free regions (0 where blocked). With no corner cutting, 4- and 8-connected agree."""
        labels, _ = ndimage.label(self.free)
        return labels

    @cached_property
    def _graph(self) -> csr_matrix:
        src, dst, weight = self._edges
        return csr_matrix((weight, (src, dst)), shape=(self.free.size, self.free.size))

    @cached_property
    def _clear_graph(self) -> csr_matrix:
        """The graph with each edge made dearer by how far its cells are inside the preferred clearance."""
        src, dst, weight = self._edges
        clearance = ndimage.distance_transform_edt(self.free).ravel() * RESOLUTION
        penalty = CLEAR_COST * np.clip(1.0 - clearance / CLEARANCE_M, 0.0, 1.0)
        weight = weight * (1.0 + (penalty[src] + penalty[dst]) / 2)
        return csr_matrix((weight, (src, dst)), shape=(self.free.size, self.free.size))

    @cached_property
    def _edges(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        f = self.free
        rows, cols = f.shape
        idx = np.arange(rows * cols).reshape(rows, cols)
        square = f[:-1, :-1] & f[1:, 1:] & f[:-1, 1:] & f[1:, :-1]  # 2x2 blocks a diagonal may cross
        pairs = (
            (f[:, :-1] & f[:, 1:], idx[:, :-1], idx[:, 1:], RESOLUTION),
            (f[:-1, :] & f[1:, :], idx[:-1, :], idx[1:, :], RESOLUTION),
            (square, idx[:-1, :-1], idx[1:, 1:], RESOLUTION * math.sqrt(2)),
            (square, idx[:-1, 1:], idx[1:, :-1], RESOLUTION * math.sqrt(2)),
        )
        src = np.concatenate([a[m] for m, a, _, _ in pairs])
        dst = np.concatenate([b[m] for m, _, b, _ in pairs])
        weight = np.concatenate([np.full(int(m.sum()), w) for m, _, _, w in pairs])
        return src, dst, weight

    def _search(self, goals, keep_clear: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Dijkstra from the goal cells at once: distance, predecessor and nearest goal node of every node."""
        goals = np.asarray(goals, dtype=int).reshape(-1, 2)
        if len(goals) == 0 or not self.free[goals[:, 0], goals[:, 1]].all():
            raise ValueError("goal cells must be a non-empty set of free cells")
        sources = np.ravel_multi_index((goals[:, 0], goals[:, 1]), self.shape)
        graph = self._clear_graph if keep_clear else self._graph
        return dijkstra(graph, directed=False, indices=sources, min_only=True, return_predecessors=True)

    def distance_field(self, goals) -> np.ndarray:
        """Geodesic distance (m) from every cell to the nearest goal cell; inf where no path exists."""
        return self._search(goals)[0].reshape(self.shape)

    def nearest_goal(self, goals) -> tuple[np.ndarray, np.ndarray]:
        """The distance field and, for every cell, the index in `goals` of its nearest goal cell (-1: none)."""
        goals = np.asarray(goals, dtype=int).reshape(-1, 2)
        dist, _, source = self._search(goals)
        index = np.full(self.free.size, -1)
        index[np.ravel_multi_index((goals[:, 0], goals[:, 1]), self.shape)] = np.arange(len(goals))
        nearest = np.where(source >= 0, index[np.maximum(source, 0)], -1)
        return dist.reshape(self.shape), nearest.reshape(self.shape)

    def geodesic_distance(self, start_xy, goals) -> float:
        return float(self.distance_field(goals)[self.cell(start_xy)])

    def reachable(self, start_xy, goals) -> bool:
        return self.navigable(start_xy) and math.isfinite(self.geodesic_distance(start_xy, goals))

    def path(self, start_xy, goals, keep_clear: bool = False) -> list[tuple[float, float]]:
        """Cell-centre waypoints of a shortest path from the start's cell to the nearest goal cell, turns only.

        keep_clear: the shortest under the clearance cost instead of by length.
        Empty when the start is blocked or no goal can be reached.
        """
        if not self.navigable(start_xy):
            return []
        dist, pred, _ = self._search(goals, keep_clear)
        node = int(np.ravel_multi_index(self.cell(start_xy), self.shape))
        if not math.isfinite(dist[node]):
            return []
        nodes = [node]
        while pred[node] >= 0:
            node = int(pred[node])
            nodes.append(node)
        cells = np.stack(np.unravel_index(nodes, self.shape), axis=-1)
        steps = np.diff(cells, axis=0)
        turns = np.flatnonzero((steps[1:] != steps[:-1]).any(axis=1)) + 1
        keep = np.unique(np.r_[0, turns, len(cells) - 1])
        return [(float(x), float(y)) for x, y in self.centres(cells[keep])]


def _on_floor(piece: Furniture) -> bool:
    return piece.centre[2] - piece.half_extents[2] < RESOLUTION


def _centres(cells) -> np.ndarray:
    return (np.asarray(cells)[..., ::-1] + 0.5) * RESOLUTION


def _window(shape: tuple[int, int], bounds) -> tuple[slice, slice]:
    rows, cols = shape
    x0, y0, x1, y1 = bounds
    r = slice(max(int(y0 / RESOLUTION), 0), min(int(math.ceil(y1 / RESOLUTION)) + 1, rows))
    c = slice(max(int(x0 / RESOLUTION), 0), min(int(math.ceil(x1 / RESOLUTION)) + 1, cols))
    return r, c


def _mark(mask: np.ndarray, rect: Rect, radius: float) -> None:
    """Set every cell whose centre lies closer than `radius` to the footprint (inside it, for radius 0)."""
    r, c = _window(mask.shape, rect.bounds(radius))
    d = rect.distance(_centres(np.stack(np.mgrid[r, c], axis=-1)))
    mask[r, c] |= d < radius if radius > 0 else d <= 0.0


def view_points(apartment: Apartment, obj: Furniture, grid: NavGrid | None = None) -> np.ndarray:
    """The free cells (k, 2) within VIEW_RADIUS of the object's footprint that see its centre along a 2-D ray.

    What hides the centre: walls and other static furniture whose vertical
    extent spans the height of the object's centre (a coffee table hides a
    couch's cushions but not the TV above it on its stand).
    """
    grid = grid or NavGrid.build(apartment)
    target = Rect.of(obj)
    r, c = grid.window(target.bounds(VIEW_RADIUS))
    cells = np.stack(np.mgrid[r, c], axis=-1).reshape(-1, 2)
    points = grid.centres(cells)
    near = grid.free[cells[:, 0], cells[:, 1]] & (target.distance(points) <= VIEW_RADIUS)
    cells, points = cells[near], points[near]
    if len(cells) == 0:
        return cells

    opaque = np.zeros(grid.shape, dtype=bool)
    z = obj.centre[2]
    others = (f for f in apartment.furniture if not f.movable and f.name != obj.name)
    for box in (*apartment.walls, *others):
        if box.centre[2] - box.half_extents[2] <= z <= box.centre[2] + box.half_extents[2]:
            _mark(opaque, Rect.of(box), 0.0)

    centre = np.array(obj.centre[:2])
    steps = int(math.ceil(np.linalg.norm(points - centre, axis=1).max() / (RESOLUTION / 2))) + 1
    t = np.linspace(0.0, 1.0, steps)[:, None, None]
    samples = points[None] + t * (centre - points)[None]  # (steps, k, 2)
    rows, cols = grid.shape
    sc = np.clip((samples[..., 0] / RESOLUTION).astype(int), 0, cols - 1)
    sr = np.clip((samples[..., 1] / RESOLUTION).astype(int), 0, rows - 1)
    seen = ~opaque[sr, sc].any(axis=0)
    return cells[seen]
