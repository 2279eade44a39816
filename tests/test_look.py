"""Looks: procedural textures and materials, visual-only geometry, physics identical in every look,
the look recorded in results and part of the protocol, and the gallery."""

from __future__ import annotations

import hashlib
import json

import mujoco
import numpy as np
import pytest

from humanoidtoolbench import suites
from humanoidtoolbench.cli import eval as eval_cli
from humanoidtoolbench.cli import gallery as gallery_cli
from humanoidtoolbench.eval.identity import policy_label
from humanoidtoolbench.metrics.report import standing
from humanoidtoolbench.sim import look as looks
from humanoidtoolbench.sim import scene
from humanoidtoolbench.sim.look import visual
from humanoidtoolbench.sim.look.textures import PATTERNS
from humanoidtoolbench.sim.simulation import home_upper_pose

from rollouts import play

SUITES = {s.name: s for s in suites.suites()}
# (suite, condition, seed): scenes that between them hold every kind of thing a suite dresses.
SCENES = (
    ("toolbench", "G1BallRetrieve-L1-R", 0),
    ("toolbench", "G1IceBreak-L2-R", 1),
    ("toolbench", "G1BallMove-L2-R", 2),
    ("fiatlux", "S07", 0),
    ("fiatlux", "S03", 1),
    ("findsit", "FINDSIT-val100", 0),
    ("findsit", "FINDSIT-val100", 1),
    ("findsit", "FINDSIT-val100", 2),
    ("findsit", "FINDSIT-val100", 3),
)
STEPS = 100


def episode(suite_name: str, condition: str, seed: int, look: str):
    suite = SUITES[suite_name]
    return suite.make_episode(suite.parse(condition), seed, suite.make_controller(suite.protocol.controller), "fast", look=look)


def fixed_action(suite_name: str) -> np.ndarray:
    """A policy's one fixed reply: walk forward (tool use, find-navigate-sit), hold zero (Fiatlux)."""
    if suite_name == "toolbench":
        return np.concatenate([home_upper_pose(), [0.75, 0.1, 0.0, 0.0, 0.0]])[None]
    if suite_name == "findsit":
        return np.array([[0.0, 0.4]])
    return np.zeros((1, SUITES[suite_name].action_contract().action_dim))


# -- textures and materials ------------------------------------------------------------------------
@pytest.mark.parametrize("pattern", sorted(PATTERNS))
def test_every_pattern_is_seeded_sized_and_not_flat(pattern):
    make = PATTERNS[pattern]
    image = make(3, 64)
    assert image.shape == (64, 64, 3) and image.dtype == np.uint8
    assert np.array_equal(image, make.__wrapped__(3, 64))  # the cache holds what a fresh draw gives
    assert not np.array_equal(image, make(4, 64))
    assert image.astype(float).std() > 2.0  # a pattern, not a flat colour
    assert image.mean() > 100  # pale: a material's colour tints it


def test_wardrobes_share_materials_and_textures_in_one_spec():
    spec = mujoco.MjSpec()
    first, second = looks.Wardrobe(spec, looks.STANDARD), looks.Wardrobe(spec, looks.STANDARD)
    name = first.material("wood", (0.6, 0.4, 0.2, 1.0))
    assert second.material("wood", (0.6, 0.4, 0.2, 1.0)) == name
    assert first.material("wood", (0.3, 0.2, 0.1, 1.0)) != name
    spec.worldbody.add_geom(type=mujoco.mjtGeom.mjGEOM_BOX, size=[0.1] * 3, material=name)
    model = spec.compile()
    assert model.ntex == 1 and model.nmat == 2
    size = looks.STANDARD.texture_size
    assert np.array_equal(model.tex_data[: size * size * 3].reshape(size, size, 3), PATTERNS["wood"](0, size))


def test_a_plain_look_has_no_wardrobe_and_unknown_looks_are_refused():
    with pytest.raises(ValueError, match="not dressed"):
        looks.Wardrobe(mujoco.MjSpec(), looks.FAST)
    with pytest.raises(looks.LookError, match="unknown look 'fancy'; choose one of standard, fast"):
        looks.get("fancy")


def test_visual_geometry_adds_no_contact_and_no_mass():
    def build(dressed: bool) -> mujoco.MjModel:
        spec = mujoco.MjSpec()
        body = spec.worldbody.add_body(name="b", pos=[0, 0, 1])
        body.add_freejoint()
        body.add_geom(type=mujoco.mjtGeom.mjGEOM_BOX, size=[0.1, 0.05, 0.02], mass=0.3)
        if dressed:
            visual.add_geom(body, "sphere", (0.2,), pos=(0.3, 0.0, 0.0))
            import trimesh

            visual.add_mesh(spec, body, "knob", trimesh.creation.cylinder(0.05, 0.2), pos=(0.0, 0.3, 0.0))
        return spec.compile()

    plain, dressed = build(False), build(True)
    assert dressed.ngeom == plain.ngeom + 2
    assert all(visual.is_visual(dressed, g) for g in (1, 2)) and not visual.is_visual(dressed, 0)
    for field in ("body_mass", "body_inertia", "body_ipos", "body_iquat"):
        assert np.array_equal(getattr(dressed, field), getattr(plain, field)), field


