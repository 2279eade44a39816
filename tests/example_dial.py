"""A second suite outside the package, with a contract of its own: nothing in the package names either.

A dial is turned by `dial_turn_v1` (one value per row: the turning rate as a
fraction of DIAL_RATE), an `ActionContract` defined and registered here, with
the suite's own request schema; the episode succeeds once the dial has stayed
on its seeded mark for five steps. Loaded through `HTB_SUITES=example_dial`
with this folder on the import path; served over HTTP as any suite is
(`htb-serve --suite example-dial`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import mujoco
import numpy as np

from humanoidtoolbench.control.contracts import register
from humanoidtoolbench.control.contracts.base import ActionContract, ActionError
from humanoidtoolbench.policies.request_schema import Array, Field, Object, RequestSchema, String
from humanoidtoolbench.suites.base import Cameras, Episode, StandardProtocol, StepResult, Suite, terminal_outcome

HOLD = 5  # steps
SIZE = (128, 96)
DIAL_RATE = 2.0  # rad/s at a full-scale command
ON_MARK = 0.05  # rad
DIAL_SCENE = f"""
<mujoco>
  <option timestep="0.005" integrator="implicitfast"/>
  <visual><global offwidth="{SIZE[0]}" offheight="{SIZE[1]}"/></visual>
  <worldbody>
    <light pos="0 0 2"/>
    <camera name="above" pos="0 0 1" xyaxes="1 0 0 0 1 0"/>
    <body name="dial">
      <joint name="spin" type="hinge" axis="0 0 1" damping="0.01"/>
      <geom type="cylinder" size="0.1 0.01" rgba="0.2 0.2 0.8 1" contype="0" conaffinity="0"/>
      <geom type="box" pos="0.07 0 0.012" size="0.03 0.005 0.002" rgba="1 1 1 1" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <actuator><velocity joint="spin" kv="0.5"/></actuator>
</mujoco>
"""


@dataclass(frozen=True)
class Turn:
    """One decoded row: the dial's angular velocity target, rad/s."""

    rate: float


class DialContract(ActionContract):
    """`dial_turn_v1`: one value per row in [-1, 1], the turning rate as a fraction of DIAL_RATE."""

    name = "dial_turn_v1"
    action_dim = 1

    def validate(self, action) -> np.ndarray:
        chunk = super().validate(action)
        if np.abs(chunk).max() > 1.0:
            raise ActionError(f"turning rates must lie in [-1, 1]; got {np.abs(chunk).max():g}")
        return chunk

    def decode(self, row: np.ndarray) -> Turn:
        return Turn(DIAL_RATE * float(row[0]))

    def action_space(self):
        from gymnasium import spaces

        return spaces.Box(-1.0, 1.0, (1,), np.float64)


DIAL_TURN_V1 = register(DialContract())
DIAL_REQUEST = RequestSchema(
    "example_dial_request_v1",
    (
        Field("image", Object()),
        Field("image.above", Array("uint8", ("H", "W", 3))),
        Field("state", Object()),
        Field("state.states", Array("float", (1, 2), finite=True)),
        Field("instruction", String()),
    ),
)


@dataclass(frozen=True)
class DialCondition:
    suite: ClassVar[str] = "example-dial"
    name: str = "DialTurn-v0"

    @property
    def env_id(self) -> str:
        return f"example/{self.name}"

    @property
    def instruction(self) -> str:
        return "Turn the dial to its mark."


class DialEpisode(Episode):
    def __init__(self, condition: DialCondition, seed: int) -> None:
        self.condition = condition
        self._model = mujoco.MjModel.from_xml_string(DIAL_SCENE)
        self._data = mujoco.MjData(self._model)
        rng = np.random.default_rng(seed)
        self.mark = float(rng.choice((-1.0, 1.0)) * rng.uniform(0.5, 1.5))  # rad, a turn away from 0
        self.held = 0

    @property
    def model(self):
        return self._model

    @property
    def data(self):
        return self._data

    def reset(self) -> None:
        mujoco.mj_resetData(self._model, self._data)
        mujoco.mj_forward(self._model, self._data)

    def state(self) -> np.ndarray:
        return np.array([self._data.qpos[0], self.mark], np.float32)

    def step(self, row: np.ndarray) -> StepResult:
        self._data.ctrl[0] = DIAL_TURN_V1.decode(row).rate
        mujoco.mj_step(self._model, self._data, 4)
        off = abs(float(self._data.qpos[0]) - self.mark)
        self.held = self.held + 1 if off < ON_MARK else 0
        success = self.held >= HOLD
        return StepResult({"off_mark": off, "on_mark": off < ON_MARK}, off < ON_MARK, success, terminal_outcome(success, False))


class DialSuite(Suite):
    name = "example-dial"
    protocol = StandardProtocol(name="example_dial_v0", episodes=2, seed_start=0, max_steps=200)
    cameras = Cameras(("above",), "above", *SIZE)
    contract = DIAL_TURN_V1.name
    request_schema = DIAL_REQUEST
    builtin_policies = {"turner": "example_dial:turn"}

    @property
    def conditions(self):
        return (DialCondition(),)

    def make_episode(self, condition, seed, controller, detail, look=None):
        return DialEpisode(condition, seed)

    def build_request(self, episode, image, reset):
        return {"image": {"above": image}, "state": {"states": episode.state()[None]},
                "instruction": episode.condition.instruction}


def turn(request: dict) -> np.ndarray:
    """Towards the mark, in proportion to how far off it the dial is, three rows at a time."""
    angle, mark = np.asarray(request["state"]["states"], np.float64)[0]
    return np.full((3, 1), np.clip(3.0 * (mark - angle) / DIAL_RATE, -1.0, 1.0))


turn.policy_name = "turner"

SUITE = DialSuite()
