"""The Fiatlux suite behind the Suite seam: twelve subtasks on the free G1, bags scored offline.

The whole errand (`FIATLUX-Replace-v0`, 72,000 steps) is a named-only
condition: it runs when named and stays out of `fiatlux:all`, the paper's
protocol of the twelve subtasks.

Importing this module loads no simulator: the episode is imported when one is
made. A request carries the head image, the lidar scan, the state vector of
`observation.py`, the instruction and the reset flag; actions follow
`joint_position_v1` and are executed by the `servo` controller, or, with
`--controller balanced`, follow `decoupled_v1` and are executed by the
whole-body controller on the same robot (`balance.py`).
"""

from __future__ import annotations

import numpy as np

from ..base import FELL, SUCCESS, TIMEOUT, Cameras, StandardProtocol, Suite
from .subtasks import BY_KEY, CRUSHED, DROPPED, ERRAND, TASKS, TIPPED, UNSEATED, FiatluxErrand, FiatluxTask

IMAGE_KEY = "rgb_head"
CAMERA = "head_d435"
IMAGE_SIZE = 256
# Controller -> the contract its commands follow.
CONTRACTS = {"servo": "joint_position_v1", "balanced": "decoupled_v1"}


class Fiatlux(Suite):
    name = "fiatlux"
    protocol = StandardProtocol(
        name="fiatlux_subtasks_v1", episodes=4, seed_start=0, max_steps=TASKS[0].max_steps, controller="servo"
    )
    cameras = Cameras((CAMERA,), CAMERA, IMAGE_SIZE, IMAGE_SIZE)
    contract = "joint_position_v1"
    outcomes = (SUCCESS, TIMEOUT, FELL, TIPPED, DROPPED, CRUSHED, UNSEATED)
    builtin_policies = {"expert": "humanoidtoolbench.suites.fiatlux.expert:predict"}

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

    @property
    def conditions(self) -> tuple[FiatluxTask, ...]:
        return TASKS

    @property
    def named_only(self) -> tuple[FiatluxErrand, ...]:
        return (ERRAND,)

    def budget(self, condition: FiatluxTask | FiatluxErrand) -> int:
        return condition.max_steps

    def parse(self, text: str) -> FiatluxTask | None:
        """A full ID (case-insensitive) or its short key, e.g. `S03` or `ERRAND`."""
        key = text.strip().upper()
        return BY_KEY.get(key) or (ERRAND if key == ERRAND.key else None) or super().parse(text)

    def make_episode(self, condition: FiatluxTask, seed: int, controller, detail: str, look: str | None = None):
        from .episode import FiatluxEpisode

        return FiatluxEpisode(condition, seed, controller=controller, detail=detail, look=look)

    def gallery(self):
        from .gallery import gallery

        return gallery()

    def build_request(self, episode, image: np.ndarray, reset: bool) -> dict:
        return {
            "image": {IMAGE_KEY: image},
            "lidar": episode.lidar(),
            "state": {"states": episode.state().reshape(1, -1)},
            "instruction": episode.condition.instruction,
            "history": {"reset": reset},
        }

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

    def offline_report(self, output):
        from .bag import BAG_GLOB
        from .scoring import markdown, score_run

        if not any(output.glob(BAG_GLOB)):
            return None
        score = score_run(output)
        return markdown(score), score.to_json()


SUITE = Fiatlux()
