"""What `htb-gallery toolbench` shoots: the bench, ball, ring and ice, every tool variant, every household
kind, and the policy's first image of three episodes."""

from __future__ import annotations

import mujoco

from ...sim.look import Wardrobe
from ..base import Gallery, Subject
from . import bench, markers, registry
from .fracture import IceFracture, add_ice_block
from .props import household, tools
from .props.base import Prop

BENCH_RGBA = (0.55, 0.40, 0.26, 1.0)  # the middle of the layouts' wood colours
EPISODES = (("G1BallMove-L1-S", 10000), ("G1BallRetrieve-L1-R", 10000), ("G1IceBreak-L2-R", 10000))
SHATTER_STEPS = 150  # physics steps after a break before the picture: the shards have spread


def _on_bench(spec, look) -> Wardrobe | None:
    wardrobe = Wardrobe(spec, look) if look.dressed else None
    bench.add_bench(spec, BENCH_RGBA, wardrobe)
    return wardrobe


def _prop(prop: Prop, label: str) -> Subject:
    def build(spec, look):
        wardrobe = _on_bench(spec, look)
        body = spec.worldbody.add_body(name="subject", pos=[0.0, 0.0, bench.TOP])
        prop.build(spec, body, "subject/", wardrobe)
        return (0.0, 0.0, bench.TOP + prop.height / 2)

    size = max(2 * max(prop.half_extent), prop.height)
    return Subject(label, build, distance=max(0.3, 1.3 * size + 0.15))


def _bench(spec, look):
    _on_bench(spec, look)
    return (0.0, 0.0, bench.TOP / 2)


def _ball_and_ring(spec, look):
    wardrobe = _on_bench(spec, look)
    markers.add_ring(spec, (0.05, 0.0), bench.TOP, wardrobe)
    markers.add_ball(spec, (-0.12, 0.0), bench.TOP, wardrobe)
    return (-0.03, 0.0, bench.TOP)


def _ice(spec, look):
    wardrobe = _on_bench(spec, look)
    add_ice_block(spec, "ice_1", (0.0, 0.0), bench.TOP, wardrobe)
    return (0.0, 0.0, bench.TOP + 0.06)


def _shatter(model, data) -> None:
    fracture = IceFracture(model, ["ice_1"], [])
    fracture._fracture(data, fracture.blocks[0])
    mujoco.mj_step(model, data, SHATTER_STEPS)


def gallery() -> Gallery:
    subjects = [
        Subject("bench", _bench, distance=2.6, elevation=-25.0),
        Subject("ball and ring", _ball_and_ring, distance=0.55),
        Subject("ice block", _ice, distance=0.55),
        Subject("ice block, broken", _ice, distance=0.6, prepare=_shatter),
    ]
    for family, make in tools.FAMILIES.items():
        for v in range(tools.VARIANTS_PER_FAMILY):
            prop = make(v, tools.LONG_STICK) if family == "stick" else make(v)
            subjects.append(_prop(prop, f"{prop.kind} {v}"))
    subjects += [_prop(household.household(kind, 0), kind.replace("_", " ")) for kind in household.HOUSEHOLD_KINDS]
    return Gallery(tuple(subjects), tuple((registry.parse(name), seed) for name, seed in EPISODES))
