"""A minimal suite outside the package, to prove the seams: one scene, one predicate, one contract.

A puck on a rail is pushed by `decoupled_v1` slot 32 (forward velocity, in
m/s); the episode succeeds once the puck has stayed past the finish line for
five steps; its one episode option, `slippery` (`htb-eval --slippery`), lowers
the rail's damping. Loaded through `HTB_SUITES=example_suite` with this folder on the
import path; nothing in the package names it. It registers the package's
`decoupled_v1`; `example_dial.py` is a second suite that brings a contract of
its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import mujoco
import numpy as np

from humanoidtoolbench.control.contracts import register
from humanoidtoolbench.control.contracts.decoupled_v1 import DECOUPLED_V1
from humanoidtoolbench.suites.base import Cameras, Episode, StandardProtocol, StepResult, Suite, terminal_outcome
from humanoidtoolbench.suites.options import Option

FINISH = 0.3  # m
HOLD = 5  # steps
SIZE = (128, 96)
SCENE = f"""
<mujoco>
  <option timestep="0.005"/>
  <visual><global offwidth="{SIZE[0]}" offheight="{SIZE[1]}"/></visual>
  <worldbody>
    <light pos="0 0 2"/>
    <geom type="plane" size="2 2 0.1" rgba="0.3 0.5 0.3 1"/>
    <geom type="box" pos="{FINISH} 0 0.001" size="0.005 0.3 0.001" rgba="1 1 1 1" contype="0" conaffinity="0"/>
    <camera name="overview" pos="0.2 -1.2 0.8" xyaxes="1 0 0 0 0.55 0.83"/>
    <body name="puck" pos="0 0 0.05">
      <joint name="rail" type="slide" axis="1 0 0" damping="5"/>
      <geom type="box" size="0.05 0.05 0.05" rgba="0.8 0.2 0.2 1" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <actuator><velocity joint="rail" kv="20"/></actuator>
</mujoco>
"""


@dataclass(frozen=True)
class PuckCondition:
    suite: ClassVar[str] = "example"
    name: str = "PuckPush-v0"

    @property
    def env_id(self) -> str:
        return f"example/{self.name}"

    @property
    def instruction(self) -> str:
        return "Push the puck past the line."


class PuckEpisode(Episode):
    def __init__(self, condition: PuckCondition, seed: int, slippery: bool = False) -> None:
        self.condition = condition
        self._model = mujoco.MjModel.from_xml_string(SCENE)
        if slippery:
            self._model.dof_damping[0] = 1.0
        self._data = mujoco.MjData(self._model)
        self.start = 0.05 * np.random.default_rng(seed).uniform(-1, 1)
        self.held = 0

    @property
    def model(self):
        return self._model

    @property
    def data(self):
        return self._data

    def reset(self) -> None:
        mujoco.mj_resetData(self._model, self._data)
        self._data.qpos[0] = self.start
        mujoco.mj_forward(self._model, self._data)

    def state(self) -> np.ndarray:
        state = np.zeros(32, np.float32)
        state[0] = self._data.qpos[0]
        return state

    def step(self, row: np.ndarray) -> StepResult:
        self._data.ctrl[0] = row[32]
        mujoco.mj_step(self._model, self._data, 4)
        x = float(self._data.qpos[0])
        past = x >= FINISH
        self.held = self.held + 1 if past else 0
        success = self.held >= HOLD
        return StepResult({"puck_x": x, "past_line": past}, past, success, terminal_outcome(success, False))


class PuckSuite(Suite):
    name = "example"
    protocol = StandardProtocol(name="example_v0", episodes=3, seed_start=0, max_steps=80)
    cameras = Cameras(("overview",), "overview", *SIZE)
    contract = register(DECOUPLED_V1).name
    builtin_policies = {"pusher": "example_suite:push"}
    options = (Option("slippery", (False, True), "lower the rail's damping", "rail damping lowered"),)

    @property
    def conditions(self):
        return (PuckCondition(),)

    def make_episode(self, condition, seed, controller, detail, look=None, slippery=False):
        return PuckEpisode(condition, seed, slippery)

    def build_request(self, episode, image, reset):
        return {"image": {"overview": image}, "state": {"states": episode.state()[None]},
                "instruction": episode.condition.instruction, "history": {"reset": reset}}


def push(request: dict) -> dict:
    """Forward at 0.5 m/s, reporting made-up usage as reply metadata."""
    chunk = np.zeros((4, 36))
    chunk[:, 32] = 0.5
    return {"action": chunk, "metadata": {"tokens": 7}}


push.policy_name = "pusher"

SUITE = PuckSuite()

