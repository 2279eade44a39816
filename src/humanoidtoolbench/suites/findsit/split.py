"""The fixed validation split of the find-navigate-sit suite: writer, loader and instructions.

Shaped like the original's (one gzip JSON shard of ObjectNav-style episodes per
scene, research/anchor_humanclaw.md section 1), with our apartments for its
HSSD scenes: 40 apartments x 30 episodes by default. An episode's category
follows the original's mix (about half bed, couch and toilet, where the robot
must also sit). Its start is a free cell of the navigation grid, drawn from a
generator of its own per apartment and kept only if a goal of the category can
be reached from it, no furniture lies within the robot's radius, and the
geodesic distance to the nearest goal view point is 1-30 m. The same command
writes the same bytes: gzip with mtime 0 and a fixed name in its header, JSON
with sorted keys and fixed separators, numbers rounded.

Layout of a split directory::

    val.json.gz             header: no episodes, the category maps
    content/apt_NNN.json.gz one shard per apartment
    val100.json             the fixed 100-episode subset (5 apartments x 20)

    python -m humanoidtoolbench.suites.findsit.split --output DIR [--apartments 40 --episodes 30]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path

import msgspec
import numpy as np

from ...record.files import write_bytes_atomic
from ..base import SuiteDataError
from ...planning.navgrid import ROBOT_RADIUS, NavGrid, Rect, view_points
from .apartments import TARGET_CATEGORIES, Apartment, ApartmentError, build_apartment, generator

SCHEMA = "htb_findsit_split_v1"
FRAME = (
    "MuJoCo world frame: z up, metres. Positions are floor points (z = 0) except goal positions (object centres); "
    "rotations are quaternions (x, y, z, w) of a yaw about +z, yaw 0 facing +x."
)
APARTMENTS, EPISODES = 40, 30
VAL100 = (5, 20)  # apartments x episodes, drawn by generator("val100")
GEODESIC_RANGE = (1.0, 30.0)  # m, kept starts
START_TRIES = 10_000
# The original's 1,218 episodes by category; each apartment's episodes follow this mix.
CATEGORY_WEIGHTS = {"chair": 231, "couch": 231, "bed": 218, "potted_plant": 205, "tv": 185, "toilet": 148}
INTERACT_CATEGORIES = ("bed", "couch", "toilet")  # the robot must also sit on these
LABELS = {"potted_plant": "potted plant", "tv": "TV"}
CATEGORY_IDS = {c: i for i, c in enumerate(TARGET_CATEGORIES)}
DIGITS = {"position": 3, "rotation": 6, "distance": 4}


# SHA-256 of the generated split's files (`split_digest`) at APARTMENTS x EPISODES: a result is only ever
# scored on these episodes. A change to the generator changes it, and tests/test_findsit.py says so.
SPLIT_SHA256 = "b3ede6ac8ce104c5891f3f0b7fb1d32cac97752be55a2672a0125b32becdfd1f"
MANIFEST = "manifest.json"  # the per-file SHA-256 of a generated split, for naming a file that changed


class SplitError(SuiteDataError):
    """A split that cannot be written or read; reported as one line."""


class AgentState(msgspec.Struct, frozen=True):
    position: tuple[float, float, float]
    rotation: tuple[float, float, float, float]


class ViewPoint(msgspec.Struct, frozen=True):
    agent_state: AgentState  # a free cell near the goal that sees its centre, facing it


class Goal(msgspec.Struct, frozen=True, kw_only=True):
    object_id: int  # index of the piece in Apartment.furniture
    object_name: str  # its Furniture.name
    object_category: str
    position: tuple[float, float, float]  # the object's centre
    view_points: tuple[ViewPoint, ...]


class EpisodeInfo(msgspec.Struct, frozen=True, kw_only=True):
    geodesic_distance: float  # m, from the start's cell to the nearest view point of any goal
    euclidean_distance: float  # m, horizontal, from the start to the nearest goal centre
    closest_goal_object_id: int  # the goal whose view point is geodesically nearest
    start_room: str  # kind of the room the start lies in


class Episode(msgspec.Struct, frozen=True, kw_only=True):
    """One episode. In a shard `goals` is empty; `load_split` fills it with the goals of its category."""

    episode_id: str
    scene_id: str
    apartment_index: int  # build_apartment(apartment_index) gives its scene
    apartment_digest: str  # Apartment.digest() of that scene when the split was written
    start_position: tuple[float, float, float]
    start_rotation: tuple[float, float, float, float]
    info: EpisodeInfo
    object_category: str
    goals: tuple[Goal, ...] = ()
    start_room: None = None  # ObjectNav fields we leave empty
    shortest_paths: None = None

    @property
    def start_yaw(self) -> float:
        return 2.0 * math.atan2(self.start_rotation[2], self.start_rotation[3])

    @property
    def instruction(self) -> str:
        return instruction(self.object_category)


class Shard(msgspec.Struct, frozen=True, kw_only=True):
    schema: str
    frame: str
    episodes: tuple[Episode, ...]
    goals_by_category: dict[str, tuple[Goal, ...]]  # "<scene_id>_<category>"
    category_to_task_category_id: dict[str, int]
    category_to_scene_annotation_category_id: dict[str, int]


class SubsetRef(msgspec.Struct, frozen=True):
    scene_id: str
    episode_id: str


class Subset(msgspec.Struct, frozen=True, kw_only=True):
    schema: str
    episodes: tuple[SubsetRef, ...]


def instruction(category: str) -> str:
    """The original's instruction (v1): find and touch the target; for bed, couch and toilet also sit on it."""
    if category not in CATEGORY_IDS:
        raise ValueError(f"unknown category {category!r}; expected one of {', '.join(TARGET_CATEGORIES)}")
    label = LABELS.get(category, category)
    text = f"Find the {label} and move until your body is touching the target, with zero distance to the target object."
    if category in INTERACT_CATEGORIES:
        text += f" Finally, sit on the {label}."
    return text


