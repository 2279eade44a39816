"""What the planner and the verifier are asked: our own wording of the published contract, and which proposals are checked."""

from __future__ import annotations

import json
from typing import Any

from ..actions import CLIMB_UP, STAND, VOCABULARY, WALK, Action

# Characters kept of each history field: enough for a sentence, small enough
# that a hundred-step episode's prompt stays the same size from step ten on.
CLIP_CHARS = {
    "visible_state": 220,
    "mid_level_progress_analysis": 220,
    "mid_level_goal": 160,
    "low_level_action_reasoning": 180,
    "action": 80,
    "verifier_rejection": 240,
}

# The planner's text fields its history shows again, clipped (the answer has three more: the action).
HISTORY_FIELDS = ("visible_state", "mid_level_progress_analysis", "mid_level_goal", "low_level_action_reasoning")

_ROBOT = (
    "You steer a Unitree G1 humanoid robot through an apartment. The attached image is the robot's own "
    "head-camera view right now; the robot's body and feet are just below its bottom edge."
)

_PLANNER_RULES = """\
Each step you choose one action. Every action except Stop/Stand moves the robot for 0.5 seconds.
- Search: if the goal object is not in view, turn to look around or walk into open space.
- Approach: walk until your body touches the object; a gap of even a few centimetres is not done.
- Sit (when the goal asks for it): with the seat touching you, turn until it is behind you (mark those turns
  "turn_for_sit": true), then Sit down<height> at the seat's height, then Stop/Stand with "stop_after_sit": true.
- Stop/Stand ends the episode: choose it only when the whole goal is done.
- additional_info is a JSON object: {} unless one of the two flags above applies."""

_PLANNER_ANSWER = """\
{
  "visible_state": "<what the image shows, the goal object included if it is there>",
  "mid_level_progress_analysis": "<how far the goal is, given the history>",
  "mid_level_goal": "<the next sub-goal>",
  "low_level_action_reasoning": "<why this action now>",
  "action_id": <0-7>,
  "action_name": "<the action name, exactly as listed, with its values>",
  "additional_info": {}
}"""

# Route -> what the verifier checks before accepting the proposal.
VERIFIER_ROUTES = {
    "walk": "Look at the straight lane ahead. Accept the walk if the lane is clear for the next 0.5 s and it "
    "brings the robot closer to the goal; if a wall, door or furniture is right ahead, replace it with a turn or "
    "side step toward open space (touching the goal object itself is wanted).",
    "stop": "Decide whether the whole goal is done: the robot's body touches the goal object (and, if asked, the "
    "robot sits on it). Accept Stop/Stand only then; otherwise replace it with the move that best continues.",
    "climb_up": "Accept only if a stair step is right at the feet and the robot faces the stairs; otherwise "
    "replace it with the smallest walk or turn that serves the goal.",
    "turn_for_sit": "Accept the turn only if the seat already touches the robot and this turn puts the seat "
    "behind it for sitting down; if there is still distance to the seat, replace it with a move toward the seat.",
    "stop_after_sit": "Accept unless the image clearly shows that sitting failed (legs not resting on the seat); "
    "an ambiguous view of the body is no reason to replace.",
}
_REPLACEMENT_IDS = (0, 2, 3, 5, 6, 7)  # the verifier may neither stop nor sit in the planner's place

_VERIFIER_ANSWER = """\
{
  "verdict": "accept" | "replace",
  "reason": "<one sentence>",
  "final_action_id": <id>,
  "final_action_name": "<the action to execute, exactly as listed, with its values>"
}"""


def action_space(ids: tuple[int, ...] | None = None) -> str:
    return "\n".join(f"{s.id}: {s.template} - {s.help}" for s in VOCABULARY if ids is None or s.id in ids)


def clip(text: Any, limit: int) -> str:
    flat = " ".join(str(text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def planner_prompt(goal: str, step: int, history: list[dict[str, Any]]) -> str:
    payload = {"goal": goal, "current_step": step, "current_ego_view_image": "attached", "history": history}
    return "\n\n".join(
        (
            _ROBOT,
            _PLANNER_RULES,
            "Actions (action_id: action_name - values):\n" + action_space(),
            "Answer with this JSON object and nothing else:\n" + _PLANNER_ANSWER,
            "Input:\n" + json.dumps(payload, ensure_ascii=False, indent=1),
        )
    )


def verifier_prompt(route: str, goal: str, proposed: Action, recent_actions: list[str]) -> str:
    payload: dict[str, Any] = {"goal": goal, "proposed_action": proposed.name}
    if proposed.turn_for_sit or proposed.stop_after_sit:
        payload["additional_info"] = {"turn_for_sit": True} if proposed.turn_for_sit else {"stop_after_sit": True}
    if route == "stop_after_sit":
        payload["recent_actions"] = recent_actions
    return "\n\n".join(
        (
            _ROBOT,
            f"You check the planner's proposed action: {proposed.name}. " + VERIFIER_ROUTES[route],
            "If it is right, accept it. Otherwise replace it with one of these:\n" + action_space(_REPLACEMENT_IDS),
            "Answer with this JSON object and nothing else:\n" + _VERIFIER_ANSWER,
            "Input:\n" + json.dumps(payload, ensure_ascii=False, indent=1),
        )
    )


def verifier_route(proposed: Action, sit_turn_verified: bool) -> str | None:
    """Which check a proposal gets; None for the actions that are accepted without a call.

    Of consecutive turn-to-sit turns only the first is checked: once the
    verifier agreed the seat is at the robot, the rest of the turn follows.
    """
    if proposed.turn_for_sit:
        return None if sit_turn_verified else "turn_for_sit"
    if proposed.stop_after_sit:
        return "stop_after_sit"
    return {WALK: "walk", STAND: "stop", CLIMB_UP: "climb_up"}.get(proposed.skill)
