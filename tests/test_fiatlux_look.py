"""Fiatlux in a dressed look: what the dressing adds, the colours drawn per reset from their own
generator, and start states that do not depend on the look."""

from __future__ import annotations

import colorsys

import mujoco
import numpy as np
import pytest
import trimesh

from humanoidtoolbench.sim import look as looks
from humanoidtoolbench.sim import scene
from humanoidtoolbench.sim.look import visual
from humanoidtoolbench.suites.fiatlux import dressing, gallery, props
from humanoidtoolbench.suites.fiatlux.props import BULBS
from humanoidtoolbench.suites.fiatlux.randomisation import HSV_JITTER, PALETTES, Appearance, draw_appearance
from humanoidtoolbench.suites.fiatlux.subtasks import BY_KEY

from conftest import fiatlux_episode

PROP_BODIES = ("ladder", "fixture", "crate", "workbench", *BULBS)


def material_rgb(model: mujoco.MjModel, geom: str) -> np.ndarray:
    return model.mat_rgba[model.geom_matid[model.geom(geom).id]][:3]


def visual_geoms(model: mujoco.MjModel, body: str) -> list[int]:
    b = model.body(body).id
    return [g for g in range(model.ngeom) if model.geom_bodyid[g] == b and visual.is_visual(model, g)]


def test_appearance_draws_stay_near_a_palette_entry_and_differ_between_streams():
    first = draw_appearance(np.random.default_rng(0))
    assert first == draw_appearance(np.random.default_rng(0))
    assert first != draw_appearance(np.random.default_rng(1))
    for part, rgb in first.colours:
        h, s, v = colorsys.rgb_to_hsv(*rgb)
        near = []
        for entry in PALETTES[part]:
            h0, s0, v0 = colorsys.rgb_to_hsv(*entry)
            dh = min(abs(h - h0), 1 - abs(h - h0))
            # hue is meaningless for a grey; saturation and value may be clipped at 0 and 1
            near.append((dh <= HSV_JITTER[0] + 1e-3 or s0 < 0.05) and abs(s - s0) <= HSV_JITTER[1] + 1e-3
                        and abs(v - v0) <= HSV_JITTER[2] + 1e-3)
        assert any(near), part
    assert Appearance()["walls"] == (*PALETTES["walls"][0], 1.0)


def test_each_reset_draws_the_colours_the_dressed_scene_shows_and_the_switch_keeps_the_nominal_ones():
    drawn = [fiatlux_episode(BY_KEY["S07"], seed, look="standard") for seed in (0, 1)]
    assert drawn[0].appearance != drawn[1].appearance
    assert fiatlux_episode(BY_KEY["S07"], 0, look="standard").appearance == drawn[0].appearance
    assert fiatlux_episode(BY_KEY["S02"], 0, look="standard").appearance != drawn[0].appearance  # a stream per subtask
    for ep in drawn:
        m, a = ep.model, ep.appearance
        assert np.allclose(material_rgb(m, "ladder/back_leg1"), a["ladder_rails"][:3], atol=1e-4)
        assert np.allclose(material_rgb(m, "workbench/top"), a["bench_top"][:3], atol=1e-4)
        assert np.allclose(material_rgb(m, "floor"), a["floor"][:3], atol=1e-4)
        assert np.allclose(material_rgb(m, "wall_0"), a["walls"][:3], atol=1e-4)
    nominal = fiatlux_episode(BY_KEY["S07"], 1, look="standard", randomize=False)
    assert nominal.appearance == Appearance()
    assert np.allclose(material_rgb(nominal.model, "ladder/back_leg1"), PALETTES["ladder_rails"][0], atol=1e-4)


@pytest.mark.parametrize("key, seed", [("S01", 2), ("S04", 0), ("S08", 1), ("S11", 3)])
def test_start_states_and_the_start_jitter_do_not_depend_on_the_look(key, seed):
    """The colours come from their own generator: the task's generator (room tint, start jitter) has
    drawn the same numbers in both looks, and the reset (settles included) lands on the same state."""
    fast, dressed = (fiatlux_episode(BY_KEY[key], seed, look=look) for look in ("fast", "standard"))
    for ep in (fast, dressed):
        ep.reset()
    assert fast.data.qpos.tobytes() == dressed.data.qpos.tobytes()
    assert fast.data.qvel.tobytes() == dressed.data.qvel.tobytes()
    assert fast.rng.bit_generator.state == dressed.rng.bit_generator.state