def category_counts(episodes: int) -> dict[str, int]:
    """Episodes per category for one apartment: CATEGORY_WEIGHTS by largest remainder, ties in table order."""
    total = sum(CATEGORY_WEIGHTS.values())
    exact = {c: episodes * w / total for c, w in CATEGORY_WEIGHTS.items()}
    counts = {c: int(v) for c, v in exact.items()}
    order = sorted(CATEGORY_WEIGHTS, key=lambda c: -(exact[c] - counts[c]))  # stable: table order breaks ties
    for c in order[: episodes - sum(counts.values())]:
        counts[c] += 1
    return counts


def _yaw_quaternion(yaw: float) -> tuple[float, float, float, float]:
    d = DIGITS["rotation"]
    return (0.0, 0.0, round(math.sin(yaw / 2), d), round(math.cos(yaw / 2), d))


def _floor_point(xy) -> tuple[float, float, float]:
    return (round(float(xy[0]), DIGITS["position"]), round(float(xy[1]), DIGITS["position"]), 0.0)


def start_rejection(apartment: Apartment, grid: NavGrid, field: np.ndarray, xy) -> str | None:
    """Why a start at xy is refused (None: it is kept); `field` is the category's geodesic distance field."""
    if not grid.navigable(xy):
        return "not navigable"
    if any(Rect.of(f).distance(xy) < ROBOT_RADIUS for f in apartment.furniture):
        return "within the robot's radius of furniture"
    distance = float(field[grid.cell(xy)])
    if not math.isfinite(distance):
        return "no goal reachable"
    if not GEODESIC_RANGE[0] <= distance <= GEODESIC_RANGE[1]:
        return f"geodesic distance {distance:.2f} m outside {GEODESIC_RANGE[0]:g}-{GEODESIC_RANGE[1]:g} m"
    return None


def draw_start(rng: np.random.Generator, apartment: Apartment, grid: NavGrid, field: np.ndarray):
    """The (row, col) of a free cell drawn uniformly until `start_rejection` keeps one; None after START_TRIES."""
    free = np.argwhere(grid.free)
    for _ in range(START_TRIES):
        cell = tuple(int(v) for v in free[rng.integers(len(free))])
        if start_rejection(apartment, grid, field, grid.centres(cell)) is None:
            return cell
    return None


def goal_cells(apartment: Apartment, grid: NavGrid) -> dict[str, list[tuple[int, np.ndarray]]]:
    """Per category: (object_id, view point cells) of every target."""
    found = {c: [] for c in TARGET_CATEGORIES}
    for i, f in enumerate(apartment.furniture):
        if f.target:
            found[f.category].append((i, view_points(apartment, f, grid)))
    return found


