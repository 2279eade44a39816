"""Find-navigate-sit in the standard look: targets drawn by their parts where one touches them, variants
drawn from the look's own stream, the apartment's physics untouched (tests/test_look.py compares whole
episodes across looks)."""

from __future__ import annotations

import dataclasses
from functools import cache

import mujoco
import numpy as np
import pytest

from humanoidtoolbench.sim import look as looks
from humanoidtoolbench.sim import scene
from humanoidtoolbench.sim.look import visual
from humanoidtoolbench.suites.findsit import furnishings, gallery
from humanoidtoolbench.suites.findsit.apartments import TARGET_CATEGORIES, WALL_THICKNESS, build_apartment
from humanoidtoolbench.suites.findsit.kit import FABRICS, WOODS, Kit, look_generator
from humanoidtoolbench.suites.findsit.scene import add_piece, build_scene
from humanoidtoolbench.suites.findsit.suite import SUITE

SEATS = ("bed", "couch", "chair", "toilet")


@cache
def apartment(index: int):
    return build_apartment(index)


def first_piece(category: str):
    return next(p for i in range(8) for p in apartment(i).furniture if p.category == category)


def dressed_piece(category: str, variant: int | None):
    """One piece at the origin in an empty room, dressed as `variant` (None: undressed); (model, piece)."""
    piece = first_piece(category)
    piece = dataclasses.replace(piece, centre=(0.0, 0.0, piece.half_extents[2]), yaw=0.0, name="subject")
    spec = scene.new_spec(look=looks.STANDARD)
    body = add_piece(spec, piece)
    if variant is None:
        return spec.compile(), piece
    choice = furnishings.Choice(variant, WOODS[0], FABRICS[0], FABRICS[1], seed=7)
    furnishings.dress_piece(spec, body, piece, Kit(spec, body, looks.Wardrobe(spec, looks.STANDARD), "look/subject"), choice)
    return spec.compile(), piece


@pytest.mark.parametrize("category", SEATS)
def test_every_seat_variant_is_drawn_at_the_height_one_sits_on(category):
    """A ray down onto the middle of the seat meets the visual parts within 4 cm of the physical seat."""
    for variant in range(len(furnishings.VARIANTS[category])):
        model, piece = dressed_piece(category, variant)
        data = mujoco.MjData(model)
        mujoco.mj_forward(model, data)
        hx = piece.half_extents[0]
        x = (-hx + piece.backrest + hx) / 2 if piece.backrest else 0.3 * hx
        geom = np.zeros(1, np.int32)
        groups = np.zeros(6, np.uint8)
        groups[visual.VISUAL_GROUP] = 1
        dist = mujoco.mj_ray(model, data, np.array([x, 0.0, 3.0]), np.array([0.0, 0.0, -1.0]), groups, 1, -1, geom)
        assert dist > 0 and model.geom_bodyid[geom[0]] == model.body("subject").id, (category, variant)
        assert abs((3.0 - dist) - piece.seat_height) < 0.04, (category, variant, 3.0 - dist)


@pytest.mark.parametrize("category", TARGET_CATEGORIES)
def test_a_target_hides_its_boxes_and_is_drawn_by_visual_parts(category):
    for variant in range(len(furnishings.VARIANTS[category])):
        model, _ = dressed_piece(category, variant)
        body = model.body("subject").id
        geoms = [g for g in range(model.ngeom) if model.geom_bodyid[g] == body]
        solid = [g for g in geoms if not visual.is_visual(model, g)]
        parts = [g for g in geoms if visual.is_visual(model, g)]
        assert solid and all(model.geom_rgba[g][3] == 0 for g in solid)
        assert len(parts) >= 3 and all(model.geom_matid[g] >= 0 for g in parts)
        plain, _ = dressed_piece(category, None)
        assert model.body_mass[body] == plain.body_mass[body] > 0  # the parts add no mass


def test_look_draws_are_their_own_stream_and_vary_by_episode():
    draws = {key: [furnishings.Choice.draw(look_generator("apt_000", key), c) for c in TARGET_CATEGORIES] for key in "0123"}
    again = [furnishings.Choice.draw(look_generator("apt_000", "0"), c) for c in TARGET_CATEGORIES]
    assert draws["0"] == again
    assert len({tuple(d) for d in draws.values()}) == 4
    seen = {c: {furnishings.Choice.draw(look_generator("apt_001", str(k)), c).variant for k in range(30)} for c in TARGET_CATEGORIES}
    assert all(seen[c] == set(range(len(furnishings.VARIANTS[c]))) for c in TARGET_CATEGORIES), seen


def test_one_apartment_under_two_episodes_keys_has_the_same_physics_and_another_dress():
    controller = SUITE.make_controller("assisted")
    models = [build_scene(apartment(0), controller, "fast", looks.STANDARD, ("apt_000", key)).compile() for key in "01"]
    solid = [np.array([g for g in range(m.ngeom) if not visual.is_visual(m, g)]) for m in models]
    for field in ("geom_size", "geom_pos", "geom_type", "geom_contype", "geom_conaffinity", "geom_friction"):
        assert np.array_equal(getattr(models[0], field)[solid[0]], getattr(models[1], field)[solid[1]]), field
    assert np.array_equal(models[0].body_mass, models[1].body_mass)
    assert models[0].ngeom != models[1].ngeom or not np.array_equal(models[0].geom_matid, models[1].geom_matid)


def test_the_rooms_dressing_stays_inside_the_apartment_and_under_its_ceiling():
    controller = SUITE.make_controller("assisted")
    for index in range(3):
        apt = apartment(index)
        model = build_scene(apt, controller, "fast", looks.STANDARD, (f"apt_{index:03d}", "0")).compile()
        data = mujoco.MjData(model)
        mujoco.mj_forward(model, data)
        rooms = [g for g in range(model.ngeom) if model.geom_bodyid[g] == 0 and visual.is_visual(model, g)
                 and model.geom_type[g] != mujoco.mjtGeom.mjGEOM_PLANE]
        assert len(rooms) > 4 * len(apt.rooms)  # floors, walls' finish, lights, door frames
        centres = data.geom_xpos[rooms]
        t = WALL_THICKNESS
        assert (centres[:, 0] > -t).all() and (centres[:, 0] < apt.size[0] + t).all()
        assert (centres[:, 1] > -t).all() and (centres[:, 1] < apt.size[1] + t).all()
        assert (centres[:, 2] >= 0).all() and (centres[:, 2] < 2.5).all()


def test_the_gallery_shows_every_variant_of_every_target():
    names = [s.name for s in gallery.gallery().subjects]
    for category in TARGET_CATEGORIES:
        assert sum(n.startswith(category.replace("_", " ") + ",") for n in names) == len(furnishings.VARIANTS[category]) >= 3
