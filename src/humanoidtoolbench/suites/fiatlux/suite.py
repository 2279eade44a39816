"""The Fiatlux suite behind the Suite seam: twelve subtasks on the free G1, bags scored offline.

The whole errand (`FIATLUX-Replace-v0`, 72,000 steps) and the standalone
climbing task (`FIATLUX-Climb-v0`) are named-only conditions: they run when
named and stay out of `fiatlux:all`, the paper's protocol of the twelve
subtasks.

Importing this module loads no simulator: the episode is imported when one is
made. A request carries the head image, the lidar scan, the state vector of
`observation.py` (in the climbing task with the limb forces beside it), the
instruction and the reset flag; actions follow
`joint_position_v1` and are executed by the `servo` controller, or, with
`--controller balanced`, follow `decoupled_v1` and are executed by the
whole-body controller on the same robot (`balance.py`).

Episode options (`htb-eval --obs-mode/--no-randomize/--prop-scale`, the
Gymnasium keyword arguments of the same names): the observation mode
(`standard`, what a robot senses; `privileged`, the simulator's exact state,
whose requests carry no image or lidar and whose results are not reportable),
randomisation on or off, and the optional prop scale.
"""

from __future__ import annotations

import numpy as np

from ...policies.builtin import DECOUPLED_V1_BASELINES, JOINT_POSITION_BASELINES
from ...policies.request_schema import Array, Field, Object, RequestSchema, String
from ..base import FELL, SUCCESS, TIMEOUT, Cameras, StandardProtocol, Suite
from ..options import Option
from .contract import CONTRACTS, JOINT_POSITION_V1
from .subtasks import BY_KEY, CLIMB, CRUSHED, DROPPED, ERRAND, TASKS, TIPPED, UNSEATED, FiatluxErrand, FiatluxTask
from .views import CAMERA, IMAGE_SIZE, OBS_MODES

IMAGE_KEY = "rgb_head"
BAG_NAME = "bags/episode_*.h5"  # an episode's bag, among the files its summary records
# A request as a policy server checks it (the state's width and the scan's shape are the observation's).
REQUEST_SCHEMA = RequestSchema(
    "fiatlux_request_v1",
    (
        Field("image", Object()),
        Field(f"image.{IMAGE_KEY}", Array("uint8", ("H", "W", 3))),
        Field("lidar", Array("float", ("channels", "azimuths"), finite=True)),
        Field("state", Object()),
        Field("state.states", Array("float", (1, "N"), finite=True)),
        Field("state.rung_forces", Array("float", (1, "R"), finite=True), required=False),  # the climbing task's
        Field("state.privileged", Array("float", (1, "P"), finite=True), required=False),  # the privileged mode's
        Field("instruction", String()),
        Field("history", Object()),
    ),
)
BASELINES = {JOINT_POSITION_V1.name: JOINT_POSITION_BASELINES, CONTRACTS["balanced"]: DECOUPLED_V1_BASELINES}
OPTIONS = (
    Option("obs_mode", OBS_MODES, "what the policy is sent: standard (sensed; the default) or privileged (exact simulator "
           "state, no image or lidar: results are marked and never reportable)",
           "privileged observation mode: the policy read simulator state"),
    Option("randomize", (True, False), "turn every randomisation off (lights, tint, start jitter, hand friction)",
           "randomisation off"),
    Option("prop_scale", (False, True), "scale the ladder, socket and fresh bulb per layout seed", "prop scale randomised"),
)