def test_dressed_props_hide_only_the_geoms_a_visual_copy_draws():
    fast = fiatlux_episode(BY_KEY["S03"], 1, look="fast").model
    dressed = fiatlux_episode(BY_KEY["S03"], 1, look="standard").model
    def hidden(m):
        bodies = {m.body(b).id for b in PROP_BODIES}
        return {m.geom(g).name for g in range(m.ngeom) if m.geom_bodyid[g] in bodies and m.geom_rgba[g][3] == 0.0}

    assert hidden(dressed) == {"ladder/front_leg-1", "ladder/front_leg1", "fixture/back", *(f"{b}/glass" for b in BULBS)}
    assert not hidden(fast)
    for body, least in (("ladder", 10), ("fixture", 5), ("crate", 16), ("workbench", 9), *((b, 6) for b in BULBS)):
        assert len(visual_geoms(dressed, body)) >= least, body
        assert not visual_geoms(fast, body), body


@pytest.mark.parametrize("scale", [1.0, 0.9])
def test_the_glass_envelope_is_the_collision_outline_revolved(scale):
    glass = dressing.envelope(scale)
    assert glass.is_watertight and glass.volume > 0
    radius = np.linalg.norm(glass.vertices[:, :2], axis=1)
    widest = max(r for _, r in props.BULB_MERIDIAN) * scale
    assert radius.max() == pytest.approx(widest, rel=1e-6)
    hull = trimesh.convex.convex_hull(np.array(props.bulb_vertices(scale)).reshape(-1, 3))
    # every vertex behind every face plane of the collision hull: the drawn glass never pokes out of it
    offsets = np.einsum("vfk,fk->vf", glass.vertices[:, None, :] - hull.triangles[None, :, 0, :], hull.face_normals)
    assert offsets.max() <= 1e-9
    cap = dressing.screw_cap(scale)
    assert cap.is_watertight and cap.volume > 0 and cap.bounds[1][2] <= (dressing.GLASS_START + 0.0011) * scale


@pytest.mark.parametrize("subject", [s.name for s in gallery.gallery().subjects])
def test_every_gallery_subject_is_dressed_only_in_a_dressed_look(subject):
    subj = next(s for s in gallery.gallery().subjects if s.name == subject)
    counts = {}
    for look in (looks.FAST, looks.STANDARD):
        spec = scene.new_spec(look=look)
        subj.build(spec, look)
        model = spec.compile()
        counts[look.name] = sum(visual.is_visual(model, g) for g in range(model.ngeom))
    assert counts["fast"] == 0 and counts["standard"] >= 5


@pytest.mark.parametrize("seed", [0, 3])
def test_scaled_props_are_dressed_to_their_scale(seed):
    """With prop scale, every part drawn on the ladder sits where the nominal ladder's does, scaled
    along width, depth and height, and the socket's and fresh bulb's dressing scale with them."""

    def ladder_parts(ep):
        m, d = ep.model, ep.data
        mujoco.mj_forward(m, d)
        body = m.body("ladder").id
        return (d.geom_xpos[visual_geoms(m, "ladder")] - d.xpos[body]) @ d.xmat[body].reshape(3, 3)

    ep = fiatlux_episode(BY_KEY["S04"], seed, look="standard", prop_scale=True)
    nominal = fiatlux_episode(BY_KEY["S04"], seed, look="standard")
    assert ep.scale.ladder != (1.0, 1.0, 1.0)
    assert np.allclose(ladder_parts(ep), ladder_parts(nominal) * np.array(ep.scale.ladder), atol=1e-9)
    m, d = ep.model, ep.data
    fixture = m.body("fixture").id
    shell = (d.geom_xpos[m.geom("look/fixture/shell").id] - d.xpos[fixture]) @ d.xmat[fixture].reshape(3, 3)
    assert shell[2] == pytest.approx(sum(dressing.SHELL_SPAN) / 2 * ep.scale.socket)
    glass, mesh, bulb = m.geom("look/fresh_bulb/envelope").id, m.mesh("look/fresh_bulb/envelope").id, m.body("fresh_bulb").id
    verts = m.mesh_vert[m.mesh_vertadr[mesh]: m.mesh_vertadr[mesh] + m.mesh_vertnum[mesh]]
    world = d.geom_xpos[glass] + verts @ d.geom_xmat[glass].reshape(3, 3).T
    in_bulb = (world - d.xpos[bulb]) @ d.xmat[bulb].reshape(3, 3)
    widest = max(r for _, r in props.BULB_MERIDIAN) * ep.scale.fresh_bulb
    assert ep.scale.fresh_bulb != 1.0 and np.linalg.norm(in_bulb[:, :2], axis=1).max() == pytest.approx(widest, rel=1e-4)