def make_shard(index: int, episodes: int) -> Shard:
    """The shard of apartment `index`: its goals and `episodes` episodes."""
    apartment = build_apartment(index)
    grid = NavGrid.build(apartment)
    scene, digest = apartment.scene_id, apartment.digest()
    targets = goal_cells(apartment, grid)
    goals = {
        f"{scene}_{c}": tuple(_goal(apartment, grid, i, cells) for i, cells in targets[c]) for c in TARGET_CATEGORIES
    }
    rng = generator(f"split/{scene}")
    counts = category_counts(episodes)
    order = [c for c in TARGET_CATEGORIES for _ in range(counts[c])]
    searched = {}  # category -> distance field, nearest goal cell's owner per cell
    out = []
    for n, k in enumerate(rng.permutation(len(order))):
        category = order[int(k)]
        if category not in searched:
            owners = np.concatenate([np.full(len(cells), i) for i, cells in targets[category]])
            field, nearest = grid.nearest_goal(np.concatenate([cells for _, cells in targets[category]]))
            searched[category] = field, np.where(nearest >= 0, owners[nearest], -1)
        field, owner = searched[category]
        cell = draw_start(rng, apartment, grid, field)
        if cell is None:
            raise SplitError(f"{scene}: no start for a {category} episode in {START_TRIES} draws")
        xy = grid.centres(cell)
        centres = [apartment.furniture[i].centre[:2] for i, _ in targets[category]]
        info = EpisodeInfo(
            geodesic_distance=round(float(field[cell]), DIGITS["distance"]),
            euclidean_distance=round(float(min(math.dist(xy, c) for c in centres)), DIGITS["distance"]),
            closest_goal_object_id=int(owner[cell]),
            start_room=apartment.room_at(xy).kind,
        )
        out.append(
            Episode(
                episode_id=str(n),
                scene_id=scene,
                apartment_index=index,
                apartment_digest=digest,
                start_position=_floor_point(xy),
                start_rotation=_yaw_quaternion(rng.uniform(-math.pi, math.pi)),
                info=info,
                object_category=category,
            )
        )
    return _shard(tuple(out), goals)


def _goal(apartment: Apartment, grid: NavGrid, object_id: int, cells: np.ndarray) -> Goal:
    obj = apartment.furniture[object_id]
    points = grid.centres(cells)
    facing = np.arctan2(obj.centre[1] - points[:, 1], obj.centre[0] - points[:, 0])
    views = tuple(
        ViewPoint(AgentState(_floor_point(p), _yaw_quaternion(float(yaw)))) for p, yaw in zip(points, facing)
    )
    return Goal(
        object_id=object_id,
        object_name=obj.name,
        object_category=obj.category,
        position=tuple(round(v, DIGITS["position"]) for v in obj.centre),
        view_points=views,
    )


def _shard(episodes: tuple[Episode, ...], goals: dict) -> Shard:
    return Shard(
        schema=SCHEMA,
        frame=FRAME,
        episodes=episodes,
        goals_by_category=goals,
        category_to_task_category_id=CATEGORY_IDS,
        category_to_scene_annotation_category_id=CATEGORY_IDS,
    )


def _json(obj) -> bytes:
    return json.dumps(msgspec.to_builtins(obj), sort_keys=True, separators=(",", ":"), allow_nan=False).encode()


def _gzip(name: str, data: bytes) -> bytes:
    """Gzip with the same header every time: the inner file's name, mtime 0."""
    buffer = io.BytesIO()
    with gzip.GzipFile(filename=name, mode="wb", fileobj=buffer, mtime=0) as f:
        f.write(data)
    return buffer.getvalue()


def val100(scenes: list[str], episodes: int) -> Subset:
    """The fixed subset: VAL100 apartments of the split and as many of each one's episodes, drawn once."""
    n_scenes, n_episodes = VAL100
    if len(scenes) < n_scenes or episodes < n_episodes:
        raise SplitError(f"val100 needs at least {n_scenes} apartments x {n_episodes} episodes")
    rng = generator("val100")
    refs = []
    for s in sorted(int(i) for i in rng.choice(len(scenes), n_scenes, replace=False)):
        for e in sorted(int(i) for i in rng.choice(episodes, n_episodes, replace=False)):
            refs.append(SubsetRef(scenes[s], str(e)))
    return Subset(schema=SCHEMA, episodes=tuple(refs))


def write_split(
    output: str | Path, apartments: int = APARTMENTS, episodes: int = EPISODES, progress: Callable[[str], None] = print
) -> list[Path]:
    """Write the split's files under `output` and return their paths; the same arguments give the same bytes."""
    if apartments < 1 or episodes < 1:
        raise SplitError(f"--apartments and --episodes must be at least 1 (got {apartments} and {episodes})")
    output = Path(output)
    if output.exists() and not output.is_dir():
        raise SplitError(f"{output} exists and is not a directory")
    scenes = [f"apt_{i:03d}" for i in range(apartments)]
    with_subset = apartments >= VAL100[0] and episodes >= VAL100[1]
    stale = [p for p in (output / "content").glob("*.json.gz") if p.name.removesuffix(".json.gz") not in scenes]
    if not with_subset and (output / "val100.json").exists():
        stale.append(output / "val100.json")
    if stale:
        raise SplitError(f"{output} holds files of another split ({min(stale).name}); use an empty directory")
    started = time.perf_counter()
    written = []
    for index, scene in enumerate(scenes):
        t = time.perf_counter()
        shard = make_shard(index, episodes)
        path = output / "content" / f"{scene}.json.gz"
        written.append(write_bytes_atomic(path, _gzip(f"{scene}.json", _json(shard))))
        goals = sum(len(g) for g in shard.goals_by_category.values())
        progress(f"{scene}: {len(shard.episodes)} episodes, {goals} goals ({time.perf_counter() - t:.1f} s)")
    header = _shard((), {})
    written.append(write_bytes_atomic(output / "val.json.gz", _gzip("val.json", _json(header))))
    if with_subset:
        written.append(write_bytes_atomic(output / "val100.json", _json(val100(scenes, episodes)) + b"\n"))
    else:
        progress(f"val100 skipped: it needs at least {VAL100[0]} apartments x {VAL100[1]} episodes")
    total = apartments * episodes
    progress(f"wrote {apartments} shards, {total} episodes to {output} in {time.perf_counter() - started:.1f} s")
    return written


