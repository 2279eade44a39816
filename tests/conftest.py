"""Shared fixtures: an installed robot asset (for every test not marked `no_robot`) and small scene builders."""

from __future__ import annotations

import numpy as np
import pytest

import humanoidtoolbench  # noqa: F401  (selects the headless GL backend before MuJoCo loads)
from humanoidtoolbench.control.base import BasePose
from humanoidtoolbench.control.contracts import decoupled_v1 as contract
from humanoidtoolbench.policies.server import PolicyServer
from humanoidtoolbench.robot import assets
from humanoidtoolbench.sim.simulation import Simulation, home_upper_pose, robot_in_room
from humanoidtoolbench.suites.toolbench.suite import REQUEST_SCHEMA

SPAWN = BasePose(0.0, 0.0, contract.DEFAULT_BASE_HEIGHT, 0.3)
HOME = home_upper_pose()


@pytest.fixture(scope="session")
def robot_asset():
    """Install the robot once (from HTB_ASSET_MIRROR or the pinned URLs) if it is not there."""
    if assets.check():
        assets.install()
    return assets.installed()


def pytest_collection_modifyitems(config, items):
    """Every test needs the robot asset (it builds a simulation, directly or through a CLI) unless
    its module says otherwise with `pytestmark = pytest.mark.no_robot`: those run offline, with no
    asset and no HTB_ASSET_MIRROR. `robot_asset` goes first among a test's fixtures, so it is
    installed before any module- or session-scoped fixture of the test builds a scene."""
    for item in items:
        names = getattr(item, "fixturenames", None)  # a doctest or another plugin's item may have none
        if names is None or item.get_closest_marker("no_robot") is not None:
            continue
        if "robot_asset" in names:
            names.remove("robot_asset")
        names.insert(0, "robot_asset")


def tool_use_server(policy, **kwargs) -> PolicyServer:
    """A policy server in the tool-use suite's language, as `htb-serve` serves by default."""
    return PolicyServer(policy, contract.DECOUPLED_V1, REQUEST_SCHEMA, **kwargs)


def state_of(sim: Simulation, previous_base_height: float = contract.DEFAULT_BASE_HEIGHT) -> np.ndarray:
    """The 32-value decoupled_v1 state of the robot in `sim`."""
    return contract.DECOUPLED_V1.state_reader(sim.model).read(sim.data, previous_base_height)


def make_sim(add_to_scene=None) -> Simulation:
    """The robot alone in the room at SPAWN; `add_to_scene(spec)` may add bodies first."""
    return robot_in_room(spawn=SPAWN, add_to_scene=add_to_scene)


def hold(**nav) -> np.ndarray:
    """A command holding the home pose, with navigation slots set by name."""
    a = np.zeros(contract.ACTION_DIM)
    a[:31] = HOME
    a[31] = contract.DEFAULT_BASE_HEIGHT
    for name, value in nav.items():
        a[contract.ACTION_SLOTS.index(name)] = value
    return a


def run(sim: Simulation, action: np.ndarray, steps: int) -> None:
    cmd = contract.decode(action)
    for _ in range(steps):
        sim.step(cmd)


def fiatlux_episode(task, seed: int, controller: str = "servo", **options):
    """A Fiatlux episode as its suite makes it, on the protocol's servo robot unless named otherwise."""
    from humanoidtoolbench.suites.fiatlux import SUITE as FIATLUX

    return FIATLUX.make_episode(task, seed, FIATLUX.make_controller(controller), "fast", **options)
