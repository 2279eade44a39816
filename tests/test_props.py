"""Procedural props: masses, sizes, frame conventions and resting stability on a bench.

Each prop is dropped 1 mm onto a static bench in a scene with the benchmark's
physics options and must come to rest where it was put, with its geometry
matching the facts its Prop declares.
"""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from humanoidtoolbench.robot import collision
from humanoidtoolbench.sim import scene
from humanoidtoolbench.suites.toolbench.props import household, meshes, tools
from humanoidtoolbench.suites.toolbench.props.base import Prop

BENCH_TOP = 0.70
SETTLE_S = 3.0
WATCH_STEPS = 400  # the resting checks take the worst of these last steps: contacts may jolt now and then
MAX_SOLIDS = 6  # collision geoms per prop: contacts cost


def new_scene() -> mujoco.MjSpec:
    """The benchmark's room and physics options (5 ms implicitfast steps, elliptic cones,
    impratio 10, noslip) with a static bench."""
    spec = scene.new_spec()
    bench = spec.worldbody.add_geom(name="bench", type=mujoco.mjtGeom.mjGEOM_BOX, size=[0.6, 0.6, BENCH_TOP / 2],
                                    pos=[0, 0, BENCH_TOP / 2])
    collision.assign(bench, collision.WORLD)
    return spec


def place(spec: mujoco.MjSpec, prop: Prop, prefix: str, xy=(0.0, 0.0), drop: float = 0.001) -> None:
    body = spec.worldbody.add_body(name=prefix + "body", pos=[xy[0], xy[1], BENCH_TOP + drop])
    body.add_freejoint()
    prop.build(spec, body, prefix)


def solid_boxes(model: mujoco.MjModel, data: mujoco.MjData, root: int) -> dict[int, np.ndarray]:
    """Per collision geom of the prop rooted at `root`: its world AABB as (lo, hi) rows."""
    out = {}
    for g in range(model.ngeom):
        if model.body_rootid[model.geom_bodyid[g]] != root or not (model.geom_contype[g] or model.geom_conaffinity[g]):
            continue
        rot, pos, size = data.geom_xmat[g].reshape(3, 3), data.geom_xpos[g], model.geom_size[g]
        kind = model.geom_type[g]
        if kind == mujoco.mjtGeom.mjGEOM_MESH:
            adr, num = model.mesh_vertadr[model.geom_dataid[g]], model.mesh_vertnum[model.geom_dataid[g]]
            pts = model.mesh_vert[adr:adr + num] @ rot.T + pos
            out[g] = np.stack([pts.min(0), pts.max(0)])
            continue
        if kind == mujoco.mjtGeom.mjGEOM_SPHERE:
            half = np.full(3, size[0])
        elif kind == mujoco.mjtGeom.mjGEOM_BOX:
            half = np.abs(rot) @ size
        elif kind == mujoco.mjtGeom.mjGEOM_ELLIPSOID:
            half = np.sqrt(((rot * size) ** 2).sum(1))
        elif kind == mujoco.mjtGeom.mjGEOM_CAPSULE:
            half = np.abs(rot[:, 2]) * size[1] + size[0]
        else:  # cylinder
            axis = np.abs(rot[:, 2])
            half = axis * size[1] + size[0] * np.sqrt(np.clip(1 - axis**2, 0, 1))
        out[g] = np.stack([pos - half, pos + half])
    return out


def aabb(boxes: dict[int, np.ndarray]) -> np.ndarray:
    stacked = np.stack(list(boxes.values()))
    return np.stack([stacked[:, 0].min(0), stacked[:, 1].max(0)])


def settle(prop: Prop) -> dict:
    """Drop the prop onto the bench and report what a test needs about it before and after."""
    spec = new_scene()
    place(spec, prop, "p_")
    model = spec.compile()
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    root = model.body("p_body").id
    start_boxes = solid_boxes(model, data, root)
    start = aabb(start_boxes)
    start_xy = data.body(root).xpos[:2].copy()
    steps = int(SETTLE_S / model.opt.timestep)
    speed = spin = 0.0
    for k in range(steps):
        mujoco.mj_step(model, data)
        if k >= steps - WATCH_STEPS:
            speed = max(speed, np.linalg.norm(data.qvel[:3]))
            spin = max(spin, np.linalg.norm(data.qvel[3:6]))
    end = aabb(solid_boxes(model, data, root))
    depth = -min((data.contact.dist[i] for i in range(data.ncon)), default=0.0)
    return dict(model=model, data=data, root=root, start=start, start_boxes=start_boxes, end=end, penetration=depth,
                speed=speed, spin=spin, moved=np.linalg.norm(data.body(root).xpos[:2] - start_xy))


def assert_rests(prop: Prop, r: dict) -> None:
    assert r["speed"] < 0.01 and r["spin"] < 0.1, (prop.kind, prop.variant, r["speed"], r["spin"])
    assert r["moved"] < 0.02, (prop.kind, prop.variant, r["moved"])
    assert abs(r["end"][0, 2] - BENCH_TOP) < 0.003, (prop.kind, prop.variant, r["end"][0, 2])
    assert r["penetration"] < 0.005, (prop.kind, prop.variant, r["penetration"])