def file_digests(root: Path) -> dict[str, str]:
    """SHA-256 of every file of a split directory but its manifest, by relative path."""
    root = Path(root)
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and p.name != MANIFEST}


def split_digest(files: dict[str, str]) -> str:
    return hashlib.sha256("".join(f"{name}\0{sha}\n" for name, sha in sorted(files.items())).encode()).hexdigest()


def check_split(root: Path, expected: str = SPLIT_SHA256) -> None:
    """Refuse, in one line naming the file, a split directory whose files are not the generated ones."""
    root = Path(root)
    files = file_digests(root)
    if split_digest(files) == expected:
        if not (root / MANIFEST).is_file():
            write_bytes_atomic(root / MANIFEST, _json(files) + b"\n")
        return
    try:
        manifest = json.loads((root / MANIFEST).read_text())
    except (OSError, ValueError):
        manifest = None
    if isinstance(manifest, dict) and split_digest(manifest) == expected:
        changed = sorted(n for n in set(files) | set(manifest) if files.get(n) != manifest.get(n))
        what = f"{changed[0]} is {'missing' if changed[0] not in files else 'extra' if changed[0] not in manifest else 'changed'}"
    else:
        what = "its files differ from the generated split"
    raise SplitError(f"the find-navigate-sit split at {root} is not the generated one ({what}); delete the directory to generate it again")


def _read_shard(path: Path) -> list[Episode]:
    try:
        shard = msgspec.json.decode(gzip.decompress(path.read_bytes()), type=Shard)
    except (OSError, EOFError, msgspec.DecodeError) as exc:  # gzip.BadGzipFile is an OSError
        raise SplitError(f"{path}: not a split shard ({exc})") from None
    if shard.schema != SCHEMA:
        raise SplitError(f"{path}: schema {shard.schema!r}, expected {SCHEMA!r}")
    try:
        return [
            msgspec.structs.replace(e, goals=shard.goals_by_category[f"{e.scene_id}_{e.object_category}"])
            for e in shard.episodes
        ]
    except KeyError as exc:
        raise SplitError(f"{path}: no goals under {exc}") from None


def load_split(path: str | Path) -> list[Episode]:
    """Episodes of a split directory (every shard, in name order), of one shard, or of a subset file (val100.json)."""
    path = Path(path)
    if path.is_dir():
        shards = sorted((path / "content").glob("*.json.gz"))
        if not shards:
            raise SplitError(f"{path}: no shards under content/")
        return [e for s in shards for e in _read_shard(s)]
    if path.name.endswith(".json.gz"):
        return _read_shard(path)
    try:
        subset = msgspec.json.decode(path.read_bytes(), type=Subset)
    except (OSError, msgspec.DecodeError) as exc:
        raise SplitError(f"{path}: not a split subset ({exc})") from None
    by_key = {}
    for scene in sorted({r.scene_id for r in subset.episodes}):
        for e in _read_shard(path.parent / "content" / f"{scene}.json.gz"):
            by_key[e.scene_id, e.episode_id] = e
    try:
        return [by_key[r.scene_id, r.episode_id] for r in subset.episodes]
    except KeyError as exc:
        raise SplitError(f"{path}: episode {exc} is in no shard") from None


class _Parser(argparse.ArgumentParser):
    """argparse's own errors as one line, like every other bad input."""

    def error(self, message: str):
        raise SplitError(f"{message} (see --help)")


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(
        prog="python -m humanoidtoolbench.suites.findsit.split",
        description="Write the find-navigate-sit validation split: one gzip JSON shard per apartment, and val100.json.",
    )
    parser.add_argument("--output", required=True, type=Path, help="directory to write the split into")
    parser.add_argument("--apartments", type=int, default=APARTMENTS, help=f"apartments (default {APARTMENTS})")
    parser.add_argument("--episodes", type=int, default=EPISODES, help=f"episodes per apartment (default {EPISODES})")
    try:
        args = parser.parse_args(argv)
        write_split(args.output, args.apartments, args.episodes)
    except (SplitError, ApartmentError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
