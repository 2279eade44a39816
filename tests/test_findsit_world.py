"""Find-navigate-sit world data: procedural apartments, the navigation grid and the validation split.

No MuJoCo. Apartments 0-11 are drawn once for the module (a few seconds); the
split checks write 5 apartments x 20 episodes once (the smallest split with a
val100) and 2 x 5 twice, never the full 40 x 30.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import math
import random
import time
from functools import cache

import numpy as np
import pytest

from humanoidtoolbench.suites.findsit import split
from humanoidtoolbench.suites.findsit.apartments import (
    DOOR_HEIGHT,
    SPECS,
    TARGET_CATEGORIES,
    WALL_HEIGHT,
    Wall,
    build_apartment,
    generator,
)
from humanoidtoolbench.planning.navgrid import RESOLUTION, ROBOT_RADIUS, VIEW_RADIUS, NavGrid, view_points

APARTMENTS = range(12)
TOL = 1e-6


@cache
def apartment(index: int):
    return build_apartment(index)


@cache
def grid(index: int) -> NavGrid:
    return NavGrid.build(apartment(index))


@pytest.fixture(scope="module")
def split_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("findsit_split")
    lines = []
    split.write_split(out, apartments=5, episodes=20, progress=lines.append)
    assert len(lines) == 6 and lines[-1].startswith("wrote 5 shards, 100 episodes")
    return out


# Independent geometry (not the module's Rect): corners and a separating-axis test of yawed boxes.
def corners(box) -> np.ndarray:
    c, s = math.cos(box.yaw), math.sin(box.yaw)
    hx, hy = box.half_extents[:2]
    local = np.array([[hx, hy], [-hx, hy], [-hx, -hy], [hx, -hy]])
    return local @ np.array([[c, s], [-s, c]]) + box.centre[:2]


def footprints_overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Interiors intersect (touching edges do not count)."""
    for poly in (a, b):
        for i in range(4):
            edge = poly[(i + 1) % 4] - poly[i]
            axis = np.array([-edge[1], edge[0]])
            pa, pb = a @ axis, b @ axis
            if pa.max() <= pb.min() + TOL or pb.max() <= pa.min() + TOL:
                return False
    return True


def boxes_overlap(a, b) -> bool:
    za = (a.centre[2] - a.half_extents[2], a.centre[2] + a.half_extents[2])
    zb = (b.centre[2] - b.half_extents[2], b.centre[2] + b.half_extents[2])
    if za[1] <= zb[0] + TOL or zb[1] <= za[0] + TOL:
        return False
    return footprints_overlap(corners(a), corners(b))


def point_box_distance(xy, box) -> float:
    c, s = math.cos(box.yaw), math.sin(box.yaw)
    dx, dy = xy[0] - box.centre[0], xy[1] - box.centre[1]
    u, v = c * dx + s * dy, -s * dx + c * dy
    return math.hypot(max(abs(u) - box.half_extents[0], 0.0), max(abs(v) - box.half_extents[1], 0.0))


def doorway_box(door, z0: float, z1: float) -> Wall:
    """The wall-thick box filling a doorway's opening from z0 to z1."""
    halves = (0.05, door.width / 2) if door.axis == 0 else (door.width / 2, 0.05)
    return Wall((*door.centre, (z0 + z1) / 2), (*halves, (z1 - z0) / 2))