# -- physics in every look -------------------------------------------------------------------------
GEOM_FIELDS = ("geom_type", "geom_contype", "geom_conaffinity", "geom_condim", "geom_priority", "geom_bodyid", "geom_group",
               "geom_size", "geom_pos", "geom_quat", "geom_friction", "geom_solref", "geom_solimp", "geom_solmix",
               "geom_margin", "geom_gap", "geom_aabb", "geom_rbound")
MODEL_FIELDS = ("body_mass", "body_inertia", "body_ipos", "body_iquat", "body_pos", "body_quat", "body_parentid",
                "body_contype", "body_conaffinity", "body_gravcomp", "jnt_type", "jnt_range", "jnt_stiffness", "dof_armature",
                "dof_damping", "dof_frictionloss", "actuator_gainprm", "actuator_biasprm", "actuator_ctrlrange",
                "eq_data", "qpos0")


def solid_geoms(model: mujoco.MjModel) -> np.ndarray:
    """Every geom but the visual-only ones: what the physics may read."""
    return np.array([g for g in range(model.ngeom) if not visual.is_visual(model, g)])


@pytest.mark.parametrize("suite_name, condition, seed", SCENES)
def test_a_dressed_look_adds_only_visual_geometry_and_changes_no_physics(suite_name, condition, seed):
    fast = episode(suite_name, condition, seed, "fast").model
    dressed = episode(suite_name, condition, seed, "standard").model
    a, b = solid_geoms(fast), solid_geoms(dressed)
    assert len(a) == len(b)
    for field in GEOM_FIELDS:
        assert np.array_equal(getattr(fast, field)[a], getattr(dressed, field)[b]), field
    for ga, gb in zip(a, b):  # meshes are compared by their vertices (added visual meshes shift the ids)
        if fast.geom_type[ga] == mujoco.mjtGeom.mjGEOM_MESH:
            ma, mb = fast.geom_dataid[ga], dressed.geom_dataid[gb]
            va = fast.mesh_vert[fast.mesh_vertadr[ma] : fast.mesh_vertadr[ma] + fast.mesh_vertnum[ma]]
            vb = dressed.mesh_vert[dressed.mesh_vertadr[mb] : dressed.mesh_vertadr[mb] + dressed.mesh_vertnum[mb]]
            assert np.array_equal(va, vb)
    for field in MODEL_FIELDS:
        assert np.array_equal(getattr(fast, field), getattr(dressed, field)), field
    for field in ("pair_geom1", "pair_geom2"):  # the same solid geoms (visual ones before them shift their ids)
        assert np.array_equal(np.searchsorted(a, getattr(fast, field)), np.searchsorted(b, getattr(dressed, field))), field
        assert np.isin(getattr(dressed, field), b).all(), field
    assert fast.stat.meaninertia == dressed.stat.meaninertia
    added = [g for g in range(dressed.ngeom) if visual.is_visual(dressed, g)]
    assert all(dressed.geom_contype[g] == 0 and dressed.geom_conaffinity[g] == 0 for g in added)
    assert dressed.ntex > 0 and fast.ntex <= 1  # the plain look has at most its floor's checker


@pytest.mark.parametrize("suite_name, condition, seed", SCENES[:2] + SCENES[3:4] + SCENES[5:6])
def test_trajectories_are_byte_identical_in_every_look(suite_name, condition, seed):
    action, suite = fixed_action(suite_name), SUITES[suite_name]
    digests = {}
    for look in ("fast", "standard"):
        ep = episode(suite_name, condition, seed, look)
        ep.reset()
        h = hashlib.sha256()
        for _ in play(ep, suite.action_contract(), lambda requests: action, STEPS):
            h.update(ep.data.qpos.tobytes() + ep.data.qvel.tobytes() + ep.data.ctrl.tobytes())
        digests[look] = h.hexdigest()
    assert digests["fast"] == digests["standard"]


def test_the_fast_look_draws_the_room_as_it_was():
    spec = scene.new_spec()
    model = spec.compile()
    assert model.vis.quality.shadowsize == 0 and model.vis.headlight.active == 0 and model.ntex == 1
    assert all(not model.light_castshadow[i] for i in range(model.nlight))


def test_a_shadow_map_adds_one_shadow_casting_lamp_over_the_focus():
    from dataclasses import replace

    room = scene.Room(focus=(0.0, 0.0, 0.7), focus_radius=1.0)
    model = scene.new_spec(room=room, look=replace(looks.STANDARD, shadow_size=512)).compile()
    lamp = model.light("look/lamp").id
    assert model.vis.quality.shadowsize == 512
    assert [bool(model.light_castshadow[i]) for i in range(model.nlight)].count(True) == 1 and model.light_castshadow[lamp]
    aim = model.light_pos[lamp] + model.light_dir[lamp] * np.linalg.norm(model.light_pos[lamp] - (0, 0, 0.7))
    assert np.allclose(aim, (0, 0, 0.7), atol=1e-6)
    assert model.light_pos[lamp][2] < room.size[2]  # below the ceiling
    without = scene.new_spec(room=room, look=replace(looks.STANDARD, shadow_size=0)).compile()
    assert "look/lamp" not in {without.light(i).name for i in range(without.nlight)}