def assert_matches_facts(prop: Prop, r: dict) -> None:
    """The declared footprint, height and resting frame match the compiled geometry."""
    lo, hi = r["start"]
    assert lo[2] == pytest.approx(BENCH_TOP + 0.001, abs=1e-6)  # z = 0 is the lowest collision point
    centre, half = (lo + hi)[:2] / 2, (hi - lo)[:2] / 2
    np.testing.assert_allclose(centre, 0.0, atol=0.005)
    np.testing.assert_allclose(half, prop.half_extent, atol=0.005)
    assert hi[2] - lo[2] <= prop.height + 1e-6
    assert len(r["start_boxes"]) <= MAX_SOLIDS, prop


ALL_TOOLS = (
    [tools.long_stick(v) for v in range(tools.VARIANTS_PER_FAMILY)]
    + [tools.short_stick(v) for v in range(tools.VARIANTS_PER_FAMILY)]
    + [tools.FAMILIES[f](v) for f in ("hook", "straight_stick", "hammer", "decoy") for v in range(tools.VARIANTS_PER_FAMILY)]
)
TOOL_LENGTH = {"long_stick": 0.50, "short_stick": 0.30, "hook": 0.50, "straight_stick": 0.50, "hammer": 0.42,
               "fly_swatter": 0.42, "paint_roller": 0.42, "plunger": 0.42}


@pytest.fixture(scope="module")
def tool_runs():
    return [(prop, settle(prop)) for prop in ALL_TOOLS]