class Fiatlux(Suite):
    name = "fiatlux"
    protocol = StandardProtocol(
        name="fiatlux_subtasks_v1", episodes=4, seed_start=0, max_steps=TASKS[0].max_steps, controller="servo"
    )
    cameras = Cameras((CAMERA,), CAMERA, IMAGE_SIZE, IMAGE_SIZE)
    contract = JOINT_POSITION_V1.name
    request_schema = REQUEST_SCHEMA
    outcomes = (SUCCESS, TIMEOUT, FELL, TIPPED, DROPPED, CRUSHED, UNSEATED)
    builtin_policies = {"expert": "humanoidtoolbench.suites.fiatlux.expert:predict"}
    options = OPTIONS

    @property
    def controllers(self) -> tuple[str, ...]:
        return tuple(CONTRACTS)

    def controller_class(self, name: str):
        cls = super().controller_class(name)
        if name == "balanced":  # on the Fiatlux robot, never the stiff balanced variant
            from .balance import FiatluxBalancedController

            return FiatluxBalancedController
        return cls

    def contract_for(self, controller: str) -> str:
        return CONTRACTS[controller]

    def builtin_policies_for(self, controller: str | None = None) -> dict[str, str]:
        """The baselines of the contract `controller` executes, and the expert."""
        return {**BASELINES[self.contract_for(controller or self.protocol.controller)], **self.builtin_policies}

    @property
    def conditions(self) -> tuple[FiatluxTask, ...]:
        return TASKS

    @property
    def named_only(self) -> tuple[FiatluxErrand | FiatluxTask, ...]:
        return (ERRAND, CLIMB)

    def budget(self, condition: FiatluxTask | FiatluxErrand) -> int:
        return condition.max_steps

    def parse(self, text: str) -> FiatluxTask | None:
        """A full ID (case-insensitive) or its short key, e.g. `S03`, `ERRAND` or `CLIMB`."""
        key = text.strip().upper()
        return BY_KEY.get(key) or {c.key: c for c in self.named_only}.get(key) or super().parse(text)

    def make_episode(self, condition: FiatluxTask, seed: int, controller, detail: str, look: str | None = None,
                     **options):
        """The episode on `controller`, which must be of the class this suite binds its name to."""
        from .episode import FiatluxEpisode

        wanted = self.controller_class(controller.name)
        if not isinstance(controller, wanted):  # e.g. the stiff balanced variant instead of the Fiatlux robot
            raise ValueError(f"controller {controller.name!r} runs on the Fiatlux robot as {wanted.__name__}; make it with the suite's make_controller")
        return FiatluxEpisode(condition, seed, controller, self.contract_for(controller.name), look or self.protocol.look,
                              detail, **options)

    def gallery(self):
        from .gallery import gallery

        return gallery()

    def build_request(self, episode, image: np.ndarray, reset: bool) -> dict:
        """The head image and lidar (standard mode only) and the observation's vectors under `state`:
        `states`, and `rung_forces` and `privileged` where the mode has them, each (1, n)."""
        obs = episode.observation()
        vectors = {"states" if k == "state" else k: v.reshape(1, -1) for k, v in obs.items()}
        request = {"image": {IMAGE_KEY: image}, "lidar": episode.lidar()} if episode.obs_mode == "standard" else {}
        return request | {"state": vectors, "instruction": episode.condition.instruction, "history": {"reset": reset}}

    def register_gymnasium(self, gymnasium) -> None:
        for task in self.listed:
            if task.env_id not in gymnasium.registry:
                gymnasium.register(
                    id=task.env_id,
                    entry_point="humanoidtoolbench.suites.fiatlux.env:FiatluxEnv",
                    kwargs={"subtask": task.key},
                    max_episode_steps=task.max_steps,
                )

    def sinks(self, episode, run_dir, seed: int) -> list:
        from .recording import BagSink

        return [BagSink(episode, run_dir, seed)]

    def summary_fields(self, condition: FiatluxTask | FiatluxErrand) -> dict:
        return {"subtask": condition.key, "weight": condition.weight}

    def failure_cause(self, condition: FiatluxTask | FiatluxErrand, summary: dict) -> str:
        ever = summary.get("ever_true", {})
        if isinstance(condition, FiatluxErrand):
            passed = sum(bool(ever.get(f"gate_{c}")) for c in condition.gate)
            stage = condition.stages[int((summary.get("final_metrics") or {}).get("stage", 1)) - 1]
            return f"{summary.get('outcome', 'unknown')} in {stage.key} after {passed} of {len(condition.gate)} gates"
        if summary.get("outcome") not in (None, TIMEOUT):
            return summary["outcome"]
        missing = [c for c in condition.gate if not ever.get(f"gate_{c}")]
        return "never held: " + ", ".join(missing) if missing else "gate not held together long enough"

    def offline_report(self, runs):
        from .scoring import markdown, score_bags

        bags = [path for run in runs for path in run.files if path.match(BAG_NAME)]
        if not bags:
            return None
        score = score_bags(bags)
        return markdown(score), score.to_json()


SUITE = Fiatlux()
