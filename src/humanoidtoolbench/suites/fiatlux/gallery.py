"""What `htb-gallery fiatlux` shoots: the ladder, workbench, crate, both fixtures and both bulbs (in a
dressed look, with the nominal colours), and the policy's first image of four subtasks."""

from __future__ import annotations

import math

import mujoco
import numpy as np

from ..base import Gallery, Subject
from . import dressing, props
from .subtasks import BY_KEY

EPISODES = (("S02", 1), ("S03", 0), ("S06", 0), ("S07", 0))  # the ladder, the fixture, the crate, the bench
FIXTURE_HEIGHT = 2.2  # m, as the layouts hang it
CEILING = 3.0  # m, the gallery room's


def _dressed(spec, look) -> None:
    if look.dressed:
        dressing.dress(spec, look)


def _ladder(spec, look):
    props.add_ladder(spec, "ladder", [0.0, 0.0, 0.0], 0.0)
    _dressed(spec, look)
    return (0.0, 0.0, 0.9)


def _workbench(spec, look):
    props.add_workbench(spec, [0.0, 0.0, 0.0], 0.0)
    _dressed(spec, look)
    return (0.0, 0.0, 0.6)


def _crate(spec, look):
    props.add_crate(spec, [0.0, 0.0, 0.0], 0.0)
    _dressed(spec, look)
    return (0.0, 0.0, 0.1)


def _fixture(mount: str):
    def build(spec, look):
        quat = np.zeros(4)
        euler = [0.0, math.pi, 0.0] if mount == "ceiling" else [0.0, math.pi / 2, 0.0]
        mujoco.mju_euler2Quat(quat, euler, "XYZ")
        props.add_fixture(spec, [0.0, 0.0, FIXTURE_HEIGHT], quat.tolist(), mount, CEILING)
        _dressed(spec, look)
        return (0.0, 0.0, FIXTURE_HEIGHT)

    return build


def _bulb(name: str):
    def build(spec, look):
        props.add_bulb(spec, name, [0.0, 0.0, 0.3], [1.0, 0.0, 0.0, 0.0])
        _dressed(spec, look)
        return (0.0, 0.0, 0.3 + props.BULB_CENTRE)

    return build


def gallery() -> Gallery:
    subjects = (
        Subject("ladder", _ladder, distance=3.4, elevation=-15.0),
        Subject("workbench", _workbench, distance=3.4, elevation=-25.0),
        Subject("crate", _crate, distance=1.3, elevation=-35.0),
        Subject("fixture, ceiling", _fixture("ceiling"), distance=0.6, elevation=10.0),
        Subject("fixture, wall", _fixture("wall"), distance=0.6, elevation=10.0),
        Subject("old bulb", _bulb("old_bulb"), distance=0.45, elevation=-10.0),
        Subject("fresh bulb", _bulb("fresh_bulb"), distance=0.45, elevation=-10.0),
    )
    return Gallery(subjects, tuple((BY_KEY[key], seed) for key, seed in EPISODES))