def test_enough_variants():
    assert set(tools.FAMILIES) == {"stick", "hook", "straight_stick", "hammer", "decoy"}
    assert tools.VARIANTS_PER_FAMILY >= 8
    for styles in (tools.STICK_STYLES, tools.STRAIGHT_STYLES, tools.HOOK_STYLES, tools.HAMMER_STYLES):
        assert len(set(map(repr, styles))) == len(styles) == tools.VARIANTS_PER_FAMILY  # as many distinct looks
    kinds = [tools.decoy(v).kind for v in range(tools.VARIANTS_PER_FAMILY)]
    assert all(kinds.count(k) == tools.VARIANTS_PER_FAMILY // 3 for k in tools.DECOY_KINDS)
    assert len(household.HOUSEHOLD_KINDS) >= 25


def test_meshes_are_closed_and_wound_outwards():
    for mesh, volume in (
        (meshes.prism(meshes.regular_polygon(6, 0.02), 0.5), 2 * np.sqrt(3) * 0.02**2 * 0.5),
        (meshes.lathe([(0.03, 0.0), (0.03, 0.1)], 64), np.pi * 0.03**2 * 0.1),
        (meshes.torus(0.05, 0.01, 64, 32), 2 * np.pi**2 * 0.05 * 0.01**2),
        (meshes.ellipsoid((0.02, 0.03, 0.04), segments=64, rings=32), 4 / 3 * np.pi * 0.02 * 0.03 * 0.04),
    ):
        assert meshes.signed_volume(mesh) == pytest.approx(volume, rel=0.02)


def test_tool_masses_and_lengths(tool_runs):
    for prop, r in tool_runs:
        mass = 0.04 if prop.family == "decoy" else 0.15
        assert prop.mass == mass
        assert r["model"].body_subtreemass[r["root"]] == pytest.approx(mass, abs=1e-9), prop
        lo, hi = r["start"]
        assert hi[1] - lo[1] == pytest.approx(TOOL_LENGTH[prop.kind], abs=0.01), prop


def test_stick_lengths_share_section_and_mass():
    for v in range(tools.VARIANTS_PER_FAMILY):
        long, short = settle(tools.long_stick(v)), settle(tools.short_stick(v))
        for r in (long, short):
            assert r["model"].body_subtreemass[r["root"]] == pytest.approx(0.15, abs=1e-9)
        # Same section: the rods' bounds agree in x and z, only their length differs.
        np.testing.assert_allclose(np.delete(long["start"], 1, axis=1), np.delete(short["start"], 1, axis=1), atol=1e-9)
        assert tools.long_stick(v).half_extent[0] == tools.short_stick(v).half_extent[0]


def test_tools_rest_and_match_their_facts(tool_runs):
    for prop, r in tool_runs:
        assert_matches_facts(prop, r)
        assert_rests(prop, r)


def test_tool_ends_grasp_and_tip(tool_runs):
    for prop, r in tool_runs:
        model = r["model"]
        lo, hi = r["start"]
        grasp = np.array(prop.grasp) + [0, 0, BENCH_TOP + 0.001]
        tip = np.array(prop.tip) + [0, 0, BENCH_TOP + 0.001]
        assert 0.05 <= hi[1] - grasp[1] <= 0.09, prop  # near the +y (handle) end
        assert tip[1] - lo[1] < 0.08 and tip[1] < 0 < grasp[1], prop  # working end at -y
        # The grasp point is inside the handle end's geom, which a Dex3 hand can span (30-40 mm).
        holders = [g for g, (glo, ghi) in r["start_boxes"].items() if np.all(glo <= grasp) and np.all(grasp <= ghi)
                   and model.geom_bodyid[g] == r["root"] and ghi[1] == pytest.approx(hi[1])]
        assert holders, prop
        across = np.diff(r["start_boxes"][holders[0]][:, 0])[0]
        assert 0.028 <= across <= 0.041, (prop, across)


def test_decoy_heads_are_compliant_and_hammers_rigid():
    for v in range(tools.VARIANTS_PER_FAMILY):
        r = settle(tools.decoy(v))
        model = r["model"]
        hinges = [j for j in range(model.njnt) if model.jnt_type[j] != mujoco.mjtJoint.mjJNT_FREE]
        assert len(hinges) == 1
        assert 0 < model.jnt_stiffness[hinges[0]] < 0.1
        np.testing.assert_allclose(model.jnt_range[hinges[0]], (-1.4, 1.4))  # radians, whatever the spec's angle unit
        head = model.jnt_bodyid[hinges[0]]
        solid_heads = [g for g in range(model.ngeom) if model.geom_bodyid[g] == head and model.geom_contype[g]]
        assert solid_heads and all(model.geom_solref[g][0] >= 0.05 for g in solid_heads)  # soft contacts
        assert np.ptp(r["start"][:, 0]) <= 0.12  # head width
    for v in range(tools.VARIANTS_PER_FAMILY):
        spec = new_scene()
        place(spec, tools.hammer(v), "h_")
        model = spec.compile()
        assert model.njnt == 1
        body = model.body("h_body")
        handle = sum(spec.geom(f"h_{n}").mass for n in ("grip", "handle"))
        assert body.subtreemass[0] - handle > handle
        assert body.ipos[1] < -0.1  # the centre of mass sits towards the head


def test_decoy_heads_droop_when_held_up_by_the_handle():
    """Held level in the air by the handle, a decoy's head sags on its spring and settles."""
    for v in range(3):
        spec = new_scene()
        place(spec, tools.decoy(v), "d_", drop=0.3)
        spec.worldbody.add_body(name="hand", mocap=True, pos=[0, 0, BENCH_TOP + 0.3])
        spec.add_equality(type=mujoco.mjtEq.mjEQ_WELD, name1="hand", name2="d_body", objtype=mujoco.mjtObj.mjOBJ_BODY,
                          data=[0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1])  # hold the handle exactly where it starts
        model = spec.compile()
        data = mujoco.MjData(model)
        hinge = model.joint("d_head_joint")
        for _ in range(400):
            mujoco.mj_step(model, data)
        assert 0.1 < abs(data.qpos[hinge.qposadr[0]]) < 1.0, tools.decoy(v).kind
        assert abs(data.qvel[hinge.dofadr[0]]) < 0.05


def test_variants_differ():
    def look(prop: Prop) -> tuple:
        spec = new_scene()
        place(spec, prop, "p_")
        model = spec.compile()
        rgba, size = np.round(model.geom_rgba[1:], 3), np.round(model.geom_size[1:], 4)
        return tuple(rgba.ravel()) + tuple(size.ravel()) + (prop.half_extent,)

    n = tools.VARIANTS_PER_FAMILY
    for family, make in tools.FAMILIES.items():
        make = tools.long_stick if family == "stick" else make
        assert len({look(make(v)) for v in range(n)}) == n, family
    for kind in household.HOUSEHOLD_KINDS:
        assert len({look(household.household(kind, v)) for v in range(3)}) == 3, kind


def test_same_prop_builds_twice_into_the_benchmark_scene():
    spec = scene.new_spec()
    props = (tools.decoy(2), tools.hook(0), household.household("mug", 0))
    for prop in props:
        place(spec, prop, f"a_{prop.kind}_", xy=(-0.3, 0))
        place(spec, prop, f"b_{prop.kind}_", xy=(0.3, 0))
    model = spec.compile()
    assert model.nbody == 1 + 2 * (len(props) + 1)  # world, the props and the decoy's two heads
    assert model.joint("b_plunger_head_joint").range[1] == pytest.approx(1.4)


@pytest.mark.parametrize("kind", household.HOUSEHOLD_KINDS)
def test_household_objects(kind):
    for v in range(4):
        prop = household.household(kind, v)
        assert prop.kind == kind and prop.family == "household"
        assert 0.03 <= prop.mass <= 0.40
        assert prop.half_extent[0] <= 0.05 and prop.half_extent[1] <= 0.07 and prop.height <= 0.20, prop
        r = settle(prop)
        assert r["model"].body_subtreemass[r["root"]] == pytest.approx(prop.mass, abs=1e-9)
        assert_matches_facts(prop, r)
        assert_rests(prop, r)
