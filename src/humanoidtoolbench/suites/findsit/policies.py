"""Planners as policies: `oracle`, `random` and `llm`, each answering one decision per request.

A request carries the 448 x 448 ego image, the instruction and (for the
privileged oracle) simulator geometry. The reply is one `discrete_skill_v1`
row `[action_id, value]` and, as metadata, the decision's record (visible
state, calls, token usage, fallbacks), which the episode joins with the
image's target pixels for the paper metrics.
"""

from __future__ import annotations

import math
import os

import msgspec
import numpy as np

from ...policies.reply import EPISODE_SEED_KEY
from . import actions
from .planner import Decision, LanguageModelPlanner, Observation, RandomPlanner

IMAGE_KEY = "rgb_ego"
MODEL_CONFIG_ENV = "HTB_MODEL_CONFIG"  # set by htb-eval --model-config
# Oracle: how close counts as touching, and how it approaches.
TOUCH_M = 0.12
TURN_TOLERANCE_DEG = 12.0
ARRIVE_M = 0.3  # within this of the path's end, walk straight at the target
OVER_SEAT_M = 0.12  # the pelvis this close to the seat's middle sits down
STUCK_M = 0.02  # a step back that moved less than this met the backrest: sit where it is
SIT_BELOW_SEAT_M = 0.05  # the pelvis is commanded a little below the seat, so it rests on it


def _value(action: actions.Action) -> float:
    return float(next(iter(action.parameters.values()), 0.0))


class PlannerPolicy:
    """One planner per episode, restarted on each episode's first request."""

    def __init__(self, make, name: str, privileged: bool = False) -> None:
        self._make, self.policy_name, self.privileged = make, name, privileged
        self._planner, self._step = None, 0

    def __call__(self, request: dict) -> dict:
        if self._planner is None or request["history"]["reset"]:
            self._planner = self._make()
            self._planner.reset(request["instruction"], int(request.get(EPISODE_SEED_KEY, 0)))
            self._step = 0
        decision: Decision = self._planner.decide(
            Observation(np.asarray(request["image"][IMAGE_KEY]), self._step, request.get("privileged"))
        )
        record = msgspec.to_builtins(decision.record(self._step, None))
        self._step += 1
        return {"action": np.array([[decision.action.id, _value(decision.action)]]), "metadata": {"decision": record}}


class OraclePlanner:
    """Privileged geometry and the navigation grid's path: the ceiling of what planning can score.

    Follow the path by turning towards the next waypoint and walking; past its
    end, walk straight at the nearest target until touching it and stop, or,
    for bed, couch and toilet, to the spot in front of the seat's middle, turn
    the back to the seat, step back over it, sit at its height and stop.
    """

    name = "oracle"

    def reset(self, instruction: str, seed: int) -> None:
        self._sat = self._seating = False
        self._backing_from = None

    def decide(self, observation: Observation) -> Decision:
        action = self._choose(observation.privileged)
        return Decision(action=action, proposed=action, visible_state=f"The target {'is' if action.active_stop else 'is being approached'}.")

    def _choose(self, p: dict) -> actions.Action:
        x, y, yaw = p["pose"]
        if self._sat or (p["interact"] and p["pelvis_on_target"] and p["sits"]):
            return actions.STOP
        target = min(p["targets"], key=lambda t: math.dist((x, y), t["centre"][:2]))
        if p["target_distance"] <= TOUCH_M and not p["interact"]:
            return actions.STOP
        if p["interact"] and (self._seating or math.dist((x, y), target["approach"]) < ARRIVE_M / 2):
            self._seating = True  # in front of the seat: turn round, back onto it, sit
            return self._sit(x, y, yaw, target)
        path = [w for w in p["path"] if math.dist((x, y), w) > ARRIVE_M]
        end = target["approach"] if p["interact"] else _nearest_point(target["aabb"], (x, y))
        goal = path[0] if path else end
        return self._head_for(x, y, yaw, goal, remaining=math.dist((x, y), goal))

    def _head_for(self, x, y, yaw, goal, remaining: float) -> actions.Action:
        err = math.degrees((math.atan2(goal[1] - y, goal[0] - x) - yaw + math.pi) % (2 * math.pi) - math.pi)
        if abs(err) > TURN_TOLERANCE_DEG:
            return actions.parse_action(2, f"Turn<{'left' if err > 0 else 'right'}><{abs(err):.0f}>")
        speed = "fast" if remaining > 1.5 else "normal" if remaining > 0.6 else "slow"
        return actions.parse_action(0, f"Walk<forward><{speed}>")

    def _sit(self, x, y, yaw, target) -> actions.Action:
        cx, cy = target["seat_centre"]
        back = math.dist((x, y), (cx, cy))
        stuck = self._backing_from is not None and math.dist((x, y), self._backing_from) < STUCK_M
        if back > OVER_SEAT_M and not stuck:
            away = math.atan2(y - cy, x - cx)  # face away from the seat, back towards it
            err = math.degrees((away - yaw + math.pi) % (2 * math.pi) - math.pi)
            if abs(err) > TURN_TOLERANCE_DEG and back > 0.25:
                self._backing_from = None
                return actions.parse_action(2, f"Turn<{'left' if err > 0 else 'right'}><{abs(err):.0f}>")
            self._backing_from = (x, y)
            return actions.parse_action(5, f"Step back<{min(back, 0.6):.2f}>")
        self._sat = True
        return actions.parse_action(4, f"Sit down<{(target['seat_height'] or 0.5) - SIT_BELOW_SEAT_M:.2f}>")


def _nearest_point(aabb, xy) -> tuple[float, float]:
    lo, hi = np.asarray(aabb)[0], np.asarray(aabb)[1]
    return float(np.clip(xy[0], lo[0], hi[0])), float(np.clip(xy[1], lo[1], hi[1]))


def _language_model():
    from .planner import ChatClient, load_model_config

    path = os.environ.get(MODEL_CONFIG_ENV)
    if not path:
        raise RuntimeError(f"the llm planner needs a model configuration: htb-eval --model-config FILE (or {MODEL_CONFIG_ENV})")
    return LanguageModelPlanner(ChatClient(load_model_config(path)))


oracle = PlannerPolicy(OraclePlanner, "oracle", privileged=True)
random_planner = PlannerPolicy(RandomPlanner, "random")
llm = PlannerPolicy(_language_model, "llm")
