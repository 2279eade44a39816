"""The tool-use suite behind the Suite seam: 18 conditions, the public request and its schema, its tables.

Its policies speak `decoupled_v1` (registered here) on both controllers.

Importing this module loads no simulator: the episode and Gymnasium modules
are imported when an episode is made or an environment registered.
"""

from __future__ import annotations

import numpy as np

from ...control.contracts import register
from ...control.contracts.decoupled_v1 import DECOUPLED_V1, STATE_DIM
from ...policies.builtin import DECOUPLED_V1_BASELINES
from ...policies.openpi_keys import Key, OpenpiKeys
from ...policies.request_schema import image_and_state
from ...robot.cameras import CAMERA_NAMES, HEIGHT, WIDTH
from ..base import Cameras, StandardProtocol, Suite, summary_cell
from . import registry
from .expert.caution import CAUTIONS
from .registry import Condition

POLICY_CAMERA = "head_stereo_left"  # the one camera the policy sees; the other three are recorded
# The public protocol names the policy's image by its camera with an `rgb_` prefix.
IMAGE_KEY = f"rgb_{POLICY_CAMERA}"
# The public request, as a policy server checks it before the policy sees it.
REQUEST_SCHEMA = image_and_state("toolbench_request_v1", IMAGE_KEY, STATE_DIM)
# The same request as an openpi observation, in the key names openpi's single-camera examples use.
OPENPI_KEYS = OpenpiKeys((
    Key(f"image.{IMAGE_KEY}", "observation/image"),
    Key("state.states", "observation/state", squeeze=True),
    Key("instruction", "prompt"),
    Key("history.reset", "reset"),
))


def request(condition: Condition, image: np.ndarray, state: np.ndarray, reset: bool) -> dict:
    """The public request: exactly the fields a policy written for the protocol expects."""
    return {
        "image": {IMAGE_KEY: image},
        "state": {"states": state.reshape(1, -1).astype(np.float32)},
        "instruction": condition.instruction,
        # No image history is kept; like the original client, one empty list per image key.
        "history": {IMAGE_KEY: [], "reset": reset},
    }


class ToolBench(Suite):
    name = "toolbench"
    protocol = StandardProtocol(
        name="humanoidtoolbench_canonical_evaluation_v1",
        episodes=registry.EPISODES,
        seed_start=registry.SEED_START,
        max_steps=registry.MAX_STEPS,
        controller="balanced",  # a free-floating robot that can fall; "assisted" stays selectable by name
    )
    cameras = Cameras(CAMERA_NAMES, POLICY_CAMERA, WIDTH, HEIGHT)
    contract = register(DECOUPLED_V1).name
    request_schema = REQUEST_SCHEMA
    openpi_map = OPENPI_KEYS
    controller_tables = (CAUTIONS,)  # the expert's walk and reach settings by controller
    builtin_policies = {**DECOUPLED_V1_BASELINES, "expert": "humanoidtoolbench.suites.toolbench.expert.policy:predict"}

    @property
    def conditions(self) -> tuple[Condition, ...]:
        return registry.CONDITIONS

    @property
    def default_condition(self) -> Condition:
        return registry.parse(registry.DEFAULT_ENV)

    @property
    def controllers(self) -> tuple[str, ...]:
        return ("assisted", "balanced")  # both execute decoupled_v1 commands

    def parse(self, text: str) -> Condition | None:
        try:
            return registry.parse(text)
        except ValueError:
            return None

    def make_episode(self, condition: Condition, seed: int, controller, detail: str, look: str | None = None):
        from .episode import TaskEpisode

        return TaskEpisode(condition, seed, controller=controller, detail=detail, look=look or self.protocol.look)

    def build_request(self, episode, image: np.ndarray, reset: bool) -> dict:
        return request(episode.condition, image, episode.state(), reset)

    def gallery(self):
        from .gallery import gallery

        return gallery()

    def register_gymnasium(self, gymnasium) -> None:
        for cond in registry.CONDITIONS:
            if cond.env_id not in gymnasium.registry:
                gymnasium.register(
                    id=cond.env_id,
                    entry_point="humanoidtoolbench.suites.toolbench.env:HumanoidToolBenchEnv",
                    kwargs={"condition": cond.name},
                )

    # -- tables ---------------------------------------------------------------------
    def summary_markdown(self, rows: list[dict], mean: float | None, mean_note: str) -> list[str]:
        cells = {(r["scenario"], r["level"], r["mode"]): summary_cell(r) for r in rows}
        lines = ["| Scenario | Level | S | R |", "|---|---|---|---|"]
        for scenario in registry.SCENARIOS:
            for level in registry.LEVELS:
                s, r = (cells.get((scenario, level, mode), "—") for mode in registry.MODES)
                lines.append(f"| {scenario} | L{level} | {s} | {r} |")
        return lines

    def summary_fields(self, condition: Condition) -> dict:
        return {"scenario": condition.scenario, "level": condition.level, "mode": condition.mode}

    def report_groups(self, condition: Condition) -> dict[str, str]:
        mode = "R (decoy tool)" if condition.decoy else "S (no decoy)"
        return {"Mode": mode, "Level": f"L{condition.level}", "Scenario": condition.scenario}

    def failure_cause(self, condition: Condition, summary: dict) -> str:
        task, level = condition.task, condition.level
        final, ever = summary.get("final_metrics", {}), summary.get("ever_true", {})
        if summary.get("outcome") == "fell":
            return "fell"
        lift_max = summary.get("numeric_max", {}).get("tool_lift", 0.0)
        if not ever.get("picked_correct_tool"):
            return "correct tool never lifted" if lift_max < 0.02 else "tool lifted too little"
        if final.get("tool_lift", 0.0) < 0.02 and level > 0 and not final.get(task.done):
            return "grasp lost"
        if level == 0:
            return "lift not held for 50 steps"
        return task.failure(final, ever)


SUITE = ToolBench()