def cell_of(xy) -> tuple[int, int]:
    return int(xy[1] // RESOLUTION), int(xy[0] // RESOLUTION)


def test_apartments_are_deterministic_and_distinct():
    saved = np.random.get_state(), random.getstate()
    a = build_apartment(3)
    np.random.seed(12345)
    random.seed(12345)
    b = build_apartment(3)
    np.random.set_state(saved[0])
    random.setstate(saved[1])
    assert a == b and a.digest() == b.digest()  # the global generators play no part
    assert build_apartment(0).rooms != build_apartment(1).rooms
    assert len({apartment(i).digest() for i in APARTMENTS}) == len(APARTMENTS)
    assert generator("x").random() == generator("x").random() != generator("y").random()


@pytest.mark.parametrize("index", APARTMENTS)
def test_rooms_tile_the_plan_and_every_room_is_reachable(index):
    apt, g = apartment(index), grid(index)
    w, d = apt.size
    assert 3 <= len(apt.rooms) <= 6
    assert {"living_room", "bedroom", "bathroom"} <= {r.kind for r in apt.rooms}
    areas = [(r.bounds[2] - r.bounds[0]) * (r.bounds[3] - r.bounds[1]) for r in apt.rooms]
    assert sum(areas) == pytest.approx(w * d)
    for i, r in enumerate(apt.rooms):
        assert 0 <= r.bounds[0] < r.bounds[2] <= w and 0 <= r.bounds[1] < r.bounds[3] <= d
        for q in apt.rooms[i + 1 :]:
            overlap_x = min(r.bounds[2], q.bounds[2]) - max(r.bounds[0], q.bounds[0])
            overlap_y = min(r.bounds[3], q.bounds[3]) - max(r.bounds[1], q.bounds[1])
            assert overlap_x <= TOL or overlap_y <= TOL

    for door in apt.doorways:
        assert door.width >= 0.9
        opening = doorway_box(door, 0.0, DOOR_HEIGHT)
        assert not any(boxes_overlap(opening, wall) for wall in apt.walls)
        lintels = [w for w in apt.walls if math.isclose(w.centre[2] - w.half_extents[2], DOOR_HEIGHT)]
        assert any(point_box_distance(door.centre, w) == 0.0 for w in lintels)

    # The doorways join every room, and the free floor of every room is one region.
    labels = g.components()
    common = None
    for r in apt.rooms:
        rows, cols = g.window(r.interior)
        found = set(np.unique(labels[rows, cols])) - {0}
        common = found if common is None else common & found
    assert common, "no free region touches every room"
    assert {labels[cell_of(door.centre)] for door in apt.doorways} <= common


@pytest.mark.parametrize("index", APARTMENTS)
def test_no_furniture_overlaps_walls_doorways_or_other_furniture(index):
    apt = apartment(index)
    pieces = apt.furniture
    assert len({f.name for f in pieces}) == len(pieces)
    for i, a in enumerate(pieces):
        for b in pieces[i + 1 :]:
            assert not boxes_overlap(a, b), (a.name, b.name)
        for wall in apt.walls:
            assert not boxes_overlap(a, wall), (a.name, wall)
        on_floor = a.support is None and a.centre[2] - a.half_extents[2] < 0.5
        if on_floor:
            x0, y0, x1, y1 = apt.rooms[a.room].interior
            c = corners(a)
            assert (c[:, 0] >= x0 - TOL).all() and (c[:, 0] <= x1 + TOL).all()
            assert (c[:, 1] >= y0 - TOL).all() and (c[:, 1] <= y1 + TOL).all()
            for door in apt.doorways:
                for z in door.swing_zones():
                    zone = Wall((z.cx, z.cy, 0.5), (z.hx, z.hy, 0.5))
                    assert not footprints_overlap(corners(a), corners(zone)), (a.name, door)
        if a.support is not None:  # resting exactly on its support's top
            support = next(f for f in pieces if f.name == a.support)
            assert a.centre[2] - a.half_extents[2] == pytest.approx(support.centre[2] + support.half_extents[2])
        assert a.half_extents[2] * 2 == pytest.approx(SPECS[a.category].size[2])
        assert a.movable == (SPECS[a.category].mass is not None)


@pytest.mark.parametrize("index", APARTMENTS)
def test_every_apartment_has_all_six_categories_in_reach(index):
    apt, g = apartment(index), grid(index)
    labels = g.components()
    region = labels[cell_of(apt.doorways[0].centre)]
    for category in TARGET_CATEGORIES:
        targets = apt.targets(category)
        assert targets, category
        for f in targets:
            vp = view_points(apt, f, g)
            assert (labels[tuple(vp.T)] == region).any(), f.name
            assert SPECS[category].seat_height == f.seat_height
    for tv in apt.targets("tv"):
        assert tv.aabb()[0][2] >= 0.5  # on its stand or on the wall, clear of the floor


@pytest.mark.parametrize("index", range(4))
def test_view_points_are_free_near_and_not_behind_walls(index):
    apt, g = apartment(index), grid(index)
    for f in (f for f in apt.furniture if f.target):
        cells = view_points(apt, f, g)
        assert len(cells)
        assert g.free[tuple(cells.T)].all()
        points = g.centres(cells)
        assert all(point_box_distance(p, f) <= VIEW_RADIUS + TOL for p in points)
        room = apt.rooms[f.room]
        for p in points:
            if apt.room_at(p) is room:
                continue
            # Seen from another room: the ray to the centre leaves the object's room through a doorway.
            x0, y0, x1, y1 = room.bounds
            cx, cy = f.centre[:2]
            crossings = []
            for axis, at in ((0, x0), (0, x1), (1, y0), (1, y1)):
                t = (at - p[axis]) / ((cx, cy)[axis] - p[axis]) if (cx, cy)[axis] != p[axis] else -1
                if 0 <= t <= 1:
                    crossings.append((axis, at, p[1 - axis] + t * ((cx, cy)[1 - axis] - p[1 - axis])))
            assert any(
                d.axis == axis and math.isclose(d.centre[axis], at) and abs(along - d.centre[1 - axis]) <= d.width / 2
                for axis, at, along in crossings
                for d in apt.doorways
            ), (f.name, p)


def test_paths_follow_free_cells_and_match_geodesic_distances():
    apt, g = apartment(0), grid(0)
    goals = view_points(apt, apt.targets("toilet")[0], g)
    field = g.distance_field(goals)
    free = np.argwhere(g.free & np.isfinite(field))
    rng = np.random.default_rng(0)
    for cell in free[rng.choice(len(free), 10, replace=False)]:
        start = g.centres(cell)
        path = g.path(start, goals)
        assert path[0] == pytest.approx(tuple(start))
        assert cell_of(path[-1]) in {tuple(c) for c in goals}
        length = sum(math.dist(a, b) for a, b in zip(path, path[1:]))
        assert length == pytest.approx(field[tuple(cell)], abs=1e-9)
        assert g.geodesic_distance(start, goals) == pytest.approx(field[tuple(cell)])
        for a, b in zip(path, path[1:]):
            for t in np.linspace(0, 1, 50):
                assert g.navigable(np.add(a, t * np.subtract(b, a)))


def test_an_unreachable_start_is_rejected_at_generation():
    apt = apartment(0)
    bathroom = apt.rooms[-1]
    plugs = tuple(doorway_box(d, 0.0, WALL_HEIGHT) for d in apt.doorways if bathroom.index in d.rooms)
    closed = dataclasses.replace(apt, walls=apt.walls + plugs)  # the bathroom, closed
    g = NavGrid.build(closed)
    goals = np.concatenate([view_points(closed, f, g) for f in closed.targets("couch")])
    field = g.distance_field(goals)
    rows, cols = g.window(bathroom.interior)
    inside = [(r, c) for r in range(rows.start, rows.stop) for c in range(cols.start, cols.stop) if g.free[r, c]]
    assert inside
    for cell in inside[:: max(len(inside) // 20, 1)]:
        xy = g.centres(cell)
        assert not g.reachable(xy, goals) and g.path(xy, goals) == []
        assert split.start_rejection(closed, g, field, xy) == "no goal reachable"
    rng = generator("test/closed")
    starts = [split.draw_start(rng, closed, g, field) for _ in range(200)]
    assert all(s is not None and apt.room_at(g.centres(s)) is not bathroom for s in starts)
    # The other rejections, for completeness.
    seat = apt.targets("couch")[0]
    assert split.start_rejection(closed, g, field, seat.centre[:2]) == "not navigable"
    near = min((tuple(c) for c in goals), key=lambda c: field[c])
    assert split.start_rejection(closed, g, field, g.centres(near)).startswith("geodesic distance 0.00 m")


def test_episode_starts_are_free_clear_and_their_distances_recompute(split_dir):
    episodes = split.load_split(split_dir)
    assert len(episodes) == 100 and len({(e.scene_id, e.episode_id) for e in episodes}) == 100
    for e in episodes:
        apt, g = apartment(e.apartment_index), grid(e.apartment_index)
        assert e.apartment_digest == apt.digest() and e.scene_id == apt.scene_id
        xy = e.start_position[:2]
        assert e.start_position[2] == 0.0 and g.navigable(xy)
        assert min(point_box_distance(xy, f) for f in apt.furniture) >= ROBOT_RADIUS
        assert e.start_rotation[:2] == (0.0, 0.0) and math.hypot(*e.start_rotation) == pytest.approx(1.0, abs=1e-5)
        assert e.goals and {goal.object_category for goal in e.goals} == {e.object_category}
        cells = np.array([cell_of(v.agent_state.position) for goal in e.goals for v in goal.view_points])
        geodesic = g.distance_field(cells)[cell_of(xy)]
        assert e.info.geodesic_distance == pytest.approx(geodesic, abs=1e-4)
        assert 1.0 <= e.info.geodesic_distance <= 30.0
        assert e.info.closest_goal_object_id in {goal.object_id for goal in e.goals}
        for goal in e.goals:
            obj = apt.furniture[goal.object_id]
            assert obj.name == goal.object_name and obj.target
            assert goal.position == pytest.approx(obj.centre)


def test_shards_have_the_objectnav_schema_and_a_fixed_gzip_header(split_dir):
    path = split_dir / "content" / "apt_002.json.gz"
    raw = path.read_bytes()
    assert raw[4:8] == b"\0\0\0\0" and raw[10:23] == b"apt_002.json\0"  # mtime 0, the inner name
    shard = json.loads(gzip.decompress(raw))
    assert set(shard) == {
        "schema", "frame", "episodes", "goals_by_category",
        "category_to_task_category_id", "category_to_scene_annotation_category_id",
    }  # fmt: skip
    assert "z up" in shard["frame"]
    ids = {c: i for i, c in enumerate(TARGET_CATEGORIES)}
    assert shard["category_to_task_category_id"] == shard["category_to_scene_annotation_category_id"] == ids
    assert set(shard["goals_by_category"]) == {f"apt_002_{c}" for c in TARGET_CATEGORIES}
    for goals in shard["goals_by_category"].values():
        for goal in goals:
            assert {"position", "object_id", "object_name", "view_points"} <= set(goal)
            view = goal["view_points"][0]
            assert set(view) == {"agent_state"} and set(view["agent_state"]) == {"position", "rotation"}
    for episode in shard["episodes"]:
        assert {
            "episode_id", "scene_id", "start_position", "start_rotation", "info", "object_category", "goals",
        } <= set(episode)  # fmt: skip
        assert episode["goals"] == [] and episode["scene_id"] == "apt_002"
        assert {"geodesic_distance", "euclidean_distance", "closest_goal_object_id"} <= set(episode["info"])
    header = json.loads(gzip.decompress((split_dir / "val.json.gz").read_bytes()))
    assert header["episodes"] == [] and header["category_to_task_category_id"] == ids


def test_val100_is_five_apartments_by_twenty_episodes(split_dir):
    subset = split.load_split(split_dir / "val100.json")
    assert len(subset) == 100
    by_scene = {}
    for e in subset:
        by_scene.setdefault(e.scene_id, set()).add(e.episode_id)
    assert len(by_scene) == 5 and all(len(ids) == 20 for ids in by_scene.values())
    scenes = [f"apt_{i:03d}" for i in range(40)]
    assert split.val100(scenes, 30) == split.val100(scenes, 30)
    with pytest.raises(split.SplitError, match="val100 needs"):
        split.val100(["apt_000"], 30)


def test_category_mix_follows_the_original():
    counts = split.category_counts(30)
    assert sum(counts.values()) == 30 and set(counts) == set(TARGET_CATEGORIES)
    assert sum(counts[c] for c in split.INTERACT_CATEGORIES) == 15
    assert min(counts.values()) >= 4
    assert sum(split.category_counts(20).values()) == 20


def test_instructions_are_the_originals():
    base = "Find the {} and move until your body is touching the target, with zero distance to the target object."
    expected = {
        "bed": base.format("bed") + " Finally, sit on the bed.",
        "couch": base.format("couch") + " Finally, sit on the couch.",
        "toilet": base.format("toilet") + " Finally, sit on the toilet.",
        "chair": base.format("chair"),
        "tv": base.format("TV"),
        "potted_plant": base.format("potted plant"),
    }
    assert {c: split.instruction(c) for c in TARGET_CATEGORIES} == expected
    with pytest.raises(ValueError, match="unknown category"):
        split.instruction("sofa")


def test_small_split_is_fast_byte_identical_and_the_cli_reports_one_line(tmp_path, capsys):
    started = time.perf_counter()
    assert split.main(["--output", str(tmp_path / "a"), "--apartments", "2", "--episodes", "5"]) == 0
    elapsed = time.perf_counter() - started
    assert elapsed < 15, f"2 x 5 split took {elapsed:.1f} s"
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("apt_000: 5 episodes") and out[-1].startswith("wrote 2 shards, 10 episodes")
    split.write_split(tmp_path / "b", apartments=2, episodes=5, progress=lambda line: None)
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file())
    assert [str(f) for f in files] == ["content/apt_000.json.gz", "content/apt_001.json.gz", "val.json.gz"]
    for f in files:
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes()
    assert len(split.load_split(tmp_path / "a")) == 10

    for argv, message in (
        (["--output", str(tmp_path / "a"), "--apartments", "0"], "must be at least 1"),
        (["--output", str(tmp_path / "a"), "--apartments", "1"], "holds files of another split"),
        (["--apartments", "two"], "invalid int value"),
    ):
        assert split.main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err


def test_loader_reports_bad_files_in_one_line(tmp_path):
    bad = tmp_path / "content" / "apt_000.json.gz"
    bad.parent.mkdir()
    bad.write_bytes(b"not gzip")
    for path in (tmp_path, bad, tmp_path / "empty"):
        with pytest.raises(split.SplitError) as info:
            split.load_split(path)
        assert "\n" not in str(info.value)


def test_the_clutter_grid_also_blocks_the_margin_of_every_piece_of_floor_clutter_and_nothing_else():
    apt = apartment(2)
    plain, cluttered = grid(2), NavGrid.build(apt, clutter=True)
    floor = [f for f in apt.furniture if f.movable and f.centre[2] - f.half_extents[2] < 0.01]
    assert floor  # the apartment has clutter on its floor
    assert not (cluttered.free & ~plain.free).any()  # it only ever blocks more
    newly = np.argwhere(plain.free & ~cluttered.free)
    assert len(newly)
    centres = cluttered.centres(newly)
    near = [min(point_box_distance(xy, f) for f in floor) for xy in centres]
    assert max(near) < ROBOT_RADIUS + 1e-9  # every newly blocked cell lies in a clutter's margin
    for f in floor:  # and every clutter's footprint is blocked
        assert not cluttered.navigable(f.centre[:2])