# -- the protocol and results ----------------------------------------------------------------------
def test_every_suite_declares_a_dressed_protocol_look_and_the_fast_one():
    for suite in SUITES.values():
        assert suite.protocol.look in suite.looks and "fast" in suite.looks
        assert set(suite.looks) <= set(looks.LOOKS) and looks.get(suite.protocol.look).dressed


HOLD = """
import numpy as np

def act(request):
    row = np.zeros(36)
    row[:32] = np.asarray(request["state"]["states"], dtype=np.float64)[0]
    return np.tile(row, (5, 1))
"""


def test_the_look_is_recorded_and_a_non_protocol_look_is_not_reportable(tmp_path):
    policy = tmp_path / "hold_adapter.py"
    policy.write_text(HOLD)
    args = ["--policy", f"{policy}:act", "--checkpoint", "c", "--episodes", "1", "--max-steps", "5", "--no-video"]
    found = {}
    for look in (None, "fast"):
        out = tmp_path / (look or "default")
        assert eval_cli.main(args + ["--output", str(out)] + (["--look", look] if look else [])) == 0
        [path] = out.glob("G1BallMove-L0-S/run-*/benchmark_result.json")
        found[look] = json.loads(path.read_text())
        config = json.loads((path.parent / "evaluation_config.json").read_text())
        assert config["look"] == found[look]["look"] == found[look]["configuration"]["look"]
    assert found[None]["look"] == "standard"
    assert found["fast"]["look"] == "fast" and "look 'fast' instead of 'standard'" in found["fast"]["reasons"]
    assert not any("look" in reason for reason in found[None]["reasons"])


def test_a_result_from_before_looks_counts_as_the_fast_look():
    old = {"reportable": True, "reasons": [], "controller": "balanced"}
    assert standing("G1BallMove-L0-S", old) == (False, ["look 'fast' instead of 'standard'"])
    assert standing("G1BallMove-L0-S", {**old, "look": "standard"}) == (True, [])
    assert policy_label({"policy": "zero"}, "balanced", "balanced", "fast", "standard") == "zero [fast look]"
    assert policy_label({"policy": "zero"}, "assisted", "balanced", "fast", "standard") == "zero [assisted, fast look]"


def test_an_unknown_look_is_one_line_and_exit_2(tmp_path, capsys):
    assert eval_cli.main(["--policy", "zero", "--look", "fancy", "--dry-run", "--output", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "--look: invalid choice: 'fancy'" in err and "\n" not in err


# -- the gallery -----------------------------------------------------------------------------------
def test_the_gallery_writes_a_sheet_and_tiles_that_are_not_blank(tmp_path):
    from PIL import Image

    assert gallery_cli.main(["toolbench", "--output", str(tmp_path), "--limit", "2", "--episodes", "1"]) == 0
    tiles = sorted((tmp_path / "toolbench" / "tiles").glob("*.png"))
    assert [t.name for t in tiles] == ["00_bench.png", "01_ball_and_ring.png", "02_G1BallMove-L1-S_seed_10000.png"]
    for path in [*tiles, tmp_path / "toolbench" / "sheet.png"]:
        image = np.asarray(Image.open(path).convert("RGB"), float)
        assert image.std() > 20 and len(np.unique(image.reshape(-1, 3), axis=0)) > 200, path.name
    assert Image.open(tiles[-1]).size == (640, 360)  # the policy's own image


@pytest.mark.parametrize("args, fragment", [
    (["--tile", "800x600"], "--tile must be WIDTHxHEIGHT within 640x360, got '800x600'"),
    (["--tile", "big"], "--tile must be WIDTHxHEIGHT"),
    (["--limit", "-1"], "--limit must be 0 or more"),
    (["--columns", "0"], "--columns must be 1 or more"),
])
def test_bad_gallery_input_is_one_line_and_exit_2(args, fragment, tmp_path, capsys):
    assert gallery_cli.main(["toolbench", "--output", str(tmp_path), *args]) == 2
    err = capsys.readouterr().err.strip()
    assert fragment in err and "\n" not in err
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("where", ["a file", "under a file", "unknown suite"])
def test_a_gallery_output_that_is_a_file_or_an_unknown_suite_is_one_line_and_exit_2(where, tmp_path, capsys):
    taken = tmp_path / "taken.png"
    taken.write_bytes(b"x")
    output = {"a file": taken, "under a file": taken / "gallery"}.get(where, tmp_path / "gallery")
    suite = "nosuchsuite" if where == "unknown suite" else "toolbench"
    assert gallery_cli.main([suite, "--output", str(output), "--limit", "1", "--episodes", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    expected = "unknown suite 'nosuchsuite' (suites: " if where == "unknown suite" else f"{taken} is a file, not a directory"
    assert err.startswith("htb-gallery: ") and expected in err
    assert sorted(tmp_path.iterdir()) == [taken] and taken.read_bytes() == b"x"
